"""The summary's small charts, drawn by matplotlib as inline SVG (text kept as text): the reward
distribution, the number of agent turns, and success (backend) or mean similarity (frontend) by task
family, one colour per run."""
from __future__ import annotations

import io
import re
from collections import Counter
from typing import Sequence

from .data import Run

__all__ = ["summary_charts", "family_groups"]

_COLOURS = ("#4c72b0", "#dd8452", "#55a868", "#c44e52", "#8172b3", "#937860", "#da8bc3", "#8c8c8c")


def _svg(fig, prefix: str) -> str:
    """The figure as inline SVG: no XML prologue, no date (the same runs give the same page), its
    element ids prefixed with ``prefix`` (matplotlib names markers by their shape, so two charts of
    one page would share ids)."""
    buf = io.StringIO()
    fig.savefig(buf, format="svg", bbox_inches="tight", metadata={"Date": None})
    svg = buf.getvalue()
    svg = svg[svg.index("<svg"):]
    for name in set(re.findall(r'\bid="([^"]+)"', svg)):
        svg = svg.replace(f'id="{name}"', f'id="{prefix}-{name}"').replace(f'#{name})', f'#{prefix}-{name})') \
            .replace(f'"#{name}"', f'"#{prefix}-{name}"')
    return svg


def _finish(fig, ax, title: str, xlabel: str | None, ylabel: str, *, legend: bool, counts: bool = True) -> str:
    """Title, labels (integer ticks when the y axis counts episodes), the runs' legend beside the
    axes; the figure as inline SVG, closed."""
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    ax.set_title(title)
    if xlabel:
        ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if counts:
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    if legend:
        ax.legend(fontsize=7, frameon=False, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    svg = _svg(fig, f"chart-{re.sub(r'[^a-z0-9]+', '-', title.lower()).strip('-')}")
    plt.close(fig)
    return svg


def family_groups(runs: Sequence[Run]) -> tuple[str, list[str]]:
    """How the summary groups tasks: ``("family", names)`` when the episodes span several generated
    families, else ``("template", names)`` when several templates, else ``("", [])``."""
    eps = [ep for run in runs for ep in run.episodes]
    for attr in ("family", "template"):
        names = sorted({getattr(ep, attr) for ep in eps if getattr(ep, attr)})
        if len(names) > 1:
            return attr, names
    return "", []


def summary_charts(runs: Sequence[Run]) -> dict[str, str]:
    """``{"reward", "turns", "family"}`` -> inline SVG (``"family"`` only when tasks have families)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    kind = runs[0].kind
    colours = [_COLOURS[i % len(_COLOURS)] for i in range(len(runs))]
    out = {}
    with plt.rc_context({"svg.fonttype": "none", "font.size": 8, "axes.spines.top": False,
                         "axes.spines.right": False, "svg.hashsalt": "colbench"}):
        # reward distribution: 10 bins over [0, 1], bars side by side per run
        fig, ax = plt.subplots(figsize=(4.6, 2.4))
        width = 0.08 / len(runs)
        for i, run in enumerate(runs):
            counts = [0] * 10
            for ep in run.episodes:
                if ep.reward is not None:
                    counts[min(9, max(0, int(ep.reward * 10)))] += 1
            ax.bar([k / 10 + 0.05 + (i - (len(runs) - 1) / 2) * width for k in range(10)], counts, width=width,
                   color=colours[i], label=run.label)
        ax.set_xlim(0, 1)
        ax.set_xticks([k / 10 for k in range(11)])
        out["reward"] = _finish(fig, ax, "reward", "reward: fraction of tests passed" if kind == "backend"
                                else "similarity to the target", "episodes", legend=len(runs) > 1)

        # turns
        fig, ax = plt.subplots(figsize=(4.6, 2.4))
        most = max([ep.agent_turns for run in runs for ep in run.episodes] + [1])
        width = 0.8 / len(runs)
        for i, run in enumerate(runs):
            c = Counter(ep.agent_turns for ep in run.episodes)
            ax.bar([t - 0.4 + (i + 0.5) * width for t in range(1, most + 1)], [c.get(t, 0) for t in range(1, most + 1)],
                   width=width, color=colours[i], label=run.label)
        ax.set_xticks(range(1, most + 1))
        out["turns"] = _finish(fig, ax, "turns per episode", "agent turns", "episodes", legend=len(runs) > 1)

        attr, names = family_groups(runs)
        if names:
            fig, ax = plt.subplots(figsize=(max(4.6, 0.35 * len(names) * len(runs) + 1.5), 2.4))
            width = 0.8 / len(runs)
            for i, run in enumerate(runs):
                vals = []
                for name in names:
                    eps = [ep for ep in run.episodes if getattr(ep, attr) == name]
                    if kind == "backend":
                        vals.append(100.0 * sum(bool(ep.success) for ep in eps) / len(eps) if eps else 0.0)
                    else:
                        vals.append(sum(ep.reward or 0.0 for ep in eps) / len(eps) if eps else 0.0)
                ax.bar([k - 0.4 + (i + 0.5) * width for k in range(len(names))], vals, width=width,
                       color=colours[i], label=run.label)
            ax.set_xticks(range(len(names)), names, rotation=30 if len(names) > 4 else 0, ha="right" if len(names) > 4 else "center")
            if kind == "backend":
                ax.set_ylim(0, 100)
            out["family"] = _finish(fig, ax, f"{'success' if kind == 'backend' else 'similarity'} by task {attr}", None,
                                    "success rate (%)" if kind == "backend" else "mean similarity",
                                    legend=len(runs) > 1, counts=False)
    return out
