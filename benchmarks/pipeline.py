"""Deprecated alias, kept for one release: the pipeline moved to :mod:`colbench.pipeline` (library:
``PipelineConfig``, ``run_pipeline``, ``PAPER_SETTINGS``, ...) and its command line to
:mod:`colbench.cli.pipeline` (``colbench pipeline``). This module goes in the release after 0.1.0;
import from ``colbench.pipeline`` instead. ``run_episodes`` is now ``run_stage_episodes``."""
from benchmarks._deprecated import alias

alias(globals(), "colbench.pipeline", cli="colbench.cli.pipeline")
run_episodes = run_stage_episodes  # noqa: F821 (set by alias)
from colbench.pipeline.resume import human_version_changed  # noqa: E402

__all__ += ["run_episodes", "human_version_changed"]  # noqa: F821
