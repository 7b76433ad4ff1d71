"""The pipeline's evaluation files -> per-method means with 95 % bootstrap intervals over tasks and
seeds, paired comparisons, and a plot with the intervals (:mod:`colbench.stats` does the statistics).

Metrics (:data:`KIND_METRICS`, by the task kind of the evaluation records): backend ``% tests
passed`` and ``success rate``; frontend ``similarity x 100`` (the mean similarity of the final
page's render to the target's, as a percentage, as the paper reports it) and the **win rate over
zero-shot**: in each (seed, held-out task) cell a method wins (1) when its similarity is higher than
zero-shot's, ties (1/2) when equal, loses (0) when lower -- the per-task rule of ``colbench
evaluate --compare`` (:func:`colbench_env.evaluation.trajectory_scoring.win_rate`: a task's
similarity is the mean over its episodes in the file, so with sampled episodes the means are
compared), ties counted half -- and the win rate is the mean over the cells x 100, bootstrapped over
tasks and seeds like every mean (:func:`~colbench.stats.win_grid`). Every comparison
(each method - zero-shot, and :data:`COMPARISONS`) gets the paired difference of the similarity
and, for the frontend, the first method's win rate over the second.

Input: one pipeline output directory per seed (each with ``eval/<method>.jsonl``, greedy, one
episode per held-out task, and optionally ``eval/<method>.sampled.jsonl``, ``k`` sampled episodes
per task). A method enters the analysis when every seed's directory has its evaluation on the same
tasks. Output in ``out``: ``stats.json``, ``stats.md``, ``stats.png``.

Also usable on an existing run: ``colbench pipeline-stats RUN_DIR [RUN_DIR ...] --out DIR``.

With ``k >= 2`` sampled episodes per task (the sampled evaluation), backend methods also get pass@k
and pass^k for ``k = 1 .. K`` (the unbiased estimates of :mod:`colbench_env.metrics` per seed and task,
bootstrapped like every mean: :func:`pass_k_grids`). Episodes that ended on an infrastructure error
are left out of every mean. ``stats.md`` names the human of the evaluation records
(:mod:`colbench_env.simulators.identity`) and warns when methods had different ones.

``--cluster template`` (generated tasks only) adds, next to every interval, the one with whole
templates resampled instead of tasks (:mod:`colbench.stats`): tasks of one template move together,
so the task bootstrap alone overstates what a few templates show.
"""
from __future__ import annotations

import json
from pathlib import Path

from colbench.budgets import (HEADLINE_COMPARISON, budget_differences, budget_markdown, budget_table, token_markdown,
                              token_table)
from .config import METHODS
from colbench.stats import bootstrap_mean, paired_bootstrap, seed_interval, win_grid
from .stages import training_outcome

__all__ = ["method_grids", "task_clusters", "analyse_runs", "runs_kind", "pass_k_grids", "runs_humans", "COMPARISONS", "CLUSTERS", "KIND_METRICS",
           "WIN_RATE"]

#: Per task kind, the metrics of one method's episodes: ``{key: label}`` (every value 0..100).
KIND_METRICS = {"backend": {"tests_passed_pct": "% tests passed", "success_rate_pct": "success rate (%)"},
                "frontend": {"similarity_pct": "similarity x 100"}}
#: The frontend's pair metric: a method's win rate over a baseline (key and label).
WIN_RATE = ("win_rate_pct", "win rate over zero-shot (%)")
METRICS = KIND_METRICS["backend"]  # the backend's (the name before frontend runs)
MODES = {"greedy": "", "sampled": ".sampled"}
#: (method, baseline) pairs compared, besides every method against zero-shot.
COMPARISONS = (HEADLINE_COMPARISON,)
#: What ``--cluster`` can group tasks by: a function of a record's task dict (``None``: not available).
CLUSTERS = {"template": lambda task: (task.get("generator") or {}).get("template")}


def _task_key(rec: dict) -> str:
    """A record's task: its id, else its request text."""
    return str(rec["task"].get("task_id") or rec["task"]["problem_description"])


