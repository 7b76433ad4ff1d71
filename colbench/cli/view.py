"""``colbench view RUN.jsonl [RUN2.jsonl ...] --out report.html``: see what the agent said and why
it scored what it did, in one self-contained HTML file (no server, no network: open it from disk).

The page: every episode in a table (task id, reward, success, turns, the scoring reason, episode
errors; sort by any column, filter by run, outcome and reason, search by task id or any text);
each episode's dialogue (the agent's message as the human saw it, its thought folded away), final
answer and, backend, the per-test table that ``colbench evaluate --explain`` prints (episodes
without stored outcomes are scored now, in the sandbox), frontend, the page the agent showed at
each turn beside the target with the similarity; with two or more files, the first against each
other one task by task (counts that filter, episodes side by side); a summary with charts.

``colbench view --pipeline OUT_DIR`` writes a pipeline out-dir's report (results, plot, every
method's evaluation episodes beside zero-shot's) to ``OUT_DIR/report.html`` (or ``--out``).

Needs the ``view`` extra (``pip install 'colbench[view]'``), and for a frontend run's pages the
``frontend`` extra: both are checked before anything is read, scored or rendered (one line naming
the extra otherwise).

Python: :func:`colbench.viewer.write_view`, :func:`colbench.viewer.write_pipeline_report`.
"""
from __future__ import annotations

import argparse

from colbench.errors import UsageError

__all__ = ["add_arguments", "main"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("runs", metavar="RUN.jsonl", nargs="*",
                        help="trajectory files (official format), all backend or all frontend; with two or more, "
                             "the first is compared with each other one")
    parser.add_argument("--out", default=None, help="the HTML file to write (required unless --pipeline)")
    parser.add_argument("--labels", nargs="+", default=None, help="a name per file (default: the file names)")
    parser.add_argument("--title", default=None, help="the page title")
    parser.add_argument("--pipeline", metavar="OUT_DIR", default=None,
                        help="report on a colbench pipeline out-dir (written to OUT_DIR/report.html unless --out)")
    parser.add_argument("--semantics", choices=("reference", "python"), default="reference",
                        help="backend scoring semantics of episodes scored now (as colbench evaluate)")
    parser.add_argument("--no-score", action="store_true",
                        help="do not score backend episodes that have no stored per-test outcomes")
    parser.add_argument("--workers", type=int, default=None, help="sandbox workers for scoring (default: CPU count)")
    parser.add_argument("--render-pool", type=int, default=2, help="Chromium drivers rendering frontend pages")
    parser.add_argument("--no-progress", action="store_true", help="no progress bars")


def main(args: argparse.Namespace) -> int:
    from colbench.viewer import write_pipeline_report, write_view

    if args.pipeline is not None:
        if args.runs:
            raise UsageError("give either RUN.jsonl files or --pipeline OUT_DIR, not both")
        if args.labels:
            raise UsageError("--labels is for RUN.jsonl files (a pipeline report names its methods)")
        if args.workers is not None and args.workers < 1:
            raise UsageError(f"--workers must be >= 1, got {args.workers}")
        res = write_pipeline_report(args.pipeline, out=args.out, score=not args.no_score, workers=args.workers,
                                    progress=not args.no_progress)
    else:
        if not args.runs:
            raise UsageError("give one or more RUN.jsonl files (or --pipeline OUT_DIR)")
        if not args.out:
            raise UsageError("--out report.html is required")
        res = write_view(args.runs, args.out, labels=args.labels, title=args.title, semantics=args.semantics,
                         score=not args.no_score, workers=args.workers, render_pool=args.render_pool,
                         progress=not args.no_progress)
    print(f"wrote {res.path}: {res.episodes} episodes of {res.runs} run{'s' if res.runs != 1 else ''}, "
          f"{res.bytes / 2**20:.1f} MB" + (f", {res.scored} answers scored" if res.scored else ""))
    return 0
