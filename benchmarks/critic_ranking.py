"""Deprecated alias, kept for one release: the critic ranking moved to :mod:`colbench.critics.ranking`
and its command line to :mod:`colbench.cli.critic_ranking` (``colbench critic-ranking``). This module
goes in the release after 0.1.0; import from ``colbench.critics.ranking`` instead.
``python -m benchmarks.critic_ranking ...`` still runs ``colbench critic-ranking ...``."""
from benchmarks._deprecated import alias

alias(globals(), "colbench.critics.ranking", cli="colbench.cli.critic_ranking", command="critic-ranking",
      private=True)
