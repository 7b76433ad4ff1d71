"""Deprecated alias, kept for one release: the pipeline's statistics moved to
:mod:`colbench.pipeline.analysis` (``analyse_runs``, ...) and their command line to ``colbench
pipeline-stats`` (:mod:`colbench.cli.pipeline_stats`). This module goes in the release after 0.1.0.
``python -m benchmarks.pipeline_stats RUN_DIR ... --out DIR`` still runs ``colbench pipeline-stats
RUN_DIR ... --out DIR``."""
from benchmarks._deprecated import alias

alias(globals(), "colbench.pipeline.analysis", command="pipeline-stats")
