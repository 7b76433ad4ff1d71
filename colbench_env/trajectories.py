"""Trajectory files in the official ColBench format, and safe jsonl I/O.

One trajectory per line::

    {"task": {<official task record>},
     "dialogue_history": [{"role": "assistant", "content": str, "input"?: ..., "output"?: str,
                           "finish_reason"?: "stop" | "length", "tokens"?: {...}},
                          {"role": "user", "content": str}, ...],
     "answer": str,
     "reward"?: float, "success"?: bool,
     # colbench adds, and readers ignore when absent:
     "task_id"?: str, "episode_id"?: str, "seed"?: int, "env_id"?: str, "error"?: str,
     "human"?: {...},        # who played the human (colbench_env.simulators.identity); absent: unknown
     "human_flags"?: [...]}  # the human turns' faults (colbench audit dialogues --out)

``role == "assistant"`` is the LLM agent, ``"user"`` the (simulated) human. On assistant turns
``content`` is the message the human saw, ``output`` the raw generation (thought included) and
``input`` what the agent was given (its observation) when recorded; colbench adds ``finish_reason``
when the generation said why it ended (``"length"``: cut at ``max_new_tokens``, so the policy
produced no end-of-turn token and the trainers do not train one), and ``tokens`` when the policy
recorded the token ids it saw and produced (:mod:`colbench_env.lm.tokens`: what the trainers train on
instead of re-tokenizing the text). Readers that do not know a field ignore it.

Files are written append-only (one complete line per flush: a crash loses at most the line being
written, never earlier ones) or atomically (temp file + ``os.replace``).
"""
from __future__ import annotations

import contextlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any, Iterable, Iterator

__all__ = ["TrajectoryFormatError", "read_jsonl", "read_trajectories", "append_jsonl", "atomic_write_jsonl",
           "atomic_open", "validate_trajectory"]


class TrajectoryFormatError(ValueError):
    """A malformed trajectory line; the message names the file, line and field."""


def read_jsonl(path: str | os.PathLike, *, tolerate_partial_last_line: bool = False) -> Iterator[tuple[int, Any]]:
    """Yield ``(line_number, record)`` for each non-blank line.

    Args:
        tolerate_partial_last_line: skip an unterminated, unparsable last line (what an interrupted
            append leaves behind) instead of raising.
    """
    path = os.fspath(path)
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().split("\n")
    except UnicodeDecodeError as e:
        raise TrajectoryFormatError(f"{path}: not UTF-8 text (byte {e.start}; a binary file?)") from None
    except IsADirectoryError:
        raise TrajectoryFormatError(f"{path}: is a directory, not a trajectory file") from None
    last_index = len(lines) - 1
    for i, raw in enumerate(lines):
        if not raw.strip():
            continue
        try:
            yield i + 1, json.loads(raw)
        except json.JSONDecodeError as e:
            if tolerate_partial_last_line and i == last_index:
                return
            raise TrajectoryFormatError(f"{path}:{i + 1}: invalid JSON ({e.msg} at column {e.colno})") from None


def validate_trajectory(rec: Any, *, source: str = "<trajectory>", line: int | None = None) -> dict:
    """Check the official trajectory fields; returns ``rec``."""
    where = source if line is None else f"{source}:{line}"
    if not isinstance(rec, dict):
        raise TrajectoryFormatError(f"{where}: a trajectory must be a JSON object, got {type(rec).__name__}")
    if "task" not in rec:
        raise TrajectoryFormatError(f"{where}: field 'task' is missing")
    if not isinstance(rec["task"], dict):
        raise TrajectoryFormatError(f"{where}: field 'task' must be an object (the task record)")
    dh = rec.get("dialogue_history", [])
    if not isinstance(dh, list):
        raise TrajectoryFormatError(f"{where}: field 'dialogue_history' must be a list")
    for j, m in enumerate(dh):
        if not isinstance(m, dict) or "role" not in m or "content" not in m:
            raise TrajectoryFormatError(f"{where}: field 'dialogue_history[{j}]' must be an object with 'role' and 'content'")
    if "answer" in rec and rec["answer"] is not None and not isinstance(rec["answer"], str):
        raise TrajectoryFormatError(f"{where}: field 'answer' must be a string")
    return rec


def read_trajectories(path: str | os.PathLike, *, tolerate_partial_last_line: bool = False) -> list[dict]:
    """Read and validate a trajectory jsonl file."""
    src = os.fspath(path)
    return [validate_trajectory(r, source=src, line=n)
            for n, r in read_jsonl(src, tolerate_partial_last_line=tolerate_partial_last_line)]


def _drop_partial_last_line(f) -> None:
    """Truncate an unterminated last line (an append interrupted mid-record: never a complete
    record) so that the next record starts on a line of its own."""
    end = f.seek(0, os.SEEK_END)
    if end == 0:
        return
    f.seek(end - 1)
    if f.read(1) == b"\n":
        return
    pos = end
    while pos > 0:
        step = min(65536, pos)
        f.seek(pos - step)
        chunk = f.read(step)
        i = chunk.rfind(b"\n")
        if i >= 0:
            f.truncate(pos - step + i + 1)
            return
        pos -= step
    f.truncate(0)


def append_jsonl(path: str | os.PathLike, records: Iterable[dict]) -> None:
    """Append records, one line each, flushed and fsynced. An unterminated last line left by an
    earlier interrupted append (a partial record) is dropped first; complete lines are never touched."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "r+b" if path.exists() else "w+b") as f:
        _drop_partial_last_line(f)
        f.seek(0, os.SEEK_END)
        for rec in records:
            f.write((json.dumps(rec, ensure_ascii=False, allow_nan=False) + "\n").encode("utf-8"))
        f.flush()
        os.fsync(f.fileno())


@contextlib.contextmanager
def atomic_open(path: str | os.PathLike) -> Iterator:
    """A text file (UTF-8) that replaces ``path`` when the ``with`` block ends without an exception
    (written to a temporary file beside it, fsynced, then ``os.replace``d): readers see the old file
    or the whole new one; on an exception ``path`` is left as it was and the temporary file removed."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def atomic_write_jsonl(path: str | os.PathLike, records: Iterable[dict]) -> None:
    """Write all records to ``path`` atomically: readers see the old file or the whole new one."""
    with atomic_open(path) as f:
        for rec in records:
            f.write(json.dumps(rec, ensure_ascii=False, allow_nan=False) + "\n")
