"""The pipeline's evaluation files -> per-method means with 95 % bootstrap intervals over tasks and
seeds, paired comparisons, and a plot with the intervals (:mod:`colbench.pipeline.stats` does the statistics).

Input: one pipeline output directory per seed (each with ``eval/<method>.jsonl``, greedy, one
episode per held-out task, and optionally ``eval/<method>.sampled.jsonl``, ``k`` sampled episodes
per task). A method enters the analysis when every seed's directory has its evaluation on the same
tasks. Output in ``out``: ``stats.json``, ``stats.md``, ``stats.png``.

Also usable on an existing run: ``colbench pipeline-stats RUN_DIR [RUN_DIR ...] --out DIR``.

``--cluster template`` (generated tasks only) adds, next to every interval, the one with whole
templates resampled instead of tasks (:mod:`colbench.pipeline.stats`): tasks of one template move together,
so the task bootstrap alone overstates what a few templates show.
"""
from __future__ import annotations

import json
from pathlib import Path

from .config import METHODS
from .stats import bootstrap_mean, paired_bootstrap
from .stages import training_outcome

__all__ = ["method_grids", "task_clusters", "analyse_runs", "COMPARISONS", "CLUSTERS"]

METRICS = {"tests_passed_pct": "% tests passed", "success_rate_pct": "success rate (%)"}
MODES = {"greedy": "", "sampled": ".sampled"}
#: (method, baseline) pairs compared, besides every method against zero-shot.
COMPARISONS = (("sweet-rl", "mt-dpo"),)
#: What ``--cluster`` can group tasks by: a function of a record's task dict (``None``: not available).
CLUSTERS = {"template": lambda task: (task.get("generator") or {}).get("template")}


def _task_key(rec: dict) -> str:
    """A record's task: its id, else its request text."""
    return str(rec["task"].get("task_id") or rec["task"]["problem_description"])


def _per_task(path: Path) -> dict[str, dict[str, float]]:
    """task id -> mean % tests passed and mean success (x 100) over that task's episodes in ``path``."""
    from colbench_env.trajectories import read_trajectories
    from wrappers.recorder import latest_records

    acc: dict[str, list[tuple[float, float]]] = {}
    for rec in latest_records(read_trajectories(path, tolerate_partial_last_line=True)).values():
        key = _task_key(rec)
        acc.setdefault(key, []).append((100.0 * float(rec.get("reward") or 0.0), 100.0 if rec.get("success") else 0.0))
    return {k: {"tests_passed_pct": sum(v[0] for v in vs) / len(vs), "success_rate_pct": sum(v[1] for v in vs) / len(vs),
                "episodes": len(vs)} for k, vs in acc.items()}


def _never_evaluated(run_dirs: list[Path], method: str, mode: str) -> str:
    """Why no run has ``method``'s evaluation: the pipeline's reason when no run trained it (every
    run's ``models/<method>/pipeline_done.json`` says it was skipped, with one reason), else none."""
    reasons = set()
    for d in run_dirs:
        try:
            reasons.add(training_outcome(d, method)["skipped"])
        except (OSError, ValueError, KeyError, TypeError):  # unfinished (None), unreadable, or trained
            reasons.add(None)
    if len(reasons) == 1 and None not in reasons:
        return f"not trained in any run: {reasons.pop()}"
    return f"no {mode} evaluation in any run"


def method_grids(run_dirs: list[Path], methods: list[str], mode: str) -> tuple[dict, list[str], dict]:
    """``{method: {metric: (n_seeds, n_tasks) list}}`` for the methods evaluated in every run on the
    same tasks, the task ids (columns) and ``{method: reason}`` for those left out."""
    grids, skipped, tasks = {}, {}, None
    for m in methods:
        files = [Path(d) / "eval" / f"{m}{MODES[mode]}.jsonl" for d in run_dirs]
        have = [f for f in files if f.exists()]
        if len(have) != len(run_dirs):
            skipped[m] = (f"{mode} evaluation in {len(have)} of {len(run_dirs)} runs" if have
                          else _never_evaluated(run_dirs, m, mode))
            continue
        per_seed = [_per_task(f) for f in files]
        ids = sorted(per_seed[0])
        if any(sorted(p) != ids for p in per_seed) or (tasks is not None and ids != tasks):
            skipped[m] = f"{mode} evaluations are not on the same tasks in every run"
            continue
        tasks = ids
        grids[m] = {k: [[p[t][k] for t in ids] for p in per_seed] for k in METRICS}
    return grids, tasks or [], skipped


