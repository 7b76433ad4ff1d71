"""Deprecated alias, kept for one release: the bootstrap statistics moved to
:mod:`colbench.pipeline.stats` (``bootstrap_mean``, ``paired_bootstrap``, ``Interval``, ...). This
module goes in the release after 0.1.0; import from ``colbench.pipeline.stats`` instead."""
import warnings

from colbench.pipeline.stats import *  # noqa: F401,F403
from colbench.pipeline.stats import __all__  # noqa: F401

warnings.warn("benchmarks.stats is deprecated: import from colbench.pipeline.stats; this alias goes in the next "
              "release", DeprecationWarning, stacklevel=2)
