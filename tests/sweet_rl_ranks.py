"""Run by ``tests/test_sweet_rl_ranks.py`` under ``accelerate launch`` (and in one process by the
test itself, :func:`run`): SWEET-RL updates with stage directories, recording what each process
did.

``python sweet_rl_ranks.py TRAJECTORIES.jsonl MODEL_DIR RUNS_JSON OUT_PREFIX`` where ``RUNS_JSON`` is
``[[stage_dir, config_json], ...]``: one ``SweetRL(config).update(trajectories, stage_dir=...)`` per
run, in order. Writes ``OUT_PREFIX.rank<k>.json``: per run, the step-level pairs the policy stage
got (token ids and loss masks of chosen and rejected), the states this process scored, and the metrics.
"""
from __future__ import annotations

import json
import sys


def run(records: list[dict], model: str, runs: list, torch_threads: int = 1) -> list[dict]:
    """Each run's ``{"pairs", "scored", "metrics", "rank", "processes"}`` (see the module docstring)."""
    import torch

    from colbench.agents.config import merge_config_dicts
    from colbench.agents.sweet_rl import SweetRL, SweetRLConfig

    torch.set_num_threads(torch_threads)
    out = []
    for stage_dir, config in runs:
        trainer = SweetRL(merge_config_dicts(SweetRLConfig, config, {"policy": {"model_name_or_path": model}}))
        seen: dict = {"pairs": [], "scored": []}
        real_policy, real_state = trainer.update_policy, trainer._scored_state

        def update_policy(pairs, _real=real_policy, _seen=seen):
            _seen["pairs"] = [[[[list(s.input_ids), list(s.mask)] for s in side] for side in pair] for pair in pairs]
            return _real(pairs)

        def scored_state(i, *a, _real=real_state, _seen=seen, **k):
            _seen["scored"].append(i)
            return _real(i, *a, **k)

        trainer.update_policy, trainer._scored_state = update_policy, scored_state
        metrics = trainer.update(records, stage_dir=stage_dir)
        out.append({**seen, "metrics": metrics, "rank": trainer.accelerator.process_index,
                    "processes": trainer.accelerator.num_processes})
        trainer.accelerator.wait_for_everyone()
    return out


def main() -> int:
    import faulthandler
    import signal

    faulthandler.register(signal.SIGUSR1)  # kill -USR1 PID: every thread's stack on stderr (a hung launch)
    try:  # DeepSpeed's CPU all-reduce kernel compiles on first use (minutes); ZeRO-3's gathers do not use it
        import deepspeed.ops

        deepspeed.ops.__compatible_ops__["deepspeed_shm_comm"] = False
    except ImportError:
        pass
    data, model, runs, prefix = sys.argv[1:5]
    from colbench.agents.trainer_base import load_trajectories

    results = run(load_trajectories(data), model, json.loads(runs))
    rank = results[0]["rank"]
    with open(f"{prefix}.rank{rank}.json", "w") as f:
        json.dump(results, f)
    print(f"rank {rank} of {results[0]['processes']} done", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
