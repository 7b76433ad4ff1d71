"""Re-run the evaluation episodes of a pipeline run that the current human would answer differently.

A change to the offline scripted human (a new ``human_version``) leaves most recorded episodes as
they were: greedy decoding is deterministic, so an episode in which every human reply is unchanged
would be replayed word for word. This tool finds the others and re-runs only them:

1. **Replay**: each human reply of ``<seed-dir>/eval/<method>.jsonl`` is asked again of the current
   human with the same dialogue so far. Episodes where every reply is the same are kept as they are.
2. **Model**: the method's merged model from ``<seed-dir>/models/<method>`` or, when it is gone,
   trained again from the seed's ``rollouts.jsonl`` with the run's settings (``config.json``) into
   ``--out``. A **control** episode (the first unchanged one) is re-run with it: it must reproduce its
   recorded dialogue exactly, or the model is not the one that made the file (reported, and the
   numbers are then not comparable).
3. **Re-run** the changed episodes (greedy, the run's settings, the current human) and write
   ``<out>/eval/<method>.jsonl`` = unchanged records + re-run ones, with ``summary.json``: the
   metrics before and after, and each changed episode's old and new outcome.

The collected rollouts (and so the training data) stay those of the old human; the summary says so.

    python -m studies.pipeline_rate_fixed.human_rerun studies/pipeline_rate_fixed/seed-1 --method rft --out runs/rerun-s1
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from pathlib import Path

__all__ = ["changed_episodes", "load_run_config", "main"]


def load_run_config(seed_dir: Path, out_dir: Path):
    """The :class:`~colbench.pipeline.PipelineConfig` a seed directory was made with (its
    ``config.json``; fields this version does not know are dropped), writing to ``out_dir``."""
    from colbench.pipeline import PipelineConfig

    stored = json.loads((seed_dir / "config.json").read_text())
    known = {f.name for f in dataclasses.fields(PipelineConfig)}
    conf = {k: v for k, v in stored.items() if k in known}
    conf.update(out_dir=str(out_dir), seeds=(), methods=tuple(conf.get("methods") or ()))
    return PipelineConfig(**conf)


def changed_episodes(records: list[dict], tasks_by_id: dict, human) -> tuple[list[str], dict[str, list[dict]]]:
    """Episode ids whose human replies differ when asked again of ``human``, and for each the turns
    that differ (``{"turn": i, "recorded": ..., "now": ...}``)."""
    changed: dict[str, list[dict]] = {}
    for rec in records:
        task, dialogue = tasks_by_id[rec["task_id"]], rec["dialogue_history"]
        diffs = []
        for i in range(len(dialogue) - 1):
            if dialogue[i]["role"] == "assistant" and dialogue[i + 1]["role"] == "user":
                now = human.reply(task, dialogue[: i + 1])
                if now != dialogue[i + 1]["content"]:
                    diffs.append({"turn": i, "recorded": dialogue[i + 1]["content"], "now": now})
        if diffs:
            changed[str(rec["episode_id"])] = diffs
    return list(changed), changed


def main(argv: list[str] | None = None) -> int:
    from colbench.pipeline import base_policy, episodes_in_file, run_stage_episodes, task_split, train_method
    from colbench_env.metrics import summarize
    from colbench_env.simulators import make_simulator
    from colbench_env.simulators.scripted_backend import UNRECORDED_VERSION, VERSION
    from colbench_env.trajectories import atomic_write_jsonl, read_trajectories
    from colbench.wrappers.recorder import latest_records

    p = argparse.ArgumentParser(prog="python -m studies.pipeline_rate_fixed.human_rerun", description=__doc__.split("\n\n")[0])
    p.add_argument("seed_dir", type=Path, help="a pipeline seed directory (config.json, rollouts.jsonl, eval/)")
    p.add_argument("--method", required=True, help="the evaluated method (zero-shot, rft, ...)")
    p.add_argument("--out", type=Path, required=True, help="where the model (if retrained) and the new file go")
    args = p.parse_args(argv)
    src = args.seed_dir / "eval" / f"{args.method}.jsonl"
    if not src.exists():
        print(f"human_rerun: error: {src}: no such evaluation file", file=sys.stderr)
        return 2
    cfg = load_run_config(args.seed_dir, args.out)
    if cfg.eval_temperature != 0:
        print(f"human_rerun: error: {args.seed_dir / 'config.json'}: eval_temperature {cfg.eval_temperature:g}; only "
              "a greedy evaluation replays word for word", file=sys.stderr)
        return 2
    test_tasks = task_split(cfg, "test")
    by_id = {t.task_id: t for t in test_tasks}
    records = list(latest_records(read_trajectories(src, tolerate_partial_last_line=True)).values())
    human = make_simulator(cfg.simulator, kind="backend", **cfg.simulator_kwargs)
    ids, diffs = changed_episodes(records, by_id, human)
    print(f"{src}: {len(ids)} of {len(records)} episodes get another human reply now", file=sys.stderr)
    summary: dict = {"source": str(src), "method": args.method, "human_version": VERSION,
                     "recorded_human_version": json.loads((args.seed_dir / "config.json").read_text()).get(
                         "human_version", UNRECORDED_VERSION),
                     "episodes": len(records), "changed": ids, "before": summarize(records)}
    args.out.mkdir(parents=True, exist_ok=True)
    if ids:
        base = base_policy(cfg)
        if args.method == "zero-shot":
            model = base
        elif (args.seed_dir / "models" / args.method / "config.json").exists():
            model = str(args.seed_dir / "models" / args.method)
        else:
            train_tasks = task_split(cfg, "train")
            rollouts, missing = episodes_in_file(cfg, train_tasks, args.seed_dir / "rollouts.jsonl",
                                                repeats=cfg.rollouts_per_task)
            if missing:
                print(f"human_rerun: error: {args.seed_dir / 'rollouts.jsonl'}: {missing} rollouts missing",
                      file=sys.stderr)
                return 2
            info = train_method(cfg, args.method, base, rollouts, args.out)
            summary["retrained"] = {k: v for k, v in info.items() if k != "method"}
            model = str(args.out / "models" / args.method)
        control = next((str(r["episode_id"]) for r in records if str(r["episode_id"]) not in diffs), None)
        new_file = args.out / "eval" / f"{args.method}.rerun.jsonl"
        rerun = run_stage_episodes(cfg, test_tasks, model, new_file, repeats=1, temperature=cfg.eval_temperature,
                             desc=f"rerun {args.method}", only={*ids, *([control] if control else [])})
        rerun = {str(r["episode_id"]): r for r in rerun}
        old = {str(r["episode_id"]): r for r in records}
        if control is not None:
            same = ([m["content"] for m in rerun[control]["dialogue_history"]]
                    == [m["content"] for m in old[control]["dialogue_history"]])
            summary["control"] = {"episode_id": control, "reproduced": same}
            if not same:
                print(f"human_rerun: warning: control episode {control} did not reproduce its recorded dialogue: "
                      "the model is not the one that made the file", file=sys.stderr)
        merged = [rerun[str(r["episode_id"])] if str(r["episode_id"]) in diffs else r for r in records]
        summary["after"] = summarize(merged)
        summary["per_episode"] = {i: {"task_id": old[i]["task_id"], "success_before": old[i]["success"],
                                      "success_after": rerun[i]["success"], "reward_before": old[i]["reward"],
                                      "reward_after": rerun[i]["reward"], "first_changed_reply": diffs[i][0]}
                                  for i in ids}
        atomic_write_jsonl(args.out / "eval" / f"{args.method}.jsonl", merged)
    else:
        summary["after"] = summary["before"]
    summary["note"] = ("training data (rollouts) are those of the recorded human; only the evaluation "
                       "replies are the current human's")
    (args.out / f"summary-{args.method}.json").write_text(json.dumps(summary, indent=2, default=str) + "\n")
    b, a = summary["before"], summary["after"]
    print(f"{args.method}: success {100 * b['success_rate']:.1f} % -> {100 * a['success_rate']:.1f} %, tests passed "
          f"{b['tests_passed_pct']:.1f} % -> {a['tests_passed_pct']:.1f} % ({len(ids)} episodes re-run)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
