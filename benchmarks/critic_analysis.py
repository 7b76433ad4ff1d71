"""Deprecated alias, kept for one release: moved to :mod:`colbench.critics.analysis` (library) and
:mod:`colbench.cli.critic_analysis` (its command line, ``colbench critic-analysis``). This module goes
in the release after 0.1.0; import from ``colbench.critics.analysis`` instead.
``python -m benchmarks.critic_analysis ...`` still runs ``colbench critic-analysis ...``."""
from benchmarks._deprecated import alias

alias(globals(), "colbench.critics.analysis", cli="colbench.cli.critic_analysis", command="critic-analysis",
      private=True)