def _records(path: Path) -> list[dict]:
    """The latest record of each episode of ``path``."""
    from colbench_env.trajectories import read_trajectories
    from colbench.wrappers.recorder import latest_records

    return list(latest_records(read_trajectories(path, tolerate_partial_last_line=True)).values())


def _per_task(path: Path) -> dict[str, dict[str, float]]:
    """task id -> the means over that task's episodes in ``path`` that did not end on an
    infrastructure error (:func:`colbench_env.metrics.infrastructure_error`): backend % tests passed
    and success (x 100), frontend similarity x 100 (:data:`KIND_METRICS`); ``episodes`` (scored) and
    ``successes`` (backend: episodes that passed every test)."""
    from colbench_env.metrics import infrastructure_error

    acc: dict[str, list[dict[str, float]]] = {}
    for rec in _records(path):
        if infrastructure_error(rec):
            continue
        reward = 100.0 * float(rec.get("reward") or 0.0)
        if _kind(rec) == "backend":
            scores = {"tests_passed_pct": reward, "success_rate_pct": 100.0 if rec.get("success") else 0.0}
        else:
            scores = {"similarity_pct": reward}
        acc.setdefault(_task_key(rec), []).append(scores)
    return {k: {**{m: sum(v[m] for v in vs) / len(vs) for m in vs[0]}, "episodes": len(vs),
                "successes": sum(1 for v in vs if v.get("success_rate_pct") == 100.0)} for k, vs in acc.items()}


def pass_k_grids(run_dirs: list[Path], method: str, tasks: list[str], mode: str = "sampled") -> dict:
    """``{"pass_at_k": {k: grid}, "pass_hat_k": {k: grid}}`` (backend): per seed and task the unbiased
    pass@k / pass^k estimates (:func:`colbench_env.metrics.pass_at_k`, x 100) from that task's scored
    episodes in ``method``'s ``mode`` evaluation, for ``k = 1 .. K`` with ``K`` the fewest scored
    episodes of a task (the same ``k`` for every cell); ``{}`` when ``K < 2``."""
    from colbench_env.metrics import pass_at_k, pass_hat_k

    per_seed = [_per_task(Path(d) / "eval" / f"{method}{MODES[mode]}.jsonl") for d in run_dirs]
    K = min((p[t]["episodes"] for p in per_seed for t in tasks), default=0)
    if K < 2:
        return {}
    return {name: {str(k): [[100.0 * f(int(p[t]["episodes"]), int(p[t]["successes"]), k) for t in tasks]
                            for p in per_seed] for k in range(1, K + 1)}
            for name, f in (("pass_at_k", pass_at_k), ("pass_hat_k", pass_hat_k))}


def runs_humans(run_dirs: list[Path], methods: list[str]) -> dict[str, list]:
    """``{method: run_humans(...)}`` over every evaluation record of each method in the runs
    (:func:`colbench_env.simulators.identity.run_humans`)."""
    from colbench_env.simulators.identity import run_humans

    out: dict[str, list] = {}
    for m in methods:
        recs = [r for d in run_dirs for mode in MODES for f in [Path(d) / "eval" / f"{m}{MODES[mode]}.jsonl"]
                if f.exists() for r in _records(f)]
        if recs:
            out[m] = run_humans(recs)
    return out


def _kind(rec: dict) -> str:
    from colbench_env.records import record_kind

    return record_kind(rec["task"])


def runs_kind(run_dirs: list[Path]) -> str:
    """``"backend"`` or ``"frontend"``: the task kind of the runs' evaluation records (the first
    record found; ``"backend"`` when there is none). A mix of both kinds is an error."""
    from colbench_env.trajectories import read_trajectories

    kinds = set()
    for d in run_dirs:
        for f in sorted((Path(d) / "eval").glob("*.jsonl")):
            for rec in read_trajectories(f, tolerate_partial_last_line=True):
                kinds.add(_kind(rec))
                break
    if len(kinds) > 1:
        raise ValueError(f"the runs mix backend and frontend evaluations ({', '.join(str(d) for d in run_dirs)}); "
                         f"analyse them apart")
    return kinds.pop() if kinds else "backend"


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


