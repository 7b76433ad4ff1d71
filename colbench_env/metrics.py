"""Run metrics over scored trajectory records -- the one implementation behind ``colbench run``,
``colbench evaluate``, ``colbench table`` and the pipeline.

* backend (:func:`colbench_env.records.record_kind` of the task): ``tests_passed_pct`` = 100 x mean ``reward`` (the mean
  fraction of unit tests passed), ``success_rate`` = fraction of records with ``success`` true
  (every test passed);
* frontend: ``similarity`` = mean ``reward`` (visual similarity to the target page);
* both: ``count``, ``errors`` (records with an ``error``: the episode failed, e.g. the simulator's
  server was down; their reward is 0) and ``mean_turns`` (agent messages per episode).

A mixed list gets both groups' keys, each over its own records.
"""
from __future__ import annotations

from typing import Iterable

from .records import record_kind

__all__ = ["summarize", "format_summary", "is_backend_record"]


def is_backend_record(rec: dict) -> bool:
    """A backend trajectory (:func:`colbench_env.records.record_kind` of its task)."""
    return record_kind(rec["task"]) == "backend"


def _mean(xs: list[float]) -> float:
    return sum(xs) / len(xs) if xs else 0.0


def summarize(records: Iterable[dict]) -> dict:
    """The metrics of the module docstring; an empty list gives ``count`` 0 and backend zeros."""
    records = list(records)
    backend = [r for r in records if is_backend_record(r)]
    frontend = [r for r in records if not is_backend_record(r)]
    out: dict = {"count": len(records), "errors": sum(1 for r in records if r.get("error"))}
    if backend or not frontend:
        out["tests_passed_pct"] = 100.0 * _mean([float(r.get("reward") or 0.0) for r in backend])
        out["success_rate"] = _mean([1.0 if r.get("success") else 0.0 for r in backend])
    if frontend:
        out["similarity"] = _mean([float(r.get("reward") or 0.0) for r in frontend])
    out["mean_turns"] = _mean([float(sum(1 for m in r["dialogue_history"] if m["role"] == "assistant"))
                               for r in records])
    return out


def format_summary(m: dict) -> str:
    """One line: ``% tests passed 31.2  success rate 31.2%  episodes 16  errors 0  mean turns 3.00``."""
    parts = []
    if "tests_passed_pct" in m:
        parts.append(f"% tests passed {m['tests_passed_pct']:.1f}  success rate {100 * m['success_rate']:.1f}%")
    if "similarity" in m:
        parts.append(f"similarity {m['similarity']:.4f}")
    return "  ".join(parts + [f"episodes {m['count']}  errors {m['errors']}  mean turns {m['mean_turns']:.2f}"])
