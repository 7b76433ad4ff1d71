"""Deprecated alias, kept for one release: the ``colbench`` command is :mod:`colbench.cli`
(``colbench ...`` or ``python -m colbench ...``). ``python -m benchmarks.cli ...`` still runs it; this
module goes in the release after 0.1.0."""
import sys

from colbench.cli import main

__all__ = ["main"]

if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