def method_grids(run_dirs: list[Path], methods: list[str], mode: str,
                 metrics: dict | None = None) -> tuple[dict, list[str], dict]:
    """``{method: {metric: (n_seeds, n_tasks) list}}`` for the methods evaluated in every run on the
    same tasks, the task ids (columns) and ``{method: reason}`` for those left out (``metrics``: the
    kind's, :data:`KIND_METRICS`; default the backend's)."""
    metrics = METRICS if metrics is None else metrics
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
        if any(k not in p[t] for p in per_seed for t in ids for k in metrics):
            skipped[m] = f"{mode} evaluations are not all of the same task kind"
            continue
        grids[m] = {k: [[p[t][k] for t in ids] for p in per_seed] for k in metrics}
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
                 resamples: int = 10000, seed: int = 0, title: str = "", cluster: str | None = None,
                 comparisons: tuple[tuple[str, str], ...] = COMPARISONS) -> dict:
    """Intervals and comparisons over the runs (one per seed); writes ``stats.{json,md,png}`` to ``out``.
    ``cluster``: also the intervals with whole clusters of tasks resampled (a key of :data:`CLUSTERS`).
    ``comparisons``: the ``(method, baseline)`` pairs compared besides every method - zero-shot.

    Every comparison carries, beside the bootstrap over tasks (and clusters), the per-seed paired
    differences and their t-interval across seeds (:func:`~colbench.pipeline.stats.seed_interval`),
    and a verdict saying which interval it rests on (:func:`verdict`). The report also holds each
    trained method's training budget (:func:`colbench.budgets.budget_table`) and, for the
    compared pairs of trained methods, the budget fields that differ by more than 10 %; and the
    agent turns each method trained on recorded token ids or re-tokenized
    (:func:`colbench.budgets.token_table`)."""
    run_dirs = [Path(d) for d in run_dirs]
    if methods is None:
        methods = ["zero-shot", *METHODS]
    out = Path(out)
    kind = runs_kind(run_dirs)
    metrics = KIND_METRICS[kind]
    out.mkdir(parents=True, exist_ok=True)
    report: dict = {"runs": [str(d) for d in run_dirs], "kind": kind, "n_seeds": len(run_dirs), "resamples": resamples,
                    "level": 0.95, "cluster": cluster,
                    "metrics": {**metrics, **({WIN_RATE[0]: WIN_RATE[1]} if kind == "frontend" else {})}, "modes": {}}
    by_task = task_clusters(run_dirs, cluster) if cluster else None  # read once, for every mode
    budgets = budget_table(run_dirs, [m for m in methods if m != "zero-shot"])
    report["budget"] = budgets
    report["budget_differences"] = budget_differences(budgets, [p for p in comparisons if p[1] != "zero-shot"])
    report["tokens"] = token_table(run_dirs, [m for m in methods if m != "zero-shot"])
    from colbench_env.simulators.identity import describe_humans, humans_warning

    humans = runs_humans(run_dirs, methods)
    report["human"] = describe_humans([h for hs in humans.values() for h in hs])
    known = any(h is not None for hs in humans.values() for h in hs)  # all unknown: the Human line says so
    report["humans_warning"] = humans_warning(humans) if len(humans) > 1 and known else None
    for mode in MODES:
        grids, tasks, skipped = method_grids(run_dirs, methods, mode, metrics)
        if not grids:
            continue
        entry = {"n_tasks": len(tasks), "skipped": skipped, "methods": {}, "comparisons": []}
        labels = [by_task[t] for t in tasks] if by_task is not None else None
        if labels:
            entry["n_clusters"] = len(set(labels))
            entry["clusters"] = dict(zip(tasks, labels))
        for m, g in grids.items():
            entry["methods"][m] = {k: bootstrap_mean(g[k], resamples=resamples, seed=seed).as_dict() for k in metrics}
            if kind == "backend":
                passes = pass_k_grids(run_dirs, m, tasks, mode)
                for name, by_k in passes.items():
                    entry["methods"][m][name] = {k: bootstrap_mean(v, resamples=resamples, seed=seed).as_dict()
                                                 for k, v in by_k.items()}
            if labels:
                entry["methods"][m]["by_cluster"] = {
                    k: bootstrap_mean(g[k], resamples=resamples, seed=seed, clusters=labels).as_dict() for k in metrics}
        pairs = [(m, "zero-shot") for m in grids if m != "zero-shot" and "zero-shot" in grids]
        pairs += [p for p in comparisons if p[0] in grids and p[1] in grids and p not in pairs]
        for a, b in pairs:
            for k in metrics:
                c = paired_bootstrap(grids[a][k], grids[b][k], resamples=resamples, seed=seed)
                row = {"method": a, "baseline": b, "metric": k, **c.as_dict(),
                       "by_seed": seed_interval(grids[a][k], grids[b][k]).as_dict()}
                if labels:
                    row["by_cluster"] = paired_bootstrap(grids[a][k], grids[b][k], resamples=resamples, seed=seed,
                                                         clusters=labels).as_dict()
                row["verdict"] = verdict(row, cluster)
                if kind == "frontend":  # a's win rate over b, cell by cell (ties half), x 100
                    wins = 100.0 * win_grid(grids[a][k], grids[b][k])
                    row["win_rate"] = bootstrap_mean(wins, resamples=resamples, seed=seed).as_dict()
                    if labels:
                        row["win_rate_by_cluster"] = bootstrap_mean(wins, resamples=resamples, seed=seed,
                                                                    clusters=labels).as_dict()
                    if b == "zero-shot":
                        entry["methods"][a][WIN_RATE[0]] = row["win_rate"]
                entry["comparisons"].append(row)
        report["modes"][mode] = entry
    (out / "stats.json").write_text(json.dumps(report, indent=2, allow_nan=False) + "\n")
    (out / "stats.md").write_text(_markdown(report))
    if report["modes"]:
        _plot(report, out / "stats.png", title)
    return report


