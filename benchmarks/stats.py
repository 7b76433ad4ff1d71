"""Deprecated alias, kept for one release: the bootstrap statistics moved to
:mod:`colbench.pipeline.stats` (``bootstrap_mean``, ``paired_bootstrap``, ``Interval``, ...). This
module goes in the release after 0.1.0; import from ``colbench.pipeline.stats`` instead."""
from benchmarks._deprecated import alias

alias(globals(), "colbench.pipeline.stats")