def task_clusters(run_dirs: list[Path], by: str) -> dict[str, str]:
    """``{task key: cluster label}`` over every evaluation record of the runs (``by``: a key of
    :data:`CLUSTERS`); a task without one is an error naming its file."""
    from colbench_env.trajectories import read_trajectories

    if by not in CLUSTERS:
        raise ValueError(f"cluster: one of {sorted(CLUSTERS)} expected, got {by!r}")
    labels: dict[str, str] = {}
    for d in run_dirs:
        for f in sorted((Path(d) / "eval").glob("*.jsonl")):
            for rec in read_trajectories(f, tolerate_partial_last_line=True):
                label = CLUSTERS[by](rec["task"])
                if label is None:
                    raise ValueError(f"{f}: task {_task_key(rec)} has no {by} (only generated tasks have one)")
                labels.setdefault(_task_key(rec), str(label))
    return labels


def analyse_runs(run_dirs: list[str | Path], out: str | Path, *, methods: list[str] | None = None,
                 resamples: int = 10000, seed: int = 0, title: str = "", cluster: str | None = None) -> dict:
    """Intervals and comparisons over the runs (one per seed); writes ``stats.{json,md,png}`` to ``out``.
    ``cluster``: also the intervals with whole clusters of tasks resampled (a key of :data:`CLUSTERS`)."""
    run_dirs = [Path(d) for d in run_dirs]
    if methods is None:
        methods = ["zero-shot", *METHODS]
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    report: dict = {"runs": [str(d) for d in run_dirs], "n_seeds": len(run_dirs), "resamples": resamples,
                    "level": 0.95, "cluster": cluster, "modes": {}}
    by_task = task_clusters(run_dirs, cluster) if cluster else None  # read once, for every mode
    for mode in MODES:
        grids, tasks, skipped = method_grids(run_dirs, methods, mode)
        if not grids:
            continue
        entry = {"n_tasks": len(tasks), "skipped": skipped, "methods": {}, "comparisons": []}
        labels = [by_task[t] for t in tasks] if by_task is not None else None
        if labels:
            entry["n_clusters"] = len(set(labels))
            entry["clusters"] = dict(zip(tasks, labels))
        for m, g in grids.items():
            entry["methods"][m] = {k: bootstrap_mean(g[k], resamples=resamples, seed=seed).as_dict() for k in METRICS}
            if labels:
                entry["methods"][m]["by_cluster"] = {
                    k: bootstrap_mean(g[k], resamples=resamples, seed=seed, clusters=labels).as_dict() for k in METRICS}
        pairs = [(m, "zero-shot") for m in grids if m != "zero-shot" and "zero-shot" in grids]
        pairs += [p for p in COMPARISONS if p[0] in grids and p[1] in grids]
        for a, b in pairs:
            for k in METRICS:
                c = paired_bootstrap(grids[a][k], grids[b][k], resamples=resamples, seed=seed)
                row = {"method": a, "baseline": b, "metric": k, **c.as_dict()}
                if labels:
                    row["by_cluster"] = paired_bootstrap(grids[a][k], grids[b][k], resamples=resamples, seed=seed,
                                                         clusters=labels).as_dict()
                entry["comparisons"].append(row)
        report["modes"][mode] = entry
    (out / "stats.json").write_text(json.dumps(report, indent=2) + "\n")
    (out / "stats.md").write_text(_markdown(report))
    if report["modes"]:
        _plot(report, out / "stats.png", title)
    return report


