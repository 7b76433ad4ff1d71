"""Deprecated alias, kept for one release: the pipeline's statistics moved to
:mod:`colbench.pipeline.analysis` (``analyse_runs``, ...) and their command line to ``colbench
pipeline-stats`` (:mod:`colbench.cli.pipeline_stats`). This module goes in the release after 0.1.0.
``python -m benchmarks.pipeline_stats RUN_DIR ... --out DIR`` still runs ``colbench pipeline-stats
RUN_DIR ... --out DIR``."""
import sys
import warnings

from colbench.pipeline.analysis import *  # noqa: F401,F403
from colbench.pipeline.analysis import __all__ as _moved

__all__ = [*_moved, "main"]


def main(argv: list[str] | None = None) -> int:
    """``colbench pipeline-stats ARGV``."""
    from colbench.cli import main as colbench_main

    return colbench_main(["pipeline-stats", *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":
    sys.exit(main())
warnings.warn("benchmarks.pipeline_stats is deprecated: import from colbench.pipeline.analysis, run "
              "'colbench pipeline-stats'; this alias goes in the next release", DeprecationWarning, stacklevel=2)
