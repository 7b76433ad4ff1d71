"""Record a simulator's replies to a jsonl store, and replay them without the simulator.

Replay makes runs with an expensive human (a 70B model behind an HTTP server) repeatable offline:
record once, then replay in tests, CI, or on a machine without the server.
"""
from __future__ import annotations

import hashlib
import json
import os
import threading
import time
from pathlib import Path
from typing import Any, Sequence

from .base import Simulator, SimulatorError

__all__ = ["RecordReplaySimulator", "replay_key"]

MODES = ("record", "replay", "cache")


def _task_record(task: Any) -> Any:
    if hasattr(task, "to_record"):
        return task.to_record()
    if isinstance(task, dict):
        return task
    raise TypeError(f"task must be a BackendTask/FrontendTask or a record dict, got {type(task).__name__}")


def replay_key(simulator_config: dict, task: Any, dialogue: Sequence[dict]) -> str:
    """The store key of one reply: sha256 of the canonical JSON (sorted keys, no spaces) of
    ``{"simulator": simulator_config, "task": task.to_record(), "dialogue": dialogue}``.

    Renders are not part of the key: they are a function of the task (target) and the dialogue
    (the agent's page).
    """
    payload = {"simulator": simulator_config, "task": _task_record(task),
               "dialogue": [{"role": m.get("role"), "content": m.get("content")} for m in dialogue]}
    canon = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    return hashlib.sha256(canon.encode("utf-8")).hexdigest()


