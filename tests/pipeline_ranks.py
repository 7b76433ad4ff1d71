"""Run by ``tests/test_pipeline_ranks.py`` under ``accelerate launch``: one episode stage of the
pipeline (:func:`colbench.pipeline.run_stage_episodes`) on every process.

``python pipeline_ranks.py CONFIG_JSON OUT_FILE RUN_DIR RESULT_PREFIX``: the stage's episodes (the
first 3 held-out tasks x 2, greedy, the base policy ``org/base-model`` on the configured server) in
``OUT_FILE``; each process writes the episode ids it ran and the records the stage returned to it to
``RESULT_PREFIX.rank<k>.json``.
"""
from __future__ import annotations

import json
import sys


def main() -> int:
    config, out, run_dir, prefix = sys.argv[1:5]
    from colbench.pipeline import PipelineConfig, run_stage_episodes, task_split
    from colbench.pipeline.stages import processes

    import colbench_env.rollout as rollout

    ran: list[str] = []
    real = rollout.run_episodes

    def run_episodes(env_fn, policy, episodes, **kw):  # the episodes this process runs
        ran.extend(s.episode_id for s in episodes)
        return real(env_fn, policy, episodes, **kw)

    rollout.run_episodes = run_episodes
    procs = processes()
    cfg = PipelineConfig(**json.loads(config))
    records = run_stage_episodes(cfg, task_split(cfg, "test")[:3], "org/base-model", out, repeats=2, temperature=0.0,
                                 desc="eval", run_dir=run_dir)
    with open(f"{prefix}.rank{procs.index}.json", "w") as f:
        json.dump({"records": records, "ran": ran}, f)
    print(f"rank {procs.index} of {procs.count} done", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
