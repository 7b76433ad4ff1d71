"""Scoring of final answers: backend (unit tests run in sandboxes) and frontend (visual similarity).

``import colbench_env.evaluation`` is light: the names below are imported on first use.

* :class:`BackendEvaluator`, :class:`BackendScore`, :class:`TestOutcome` (:mod:`.backend`):
  sandboxed, cached, parallel; ``semantics="reference"`` (default, :mod:`.reference`) or ``"python"``.
* :mod:`.inprocess`: the reference's UNSAFE in-process ``exec`` evaluator, a benchmark baseline only.
* :mod:`.cli`: ``colbench evaluate``.
"""
from __future__ import annotations

import importlib

__all__ = ["BackendEvaluator", "BackendScore", "TestOutcome"]

_LAZY = {"BackendEvaluator": ".backend", "BackendScore": ".backend", "TestOutcome": ".backend"}


def __getattr__(name: str):
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
