"""Frontend scoring for ``colbench evaluate``: similarity of each final page to its target, and the
win rate of one set of trajectories over another (``--compare A.jsonl B.jsonl``).

The answer of a frontend trajectory is its final HTML (``<html>…</html>``, else ``<body>…</body>``,
picsum images normalised to id 48, as the reference extracts it). Both pages are rendered in
headless Chromium (:class:`~colbench_env.evaluation.render.Renderer`, offline-faithful) and
compared with ``--similarity`` (``visual``, the offline default, or ``clip``, the paper's CLIP
ViT-B/32 cosine when its weights are available locally). An answer with no page scores 0 with an
``eval_reason``; one page that fails to render scores 0 with the error as reason and the run goes on.
"""
from __future__ import annotations

import argparse
import hashlib
import sys
from typing import Any, Sequence

from ..protocol import extract_html
from .similarity import DEFAULT_CLIP_MODEL

__all__ = ["add_arguments", "score_frontend", "win_rate", "compare_files"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    g = parser.add_argument_group("frontend trajectories")
    g.add_argument("--similarity", default="visual", choices=("visual", "clip"),
                   help="visual (offline default) or clip (transformers CLIPModel; --clip-model)")
    g.add_argument("--clip-model", default=DEFAULT_CLIP_MODEL, help="CLIP name or local path")
    g.add_argument("--render-pool", type=int, default=2, help="Chromium drivers rendering in parallel")
    g.add_argument("--compare", nargs=2, metavar=("A.jsonl", "B.jsonl"), default=None,
                   help="print the win rate of A over B (per task, higher similarity to the target wins)")


def _similarity(args: argparse.Namespace):
    from .similarity import make_similarity

    if getattr(args, "similarity", "visual") == "clip":
        return make_similarity("clip", model_name_or_path=getattr(args, "clip_model", DEFAULT_CLIP_MODEL))
    return make_similarity("visual")


def score_frontend(records: Sequence[dict], args: argparse.Namespace) -> list[dict]:
    """Records (same order) with ``reward`` = similarity of the answer's page to the target page
    (no ``success``: ColBench's frontend has no pass/fail), ``eval_reason`` when 0."""
    from tqdm import tqdm

    from .render import Renderer

    sim = _similarity(args)
    out = [dict(r) for r in records]
    targets: dict[str, Any] = {}
    with Renderer(pool_size=max(1, int(getattr(args, "render_pool", 2)))) as renderer:
        todo = []
        for i, rec in enumerate(out):
            html = extract_html(rec.get("answer") or "")
            rec.pop("success", None)
            if not html:
                rec["reward"], rec["eval_reason"] = 0.0, "no <html> or <body> page in the answer"
                continue
            todo.append((i, html, rec["task"]["ground_truth"]))
        uniq = {hashlib.sha256(t.encode()).hexdigest(): t for _, _, t in todo}
        keys = list(uniq)
        bar = tqdm(total=len(keys) + len(todo), desc="render", unit="page", file=sys.stderr,
                   disable=getattr(args, "no_progress", False))
        for k, img in zip(keys, renderer.render_many([uniq[k] for k in keys], return_exceptions=True)):
            targets[k] = img
            bar.update(1)
        answers = renderer.render_many([h for _, h, _ in todo], return_exceptions=True)
        for (i, _, target_html), img in zip(todo, answers):
            bar.update(1)
            target = targets[hashlib.sha256(target_html.encode()).hexdigest()]
            if isinstance(target, BaseException):
                out[i]["reward"], out[i]["eval_reason"] = 0.0, f"target page failed to render: {target}"
            elif isinstance(img, BaseException):
                out[i]["reward"], out[i]["eval_reason"] = 0.0, f"answer page failed to render: {img}"
            else:
                out[i]["reward"] = float(sim(img, target))
        bar.close()
    return out


def win_rate(a: Sequence[dict], b: Sequence[dict]) -> dict:
    """Win rate of A over B: per task (``task_id``, else the task's ground truth), A wins when its
    mean ``reward`` (similarity to the target) is higher than B's; ties are counted apart, not as
    wins. ``win_rate = wins / tasks compared``."""
    def key(r):
        return str(r.get("task_id") or r["task"].get("task_id") or hashlib.sha256(
            r["task"]["ground_truth"].encode()).hexdigest())

    def per_task(recs):
        acc: dict[str, list[float]] = {}
        for r in recs:
            acc.setdefault(key(r), []).append(float(r.get("reward") or 0.0))
        return {k: sum(v) / len(v) for k, v in acc.items()}

    pa, pb = per_task(a), per_task(b)
    common = sorted(set(pa) & set(pb))
    wins = sum(pa[k] > pb[k] for k in common)
    losses = sum(pa[k] < pb[k] for k in common)
    return {"wins": wins, "losses": losses, "ties": len(common) - wins - losses, "tasks": len(common),
            "win_rate": wins / len(common) if common else 0.0}


def compare_files(path_a: str, path_b: str, args: argparse.Namespace) -> dict:
    """Win rate of the trajectories in ``path_a`` over ``path_b``; records without ``reward`` are
    scored first."""
    from .cli import load_records

    sides = []
    for path in (path_a, path_b):
        recs = [r for _, r, _ in load_records(path)]
        if any("reward" not in r for r in recs):
            recs = score_frontend(recs, args)
        sides.append(recs)
    return win_rate(*sides)
