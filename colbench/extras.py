"""The optional extras (``pip install 'colbench[EXTRA]'``) and the import names each brings: one
table, which ``colbench setup`` reports and the commands check before they start working.

A command that needs an extra checks it first (:func:`require`): ``colbench view`` needs ``view``
(page templates, highlighting, charts) before it reads a file, and ``frontend`` (Chromium driver,
images) before it renders a frontend run's pages; a missing one is one line naming the extra and
the module that is missing, not a failure half way through. The extras themselves are declared in
``pyproject.toml`` (a test keeps this table to them).
"""
from __future__ import annotations

import importlib.util
import sys

from colbench.errors import UsageError

__all__ = ["EXTRA_MODULES", "EXTRA_USES", "MissingExtra", "extra_of", "missing", "require"]

#: extra -> the import names of what it installs that colbench uses (``colbench[all]`` is every one of
#: them)
EXTRA_MODULES: dict[str, tuple[str, ...]] = {
    "lm": ("torch", "transformers", "gguf", "safetensors"),
    "frontend": ("selenium", "PIL", "psutil"),
    "train": ("peft", "trl", "accelerate", "bitsandbytes"),
    "view": ("jinja2", "pygments", "matplotlib"),
    "bench": ("matplotlib",),
    "serve": ("openenv", "uvicorn", "fastapi"),
    "verifiers": ("verifiers",),
}
#: extra -> what needs it (``colbench setup`` prints it beside the extra)
EXTRA_USES: dict[str, str] = {
    "lm": "local models: the embedded SmolLM2, --agent hf / smollm2",
    "frontend": "ColBench-Frontend-v0: pages rendered in headless Chromium",
    "train": "colbench train, colbench pipeline",
    "view": "colbench view (a frontend run's pages also need 'frontend')",
    "bench": "the plots of colbench table, pipeline and bench",
    "serve": "colbench serve: ColBench as an OpenEnv environment server",
    "verifiers": "colbench.integrations.verifiers: ColBench as a verifiers taskset and env (vf-eval)",
}


class MissingExtra(UsageError):
    """A module of an extra the command needs is not installed (one line: the extra, the module,
    the ``pip install`` that brings it)."""


def missing(extra: str) -> list[str]:
    """The modules of ``extra`` (:data:`EXTRA_MODULES`) that cannot be imported here (looked up, not
    imported; a module set to ``None`` in ``sys.modules`` counts as missing, as ``import`` treats it)."""
    return [m for m in EXTRA_MODULES[extra] if not _importable(m)]


def _importable(module: str) -> bool:
    if module in sys.modules:
        return sys.modules[module] is not None
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def require(extra: str) -> None:
    """Raise :class:`MissingExtra` when a module of ``extra`` is missing (checked without importing it)."""
    gone = missing(extra)
    if gone:
        raise MissingExtra(f"this needs the '{extra}' extra (No module named {gone[0]!r}): "
                           f"pip install 'colbench[{extra}]'")


def extra_of(module: str, prefer: tuple[str, ...] = ()) -> str | None:
    """The extra that installs top-level module ``module``: the first of ``prefer`` that lists it, else
    the first in :data:`EXTRA_MODULES`; ``None`` for a module no extra brings."""
    for extra in (*prefer, *EXTRA_MODULES):
        if module in EXTRA_MODULES.get(extra, ()):
            return extra
    return None
