"""Build the packaged task files from their sources (see :mod:`colbench_env.data.authoring`).

::

    python -m colbench_env.data.authoring.build             # rewrite colbench_env/data/<kind>/<set>.jsonl
    python -m colbench_env.data.authoring.build --out DIR   # write DIR/<kind>/<set>.jsonl instead
    python -m colbench_env.data.authoring.build --check     # exit 1, naming them, if packaged files are stale

A source error is one line ``build: error: <file>: <field>: ...``, exit 2, nothing written.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Sequence

from . import DATA, SOURCES, TaskSourceError, build, stale


def parser() -> argparse.ArgumentParser:
    """The command's argument parser."""
    p = argparse.ArgumentParser(prog="python -m colbench_env.data.authoring.build",
                                description="Build the embedded task sets' jsonl files from their task folders.")
    p.add_argument("--out", type=Path, default=DATA, metavar="DIR",
                   help="write DIR/<kind>/<set>.jsonl (default: the package's data folder, %(default)s)")
    p.add_argument("--sources", type=Path, default=SOURCES, metavar="DIR",
                   help="the task sources, DIR/<kind>/<set>/<task>/ (default: %(default)s)")
    p.add_argument("--check", action="store_true",
                   help="write nothing; exit 1 naming every file under --out that differs from its sources")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command; returns the exit status (0 built or up to date, 1 stale with ``--check``, 2 error)."""
    args = parser().parse_args(argv)
    try:
        if args.check:
            bad = stale(args.out, root=args.sources)
            for path in bad:
                print(f"stale: {path} (run `python -m colbench_env.data.authoring.build`)")
            return 1 if bad else 0
        for path in build(args.out, root=args.sources):
            print(f"wrote {path}")
    except TaskSourceError as exc:
        print(f"build: error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