def _markdown(report: dict) -> str:
    lines = [f"Means with 95 % percentile bootstrap intervals over {report['n_seeds']} seed(s) and the held-out "
             f"tasks ({report['resamples']} resamples; `colbench/pipeline/stats.py`).", ""]
    by = report.get("cluster")
    if by:
        lines += [f"Columns marked *{by}s resampled*: the same bootstrap drawing whole {by}s (every task of a "
                  f"drawn {by}) instead of single tasks; tasks of one {by} move together, so these are the "
                  f"intervals for a claim beyond these {by}s.", ""]
    for mode, e in report["modes"].items():
        head = f"### {mode} evaluation ({e['n_tasks']} tasks x {report['n_seeds']} seed(s)"
        head += f"; {e['n_clusters']} {by}s)" if by else ")"
        cols = ["% tests passed [95 % CI]", "success rate % [95 % CI]"]
        if by:
            cols.append(f"success rate, {by}s resampled [95 % CI]")
        lines += [head, "", "| method | " + " | ".join(cols) + " |", "|---" * (len(cols) + 1) + "|"]
        for m, r in e["methods"].items():
            cells = [f"{r[k]['mean']:.1f} [{r[k]['low']:.1f}, {r[k]['high']:.1f}]" for k in METRICS]
            if by:
                c = r["by_cluster"]["success_rate_pct"]
                cells.append(f"[{c['low']:.1f}, {c['high']:.1f}]")
            lines.append(f"| {m} | " + " | ".join(cells) + " |")
        extra = f" {by}s resampled [95 % CI] | p | excludes 0 |" if by else ""
        lines += ["", "| comparison | metric | difference [95 % CI] | p | interval excludes 0 |" + extra,
                  "|---|---|---|---|---|" + ("---|---|---|" if by else "")]
        for c in e["comparisons"]:
            row = (f"| {c['method']} - {c['baseline']} | {METRICS[c['metric']]} | {c['diff_mean']:+.1f} "
                   f"[{c['diff_low']:+.1f}, {c['diff_high']:+.1f}] | {c['p_value']:.3f} | "
                   f"{'yes' if c['significant'] else 'no'} |")
            if by:
                k = c["by_cluster"]
                row += (f" [{k['diff_low']:+.1f}, {k['diff_high']:+.1f}] | {k['p_value']:.3f} | "
                        f"{'yes' if k['significant'] else 'no'} |")
            lines.append(row)
        for m, why in e["skipped"].items():
            lines.append(f"\n{m}: left out ({why}).")
        lines.append("")
    return "\n".join(lines)


def _plot(report: dict, path: Path, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    modes = list(report["modes"])
    fig, axes = plt.subplots(len(modes), 2, figsize=(10, 3.4 * len(modes)), squeeze=False)
    for i, mode in enumerate(modes):
        e = report["modes"][mode]
        names = list(e["methods"])
        for j, (k, label) in enumerate(METRICS.items()):
            ax = axes[i][j]
            means = [e["methods"][m][k]["mean"] for m in names]
            err = [[mu - e["methods"][m][k]["low"] for m, mu in zip(names, means)],
                   [e["methods"][m][k]["high"] - mu for m, mu in zip(names, means)]]
            ax.bar(names, means, yerr=err, capsize=4,
                   color=["#999999" if m == "zero-shot" else "#4c72b0" for m in names])
            ax.set_title(f"{label}, {mode} ({e['n_tasks']} tasks x {report['n_seeds']} seeds)", fontsize=9)
            ax.set_ylim(0, 100)
            ax.tick_params(axis="x", labelsize=8)
            for x, mu in enumerate(means):
                ax.text(x, mu + 1, f"{mu:.1f}", ha="center", va="bottom", fontsize=7)
    fig.suptitle((title + ": " if title else "") + "means with 95 % bootstrap intervals", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
