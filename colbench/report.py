"""Result tables: one writer for ``colbench table`` and the pipeline.

:func:`write_report` writes ``<stem>.md`` (a Markdown table), ``<stem>.csv``, ``<stem>.json`` (the
rows plus any metadata) and ``<stem>.png`` (one bar chart per metric column, the value written on
each bar, ``n/a`` for a missing value).
"""
from __future__ import annotations

import csv
import json
import os
from pathlib import Path
from typing import Sequence

__all__ = ["write_report", "markdown_table"]


def _fmt(v) -> str:
    return "" if v is None else (f"{v:.1f}" if isinstance(v, float) else str(v))


def markdown_table(rows: Sequence[dict], columns: Sequence[str]) -> str:
    """A Markdown table of ``rows`` (floats with one decimal, ``None`` empty)."""
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    lines += ["| " + " | ".join(_fmt(r.get(c)) for c in columns) + " |" for r in rows]
    return "\n".join(lines) + "\n"


def write_report(rows: Sequence[dict], out_dir: str | os.PathLike, *, stem: str, columns: Sequence[str],
                 label: Sequence[str], metrics: Sequence[str], titles: dict | None = None,
                 meta: dict | None = None, suptitle: str | None = None, notes: Sequence[str] = ()) -> dict:
    """Write the table of ``rows`` in four forms; returns ``{"md", "csv", "json", "png"}`` paths.

    Args:
        columns: the table's columns, in order.
        label: the columns naming a row on the chart (joined by a newline under each bar).
        metrics: the numeric columns charted; a metric no row has is left out of the chart.
        titles: chart title per metric (default: the column name).
        meta: merged into ``<stem>.json`` next to ``"rows"``.
        notes: lines written under the Markdown table (e.g. who played the human).
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = {k: str(out / f"{stem}.{k}") for k in ("md", "csv", "json", "png")}
    with open(paths["csv"], "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(columns), extrasaction="ignore")
        w.writeheader()
        w.writerows(rows)
    Path(paths["md"]).write_text(markdown_table(rows, columns) + "".join(f"\n{n}\n" for n in notes))
    Path(paths["json"]).write_text(json.dumps({"rows": list(rows), **(meta or {})}, indent=2, default=str,
                                          allow_nan=False) + "\n")

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    shown = [m for m in metrics if any(r.get(m) is not None for r in rows)] or list(metrics[:1])
    fig, axes = plt.subplots(1, len(shown), figsize=(max(4.5, 1.1 * len(rows)) * len(shown), 3.6), squeeze=False)
    names = ["\n".join(str(r.get(c, "")) for c in label) for r in rows]
    for ax, m in zip(axes[0], shown):
        vals = [r.get(m) for r in rows]
        heights = [v if v is not None else 0.0 for v in vals]
        ax.bar(range(len(rows)), heights, color="#4c72b0")
        ax.set_xticks(range(len(rows)), names)
        ax.set_title((titles or {}).get(m, m))
        ax.tick_params(axis="x", labelsize=8)
        for i, v in enumerate(vals):
            ax.text(i, heights[i], "n/a" if v is None else _fmt(float(v)), ha="center", va="bottom", fontsize=8)
    if suptitle:
        fig.suptitle(suptitle, fontsize=9)
    fig.tight_layout()
    fig.savefig(paths["png"], dpi=110)
    plt.close(fig)
    return paths
