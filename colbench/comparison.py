"""Two runs compared with their noise floor: the paired difference over tasks with its bootstrap
interval, each run's own trial-to-trial flip noise, and whether the runs had the same human.

What ``colbench evaluate --compare A B`` prints and the viewer's A-vs-B page shows
(:func:`paired_comparison`, :func:`format_paired_comparison`):

* **paired difference** ``A - B`` per metric (backend: success rate and % tests passed; frontend:
  similarity x 100) over the tasks both runs have: each task's score is the mean over its trials
  (records without an infrastructure error, :func:`colbench_env.metrics.infrastructure_error`), the
  difference is the mean over tasks of the per-task differences, with the percentile bootstrap
  interval over tasks of :func:`colbench.stats.paired_bootstrap` (tasks resampled, both
  runs with the same draws) and its two-sided bootstrap p-value;
* **flip noise**: when both runs have ``K >= 2`` trials of a task (backend), the share of tasks whose
  verdict (``success``) differs between trials of the same run
  (:func:`colbench_env.metrics.trial_metrics` ``flip_share``). A success-rate difference smaller
  than the larger flip share (in points) is called out in one line: re-running one run alone moves
  that many tasks' verdicts;
* **humans**: one line when the runs had different humans, or when a run's human is unknown
  (:func:`colbench_env.simulators.identity.humans_warning`).
"""
from __future__ import annotations

from typing import Sequence

from colbench_env.metrics import infrastructure_error, is_backend_record, task_key, trial_metrics
from colbench_env.simulators.identity import humans_warning, run_humans

__all__ = ["paired_comparison", "format_paired_comparison", "METRICS"]

#: per kind, the compared metrics: key -> (label, per-record score in points)
METRICS = {
    "backend": {"success_rate_pct": ("success rate %", lambda r: 100.0 if r.get("success") else 0.0),
                "tests_passed_pct": ("% tests passed", lambda r: 100.0 * float(r.get("reward") or 0.0))},
    "frontend": {"similarity_pct": ("similarity x 100", lambda r: 100.0 * float(r.get("reward") or 0.0))},
}


def _kind(records: Sequence[dict]) -> str | None:
    kinds = {"backend" if is_backend_record(r) else "frontend" for r in records}
    if len(kinds) > 1:
        raise ValueError("a run holds both backend and frontend records; compare runs of one kind")
    return kinds.pop() if kinds else None


def _per_task(records: Sequence[dict], metrics: dict) -> dict[str, dict[str, float]]:
    acc: dict[str, list[dict]] = {}
    for r in records:
        if not infrastructure_error(r):
            acc.setdefault(task_key(r), []).append(r)
    return {t: {m: sum(f(r) for r in rs) / len(rs) for m, (_, f) in metrics.items()} for t, rs in acc.items()}