class RecordReplaySimulator(Simulator):
    """Wraps a simulator with an append-only jsonl store of its replies.

    Args:
        inner: the simulator that really answers (``None`` allowed in ``"replay"`` mode).
        path: the jsonl store; each line ``{"key", "reply", "task_id", "turn", "config", "time", "human"}``
            (``human``: the identity of the simulator that gave the reply, :meth:`Simulator.identity`;
            stores written before it lack it).
        mode: ``"record"``: always ask ``inner`` and append (the latest entry of a key wins);
            ``"replay"``: answer only from the store; a miss raises :class:`SimulatorError` naming
            the path and the key; ``"cache"``: answer from the store, ask ``inner`` on a miss and
            append.
        config: the simulator config that keys were recorded under; default ``inner.config()``,
            or, in replay mode without ``inner``, the single config found in the store.

    The store tolerates a partial last line (an interrupted write): it is ignored when reading
    and the next append starts on a fresh line. Any other malformed line is an error naming the
    file and line. Appends are single writes on a file opened in append mode.
    """

    def __init__(self, inner: Simulator | None, path: str | os.PathLike, mode: str = "record", *,
                 config: dict | None = None) -> None:
        if mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}, got {mode!r}")
        if inner is None and mode != "replay":
            raise ValueError(f"mode {mode!r} needs an inner simulator to record from")
        if inner is not None and not isinstance(inner, Simulator):
            raise TypeError(f"inner must be a Simulator, got {type(inner).__name__}")
        self.inner, self.path, self.mode = inner, Path(path), mode
        self.kind = getattr(inner, "kind", "any")
        self._lock = threading.Lock()
        self._humans: dict[str, dict] = {}  # config (canonical JSON) -> the identity last recorded with it
        self._store, configs = self._load()
        if config is None:
            if inner is not None:
                config = inner.config()
            elif len(configs) == 1:
                config = json.loads(next(iter(configs)))
            elif not configs:
                raise SimulatorError(f"{self.path}: the replay store is empty or missing; record it first")
            else:
                raise SimulatorError(f"{self.path}: the store holds replies of {len(configs)} simulator configs; "
                                     "pass config= (or the inner simulator) to choose one")
        self._config = config

    # ------------------------------------------------------------------ store
    def _load(self) -> tuple[dict[str, str], set[str]]:
        store: dict[str, str] = {}
        configs: set[str] = set()
        if not self.path.exists():
            return store, configs
        lines = self.path.read_text(encoding="utf-8").split("\n")
        for lineno, line in enumerate(lines, 1):
            if not line.strip():
                continue
            last = lineno == len(lines)  # no newline after it: possibly an interrupted write
            try:
                rec = json.loads(line)
                key, reply = rec["key"], rec["reply"]
                if not isinstance(key, str) or not isinstance(reply, str):
                    raise TypeError
            except (ValueError, KeyError, TypeError):
                if last:
                    continue
                raise SimulatorError(f"{self.path}:{lineno}: malformed replay record (need JSON with string "
                                     f"'key' and 'reply'): {line[:120]!r}") from None
            store[key] = reply
            if "config" in rec:
                configs.add(json.dumps(rec["config"], sort_keys=True))
                if isinstance(rec.get("human"), dict):
                    self._humans[json.dumps(rec["config"], sort_keys=True)] = rec["human"]
        return store, configs

    def _append(self, records: list[dict]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        data = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)
        with self._lock, open(self.path, "a+b") as f:
            f.seek(0, os.SEEK_END)
            if f.tell() > 0:
                f.seek(-1, os.SEEK_END)
                if f.read(1) != b"\n":
                    data = "\n" + data  # close a partial last line
            f.write(data.encode("utf-8"))
            f.flush()
            os.fsync(f.fileno())

    @property
    def batched(self) -> bool:
        """As the inner simulator's; a replay without one only looks replies up (thread-safe)."""
        return bool(getattr(self.inner, "batched", True)) if self.inner is not None else False

    def __len__(self) -> int:
        return len(self._store)

    def key(self, task: Any, dialogue: Sequence[dict]) -> str:
        """The store key of a reply (see :func:`replay_key`)."""
        return replay_key(self._config, task, dialogue)

    # ------------------------------------------------------------------ Simulator
    def reply(self, task: Any, dialogue: Sequence[dict], renders: Any = None) -> str:
        return self.reply_batch([(task, dialogue, renders)])[0]

    def reply_batch(self, items: Sequence[tuple]) -> list[str]:
        items = [tuple(it) + (None,) * (3 - len(it)) for it in items]
        keys = [self.key(task, dialogue) for task, dialogue, _ in items]
        replies: list[str | None] = [None] * len(items)
        if self.mode != "record":
            for i, k in enumerate(keys):
                replies[i] = self._store.get(k)
        missing = [i for i, r in enumerate(replies) if r is None]
        if missing and self.mode == "replay":
            i = missing[0]
            raise SimulatorError(f"{self.path}: no recorded reply for key {keys[i]} "
                                 f"(task_id={getattr(items[i][0], 'task_id', '?')!r}, turn {len(items[i][1])}); "
                                 "record it with mode='record' or 'cache'")
        if missing:
            fresh = self.inner.reply_batch([items[i] for i in missing])
            now = time.time()
            human = self.inner.identity()  # after the replies: a server has reported its model
            records = []
            for i, reply in zip(missing, fresh):
                replies[i] = reply
                self._store[keys[i]] = reply
                records.append({"key": keys[i], "reply": reply, "task_id": getattr(items[i][0], "task_id", None),
                                "turn": len(items[i][1]), "config": self._config, "time": now, "human": human})
            self._append(records)
            self._humans[json.dumps(self._config, sort_keys=True)] = human
        return replies  # type: ignore[return-value]

    def config(self) -> dict:
        """The wrapped simulator's config (recording does not change what the human says)."""
        return self._config

    def identity(self) -> dict:
        """Recording (``"record"`` / ``"cache"``): the inner simulator's identity. Replaying:
        ``{"kind": "replay", "of": ...}`` with the identity recorded in the store with this config
        (for a store written before identities were kept, the one the config implies:
        :func:`~colbench_env.simulators.identity.identity_from_config`)."""
        if self.mode != "replay" and self.inner is not None:
            return self.inner.identity()
        from .identity import identity_from_config

        of = self._humans.get(json.dumps(self._config, sort_keys=True)) or identity_from_config(self._config)
        return {**super().identity(), "kind": "replay", "of": of}

    def close(self) -> None:
        if self.inner is not None:
            self.inner.close()
