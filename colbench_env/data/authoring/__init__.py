"""Hand-authored sources of the embedded default task sets (each module writes one jsonl).

One convention for every part: a module's ``TASKS`` (frontend: ``PAGES``) is a list in id order,
each entry written with keyword arguments (:func:`backend_task` for the backend parts:
``_task(number, description=..., ground_truth=..., tests=[...], hidden=..., generic=...)``);
``python -m colbench_env.data.authoring.<part> [PATH]`` writes the packaged jsonl, whose bytes the
tests compare with the file in the package.
"""
from __future__ import annotations

import json
import re
import sys
import textwrap
from pathlib import Path
from typing import Callable, Iterable, Sequence

__all__ = ["SIGNATURE_SENTENCE", "backend_task", "code", "words", "signature_of", "jsonl_text", "write_text",
           "write_cli"]

SIGNATURE_SENTENCE = "The signature of the function is: "
"""The sentence that ends every ColBench backend problem description, followed by the def line."""

_DEF_LINE = re.compile(r"^def [A-Za-z_][A-Za-z0-9_]*\(.*\):\s*$", re.M)


def code(source: str) -> str:
    """Authored source as stored: dedented, without leading and trailing blank lines."""
    return textwrap.dedent(source).strip("\n")


def words(text: str) -> str:
    """Authored prose as stored: one line, single spaces."""
    return " ".join(text.split())


def signature_of(source: str) -> str:
    """The first ``def`` line of ``source`` without its colon, e.g. ``"def tip(bill, service)"``.

    Raises:
        ValueError: ``source`` has no top-level ``def`` line.
    """
    match = _DEF_LINE.search(source)
    if match is None:
        raise ValueError(f"no top-level 'def name(...):' line in source starting {source[:60]!r}")
    return match.group(0).rstrip()[:-1]


def backend_task(*, task_id: str, split: str, description: str, ground_truth: str, tests: Sequence[str],
                 hidden: str, generic: str) -> dict:
    """One backend record, in the official field order plus ours: ``task_id``, ``split``,
    ``problem_description`` (``description`` as prose, then :data:`SIGNATURE_SENTENCE` and the
    ground truth's def line), ``ground_truth`` (code), ``test_cases`` (``test1`` .. ``test10``),
    ``hidden_information`` (prose), ``generic_solution`` (code)."""
    if len(tests) != 10:
        raise ValueError(f"task {task_id}: needs exactly 10 tests, got {len(tests)}")
    gt = code(ground_truth)
    return {
        "task_id": task_id,
        "split": split,
        "problem_description": f"{words(description)} {SIGNATURE_SENTENCE}{signature_of(gt)}",
        "ground_truth": gt,
        "test_cases": {f"test{i}": call for i, call in enumerate(tests, 1)},
        "hidden_information": words(hidden),
        "generic_solution": code(generic),
    }


def jsonl_text(records: Iterable[dict]) -> str:
    """One JSON object per line, non-ASCII kept, newline-terminated."""
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)


def write_text(path: str | Path, text: str) -> Path:
    """Write ``text`` to ``path`` (parents created) and return the path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def write_cli(argv: Sequence[str] | None, *, prog: str, write: Callable[[str | None], Path], count: int,
              what: str = "tasks") -> int:
    """``python -m PROG [PATH]``: write the module's jsonl (default: the packaged file)."""
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) > 1:
        print(f"usage: python -m {prog} [PATH]", file=sys.stderr)
        return 2
    out = write(args[0] if args else None)
    print(f"wrote {count} {what} to {out}")
    return 0
