"""Hand-written sources of the embedded default task sets, and the one build that makes the packaged jsonl.

Each task is a folder of plain files -- code in ``.py`` files that editors and linters read, pages
in ``.html`` files that open in a browser, the words in a small ``task.yaml`` -- and
``python -m colbench_env.data.authoring.build`` turns them into the packaged jsonl files, byte for
byte the ones shipped (a test rebuilds them and compares). This folder is not installed (the wheel
ships only the jsonl).

Layout: ``<kind>/<set>/<id>_<name>/`` here builds ``colbench_env/data/<kind>/<set>.jsonl``::

    backend/part_a/a001_calculate_tip/      -> backend/part_a.jsonl (a001 ... a055)
        task.yaml             theme (a note, not shipped), description, hidden_information, test_cases
        ground_truth.py       the personalised function the human has in mind
        generic_solution.py   what an agent writes without asking
    backend/part_b/b001_reorder_quantity/   -> backend/part_b.jsonl (b001 ... b055)
    frontend/tasks/f001_bakery/             -> frontend/tasks.jsonl (f001 ... f032)
        task.yaml             design (a note, not shipped), description
        ground_truth.html     the page the human has in mind

A folder's name gives the task id (``a001``: one lower-case letter, three digits; the rest of the
name is for people) and its place: a set's folders sort by id, which must run 1, 2, ... without a
gap, with one letter per set. The split follows :func:`colbench_env.records.split_of` on the
number: every fifth backend task (``a005``, ``a010``, ...) and every fourth frontend task
(``f004``, ...) is ``"test"``, the others ``"train"``.

Records, in the official ColBench field order plus ours:

* backend: ``task_id``, ``split``, ``problem_description`` (the ``description`` as one line of
  single-spaced prose, then :data:`SIGNATURE_SENTENCE` and the ground truth's first ``def`` line
  without its colon), ``ground_truth`` (the file's text without leading and trailing blank lines),
  ``test_cases`` (``test1`` .. ``test10``, the ``test_cases`` list in order),
  ``hidden_information`` (one line of prose), ``generic_solution`` (code, as the ground truth).
* frontend: ``task_id``, ``split``, ``problem_description`` (one line of prose), ``ground_truth``
  (the page without leading and trailing blank lines).

What a good task is (the tests ``tests/test_authoring_*.py`` check what can be checked):

* Backend. ``description`` is the human's vague first-person request in 2-4 sentences; it never
  states the personal parameters (rates, thresholds, category names, orderings, rounding,
  edge-case rules). Those live in ``hidden_information``, one plain-words fact per sentence,
  worded the way an agent would ask about them, so that the description plus the hidden
  information fully determine the ground truth on the tests. The ground truth is a pure,
  deterministic, standard-library-only function, with any import inside its body (the reference
  scorer runs definitions in fresh locals), whose float results are rounded so that results
  compare exactly with ``==``. ``test_cases`` holds exactly 10 distinct calls with literal
  arguments, each returning a non-``None`` value, chosen to exercise every hidden rule and to stay
  clear of floating-point rounding ties. The generic solution is the plausible function an agent
  writes without asking (common conventions, sensible defaults): it defines the same function and
  fails at least one test.
* Frontend. ``description`` is the human's request in their own voice: the business, its
  audience, the overall feel and a few sections, never the exact colours, layout, copy or class
  names. The ground truth is a complete HTML document that links the Tailwind 2.2.19 stylesheet
  ``https://cdn.jsdelivr.net/npm/tailwindcss@2.2.19/dist/tailwind.min.css`` (exactly this URL),
  uses only Tailwind 2.2.19 utility classes, has no scripts, and whose only other external
  resources are ``https://picsum.photos/id/48/W/H`` images (ColBench normalises every picsum
  image to id 48).

A source that breaks these rules of form (a missing file or field, an unknown field, a wrong
number of tests, a bad folder name, a gap in the ids) raises :class:`TaskSourceError` naming the
file and the field.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

from ...records import Task, split_of, task_from_record

__all__ = ["SOURCES", "DATA", "SIGNATURE_SENTENCE", "TEST_EVERY", "TaskSourceError", "TaskSet", "words",
           "signature_of", "task_set", "task_sets", "load_records", "render", "build", "stale"]

SOURCES = Path(__file__).resolve().parent
"""This folder: ``<kind>/<set>/<task folder>/`` below it."""

DATA = SOURCES.parent
"""The packaged data folder, where :func:`build` writes by default (``<kind>/<set>.jsonl``)."""

SIGNATURE_SENTENCE = "The signature of the function is: "
"""The sentence that ends every ColBench backend problem description, followed by the def line."""

TEST_EVERY = {"backend": 5, "frontend": 4}
"""Task number ``n`` (1-based) of a set of this kind is ``"test"`` when ``n`` is a multiple of this."""

#: the files of a task folder of each kind, and the fields of its task.yaml: required, optional notes
_FILES = {"backend": ("task.yaml", "ground_truth.py", "generic_solution.py"),
          "frontend": ("task.yaml", "ground_truth.html")}
_FIELDS = {"backend": (("description", "hidden_information", "test_cases"), ("theme",)),
           "frontend": (("description",), ("design",))}
_N_TESTS = 10
_FOLDER = re.compile(r"([a-z])(\d{3})_[a-z0-9_]+")
_DEF_LINE = re.compile(r"^def [A-Za-z_][A-Za-z0-9_]*\(.*\):\s*$", re.M)


class TaskSourceError(ValueError):
    """A task source that cannot be built; the message names the file (and field) first."""


@dataclass(frozen=True)
class TaskSet:
    """One packaged file and the folder of task folders it is built from.

    Attributes:
        kind: ``"backend"`` or ``"frontend"``.
        name: the set's name, e.g. ``"part_a"``.
        path: the folder holding the set's task folders (``SOURCES / kind / name``).
    """

    kind: str
    name: str
    path: Path

    @property
    def target(self) -> Path:
        """The packaged file's path relative to the data folder: ``<kind>/<name>.jsonl``."""
        return Path(self.kind) / f"{self.name}.jsonl"

    def task_dirs(self) -> list[Path]:
        """The task folders in id order (every sub-folder; :func:`load_records` checks their names)."""
        return sorted((p for p in self.path.iterdir() if p.is_dir() and p.name != "__pycache__"),
                      key=lambda p: p.name)

    def tasks(self) -> list[Task]:
        """The set's tasks (:func:`load_records`, read as the packaged file's records are read)."""
        return [task_from_record(rec, kind=self.kind, source=str(self.path / rec["task_id"]))
                for rec in load_records(self)]


