"""Run metrics over scored trajectory records -- the one implementation behind ``colbench run``,
``colbench evaluate``, ``colbench table``, ``colbench view`` and the pipeline.

:func:`summarize` gives, over the records that did not end on an infrastructure error
(:func:`infrastructure_error`: a failed request to the agent's or the human's server, a target page
that failed to render), which are left out of every mean and counted beside them in ``errors``:

* backend (:func:`colbench_env.records.record_kind` of the task): ``tests_passed_pct`` = 100 x mean
  ``reward`` (the mean fraction of unit tests passed), ``success_rate`` = fraction of records with
  ``success`` true (every test passed);
* frontend: ``similarity`` = mean ``reward`` (visual similarity to the target page);
* both: ``count`` (every record), ``errors`` (records with an infrastructure error), ``mean_turns``
  (agent messages per episode, over every record) and ``human``: the humans that produced the
  records (:func:`colbench_env.simulators.identity.run_humans`; ``None`` stands for a record
  without one: "unknown");
* with ``K >= 2`` scored trials of some task (``colbench run --rollouts-per-task K``), ``trials``:
  :func:`trial_metrics` of the backend records (the frontend's when there are none).

A mixed list gets both groups' keys, each over its own records.

**Trials.** The scored records of one task are its trials, in episode order (numeric
``episode_id``, else file order): trial ``j`` of a task is its ``j``-th scored record. With ``n``
trials of which ``c`` succeeded, the unbiased estimators of the chance that at least one of ``k``
fresh trials succeeds and that all ``k`` succeed are (Chen et al. 2021; tau-bench)::

    pass@k = 1 - C(n - c, k) / C(n, k)        pass^k = C(c, k) / C(n, k)

(:func:`pass_at_k`, :func:`pass_hat_k`), averaged over the tasks with at least ``k`` trials.
"""
from __future__ import annotations

import hashlib
import math
from typing import Iterable

from .records import record_kind

__all__ = ["summarize", "format_summary", "format_report", "format_trials", "is_backend_record",
           "infrastructure_error", "task_key", "pass_at_k", "pass_hat_k", "trial_groups", "trial_metrics",
           "INFRASTRUCTURE_REASONS"]

#: ``eval_reason`` prefixes of scores that say nothing about the answer (the scorer could not run).
#: An *answer* page that fails to render is not among them: it is scored 0, as leaving it out would
#: reward pages that break the renderer.
INFRASTRUCTURE_REASONS = ("target page failed to render",)


def is_backend_record(rec: dict) -> bool:
    """A backend trajectory (:func:`colbench_env.records.record_kind` of its task)."""
    return record_kind(rec["task"]) == "backend"


def infrastructure_error(rec: dict) -> str | None:
    """Why ``rec`` ended on an infrastructure error, else ``None``: its ``error`` (the episode
    failed: the agent's or the human's server did not answer, ...), or an ``eval_reason`` of
    :data:`INFRASTRUCTURE_REASONS` (the scorer could not score it)."""
    err = rec.get("error")
    if err:
        return str(err)
    reason = rec.get("eval_reason")
    if isinstance(reason, str) and reason.startswith(INFRASTRUCTURE_REASONS):
        return reason
    return None


