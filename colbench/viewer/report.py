"""``write_view``: trajectory files -> one self-contained HTML report (see :mod:`colbench.viewer`)."""
from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from colbench.errors import UsageError
from colbench_env.trajectories import atomic_open

from .data import Run, compare_runs, load_runs, score_runs

__all__ = ["ViewResult", "write_view", "write_runs", "check_out"]


@dataclass(frozen=True)
class ViewResult:
    """What :func:`write_view` wrote.

    Attributes:
        path: the HTML file.
        episodes: episodes in it.
        runs: runs in it.
        bytes: its size.
        scored: answers scored now in the sandbox (backend episodes without stored outcomes).
        seconds: wall-clock time it took.
    """

    path: str
    episodes: int
    runs: int
    bytes: int
    scored: int
    seconds: float


def check_out(out: str | os.PathLike, inputs: Sequence[str | os.PathLike] = ()) -> Path:
    """The report path, checked before anything runs: not a folder, not one of the inputs, in a
    folder that exists (or can be made) and can be written."""
    p = Path(out)
    if p.exists() and not p.is_file():
        raise UsageError(f"--out {out}: not a regular file")
    for src in inputs:
        if Path(src).exists() and p.exists() and os.path.samefile(src, p):
            raise UsageError(f"--out {out}: is one of the trajectory files read")
    parent = p.parent if str(p.parent) else Path(".")
    while not parent.exists():
        parent = parent.parent
    if not parent.is_dir():
        raise UsageError(f"--out {out}: {parent} is not a folder")
    if not os.access(parent, os.W_OK) or (p.exists() and not os.access(p, os.W_OK)):
        raise UsageError(f"--out {out}: not writable")
    return p


def write_runs(runs: Sequence[Run], out: str | os.PathLike, *, comparisons: Sequence[tuple[int, int]] | None = None,
               title: str = "colbench view", results_html: str | None = None, notes: Sequence[str] = (),
               semantics: str = "reference", score: bool = True, workers: int | None = None,
               render_pool: int = 2, progress: bool = True) -> ViewResult:
    """Score and render loaded runs (:func:`colbench.viewer.data.load_runs`) and write the report.

    Args:
        comparisons: ``(a, b)`` run-index pairs to compare task by task (default: the first run
            against each other one).
        results_html: a "Results" view shown first (the pipeline's tables and plots).
        semantics / score / workers: backend scoring of episodes without stored outcomes
            (:func:`colbench.viewer.data.score_runs`); ``score=False`` leaves their tables empty.
        render_pool: Chromium drivers rendering frontend pages.
    """
    from colbench.extras import require

    require("view")  # templates, highlighting, charts: said now, not after the scoring and the renders
    if runs[0].kind == "frontend":
        require("frontend")  # the pages are rendered in headless Chromium
    from .charts import summary_charts
    from .html import render_report
    from .pages import render_pages

    t0 = time.perf_counter()
    out = Path(out)
    scored = score_runs(runs, semantics=semantics, workers=workers, progress=progress) if score else 0
    images = render_pages(runs, pool_size=render_pool, progress=progress) if runs[0].kind == "frontend" else {}
    pairs = list(comparisons) if comparisons is not None else [(0, k) for k in range(1, len(runs))]
    for a, b in pairs:
        if not (0 <= a < len(runs) and 0 <= b < len(runs)) or a == b:
            raise ValueError(f"comparison ({a}, {b}): not two different runs of {len(runs)}")
    comps = [compare_runs(runs, a, b) for a, b in pairs]
    page = render_report(runs, comparisons=comps, charts=summary_charts(runs), images=images, title=title,
                         results_html=results_html, notes=notes)
    with atomic_open(out) as f:  # readers see the old report or the whole new one
        f.write(page)
    os.chmod(out, 0o644)  # a report is for reading: not the temporary file's 0600
    return ViewResult(path=str(out), episodes=sum(len(r.episodes) for r in runs), runs=len(runs),
                      bytes=out.stat().st_size, scored=scored, seconds=time.perf_counter() - t0)


def write_view(paths: Sequence[str | os.PathLike], out: str | os.PathLike, *, labels: Sequence[str] | None = None,
               title: str | None = None, semantics: str = "reference", score: bool = True,
               workers: int | None = None, render_pool: int = 2, progress: bool = True) -> ViewResult:
    """Trajectory files -> one self-contained HTML report at ``out``: the index of every episode,
    each episode's view, the summary, and with two or more files the comparison of the first
    against each other one, task by task.

    Every file is read and checked before anything is scored or written; bad input raises a
    :class:`~colbench.errors.UsageError` (or a format error naming the file and line) and leaves
    ``out`` as it was, and so does a missing extra (:class:`colbench.extras.MissingExtra`: ``view``,
    and ``frontend`` for a frontend run). The file is written atomically.

    Args:
        paths: trajectory jsonl files, all backend or all frontend.
        labels: the runs' names (default: the file names).
        title: the page title (default: ``colbench view: <labels>``).
        semantics: backend scoring semantics of episodes scored now (``"reference"`` / ``"python"``).
        score: score backend episodes that have no stored per-test outcomes (as ``colbench evaluate
            --explain`` does); ``False``: show their tables as not scored.
        workers: sandbox workers for that (default: the CPU count).
        render_pool: Chromium drivers rendering frontend pages.
    """
    if semantics not in ("reference", "python"):
        raise UsageError(f"--semantics must be 'reference' or 'python', got {semantics!r}")
    if workers is not None and workers < 1:
        raise UsageError(f"--workers must be >= 1, got {workers}")
    if render_pool < 1:
        raise UsageError(f"--render-pool must be >= 1, got {render_pool}")
    from colbench.extras import require

    require("view")  # before any file is read
    out = check_out(out, paths)
    runs = load_runs(paths, labels)
    n = sum(len(r.episodes) for r in runs)
    notes = [f"{n} episode{'s' if n != 1 else ''} of {len(runs)} run{'s' if len(runs) != 1 else ''} "
             f"({runs[0].kind}) from " + ", ".join(os.fspath(p) for p in paths)]
    if runs[0].kind == "backend":
        notes.append(("Per-test outcomes: stored ones where the file has them (colbench evaluate --out), "
                      f"else scored now with {semantics} semantics, as colbench evaluate --explain does.")
                     if score else "Episodes without stored per-test outcomes were not scored.")
    else:
        notes.append("Pages rendered in headless Chromium as the scorer renders them; similarity to the "
                     "target by the visual metric.")
    return write_runs(runs, out, title=title or "colbench view: " + " vs ".join(r.label for r in runs), notes=notes,
                      semantics=semantics, score=score, workers=workers, render_pool=render_pool, progress=progress)
