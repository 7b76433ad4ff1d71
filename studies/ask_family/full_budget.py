"""SWEET-RL with its full step-data budget beside the committed warm-start pipeline run (issue 37).

The committed run (``warm_start/pipeline/seed-N``) trained SWEET-RL with ``state_fraction`` 0.1, as the
reference does: 3 / 3 / 1 step pairs per seed. The rerun (``warm_start/pipeline_full_budget/seed-N``)
gives it every agent turn of the same rollouts as a state (``state_fraction`` 1.0), everything else
equal; zero-shot and multi-turn DPO are the committed run's (same rollouts, same held-out tasks).

This script pools the seeds present in both and writes ``full_budget.json`` and ``full_budget.md``:
per method the success rate and % tests passed with 95 % percentile bootstrap intervals over seeds
and tasks, and with whole templates resampled; the paired differences of SWEET-RL (full budget)
against multi-turn DPO, SWEET-RL at 0.1 and zero-shot; the step pairs each SWEET-RL trained on.
Greedy and sampled (2 episodes per task at T = 1.0) evaluations alike.

Run from the repository root::

    python -m studies.ask_family.full_budget            # the seeds found in both folders
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

from colbench.stats import bootstrap_mean, paired_bootstrap, seed_interval
from colbench.pipeline.analysis import METRICS, MODES, method_grids, task_clusters
from colbench.pipeline.stages import training_outcome

HERE = Path(__file__).resolve().parent
BASE = HERE / "warm_start" / "pipeline"
FULL = HERE / "warm_start" / "pipeline_full_budget"
FULL_NAME = "sweet-rl (full budget)"
BASELINES = ("mt-dpo", "sweet-rl", "zero-shot")
LABELS = {"sweet-rl": "sweet-rl (state_fraction 0.1)"}


def _seeds(base: Path, full: Path) -> list[int]:
    """Seeds whose full-budget SWEET-RL has its greedy evaluation, in both folders."""
    return sorted(int(d.name.split("-")[1]) for d in full.glob("seed-*")
                  if (d / "eval" / "sweet-rl.jsonl").exists() and (base / d.name / "eval" / "mt-dpo.jsonl").exists())


def analyse(base: Path = BASE, full: Path = FULL, *, seeds: list[int] | None = None, resamples: int = 10000) -> dict:
    seeds = _seeds(base, full) if seeds is None else seeds
    if not seeds:
        raise SystemExit(f"no seed has both {base}/seed-N and {full}/seed-N/eval/sweet-rl.jsonl")
    base_dirs = [base / f"seed-{s}" for s in seeds]
    full_dirs = [full / f"seed-{s}" for s in seeds]
    by_task = task_clusters(base_dirs, "template")
    report: dict = {"seeds": seeds, "resamples": resamples, "level": 0.95, "modes": {},
                    "step_pairs": {
                        LABELS["sweet-rl"]: [training_outcome(d, "sweet-rl")["metrics"]["n_step_pairs"] for d in base_dirs],
                        FULL_NAME: [training_outcome(d, "sweet-rl")["metrics"]["n_step_pairs"] for d in full_dirs]}}
    for mode in MODES:
        grids, tasks, skipped = method_grids(base_dirs, list(BASELINES), mode)
        full_grid, full_tasks, _ = method_grids(full_dirs, ["sweet-rl"], mode)
        if "sweet-rl" not in full_grid or full_tasks != tasks or set(grids) != set(BASELINES):
            continue
        grids = {FULL_NAME: full_grid["sweet-rl"], **grids}
        labels = [by_task[t] for t in tasks]
        entry: dict = {"n_tasks": len(tasks), "n_templates": len(set(labels)), "methods": {}, "comparisons": []}
        for m, g in grids.items():
            entry["methods"][LABELS.get(m, m)] = {
                k: {"tasks": bootstrap_mean(g[k], resamples=resamples).as_dict(),
                    "templates": bootstrap_mean(g[k], resamples=resamples, clusters=labels).as_dict()} for k in METRICS}
        for b in BASELINES:
            for k in METRICS:
                entry["comparisons"].append({
                    "method": FULL_NAME, "baseline": LABELS.get(b, b), "metric": k,
                    "tasks": paired_bootstrap(grids[FULL_NAME][k], grids[b][k], resamples=resamples).as_dict(),
                    "templates": paired_bootstrap(grids[FULL_NAME][k], grids[b][k], resamples=resamples,
                                                  clusters=labels).as_dict(),
                    "seeds": seed_interval(grids[FULL_NAME][k], grids[b][k]).as_dict()})
        report["modes"][mode] = entry
    report["critic_choices"] = {str(s): critic_choices(d / "stages" / "sweet-rl" / "candidates.jsonl")
                                for s, d in zip(seeds, full_dirs)}
    report["never_coded"] = {
        name: {mode: [never_coded(d / "eval" / f"{m}{suffix}.jsonl") for d in dirs]
               for mode, suffix in (("greedy", ""), ("sampled", ".sampled"))}
        for name, m, dirs in ((FULL_NAME, "sweet-rl", full_dirs), (LABELS["sweet-rl"], "sweet-rl", base_dirs),
                              ("mt-dpo", "mt-dpo", base_dirs), ("zero-shot", "zero-shot", base_dirs))}
    return report


ANSWER_MARK = "I WANT TO ANSWER"


def critic_choices(stage_file: Path) -> dict:
    """What the trained critic preferred among each state's candidates (``candidates.jsonl``).

    A candidate is an answer when it carries the compact prompt's answer mark, else a question. Per
    agent turn (1, 2, 3): how many states, how many whose candidates are all answers, how many mixed
    (questions and answers both), and in how many mixed ones the critic's top-scored candidate is a question.
    """
    out: dict[int, dict[str, int]] = {}
    for line in stage_file.read_text().splitlines():
        rec = json.loads(line)
        if "header" in rec:
            continue
        kinds = [ANSWER_MARK in a for a in rec["actions"]]
        top = max(range(len(kinds)), key=lambda i: rec["scores"][i])
        row = out.setdefault(rec["turn"] // 2 + 1, {"states": 0, "all_answers": 0, "all_questions": 0,
                                                     "mixed": 0, "question_on_top": 0})
        row["states"] += 1
        row["all_answers"] += all(kinds)
        row["all_questions"] += not any(kinds)
        if any(kinds) and not all(kinds):
            row["mixed"] += 1
            row["question_on_top"] += not kinds[top]
    return {str(k): out[k] for k in sorted(out)}


def never_coded(eval_file: Path) -> list[int]:
    """[episodes in which the agent wrote no function in any turn, episodes] in an evaluation file.

    The last turn is taken as the answer whatever it says, so an episode of questions only scores 0.
    """
    recs = [json.loads(line) for line in eval_file.read_text().splitlines() if line.strip()]
    silent = sum(not any("def " in m["content"] for m in r["dialogue_history"] if m["role"] == "assistant")
                 for r in recs)
    return [silent, len(recs)]


def markdown(report: dict) -> str:
    n = len(report["seeds"])
    lines = [f"SWEET-RL with every agent turn as a state (`state_fraction` 1.0) beside the committed run, seeds "
             f"{', '.join(map(str, report['seeds']))}: means with 95 % percentile bootstrap intervals over the "
             f"{n} seed(s) and the held-out tasks, and with whole templates resampled ({report['resamples']} "
             "resamples; `python -m studies.ask_family.full_budget`); for each comparison also the per-seed "
             "differences and their Student t-interval across seeds (`colbench.pipeline.stats.seed_interval`).", "",
             "Step pairs SWEET-RL trained on, per seed: " + "; ".join(
                 f"{m} {' / '.join(str(int(x)) for x in v)}" for m, v in report["step_pairs"].items()) + ".", ""]
    for mode, e in report["modes"].items():
        lines += [f"### {mode} evaluation ({e['n_tasks']} tasks x {n} seed(s); {e['n_templates']} templates)", "",
                  "| method | success % [tasks] | [templates] | % tests passed [tasks] |", "|---|---|---|---|"]
        for m, r in e["methods"].items():
            s, t = r["success_rate_pct"], r["tests_passed_pct"]["tasks"]
            lines.append(f"| {m} | {s['tasks']['mean']:.1f} [{s['tasks']['low']:.1f}, {s['tasks']['high']:.1f}] | "
                         f"[{s['templates']['low']:.1f}, {s['templates']['high']:.1f}] | "
                         f"{t['mean']:.1f} [{t['low']:.1f}, {t['high']:.1f}] |")
        lines += ["", "| comparison | metric | difference [tasks] | p | [templates] | p | per-seed differences "
                  "| [seeds t-interval] |", "|---|---|---|---|---|---|---|---|"]
        for c in e["comparisons"]:
            a, b, sd = c["tasks"], c["templates"], c["seeds"]
            spread = f"[{sd['low']:+.1f}, {sd['high']:+.1f}]" if sd["low"] is not None else "(one seed)"
            lines.append(f"| {c['method']} - {c['baseline']} | {METRICS[c['metric']]} | {a['diff_mean']:+.1f} "
                         f"[{a['diff_low']:+.1f}, {a['diff_high']:+.1f}] | {a['p_value']:.3f} | "
                         f"[{b['diff_low']:+.1f}, {b['diff_high']:+.1f}] | {b['p_value']:.3f} | "
                         + " / ".join(f"{v:+.1f}" for v in sd["per_seed"]) + f" | {spread} |")
        lines.append("")
    lines += ["### What the critic preferred (`stages/sweet-rl/candidates.jsonl`)", "",
              "Per seed and agent turn: states, states whose 4 candidates are all answers / all questions, "
              "mixed states, and mixed states where the critic scored a question highest.", "",
              "| seed | agent turn | states | all answers | all questions | mixed | question on top |",
              "|---|---|---|---|---|---|---|"]
    for seed, turns in report["critic_choices"].items():
        for turn, r in turns.items():
            lines.append(f"| {seed} | {turn} | {r['states']} | {r['all_answers']} | {r['all_questions']} | "
                         f"{r['mixed']} | {r['question_on_top']} |")
    lines += ["", "Evaluation episodes in which the agent wrote no function in any turn, only questions (per seed; "
              "the last turn is taken as the answer, so they score 0):", "",
              "| method | greedy | sampled |", "|---|---|---|"]
    for name, modes in report["never_coded"].items():
        lines.append(f"| {name} | " + " | ".join(" / ".join(f"{a} of {b}" for a, b in modes[mode])
                                                for mode in ("greedy", "sampled")) + " |")
    lines.append("")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m studies.ask_family.full_budget", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--base", type=Path, default=BASE, help="the committed run's folder (seed-N inside)")
    p.add_argument("--full", type=Path, default=FULL, help="the full-budget rerun's folder (seed-N inside)")
    p.add_argument("--seeds", type=int, nargs="*", default=None, help="seeds (default: every seed in both)")
    p.add_argument("--resamples", type=int, default=10000)
    p.add_argument("--out", type=Path, default=FULL, help="where full_budget.{json,md} go")
    args = p.parse_args(argv)
    report = analyse(args.base, args.full, seeds=args.seeds, resamples=args.resamples)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "full_budget.json").write_text(json.dumps(report, indent=2) + "\n")
    (args.out / "full_budget.md").write_text(markdown(report))
    print(markdown(report))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