def verdict(row: dict, cluster: str | None = None) -> dict:
    """Whether a comparison's difference is shown, and the interval that decides it.

    A difference is *shown* when every interval computed for it excludes 0 on the side of its mean:
    the bootstrap over tasks (and seeds), the bootstrap with whole clusters resampled (when
    computed), and the t-interval across seeds (with 2 or more seeds). ``rests_on`` names the
    intervals the statement rests on: all of them when shown, else the first that contains 0 (in
    the order seeds, clusters (named after ``cluster``), tasks: the widest kind first). With one seed there is no interval
    across seeds and the statement rests on the bootstraps alone, which only cover the tasks' variation.
    """
    candidates = []
    seeds = row["by_seed"]
    if seeds["low"] is not None:
        candidates.append(("seeds t-interval", seeds["low"], seeds["high"]))
    if "by_cluster" in row:
        candidates.append((f"{cluster or 'cluster'}s bootstrap", row["by_cluster"]["diff_low"],
                           row["by_cluster"]["diff_high"]))
    candidates.append(("tasks bootstrap", row["diff_low"], row["diff_high"]))
    up = row["diff_mean"] > 0
    for name, low, high in candidates:
        if not (low > 0 if up else high < 0):
            return {"shown": False, "rests_on": name}
    return {"shown": True, "rests_on": ", ".join(n for n, _, _ in candidates)}


#: a metric's heading in stats.md's table where it differs from its label
_COLUMN = {"success_rate_pct": "success rate %"}


def _ci(r: dict, sign: str = "") -> str:
    return f"{r['mean']:{sign}.1f} [{r['low']:{sign}.1f}, {r['high']:{sign}.1f}]"


