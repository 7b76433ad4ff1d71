"""ColBench task records: the official record formats and the task dataclasses built from them.

Official backend record (``backend_tasks/*.jsonl``)::

    {"problem_description": str,        # vague request; the signature sentence already appended
     "ground_truth": str,               # Python source of the personalised function
     "test_cases": {"test1": "f(...)"}  # or a JSON string of such a dict
     "hidden_information": str}         # what the human knows (often the ground truth itself)

Official frontend record: ``{"problem_description": str, "ground_truth": str}`` (HTML + Tailwind).

Embedded records add ``task_id`` and ``split`` (``"train"`` / ``"test"``) and, for backend tasks,
``generic_solution`` (what an agent writes without asking; the tests must reject it). Unknown
fields are kept in :attr:`BackendTask.extra` and written back by :meth:`BackendTask.to_record`.

This module imports nothing else from the package: loading (:mod:`colbench_env.tasks`) and the
generator (:mod:`colbench_env.generator`) both build on it.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import Any, Union

__all__ = ["BackendTask", "FrontendTask", "Task", "TaskFormatError", "task_from_record", "record_kind", "split_of",
           "split_seeds"]

#: the official record's fields of each kind, in order
_BACKEND_OFFICIAL = ("problem_description", "ground_truth", "test_cases", "hidden_information")
_FRONTEND_OFFICIAL = ("problem_description", "ground_truth")
_BACKEND_KNOWN = (*_BACKEND_OFFICIAL, "task_id", "split")
_FRONTEND_KNOWN = (*_FRONTEND_OFFICIAL, "task_id", "split")


def record_kind(rec: Any) -> str:
    """The kind of an official task record (a dict) or a task: ``"backend"`` when it has
    ``test_cases`` or ``hidden_information`` (frontend records have neither), else ``"frontend"``.
    The one rule of the package, for task records and the ``task`` of trajectory records alike."""
    if isinstance(rec, (BackendTask, FrontendTask)):
        return rec.kind
    return "backend" if ("test_cases" in rec or "hidden_information" in rec) else "frontend"


def split_of(number: int, every: int = 5) -> str:
    """The held-out split rule of every task set made in this repo: ``"test"`` when ``number`` is a
    multiple of ``every``, else ``"train"``. The embedded backend sets number their tasks from 1
    (``a005``, ``a010``, ... are test), the generator uses its seed (seeds 0, 5, 10, ...), the
    embedded frontend set uses ``every=4``."""
    return "test" if number % every == 0 else "train"


def split_seeds(n: int, split: str | None = None, start: int = 0) -> list[int]:
    """The first ``n`` seeds ``start, start+1, ...`` of ``split`` (:func:`split_of`; ``None``: every
    seed): the seeds a generator's ``n`` tasks are drawn from.

    Raises:
        ValueError: for a negative ``n``, a bad ``split`` or a negative ``start``.
    """
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise ValueError(f"n must be a non-negative integer, got {n!r}")
    if split not in (None, "train", "test"):
        raise ValueError(f"split must be 'train', 'test' or None, got {split!r}")
    if isinstance(start, bool) or not isinstance(start, int) or start < 0:
        raise ValueError(f"start must be a non-negative integer (the first seed), got {start!r}")
    seeds: list[int] = []
    seed = start
    while len(seeds) < n:
        if split is None or split_of(seed) == split:
            seeds.append(seed)
        seed += 1
    return seeds


class TaskFormatError(ValueError):
    """A task record is malformed. The message names the source (file), line and field."""

    def __init__(self, message: str, *, source: str = "<record>", line: int | None = None, field: str | None = None):
        self.source, self.line, self.field = source, line, field
        where = source if line is None else f"{source}:{line}"
        what = f" field '{field}'" if field else ""
        super().__init__(f"{where}:{what} {message}")


def _to_record(task: Any, official: tuple[str, ...]) -> dict:
    """The task's ``official`` fields (dicts copied), its ``task_id`` / ``split`` (when set) and its
    extra fields."""
    rec = {name: dict(v) if isinstance(v := getattr(task, name), dict) else v for name in official}
    if task.task_id:
        rec["task_id"] = task.task_id
    if task.split is not None:
        rec["split"] = task.split
    rec.update(task.extra)
    return rec


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
        return _to_record(self, _BACKEND_OFFICIAL)

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
        """The official-format record (plus ``task_id``/``split``/extra fields when set)."""
        return _to_record(self, _FRONTEND_OFFICIAL)

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
        kind = record_kind(rec)
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
