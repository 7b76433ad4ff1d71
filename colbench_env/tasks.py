"""Loading ColBench tasks: every task specification (the embedded default sets, official jsonl
files, ``generated:N:difficulty:family``, ``generated-frontend:N:difficulty:family``, lists of
records) resolves here, in :func:`load_tasks`.

The record formats and the task classes are in :mod:`colbench_env.records` (re-exported here);
procedural tasks come from :mod:`colbench_env.generator`, which this module alone imports.
"""
from __future__ import annotations

import json
import os
from importlib import resources
from pathlib import Path
from typing import Any, Iterable

from .generator import check_difficulty, check_family, generate_tasks
from .generator.frontend import check_frontend_difficulty, check_frontend_family, generate_frontend_tasks
from .records import BackendTask, FrontendTask, Task, TaskFormatError, task_from_record

__all__ = [
    "BackendTask",
    "FrontendTask",
    "Task",
    "TaskFormatError",
    "task_from_record",
    "read_task_file",
    "load_tasks",
    "default_tasks",
    "generated_spec",
    "parse_generated_spec",
]


def read_task_file(path: str | os.PathLike, *, kind: str | None = None) -> list[Task]:
    """Read a jsonl task file (one official record per line; blank lines skipped).

    A ``.json`` file holding a list of records is accepted too.
    """
    path = Path(path)
    src = str(path)
    if not path.exists():
        raise FileNotFoundError(f"task file not found: {src}")
    if path.is_dir():
        raise TaskFormatError("is a directory, not a task file", source=src)
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as e:
        raise TaskFormatError(f"not UTF-8 text (byte {e.start}; a binary file?)", source=src) from None
    if not text.strip():
        raise TaskFormatError("the file is empty (expected one task record per line)", source=src)
    tasks: list[Task] = []
    if path.suffix == ".json":
        try:
            data = json.loads(text)
        except json.JSONDecodeError as e:
            raise TaskFormatError(f"invalid JSON: {e.msg}", source=src, line=e.lineno) from None
        if not isinstance(data, list):
            raise TaskFormatError("a .json task file must hold a list of records", source=src)
        return [task_from_record(r, kind=kind, source=src, line=i) for i, r in enumerate(data, 1)]
    for lineno, raw in enumerate(text.splitlines(), 1):
        if not raw.strip():
            continue
        try:
            rec = json.loads(raw)
        except json.JSONDecodeError as e:
            raise TaskFormatError(f"invalid JSON ({e.msg} at column {e.colno})", source=src, line=lineno) from None
        tasks.append(task_from_record(rec, kind=kind, source=src, line=lineno))
    return tasks


def default_tasks(kind: str = "backend", split: str | None = None) -> list[Task]:
    """The embedded default set (authored in this repo), optionally one split."""
    if kind not in ("backend", "frontend"):
        raise ValueError(f"unknown task kind {kind!r} (expected 'backend' or 'frontend')")
    folder = resources.files("colbench_env") / "data" / kind
    tasks: list[Task] = []
    for entry in sorted(folder.iterdir(), key=lambda p: p.name):
        if entry.name.endswith(".jsonl"):
            with resources.as_file(entry) as p:
                tasks.extend(read_task_file(p, kind=kind))
    if split is not None:
        if split not in ("train", "test"):
            raise ValueError(f"split must be 'train', 'test' or None, got {split!r}")
        tasks = [t for t in tasks if t.split == split]
    return tasks


