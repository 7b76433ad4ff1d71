"""Deprecated alias, kept for one release: moved to :mod:`colbench.critics.analysis` (library) and
:mod:`colbench.cli.critic_analysis` (its command line, ``colbench critic-analysis``). This module goes in the release
after 0.1.0; import from ``colbench.critics.analysis`` instead. ``python -m benchmarks.critic_analysis ...``
still runs ``colbench critic-analysis ...``."""
import sys
import warnings

from colbench.cli.critic_analysis import add_arguments, main
from colbench.critics import analysis as _moved

globals().update({k: v for k, v in vars(_moved).items() if not k.startswith("__")})  # private names too
__all__ = [*_moved.__all__, "add_arguments", "main"]

if __name__ == "__main__":
    from colbench.cli import main as colbench_main

    sys.exit(colbench_main(["critic-analysis", *sys.argv[1:]]))
warnings.warn("benchmarks.critic_analysis is deprecated: import from colbench.critics.analysis (the command line is "
              "colbench.cli.critic_analysis); this alias goes in the next release", DeprecationWarning, stacklevel=2)