def _markdown(report: dict) -> str:
    kind = report.get("kind", "backend")
    metrics = KIND_METRICS[kind]
    lines = [f"Means with 95 % percentile bootstrap intervals over {report['n_seeds']} seed(s) and the held-out "
             f"tasks ({report['resamples']} resamples; `colbench/stats.py`).", ""]
    if kind == "frontend":
        lines += ["Similarity x 100: the mean similarity of the final page's render to the target's. Win rate over "
                  "zero-shot: per held-out task and seed, 1 when the method's similarity is higher than zero-shot's, "
                  "1/2 when equal, 0 when lower (a task's similarity is the mean over its episodes), averaged, x 100.",
                  ""]
    by = report.get("cluster")
    headline = "success_rate_pct" if kind == "backend" else "similarity_pct"
    if by:
        lines += [f"Columns marked *{by}s resampled*: the same bootstrap drawing whole {by}s (every task of a "
                  f"drawn {by}) instead of single tasks; tasks of one {by} move together, so these are the "
                  f"intervals for a claim beyond these {by}s.", ""]
    n_seeds = report["n_seeds"]
    lines += [f"Every comparison has three kinds of interval: the bootstrap over tasks (and seeds, drawn with "
              f"replacement)" + (f", the same with whole {by}s resampled" if by else "") + ", and the t-interval "
              "of the per-seed paired differences across seeds (Student t, n - 1 degrees of freedom: each seed "
              "repeats the whole run, so it is the interval for another run of the experiment; none with one "
              "seed)" + (f"; with fewer than 5 seeds each seed's sign is given too" if n_seeds < 5 else "") + ". "
              "A difference is stated as shown only when every interval of its row excludes 0; the column "
              "*rests on* names the intervals that statement rests on, or the first that contains 0 "
              "(`colbench.pipeline.analysis.verdict`).", ""]
    if report.get("budget"):
        lines += ["### Training budgets (per seed, joined by /; each run's `models/<method>/pipeline_done.json`, "
                  "else its `results.json`)", "",
                  *budget_markdown(report["budget"], n_seeds), "",
                  "n/r: not recorded (trained before the metrics recorded budgets).", ""]
    if report.get("tokens"):
        lines += ["### Training tokens (agent turns per seed, joined by /: trained on the token ids the policy "
                  "recorded, or on a re-tokenization of their text that differs from what the policy saw, or "
                  "cannot be checked; `colbench.agents.tokenize.TokenReport`)", "",
                  *token_markdown(report["tokens"]), ""]
    if "human" in report:
        why = " (its records carry no 'human' field)" if report["human"] == "unknown" else ""
        lines += [f"Human: {report['human']}{why}."] + ([report["humans_warning"]] if report.get("humans_warning") else []) + [""]
    for mode, e in report["modes"].items():
        head = f"### {mode} evaluation ({e['n_tasks']} tasks x {report['n_seeds']} seed(s)"
        head += f"; {e['n_clusters']} {by}s)" if by else ")"
        cols = [f"{_COLUMN.get(k, label)} [95 % CI]" for k, label in metrics.items()]
        if kind == "frontend":
            cols.append(f"{WIN_RATE[1]} [95 % CI]")
        if by:
            cols.append(f"{_COLUMN.get(headline, metrics[headline]).removesuffix(' %')}, {by}s resampled [95 % CI]")
        lines += [head, "", "| method | " + " | ".join(cols) + " |", "|---" * (len(cols) + 1) + "|"]
        for m, r in e["methods"].items():
            cells = [_ci(r[k]) for k in metrics]
            if kind == "frontend":
                cells.append(_ci(r[WIN_RATE[0]]) if WIN_RATE[0] in r else "")
            if by:
                c = r["by_cluster"][headline]
                cells.append(f"[{c['low']:.1f}, {c['high']:.1f}]")
            lines.append(f"| {m} | " + " | ".join(cells) + " |")
        extra = f" {by}s resampled [95 % CI] | p | excludes 0 |" if by else ""
        win = " win rate of the first (%) [95 % CI] |" if kind == "frontend" else ""
        signs = " signs |" if n_seeds < 5 else ""
        if report.get("budget_differences"):
            lines += ["", "**Budgets differ by more than 10 % between compared methods** (a difference below may "
                      "be one of budgets): " + "; ".join(report["budget_differences"]) + "."]
        lines += ["", "| comparison | metric | difference [95 % CI] | p | interval excludes 0 |" + win + extra
                  + " per-seed differences | seeds t-interval [95 % CI] |" + signs + " shown | rests on |",
                  "|---|---|---|---|---|" + ("---|" if win else "") + ("---|---|---|" if by else "")
                  + "---|---|" + ("---|" if signs else "") + "---|---|"]
        for c in e["comparisons"]:
            row = (f"| {c['method']} - {c['baseline']} | {metrics[c['metric']]} | {c['diff_mean']:+.1f} "
                   f"[{c['diff_low']:+.1f}, {c['diff_high']:+.1f}] | {c['p_value']:.3f} | "
                   f"{'yes' if c['significant'] else 'no'} |")
            if win:
                row += f" {_ci(c['win_rate'])} |"
            if by:
                k = c["by_cluster"]
                row += (f" [{k['diff_low']:+.1f}, {k['diff_high']:+.1f}] | {k['p_value']:.3f} | "
                        f"{'yes' if k['significant'] else 'no'} |")
            sd = c["by_seed"]
            row += " " + " / ".join(f"{v:+.1f}" for v in sd["per_seed"]) + " | "
            row += (f"[{sd['low']:+.1f}, {sd['high']:+.1f}] |" if sd["low"] is not None else "(one seed) |")
            if signs:
                row += f" {sd['signs']} |"
            v = c["verdict"]
            row += f" {'yes' if v['shown'] else 'no'} | {v['rests_on']} |"
            lines.append(row)
        with_k = {m: r for m, r in e["methods"].items() if "pass_at_k" in r}
        if with_k:
            ks = sorted({k for r in with_k.values() for k in r["pass_at_k"]}, key=int)
            lines += ["", "pass@k / pass^k x 100 (unbiased estimates from each task's episodes, "
                          "`colbench_env.metrics`) [95 % CI]:", "",
                      "| method | " + " | ".join(f"pass@{k} | pass^{k}" for k in ks) + " |",
                      "|---" * (2 * len(ks) + 1) + "|"]
            for m, r in with_k.items():
                lines.append(f"| {m} | " + " | ".join(
                    f"{_ci(r['pass_at_k'][k])} | {_ci(r['pass_hat_k'][k])}" if k in r["pass_at_k"] else " | "
                    for k in ks) + " |")
        for m, why in e["skipped"].items():
            lines.append(f"\n{m}: left out ({why}).")
        lines.append("")
    return "\n".join(lines)