def words(text: str) -> str:
    """Authored prose as stored: one line, single spaces."""
    return " ".join(text.split())


def signature_of(source: str) -> str:
    """The first top-level ``def`` line of ``source`` without its colon, e.g. ``"def tip(bill, service)"``.

    Raises:
        ValueError: ``source`` has no top-level ``def`` line.
    """
    match = _DEF_LINE.search(source)
    if match is None:
        raise ValueError(f"no top-level 'def name(...):' line in source starting {source[:60]!r}")
    return match.group(0).rstrip()[:-1]


def task_set(target: str, root: str | Path = SOURCES) -> TaskSet:
    """The task set that builds ``target`` (``"<kind>/<set>"``, e.g. ``"backend/part_a"``).

    Raises:
        KeyError: no such set below ``root``.
    """
    for s in task_sets(root):
        if f"{s.kind}/{s.name}" == target:
            return s
    raise KeyError(f"no task set {target!r} below {root}")


def task_sets(root: str | Path = SOURCES) -> list[TaskSet]:
    """The task sets below ``root``: one per folder ``<kind>/<set>/`` with ``kind`` backend or frontend."""
    root = Path(root)
    return [TaskSet(kind, p.name, p) for kind in ("backend", "frontend") if (root / kind).is_dir()
            for p in sorted((root / kind).iterdir(), key=lambda p: p.name) if p.is_dir() and p.name != "__pycache__"]


def _read_text(path: Path) -> str:
    if not path.is_file():
        raise TaskSourceError(f"{path}: missing")
    text = path.read_text(encoding="utf-8").strip("\n")
    if not text.strip():
        raise TaskSourceError(f"{path}: empty")
    return text


