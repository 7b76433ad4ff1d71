"""Scoring trajectory files (what ``colbench evaluate`` runs): :func:`load_records` reads and checks
a file in the official format, :func:`score_backend` runs backend answers' hidden tests in the
sandbox, :func:`score_frontend` scores frontend pages by similarity, :func:`win_rate` /
:func:`compare_files` compare two sets of trajectories of one kind, per task (``--compare A.jsonl B.jsonl``).

The answer of a frontend trajectory is its final HTML (``<html>…</html>``, else ``<body>…</body>``,
picsum images normalised to id 48, as the reference extracts it). Both pages are rendered in
headless Chromium (:class:`~colbench_env.evaluation.render.Renderer`, offline-faithful) and
compared with ``--similarity`` (``visual``, the offline default, or ``clip``, the paper's CLIP
ViT-B/32 cosine when its weights are available locally). An answer with no page scores 0 with an
``eval_reason``; one page that fails to render scores 0 with the error as reason and the run goes on.
"""
from __future__ import annotations

import hashlib
import sys
from typing import Any, Sequence

from ..protocol import extract_html
from ..tasks import BackendTask, task_from_record
from ..trajectories import read_jsonl, validate_trajectory
from .similarity import DEFAULT_CLIP_MODEL

__all__ = ["load_records", "score_backend", "score_frontend", "win_rate", "load_compared", "compare_files"]


def load_records(path: str) -> list[tuple[int, dict, object]]:
    """``(line, record, task)`` for each trajectory; raises naming file and line on bad input."""
    out = []
    for line, rec in read_jsonl(path):
        validate_trajectory(rec, source=path, line=line)
        task = task_from_record(rec["task"], source=path, line=line)
        out.append((line, rec, task))
    return out


def score_backend(items: Sequence[tuple[int, dict, BackendTask]], *, workers: int | None = None,
                  timeout_s: float = 10.0, memory_mb: int = 512, semantics: str = "reference",
                  progress: bool = True) -> tuple[list, dict]:
    """Score backend records (``(line, record, task)`` as :func:`load_records` gives them) in place:
    ``reward``, ``success``, ``eval_semantics``, ``eval_tests`` and, below reward 1, ``eval_reason``.
    Returns the scores and the evaluator's isolation report (``{}`` when ``items`` is empty)."""
    from tqdm import tqdm

    from .backend import BackendEvaluator

    if not items:
        return [], {}
    bar = tqdm(total=len(items), desc="evaluate", unit="answer", file=sys.stderr, disable=not progress)
    try:
        with BackendEvaluator(workers=workers, timeout_s=timeout_s, memory_mb=memory_mb, semantics=semantics) as ev:
            scores = ev.score_many([(t, r.get("answer")) for _, r, t in items], callback=lambda i, s: bar.update(1))
            isolation = ev.isolation
    finally:
        bar.close()
    for (_, rec, _), s in zip(items, scores):
        rec["reward"] = s.reward
        rec["success"] = s.success
        rec["eval_semantics"] = s.semantics
        rec["eval_tests"] = [t.as_dict() for t in s.tests]
        rec.pop("eval_reason", None)
        if s.reward < 1 and s.reason is not None:
            rec["eval_reason"] = s.reason
    return scores, isolation


def _similarity(similarity: str, clip_model: str):
    from .similarity import make_similarity

    if similarity == "clip":
        return make_similarity("clip", model_name_or_path=clip_model)
    return make_similarity("visual")


def score_frontend(records: Sequence[dict], *, similarity: str = "visual", clip_model: str = DEFAULT_CLIP_MODEL,
                   render_pool: int = 2, progress: bool = True) -> list[dict]:
    """Records (same order) with ``reward`` = similarity of the answer's page to the target page
    (no ``success``: ColBench's frontend has no pass/fail), ``eval_reason`` when 0.

    Args:
        similarity: ``"visual"`` (offline) or ``"clip"`` (the paper's CLIP ViT-B/32 cosine, ``clip_model``).
        render_pool: Chromium drivers rendering in parallel.
        progress: show a tqdm bar.
    """
    from tqdm import tqdm

    from .render import Renderer

    sim = _similarity(similarity, clip_model)
    out = [dict(r) for r in records]
    targets: dict[str, Any] = {}
    with Renderer(pool_size=max(1, int(render_pool))) as renderer:
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
                   disable=not progress)
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
    """Win rate of A over B: per task (:func:`colbench_env.metrics.task_key`), A wins when its mean
    ``reward`` (frontend: the similarity to the target; backend: the fraction of tests passed) over its
    records without an infrastructure error (:func:`colbench_env.metrics.infrastructure_error`) is
    higher than B's; ties are counted apart, not as wins. ``win_rate = wins / tasks compared``."""
    from ..metrics import infrastructure_error, task_key

    def per_task(recs):
        acc: dict[str, list[float]] = {}
        for r in recs:
            if not infrastructure_error(r):
                acc.setdefault(task_key(r), []).append(float(r.get("reward") or 0.0))
        return {k: sum(v) / len(v) for k, v in acc.items()}

    pa, pb = per_task(a), per_task(b)
    common = sorted(set(pa) & set(pb))
    wins = sum(pa[k] > pb[k] for k in common)
    losses = sum(pa[k] < pb[k] for k in common)
    return {"wins": wins, "losses": losses, "ties": len(common) - wins - losses, "tasks": len(common),
            "win_rate": wins / len(common) if common else 0.0}


def load_compared(path_a: str, path_b: str, **frontend_options: Any) -> tuple[list[dict], list[dict]]:
    """The records of two trajectory files of one kind, scored where they have no ``reward``
    (backend: :func:`score_backend` with its defaults; frontend: :func:`score_frontend` with
    ``frontend_options``); both files are read and checked before anything is scored. Two files of
    different kinds, or a file of both kinds, are a :class:`~colbench_env.errors.UsageError`."""
    from ..errors import UsageError

    loaded, kinds = [], []
    for path in (path_a, path_b):  # both read and checked before anything is scored
        items = load_records(path)
        backend = {isinstance(task, BackendTask) for _, _, task in items}
        if len(backend) > 1:
            raise UsageError(f"{path}: holds both backend and frontend trajectories")
        loaded.append(items)
        kinds.append("backend" if backend == {True} else "frontend" if backend else None)
    if None not in kinds and kinds[0] != kinds[1]:
        raise UsageError(f"--compare: {path_a} holds {kinds[0]} trajectories and {path_b} {kinds[1]} ones")
    sides = []
    for items, kind in zip(loaded, kinds):
        recs = [r for _, r, _ in items]
        if any("reward" not in r for r in recs):
            if kind == "backend":
                score_backend([it for it in items if "reward" not in it[1]],
                              progress=frontend_options.get("progress", True))
            else:
                recs = score_frontend(recs, **frontend_options)
        sides.append(recs)
    return sides[0], sides[1]


def compare_files(path_a: str, path_b: str, **frontend_options: Any) -> dict:
    """Win rate of the trajectories in ``path_a`` over ``path_b`` (:func:`win_rate`), frontend or
    backend alike: per task, the higher mean reward wins -- a page's similarity to the target, or the
    fraction of hidden tests passed. Records without ``reward`` are scored first
    (:func:`load_compared`)."""
    return win_rate(*load_compared(path_a, path_b, **frontend_options))
