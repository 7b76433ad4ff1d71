"""``colbench pipeline-stats RUN_DIR [RUN_DIR ...] --out DIR``: the statistics of pipeline runs made
earlier -- per-method means with 95 % bootstrap intervals over tasks and seeds, paired comparisons,
and a plot (``stats.{json,md,png}`` in ``--out``), as ``colbench pipeline`` writes them after a run.

Each RUN_DIR is one pipeline output directory (one per seed, each with ``eval/<method>.jsonl``).
``--cluster template`` (generated tasks only) adds, next to every interval, the one with whole
templates resampled instead of tasks.

Python: :func:`colbench.pipeline.analyse_runs`.
"""
from __future__ import annotations

import argparse
from pathlib import Path

from colbench.errors import UsageError
from colbench.pipeline.analysis import CLUSTERS, analyse_runs

__all__ = ["add_arguments", "main"]


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("runs", nargs="+", help="pipeline output directories, one per seed")
    p.add_argument("--out", required=True, help="where stats.{json,md,png} are written")
    p.add_argument("--resamples", type=int, default=10000, help="bootstrap resamples")
    p.add_argument("--title", default="", help="the plot's title")
    p.add_argument("--cluster", choices=sorted(CLUSTERS), default=None,
                   help="also resample whole clusters of tasks (template: generated tasks' template)")


def main(args: argparse.Namespace) -> int:
    for d in args.runs:
        if not (Path(d) / "eval").is_dir():
            raise UsageError(f"{d}: no eval/ directory (not a pipeline output directory)")
    try:
        analyse_runs(args.runs, args.out, resamples=args.resamples, title=args.title, cluster=args.cluster)
    except ValueError as e:
        raise UsageError(str(e)) from None
    print((Path(args.out) / "stats.md").read_text())
    return 0
