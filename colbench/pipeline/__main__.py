"""``python -m colbench.pipeline ...`` is ``colbench pipeline ...``."""
import sys

from colbench.cli import main

sys.exit(main(["pipeline", *sys.argv[1:]]))