def task_key(rec: dict) -> str:
    """The task of a trajectory record: its ``task_id`` (the record's, else its task's), else a hash
    of the task's request and ground truth."""
    tid = rec.get("task_id") or rec["task"].get("task_id")
    if tid:
        return str(tid)
    t = rec["task"]
    blob = f"{t.get('problem_description', '')}\x00{t.get('ground_truth', '')}"
    return "sha256:" + hashlib.sha256(blob.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def _check_counts(n: int, c: int, k: int) -> None:
    for name, v in (("n", n), ("c", c), ("k", k)):
        if isinstance(v, bool) or not isinstance(v, int):
            raise TypeError(f"{name} must be an int, got {v!r}")
    if not (0 <= c <= n and 1 <= k <= n):
        raise ValueError(f"need 0 <= c <= n and 1 <= k <= n, got n={n}, c={c}, k={k}")


def pass_at_k(n: int, c: int, k: int) -> float:
    """The unbiased estimate, from ``n`` trials with ``c`` successes, of the chance that at least one
    of ``k`` trials succeeds: ``1 - C(n-c, k) / C(n, k)`` (1 when ``n - c < k``)."""
    _check_counts(n, c, k)
    return 1.0 - math.comb(n - c, k) / math.comb(n, k)


def pass_hat_k(n: int, c: int, k: int) -> float:
    """The unbiased estimate, from ``n`` trials with ``c`` successes, of the chance that all ``k``
    trials succeed: ``C(c, k) / C(n, k)`` (0 when ``c < k``)."""
    _check_counts(n, c, k)
    return math.comb(c, k) / math.comb(n, k)


def _mean(xs: list[float]) -> float:
    return sum(xs) / len(xs) if xs else 0.0


def _episode_number(rec: dict) -> float:
    try:
        return float(int(str(rec.get("episode_id"))))
    except ValueError:
        return math.inf


def trial_groups(records: Iterable[dict]) -> tuple[dict[str, list[dict]], int]:
    """``({task key: its scored records in trial order}, infrastructure errors)``: the records
    without an infrastructure error grouped by :func:`task_key`, each task's in episode order
    (numeric ``episode_id``, else file order); tasks in order of first appearance."""
    records = list(records)
    order = sorted(range(len(records)), key=lambda i: (_episode_number(records[i]), i))
    groups: dict[str, list[dict]] = {}
    for rec in records:  # tasks in order of first appearance
        groups.setdefault(task_key(rec), [])
    errors = 0
    for i in order:
        rec = records[i]
        if infrastructure_error(rec):
            errors += 1
            continue
        groups[task_key(rec)].append(rec)
    return {k: v for k, v in groups.items() if v}, errors


def _spread(values: list[float]) -> dict:
    """Mean, sample standard deviation (0 for one value), min and max of per-trial values."""
    m = _mean(values)
    sd = math.sqrt(sum((v - m) ** 2 for v in values) / (len(values) - 1)) if len(values) > 1 else 0.0
    return {"mean": m, "sd": sd, "min": min(values), "max": max(values)}


def trial_metrics(records: Iterable[dict]) -> dict:
    """Scores of records of one kind with several trials per task (see the module docstring).

    Returns:
        ``trials`` (``K``: the most scored trials of a task), ``tasks``, ``episodes`` (scored
        records), ``errors`` (infrastructure errors, left out), ``kind``; ``per_trial``: for each
        trial ``j = 1..K`` the mean over the tasks that have a ``j``-th trial (backend
        ``tests_passed_pct``, ``success_rate_pct``; frontend ``similarity``) and its ``episodes``;
        ``spread``: per metric, ``mean`` over every scored record and, across the trials' means,
        ``sd`` (sample standard deviation), ``min``, ``max``. Backend also: ``pass_at_k`` and
        ``pass_hat_k`` (in %, keys ``"1"`` .. ``"K"``), ``tasks_at_k`` (tasks with at least ``k``
        trials, over which the ``k`` estimate is the mean) and ``flip_share`` (the share of tasks
        with two or more trials whose verdict -- ``success`` -- differs between its trials;
        ``None`` when no task has two).
    """
    groups, errors = trial_groups(records)
    scored = [r for rs in groups.values() for r in rs]
    kinds = {record_kind(r["task"]) for r in scored}
    kind = kinds.pop() if len(kinds) == 1 else ("backend" if not kinds else "mixed")
    if kind == "mixed":
        raise ValueError("trial_metrics takes records of one kind (backend or frontend)")
    K = max((len(v) for v in groups.values()), default=0)
    out: dict = {"kind": kind, "trials": K, "tasks": len(groups), "episodes": len(scored), "errors": errors}
    metrics = ({"tests_passed_pct": lambda r: 100.0 * float(r.get("reward") or 0.0),
                "success_rate_pct": lambda r: 100.0 if r.get("success") else 0.0} if kind == "backend"
               else {"similarity": lambda r: float(r.get("reward") or 0.0)})
    per_trial = []
    for j in range(K):
        at = [rs[j] for rs in groups.values() if len(rs) > j]
        per_trial.append({"trial": j + 1, "episodes": len(at), **{m: _mean([f(r) for r in at]) for m, f in metrics.items()}})
    out["per_trial"] = per_trial
    out["spread"] = {m: {**_spread([t[m] for t in per_trial]), "mean": _mean([f(r) for r in scored])}
                     for m, f in metrics.items()} if per_trial else {}
    if kind == "backend":
        counts = [(len(rs), sum(1 for r in rs if r.get("success"))) for rs in groups.values()]
        out["pass_at_k"], out["pass_hat_k"], out["tasks_at_k"] = {}, {}, {}
        for k in range(1, K + 1):
            use = [(n, c) for n, c in counts if n >= k]
            out["pass_at_k"][str(k)] = 100.0 * _mean([pass_at_k(n, c, k) for n, c in use])
            out["pass_hat_k"][str(k)] = 100.0 * _mean([pass_hat_k(n, c, k) for n, c in use])
            out["tasks_at_k"][str(k)] = len(use)
        multi = [(n, c) for n, c in counts if n >= 2]
        out["flip_share"] = sum(1 for n, c in multi if 0 < c < n) / len(multi) if multi else None
    return out


def summarize(records: Iterable[dict]) -> dict:
    """The metrics of the module docstring; an empty list gives ``count`` 0 and backend zeros."""
    from .simulators.identity import run_humans

    records = list(records)
    scored = [r for r in records if not infrastructure_error(r)]
    backend = [r for r in scored if is_backend_record(r)]
    frontend = [r for r in scored if not is_backend_record(r)]
    has_frontend = any(not is_backend_record(r) for r in records)
    has_backend = any(is_backend_record(r) for r in records)
    out: dict = {"count": len(records), "errors": len(records) - len(scored)}
    if has_backend or not has_frontend:
        out["tests_passed_pct"] = 100.0 * _mean([float(r.get("reward") or 0.0) for r in backend])
        out["success_rate"] = _mean([1.0 if r.get("success") else 0.0 for r in backend])
    if has_frontend:
        out["similarity"] = _mean([float(r.get("reward") or 0.0) for r in frontend])
    out["mean_turns"] = _mean([float(sum(1 for m in r["dialogue_history"] if m["role"] == "assistant"))
                               for r in records])
    out["human"] = run_humans(records)
    of_kind = [r for r in records if is_backend_record(r)] if has_backend else records
    trials = trial_metrics(of_kind)
    if trials["trials"] >= 2:
        out["trials"] = trials
    return out


def format_summary(m: dict) -> str:
    """One line: ``% tests passed 31.2  success rate 31.2%  episodes 16  errors 0  mean turns 3.00``."""
    parts = []
    if "tests_passed_pct" in m:
        parts.append(f"% tests passed {m['tests_passed_pct']:.1f}  success rate {100 * m['success_rate']:.1f}%")
    if "similarity" in m:
        parts.append(f"similarity {m['similarity']:.4f}")
    return "  ".join(parts + [f"episodes {m['count']}  errors {m['errors']}  mean turns {m['mean_turns']:.2f}"])


def format_trials(t: dict) -> str:
    """The lines of a :func:`trial_metrics` block: the trials counted, the pass@k / pass^k table
    (backend) and each metric's mean with its spread across trials."""
    lines = [f"trials: K = {t['trials']} per task, {t['tasks']} tasks, {t['episodes']} episodes scored, "
             f"{t['errors']} infrastructure error{'s' if t['errors'] != 1 else ''} left out"]
    if t.get("pass_at_k"):
        ks = list(t["pass_at_k"])
        lines.append("  k       " + "".join(f"{k:>7}" for k in ks))
        lines.append("  pass@k  " + "".join(f"{t['pass_at_k'][k]:7.1f}" for k in ks))
        lines.append("  pass^k  " + "".join(f"{t['pass_hat_k'][k]:7.1f}" for k in ks))
        short = [k for k in ks if t["tasks_at_k"][k] < t["tasks"]]
        if short:
            lines.append("  (" + ", ".join(f"k={k}: over the {t['tasks_at_k'][k]} tasks with >= {k} trials"
                                            for k in short) + ")")
        if t.get("flip_share") is not None:
            lines.append(f"  verdict flips between trials on {100 * t['flip_share']:.1f}% of tasks")
    labels = {"tests_passed_pct": ("% tests passed", "{:.1f}"), "success_rate_pct": ("success rate %", "{:.1f}"),
              "similarity": ("similarity", "{:.4f}")}
    for m, s in t.get("spread", {}).items():
        label, f = labels[m]
        lines.append(f"  {label} {f.format(s['mean'])}  across trials: sd {f.format(s['sd'])}, "
                     f"min {f.format(s['min'])}, max {f.format(s['max'])}")
    return "\n".join(lines)


def format_report(m: dict) -> str:
    """:func:`format_summary`'s line, the human's line (:func:`~colbench_env.simulators.identity.describe_humans`)
    and, with several trials per task, :func:`format_trials`'s lines."""
    from .simulators.identity import describe_humans

    lines = [format_summary(m), "human: " + describe_humans(m.get("human", [None]))]
    if "trials" in m:
        lines.append(format_trials(m["trials"]))
    return "\n".join(lines)
