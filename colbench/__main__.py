"""``python -m colbench ...`` is the ``colbench`` command (e.g. under ``accelerate launch -m colbench``)."""
import sys

from colbench.cli import main

sys.exit(main())
