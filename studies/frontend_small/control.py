"""The frontend control (issue 48 part 4): multi-turn DPO at one epoch with NLL 0.01 on the study's data.

The study's multi-turn DPO (two epochs, no NLL term) collapsed on every seed (27 / 42 / 40 of 48
pages cut at the token limit), so "SWEET-RL above multi-turn DPO" there may be about the collapse,
not about per-turn credit. This control trains multi-turn DPO again on each committed seed's
``rollouts.jsonl`` with the study's settings but for one epoch and with SWEET-RL's NLL coefficient
(0.01), evaluates it greedily on the same 48 held-out tasks, and compares it with the study's own
SWEET-RL and zero-shot episodes (copied: the same tasks, seeds and policy).

Each seed is a ``colbench pipeline`` run (``--methods mt-dpo``) in ``--work``/seed-N, pre-seeded with
the seed's rollouts and the study's zero-shot and SWEET-RL evaluations (SWEET-RL's training record
as an earlier invocation's, so that the report lists it); the collection is found complete and not
rerun. Its files are then copied to ``control/seed-N/`` and the seeds found there pooled into
``control/stats.*`` (templates resampled too).

Run from the repository root (Chromium, ``COLBENCH_ASSETS`` pointing at the offline page assets)::

    OMP_WAIT_POLICY=PASSIVE /usr/bin/time -v python -m studies.frontend_small.control --seeds 0 1 2 --work runs/fe_control
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import shutil
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE / "control"
#: what the control changes in the study's multi-turn DPO (two epochs, no NLL)
CONTROL = {"epochs": 1, "nll_coef": 0.01}


def control_config(seed: int, work: Path):
    """The study's pipeline settings (:data:`studies.frontend_small.settings.STUDY_SETTINGS` over the
    frontend ``--small`` preset, 48 held-out tasks) with multi-turn DPO's :data:`CONTROL` laid over
    its overrides, ``methods`` multi-turn DPO only, in ``work``."""
    from colbench.agents.config import merge_config_dicts
    from colbench.agents.registry import config_class
    from colbench.pipeline import PipelineConfig, preset_settings
    from studies.frontend_small.settings import STUDY_SETTINGS

    conf = preset_settings("small", "ColBench-Frontend-v0")
    overrides = {k: dict(v) for k, v in conf["trainer_overrides"].items()}
    for m, fields in STUDY_SETTINGS["trainer_overrides"].items():
        overrides[m] = merge_config_dicts(config_class(m), overrides.get(m, {}), fields)
    overrides["mt-dpo"] = merge_config_dicts(config_class("mt-dpo"), overrides["mt-dpo"], CONTROL)
    conf.update(n_train_tasks=STUDY_SETTINGS["n_train_tasks"],
                rollouts_per_task=STUDY_SETTINGS["rollouts_per_task"], n_test_tasks=48,
                trainer_overrides=overrides, methods=("mt-dpo",), seeds=(seed,), out_dir=str(work))
    return PipelineConfig(**conf)


def preseed(seed: int, cfg) -> Path:
    """Copy the study seed's rollouts, zero-shot and SWEET-RL evaluations and SWEET-RL's training
    record into the run's seed folder (once); checks the study seed ran with these settings."""
    src, dst = HERE / f"seed-{seed}", Path(cfg.out_dir) / f"seed-{seed}"
    ran = json.loads((src / "config.json").read_text())
    want = json.loads(json.dumps(dataclasses.asdict(dataclasses.replace(cfg, seeds=(), seed=seed))))
    for k in ("env", "policy", "family", "difficulty", "prompt_style", "n_train_tasks", "n_test_tasks",
              "rollouts_per_task", "max_turns", "max_new_tokens", "rollout_temperature", "eval_temperature",
              "simulator", "similarity"):
        if ran[k] != want[k]:
            raise SystemExit(f"{src}/config.json: field {k!r} is {ran[k]!r}, the control's {want[k]!r}")
    (dst / "eval").mkdir(parents=True, exist_ok=True)
    for name in ("rollouts.jsonl", "eval/zero-shot.jsonl", "eval/sweet-rl.jsonl"):
        if not (dst / name).exists():
            shutil.copy(src / name, dst / name)
    marker = dst / "models" / "sweet-rl" / "pipeline_done.json"
    if not marker.exists():
        marker.parent.mkdir(parents=True, exist_ok=True)
        record = json.loads((src / "results.json").read_text())["train"]["sweet-rl"]
        marker.write_text(json.dumps(record, indent=2) + "\n")
    return dst


def collect(seed: int, cfg) -> None:
    """The run's files worth keeping, into ``control/seed-N``."""
    src, dst = Path(cfg.out_dir) / f"seed-{seed}", OUT / f"seed-{seed}"
    (dst / "eval").mkdir(parents=True, exist_ok=True)
    (dst / "models" / "mt-dpo").mkdir(parents=True, exist_ok=True)
    for name in ("config.json", "results.json", "results.md", "results.csv", "stats.json", "stats.md",
                 "eval/mt-dpo.jsonl", "eval/zero-shot.jsonl", "eval/sweet-rl.jsonl",
                 "models/mt-dpo/pipeline_done.json"):
        shutil.copy(src / name, dst / name)
    (dst / "models" / "sweet-rl").mkdir(parents=True, exist_ok=True)
    shutil.copy(src / "models" / "sweet-rl" / "pipeline_done.json", dst / "models" / "sweet-rl" / "pipeline_done.json")


def pool() -> dict:
    from colbench.pipeline import analyse_runs

    dirs = sorted((d for d in OUT.glob("seed-*") if (d / "eval" / "mt-dpo.jsonl").exists()),
                  key=lambda p: int(p.name.split("-")[1]))
    from studies.matched_budget.run import here_relative

    return analyse_runs([here_relative(d) for d in dirs], OUT, methods=["zero-shot", "mt-dpo", "sweet-rl"],
                        cluster="template",
                        title="frontend control: multi-turn DPO, 1 epoch, NLL 0.01")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    p.add_argument("--work", default="runs/fe_control")
    p.add_argument("--pool-only", action="store_true", help="only pool the seeds in control/")
    args = p.parse_args(argv)
    if not args.pool_only:
        from colbench.pipeline import run_pipeline

        for seed in args.seeds:
            cfg = control_config(seed, Path(args.work))
            preseed(seed, cfg)
            run_pipeline(cfg, preset="small")
            collect(seed, cfg)
    pool()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
