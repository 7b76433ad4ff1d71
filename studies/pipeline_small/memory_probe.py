"""Peak memory of one training stage of ``colbench pipeline --small``, in a process of its own.

Reproduces a stage on the committed rollouts (``studies/pipeline_small/rollouts.jsonl``)
with the ``--small`` preset's trainer config (plus optional JSON overrides), so that the stage's peak
resident memory can be measured alone::

    /usr/bin/time -v python -m studies.pipeline_small.memory_probe ppo 8
    /usr/bin/time -v python -m studies.pipeline_small.memory_probe ppo 8 '{"gradient_checkpointing": false}'

Stages: ``rft``, ``mt-dpo``, ``ppo`` (the first ``N`` rollouts), ``sweet-critic`` (SWEET-RL's
critic update on the rollouts of tasks with a success, at most ``N``). Prints ``PROBE ... peak_rss=``
(``ru_maxrss``) at the end. Used to find where the 16.4 GB of the first ``--small`` run went
(``studies/pipeline_small/README.md``).
"""
from __future__ import annotations

import json
import resource
import sys
import time
from pathlib import Path

ROLLOUTS = Path(__file__).resolve().parent / "rollouts.jsonl"


def main(argv: list[str] | None = None) -> int:
    from colbench.pipeline import PRESETS, PipelineConfig, base_policy, trainer_config
    from colbench_env.trajectories import read_trajectories

    argv = list(sys.argv[1:] if argv is None else argv)
    if len(argv) < 2 or argv[0] not in ("rft", "mt-dpo", "ppo", "sweet-critic"):
        raise SystemExit("usage: python -m studies.pipeline_small.memory_probe {rft,mt-dpo,ppo,sweet-critic} N [JSON overrides]")
    stage, n = argv[0], int(argv[1])
    extra = json.loads(argv[2]) if len(argv) > 2 else {}
    recs = read_trajectories(ROLLOUTS)
    cfg = PipelineConfig(**PRESETS["small"])
    method = "sweet-rl" if stage == "sweet-critic" else stage
    conf = trainer_config(cfg, method, base_policy(cfg)).to_dict()
    conf.update(extra, show_progress=False)
    from colbench.agents.registry import trainer_class

    trainer = trainer_class(method)(conf)
    built = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    t0 = time.perf_counter()
    if stage == "sweet-critic":
        won = {r["task"]["task_id"] for r in recs if r["reward"] > 0}
        trainer.update_critic([r for r in recs if r["task"]["task_id"] in won][:n])
    else:
        trainer.update(recs[:n])
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"PROBE {stage} n={n} overrides={extra} rss_after_build={built:.0f}MiB peak_rss={peak:.0f}MiB "
          f"seconds={time.perf_counter() - t0:.0f}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
