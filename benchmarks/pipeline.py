"""Deprecated alias, kept for one release: the pipeline moved to :mod:`colbench.pipeline` (library:
``PipelineConfig``, ``run_pipeline``, ``PAPER_SETTINGS``, ...) and its command line to
:mod:`colbench.cli.pipeline` (``colbench pipeline``). This module goes in the release after 0.1.0;
import from ``colbench.pipeline`` instead. ``run_episodes`` is now ``run_stage_episodes``."""
import warnings

from colbench.cli.pipeline import add_arguments, main
from colbench.pipeline import *  # noqa: F401,F403
from colbench.pipeline import __all__ as _moved
from colbench.pipeline import run_stage_episodes as run_episodes
from colbench.pipeline.resume import human_version_changed

__all__ = [*_moved, "add_arguments", "main", "run_episodes", "human_version_changed"]

warnings.warn("benchmarks.pipeline is deprecated: import from colbench.pipeline (the command line is "
              "colbench.cli.pipeline); this alias goes in the next release", DeprecationWarning, stacklevel=2)