def paired_comparison(a: Sequence[dict], b: Sequence[dict], *, labels: tuple[str, str] = ("A", "B"),
                      resamples: int = 10000, level: float = 0.95, seed: int = 0) -> dict:
    """Run ``a`` against run ``b`` (trajectory records, scored; see the module docstring).

    Returns:
        ``kind``, ``labels``, ``tasks`` (compared), ``only_a`` / ``only_b`` (tasks in one run only),
        ``errors`` (infrastructure errors left out, per run), ``metrics``: per metric ``{"label",
        "a", "b"`` (means over the compared tasks) ``, "diff_mean", "diff_low", "diff_high",
        "diff_level", "p_value", "significant"}``; ``trials`` (``K`` per run), ``flip_share`` (per run, ``None``
        unless both runs have ``K >= 2`` and are backend), ``noise_note`` (the one-line call-out, or
        ``None``), ``humans`` (per run, :func:`~colbench_env.simulators.identity.run_humans`) and
        ``humans_warning`` (one line or ``None``).

    Raises:
        ValueError: runs of different kinds, or no task in common.
    """
    from colbench.stats import paired_bootstrap

    ka, kb = _kind(a), _kind(b)
    if ka and kb and ka != kb:
        raise ValueError(f"{labels[0]} holds {ka} records and {labels[1]} {kb} ones")
    kind = ka or kb or "backend"
    metrics = METRICS[kind]
    pa, pb = _per_task(a, metrics), _per_task(b, metrics)
    common = [t for t in pa if t in pb]
    if not common:
        raise ValueError(f"{labels[0]} and {labels[1]} have no scored task in common")
    out: dict = {"kind": kind, "labels": list(labels), "tasks": len(common),
                 "only_a": sum(1 for t in pa if t not in pb), "only_b": sum(1 for t in pb if t not in pa),
                 "errors": [sum(1 for r in rs if infrastructure_error(r)) for rs in (a, b)],
                 "resamples": resamples, "metrics": {}}
    for m, (label, _) in metrics.items():
        xa, xb = [pa[t][m] for t in common], [pb[t][m] for t in common]
        c = paired_bootstrap(xa, xb, resamples=resamples, level=level, seed=seed)
        out["metrics"][m] = {"label": label, "a": sum(xa) / len(xa), "b": sum(xb) / len(xb), **c.as_dict()}
    ta, tb = trial_metrics(a), trial_metrics(b)
    out["trials"] = [ta["trials"], tb["trials"]]
    both = kind == "backend" and ta["trials"] >= 2 and tb["trials"] >= 2
    out["flip_share"] = [ta.get("flip_share"), tb.get("flip_share")] if both else [None, None]
    out["noise_note"] = None
    if both and None not in out["flip_share"]:
        d = out["metrics"]["success_rate_pct"]["diff_mean"]
        noise = 100.0 * max(out["flip_share"])
        if abs(d) < noise:
            out["noise_note"] = (f"note: the success-rate difference ({d:+.1f} points) is smaller than the runs' own flip "
                                 f"noise ({100 * out['flip_share'][0]:.1f}% of {labels[0]}'s and "
                                 f"{100 * out['flip_share'][1]:.1f}% of {labels[1]}'s tasks change verdict between "
                                 "trials of the same run): it may be run-to-run noise")
    out["humans"] = [run_humans(a), run_humans(b)]
    out["humans_warning"] = humans_warning({labels[0]: out["humans"][0], labels[1]: out["humans"][1]})
    return out


def format_paired_comparison(c: dict) -> str:
    """The lines of :func:`paired_comparison`'s result, as ``colbench evaluate --compare`` prints them."""
    a, b = c["labels"]
    lines = [f"paired difference {a} - {b} over {c['tasks']} tasks "
             f"({100 * next(iter(c['metrics'].values()))['diff_level']:.0f}% bootstrap interval over tasks, "
             f"{c['resamples']} resamples):"]
    width = max(len(m["label"]) for m in c["metrics"].values())
    for m in c["metrics"].values():
        lines.append(f"  {m['label']:<{width}}  {m['a']:6.1f} vs {m['b']:6.1f}  difference {m['diff_mean']:+.1f} "
                     f"[{m['diff_low']:+.1f}, {m['diff_high']:+.1f}]  p {m['p_value']:.3f}"
                     + ("" if m["significant"] else "  (interval includes 0)"))
    if c["only_a"] or c["only_b"]:
        lines.append(f"  tasks in one run only (not compared): {c['only_a']} in {a}, {c['only_b']} in {b}")
    if any(c["errors"]):
        lines.append(f"  infrastructure errors left out: {c['errors'][0]} in {a}, {c['errors'][1]} in {b}")
    fa, fb = c["flip_share"]
    if fa is not None and fb is not None:
        lines.append(f"flip noise: {100 * fa:.1f}% of {a}'s tasks ({c['trials'][0]} trials each) and {100 * fb:.1f}% of "
                     f"{b}'s ({c['trials'][1]} trials) change verdict between trials of the same run")
    elif c["kind"] == "backend":
        lines.append(f"flip noise: unknown ({a} has {c['trials'][0]} trial(s) per task, {b} {c['trials'][1]}; "
                     "run each task K >= 2 times, colbench run --rollouts-per-task K, to measure it)")
    if c["noise_note"]:
        lines.append(c["noise_note"])
    if c["humans_warning"]:
        lines.append(c["humans_warning"])
    return "\n".join(lines)