def _read_yaml(path: Path, kind: str) -> dict:
    import yaml  # the dev extra's; authoring happens in a checkout

    try:
        data = yaml.safe_load(_read_text(path))
    except yaml.YAMLError as exc:
        raise TaskSourceError(f"{path}: not YAML: {' '.join(str(exc).split())}") from None
    if not isinstance(data, dict):
        raise TaskSourceError(f"{path}: must be a mapping of fields, got {type(data).__name__}")
    required, notes = _FIELDS[kind]
    unknown = sorted(set(data) - set(required) - set(notes))
    if unknown:
        raise TaskSourceError(f"{path}: {unknown[0]}: unknown field (fields: {', '.join(required + notes)})")
    for name in required:
        if name not in data:
            raise TaskSourceError(f"{path}: {name}: missing")
    for name in (*required, *notes):
        value = data.get(name)
        if name == "test_cases":
            if not isinstance(value, list) or len(value) != _N_TESTS:
                got = len(value) if isinstance(value, list) else type(value).__name__
                raise TaskSourceError(f"{path}: test_cases: needs a list of exactly {_N_TESTS} calls, got {got}")
            for i, call in enumerate(value, 1):
                if not isinstance(call, str) or not call.strip():
                    raise TaskSourceError(f"{path}: test_cases: item {i} must be a non-empty string, got {call!r}")
        elif name in data and (not isinstance(value, str) or not value.strip()):
            raise TaskSourceError(f"{path}: {name}: must be a non-empty string, got {value!r}")
    return data


def _record(kind: str, folder: Path, task_id: str, split: str) -> dict:
    files = [folder / name for name in _FILES[kind]]
    fields = _read_yaml(files[0], kind)
    if kind == "frontend":
        return {"task_id": task_id, "split": split, "problem_description": words(fields["description"]),
                "ground_truth": _read_text(files[1])}
    ground_truth, generic = _read_text(files[1]), _read_text(files[2])
    try:
        signature = signature_of(ground_truth)
    except ValueError as exc:
        raise TaskSourceError(f"{files[1]}: {exc}") from None
    return {
        "task_id": task_id,
        "split": split,
        "problem_description": f"{words(fields['description'])} {SIGNATURE_SENTENCE}{signature}",
        "ground_truth": ground_truth,
        "test_cases": {f"test{i}": call for i, call in enumerate(fields["test_cases"], 1)},
        "hidden_information": words(fields["hidden_information"]),
        "generic_solution": generic,
    }


def load_records(task_set: TaskSet) -> list[dict]:
    """The records of ``task_set``, in id order (the layout and record rules of this module).

    Raises:
        TaskSourceError: a folder name, file or field breaks the rules; the message names it.
    """
    records, letter = [], None
    dirs = task_set.task_dirs()
    if not dirs:
        raise TaskSourceError(f"{task_set.path}: no task folders")
    for number, folder in enumerate(dirs, 1):
        match = _FOLDER.fullmatch(folder.name)
        if match is None:
            raise TaskSourceError(f"{folder}: a task folder is named <letter><3 digits>_<name>, e.g. a001_calculate_tip")
        letter = letter or match.group(1)
        if match.group(1) != letter or int(match.group(2)) != number:
            raise TaskSourceError(f"{folder}: expected task {letter}{number:03d} here (ids run "
                                  f"{letter}001, {letter}002, ... without a gap, one letter per set)")
        records.append(_record(task_set.kind, folder, f"{letter}{number:03d}",
                               split_of(number, every=TEST_EVERY[task_set.kind])))
    return records


def render(task_set: TaskSet) -> str:
    """The jsonl text of ``task_set``: one JSON object per line (non-ASCII kept), newline-terminated."""
    return _jsonl(load_records(task_set))


def _jsonl(records: Iterable[dict]) -> str:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)


def build(out_dir: str | Path = DATA, *, root: str | Path = SOURCES) -> list[Path]:
    """Write every task set below ``root`` to ``out_dir/<kind>/<set>.jsonl`` and return the paths.

    Every set is rendered before anything is written, so a source error leaves every file as it was.
    """
    texts = {Path(out_dir) / s.target: render(s) for s in task_sets(root)}
    for path, text in texts.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode("utf-8"))
    return list(texts)


def stale(out_dir: str | Path = DATA, *, root: str | Path = SOURCES) -> list[Path]:
    """The packaged files under ``out_dir`` whose bytes differ from what :func:`build` would write."""
    out = []
    for s in task_sets(root):
        path = Path(out_dir) / s.target
        if not path.is_file() or path.read_bytes() != render(s).encode("utf-8"):
            out.append(path)
    return out
