"""``colbench ARGS`` in a process of an ``accelerate launch`` (the tests' launches of a whole command):
``accelerate launch --config_file CONFIG tests/launch_colbench.py pipeline --paper ...``.

The command runs as ``python -m colbench ARGS`` would, except that DeepSpeed's shared-memory
all-reduce kernel is turned off: it compiles on first use (minutes) and ZeRO-3's gathers on CPU ranks
do not use it (gloo carries them), so a test's launch does not pay for its build."""
from __future__ import annotations

import sys


def main() -> int:
    try:
        import deepspeed.ops

        deepspeed.ops.__compatible_ops__["deepspeed_shm_comm"] = False
    except ImportError:
        pass
    from colbench.cli import main as colbench

    return colbench(sys.argv[1:])


if __name__ == "__main__":
    raise SystemExit(main())