def load_tasks(spec: Any = "default", *, kind: str = "backend", split: str | None = None) -> list[Task]:
    """Resolve a task specification into a list of tasks.

    Args:
        spec: ``"default"`` (embedded set), ``"generated"`` / ``"generated:N"`` /
            ``"generated:N:difficulty"`` / ``"generated:N:difficulty:family"`` (procedural backend
            tasks, seeds 0..N-1; family from :data:`colbench_env.generator.FAMILIES`),
            ``"generated-frontend[:N[:difficulty[:family]]]"`` (procedural frontend tasks, the same
            way; :mod:`colbench_env.generator.frontend`), a path to a ``.jsonl``/``.json`` file, or a
            sequence of tasks or records.
        kind: ``"backend"`` or ``"frontend"``.
        split: keep only ``"train"`` or ``"test"`` tasks (tasks without a split are kept when
            loading a file that has no split information).
    """
    if isinstance(spec, (BackendTask, FrontendTask)):
        return [spec]
    if isinstance(spec, (str, os.PathLike)):
        s = os.fspath(spec)
        if s == "default":
            return default_tasks(kind, split)
        if s.startswith("generated"):
            n, difficulty, family = parse_generated_spec(s)
            if s.split(":")[0] == _FRONTEND_PREFIX:
                if kind != "frontend":
                    raise ValueError(f"task spec {s!r} makes frontend tasks (ColBench-Frontend-v0, kind='frontend'), "
                                     f"not {kind} tasks")
                return generate_frontend_tasks(n, difficulty=difficulty, split=split, family=family)
            if kind != "backend":
                raise ValueError(f"task spec {s!r} makes backend tasks; generated frontend tasks are "
                                 "'generated-frontend:N:difficulty[:family]'")
            return list(generate_tasks(n, difficulty=difficulty, split=split, family=family))
        tasks = read_task_file(s, kind=kind)
    elif isinstance(spec, Iterable):
        tasks = [task_from_record(r, kind=kind, source="<tasks>", line=i) for i, r in enumerate(spec, 1)]
    else:
        raise TypeError(f"tasks must be 'default', a path, or a list of tasks/records, got {type(spec).__name__}")
    if split is not None and any(t.split is not None for t in tasks):
        tasks = [t for t in tasks if t.split == split]
    if not tasks:
        raise ValueError(f"no tasks in {spec!r}" + (f" for split {split!r}" if split else ""))
    return tasks


#: the first part of a generated frontend spec (``"generated-frontend:N:difficulty:family"``)
_FRONTEND_PREFIX = "generated-frontend"


def parse_generated_spec(spec: str) -> tuple[int, int, str]:
    """``(n, difficulty, family)`` of a ``"generated[:N[:difficulty[:family]]]"`` spec (defaults 100,
    1, ``"all"``), each part checked (difficulty and family by :mod:`colbench_env.generator`); a
    ``"generated-frontend[:N[:difficulty[:family]]]"`` spec the same way, checked by
    :mod:`colbench_env.generator.frontend`.

    Raises:
        ValueError: naming the spec and the part at fault.
    """
    parts = spec.split(":")
    head = parts[0]
    if head not in ("generated", _FRONTEND_PREFIX) or len(parts) > 4:
        raise ValueError(f"task spec {spec!r}: expected 'generated:N:difficulty:family'"
                         + (" or 'generated-frontend:N:difficulty:family'" if head != "generated" else ""))
    try:
        n = int(parts[1]) if len(parts) > 1 and parts[1] else 100
        difficulty = int(parts[2]) if len(parts) > 2 and parts[2] else 1
    except ValueError:
        raise ValueError(f"task spec {spec!r}: N and difficulty must be integers "
                         f"('{head}:N:difficulty:family')") from None
    if n < 0:
        raise ValueError(f"task spec {spec!r}: N must be >= 0")
    family = parts[3] if len(parts) > 3 else "all"
    if head == _FRONTEND_PREFIX:
        check_frontend_family(family)
        check_frontend_difficulty(difficulty, family)
    else:
        check_difficulty(difficulty)
        check_family(family)
    return n, difficulty, family


def generated_spec(n: int = 100, difficulty: int = 1, family: str = "all", kind: str = "backend") -> str:
    """The task spec ``"generated:N:difficulty:family"`` (``kind="frontend"``:
    ``"generated-frontend:N:difficulty:family"``) for :func:`load_tasks`, checked now (so a config can
    reject a bad difficulty or family when it is built, with the generator's message)."""
    if kind not in ("backend", "frontend"):
        raise ValueError(f"unknown task kind {kind!r} (expected 'backend' or 'frontend')")
    spec = f"{_FRONTEND_PREFIX if kind == 'frontend' else 'generated'}:{n}:{difficulty}:{family}"
    parse_generated_spec(spec)
    return spec
