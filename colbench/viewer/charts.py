"""The summary's small charts, drawn by matplotlib as inline SVG (text kept as text): the reward
distribution, the number of agent turns, and success (backend) or mean similarity (frontend) by task
family, one colour per run."""
from __future__ import annotations

import io
from collections import Counter
from typing import Sequence

from .data import Run

__all__ = ["summary_charts", "family_groups"]

_COLOURS = ("#4c72b0", "#dd8452", "#55a868", "#c44e52", "#8172b3", "#937860", "#da8bc3", "#8c8c8c")


def _svg(fig) -> str:
    buf = io.StringIO()
    fig.savefig(buf, format="svg", bbox_inches="tight")
    svg = buf.getvalue()
    return svg[svg.index("<svg"):]  # drop the XML prologue and DOCTYPE: the SVG is inline


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
    from matplotlib.ticker import MaxNLocator

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
        ax.set_xlabel("reward: fraction of tests passed" if kind == "backend" else "similarity to the target")
        ax.set_ylabel("episodes")
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_title("reward")
        if len(runs) > 1:
            ax.legend(fontsize=7, frameon=False, loc="upper left", bbox_to_anchor=(1.0, 1.0))
        out["reward"] = _svg(fig)
        plt.close(fig)

        # turns
        fig, ax = plt.subplots(figsize=(4.6, 2.4))
        most = max([ep.agent_turns for run in runs for ep in run.episodes] + [1])
        width = 0.8 / len(runs)
        for i, run in enumerate(runs):
            c = Counter(ep.agent_turns for ep in run.episodes)
            ax.bar([t - 0.4 + (i + 0.5) * width for t in range(1, most + 1)], [c.get(t, 0) for t in range(1, most + 1)],
                   width=width, color=colours[i], label=run.label)
        ax.set_xticks(range(1, most + 1))
        ax.set_xlabel("agent turns")
        ax.set_ylabel("episodes")
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_title("turns per episode")
        if len(runs) > 1:
            ax.legend(fontsize=7, frameon=False, loc="upper left", bbox_to_anchor=(1.0, 1.0))
        out["turns"] = _svg(fig)
        plt.close(fig)

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
            ax.set_ylabel("success rate (%)" if kind == "backend" else "mean similarity")
            ax.set_title(f"{'success' if kind == 'backend' else 'similarity'} by task {attr}")
            if kind == "backend":
                ax.set_ylim(0, 100)
            if len(runs) > 1:
                ax.legend(fontsize=7, frameon=False, loc="upper left", bbox_to_anchor=(1.0, 1.0))
            out["family"] = _svg(fig)
            plt.close(fig)
    return out
