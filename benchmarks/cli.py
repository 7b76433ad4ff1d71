"""Alias kept for old command lines (``python -m benchmarks.cli ...``): the ``colbench`` command is
:mod:`colbench.cli` (``python -m colbench ...``)."""
import sys

from colbench.cli import main

__all__ = ["main"]

if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
