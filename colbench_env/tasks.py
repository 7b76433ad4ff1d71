"""ColBench tasks: the official record formats, the embedded default sets, and loaders.

Official backend record (``backend_tasks/*.jsonl``)::

    {"problem_description": str,        # vague request; the signature sentence already appended
     "ground_truth": str,               # Python source of the personalised function
     "test_cases": {"test1": "f(...)"}  # or a JSON string of such a dict
     "hidden_information": str}         # what the human knows (often the ground truth itself)

Official frontend record: ``{"problem_description": str, "ground_truth": str}`` (HTML + Tailwind).

Embedded records add ``task_id`` and ``split`` (``"train"`` / ``"test"``) and, for backend tasks,
``generic_solution`` (what an agent writes without asking; the tests must reject it). Unknown
fields are kept in :attr:`BackendTask.extra` and written back by :meth:`BackendTask.to_record`.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Iterable, Union

__all__ = [
    "BackendTask",
    "FrontendTask",
    "Task",
    "TaskFormatError",
    "task_from_record",
    "read_task_file",
    "load_tasks",
    "default_tasks",
]

_BACKEND_KNOWN = ("problem_description", "ground_truth", "test_cases", "hidden_information", "task_id", "split")
_FRONTEND_KNOWN = ("problem_description", "ground_truth", "task_id", "split")


class TaskFormatError(ValueError):
    """A task record is malformed. The message names the source (file), line and field."""

    def __init__(self, message: str, *, source: str = "<record>", line: int | None = None, field: str | None = None):
        self.source, self.line, self.field = source, line, field
        where = source if line is None else f"{source}:{line}"
        what = f" field '{field}'" if field else ""
        super().__init__(f"{where}:{what} {message}")


@dataclass(frozen=True)
class BackendTask:
    """A backend-programming task: write a personalised Python function.

    Attributes:
        problem_description: what the human asks for (vague; ends with the signature sentence).
        ground_truth: Python source of the function the human really wants (hidden from the agent).
        test_cases: ``{"test1": "f(1, 2)", ...}``: calls evaluated on the ground truth and the answer.
        hidden_information: what the simulated human knows and may tell when asked.
        task_id: stable identifier (embedded/generated tasks; ``"<file>:<line>"`` for official files).
        split: ``"train"``, ``"test"`` or ``None``.
        extra: any other fields of the record, written back unchanged.
    """

    problem_description: str
    ground_truth: str
    test_cases: dict
    hidden_information: str
    task_id: str = ""
    split: str | None = None
    extra: dict = field(default_factory=dict, compare=False, hash=False)

    kind = "backend"

    def to_record(self) -> dict:
        """The official-format record (plus ``task_id``/``split``/extra fields when set)."""
        rec: dict[str, Any] = {
            "problem_description": self.problem_description,
            "ground_truth": self.ground_truth,
            "test_cases": dict(self.test_cases),
            "hidden_information": self.hidden_information,
        }
        if self.task_id:
            rec["task_id"] = self.task_id
        if self.split is not None:
            rec["split"] = self.split
        rec.update(self.extra)
        return rec

    @property
    def training_info(self) -> dict:
        """Training-time information (never shown to the agent)."""
        return {
            "ground_truth": self.ground_truth,
            "hidden_information": self.hidden_information,
            "test_cases": dict(self.test_cases),
        }


@dataclass(frozen=True)
class FrontendTask:
    """A frontend-design task: write an HTML + Tailwind page.

    Attributes:
        problem_description: the human's vague one-paragraph description of the page.
        ground_truth: the HTML page the human has in mind (hidden from the agent).
        task_id, split, extra: as for :class:`BackendTask`.
    """

    problem_description: str
    ground_truth: str
    task_id: str = ""
    split: str | None = None
    extra: dict = field(default_factory=dict, compare=False, hash=False)

    kind = "frontend"

    def to_record(self) -> dict:
        rec: dict[str, Any] = {"problem_description": self.problem_description, "ground_truth": self.ground_truth}
        if self.task_id:
            rec["task_id"] = self.task_id
        if self.split is not None:
            rec["split"] = self.split
        rec.update(self.extra)
        return rec

    @property
    def hidden_information(self) -> str:
        return self.ground_truth

    @property
    def training_info(self) -> dict:
        return {"ground_truth": self.ground_truth}


Task = Union[BackendTask, FrontendTask]


def _require_str(rec: dict, name: str, src: str, line: int | None, *, allow_empty: bool = False) -> str:
    if name not in rec:
        raise TaskFormatError("is missing", source=src, line=line, field=name)
    value = rec[name]
    if not isinstance(value, str):
        raise TaskFormatError(f"must be a string, got {type(value).__name__}", source=src, line=line, field=name)
    if not allow_empty and not value.strip():
        raise TaskFormatError("is empty", source=src, line=line, field=name)
    return value


def _parse_test_cases(value: Any, src: str, line: int | None) -> dict:
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except json.JSONDecodeError as e:
            raise TaskFormatError(f"is a string but not valid JSON ({e.msg} at char {e.pos})",
                                  source=src, line=line, field="test_cases") from None
    if not isinstance(value, dict):
        raise TaskFormatError(f"must be a dict {{'test1': 'f(...)'}} or a JSON string of one, got "
                              f"{type(value).__name__}", source=src, line=line, field="test_cases")
    if not value:
        raise TaskFormatError("has no tests", source=src, line=line, field="test_cases")
    for k, v in value.items():
        if not isinstance(v, str) or not v.strip():
            raise TaskFormatError(f"entry {k!r} must be a non-empty string (a Python call)",
                                  source=src, line=line, field="test_cases")
    return dict(value)


def task_from_record(rec: Any, *, kind: str | None = None, source: str = "<record>", line: int | None = None) -> Task:
    """Build a task from an official-format record (``dict``); ``kind`` is inferred when ``None``.

    Raises:
        TaskFormatError: naming ``source``, ``line`` and the offending field.
    """
    if isinstance(rec, (BackendTask, FrontendTask)):
        return rec
    if not isinstance(rec, dict):
        raise TaskFormatError(f"a task record must be a JSON object, got {type(rec).__name__}", source=source, line=line)
    if kind is None:
        kind = "backend" if ("test_cases" in rec or "hidden_information" in rec) else "frontend"
    default_id = f"{os.path.basename(source)}:{line}" if line is not None else ""
    task_id = rec.get("task_id", default_id)
    if not isinstance(task_id, (str, int)):
        raise TaskFormatError("must be a string", source=source, line=line, field="task_id")
    split = rec.get("split")
    if split is not None and split not in ("train", "test"):
        raise TaskFormatError(f"must be 'train' or 'test', got {split!r}", source=source, line=line, field="split")
    if kind == "backend":
        if "test_cases" not in rec:
            hint = "" if "hidden_information" in rec else " (a frontend task? it has no hidden_information either)"
            raise TaskFormatError("is missing" + hint, source=source, line=line, field="test_cases")
        extra = {k: v for k, v in rec.items() if k not in _BACKEND_KNOWN}
        return BackendTask(
            problem_description=_require_str(rec, "problem_description", source, line),
            ground_truth=_require_str(rec, "ground_truth", source, line),
            test_cases=_parse_test_cases(rec["test_cases"], source, line),
            hidden_information=_require_str(rec, "hidden_information", source, line, allow_empty=True),
            task_id=str(task_id), split=split, extra=extra,
        )
    if kind == "frontend":
        if "test_cases" in rec:
            raise TaskFormatError("is set: this is a backend task, not a frontend one", source=source, line=line,
                                  field="test_cases")
        extra = {k: v for k, v in rec.items() if k not in _FRONTEND_KNOWN}
        return FrontendTask(
            problem_description=_require_str(rec, "problem_description", source, line),
            ground_truth=_require_str(rec, "ground_truth", source, line),
            task_id=str(task_id), split=split, extra=extra,
        )
    raise ValueError(f"unknown task kind {kind!r} (expected 'backend' or 'frontend')")


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
            tasks, seeds 0..N-1; family from :data:`colbench_env.generator.FAMILIES`), a path to a
            ``.jsonl``/``.json`` file, or a sequence of tasks or records.
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
            if kind != "backend":
                raise ValueError("generated tasks exist for the backend only")
            from .generator import generate_tasks

            parts = s.split(":")
            if len(parts) > 4:
                raise ValueError(f"task spec {s!r}: expected 'generated:N:difficulty:family'")
            try:
                n = int(parts[1]) if len(parts) > 1 and parts[1] else 100
                difficulty = int(parts[2]) if len(parts) > 2 and parts[2] else 1
            except ValueError:
                raise ValueError(f"task spec {s!r}: N and difficulty must be integers "
                                 "('generated:N:difficulty:family')") from None
            family = parts[3] if len(parts) > 3 else "all"
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