def _plot(report: dict, path: Path, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    kind = report.get("kind", "backend")
    panels = dict(KIND_METRICS[kind])
    if kind == "frontend":
        panels[WIN_RATE[0]] = WIN_RATE[1]
    modes = list(report["modes"])
    fig, axes = plt.subplots(len(modes), len(panels), figsize=(10, 3.4 * len(modes)), squeeze=False)
    for i, mode in enumerate(modes):
        e = report["modes"][mode]
        for j, (k, label) in enumerate(panels.items()):
            ax = axes[i][j]
            names = [m for m in e["methods"] if k in e["methods"][m]]
            means = [e["methods"][m][k]["mean"] for m in names]
            err = [[mu - e["methods"][m][k]["low"] for m, mu in zip(names, means)],
                   [e["methods"][m][k]["high"] - mu for m, mu in zip(names, means)]]
            ax.bar(names, means, yerr=err, capsize=4,
                   color=["#999999" if m == "zero-shot" else "#4c72b0" for m in names])
            if k == WIN_RATE[0]:
                ax.axhline(50, color="#999999", linewidth=0.8, linestyle="--")  # as good as zero-shot
            ax.set_title(f"{label}, {mode} ({e['n_tasks']} tasks x {report['n_seeds']} seeds)", fontsize=9)
            ax.set_ylim(0, 100)
            ax.tick_params(axis="x", labelsize=8)
            for x, mu in enumerate(means):
                ax.text(x, mu + 1, f"{mu:.1f}", ha="center", va="bottom", fontsize=7)
    fig.suptitle((title + ": " if title else "") + "means with 95 % bootstrap intervals", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
