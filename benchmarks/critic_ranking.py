"""Deprecated alias, kept for one release: moved to :mod:`colbench.critics.ranking` (library) and
:mod:`colbench.cli.critic_ranking` (its command line, ``colbench critic-ranking``). This module goes in the release
after 0.1.0; import from ``colbench.critics.ranking`` instead. ``python -m benchmarks.critic_ranking ...``
still runs ``colbench critic-ranking ...``."""
import sys
import warnings

from colbench.cli.critic_ranking import add_arguments, main
from colbench.critics import ranking as _moved

globals().update({k: v for k, v in vars(_moved).items() if not k.startswith("__")})  # private names too
__all__ = [*_moved.__all__, "add_arguments", "main"]

if __name__ == "__main__":
    from colbench.cli import main as colbench_main

    sys.exit(colbench_main(["critic-ranking", *sys.argv[1:]]))
warnings.warn("benchmarks.critic_ranking is deprecated: import from colbench.critics.ranking (the command line is "
              "colbench.cli.critic_ranking); this alias goes in the next release", DeprecationWarning, stacklevel=2)
