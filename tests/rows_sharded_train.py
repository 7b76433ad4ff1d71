"""Run by ``tests/test_rows_sharded.py`` under ``accelerate launch`` (2 processes, DeepSpeed ZeRO-3 on
CPU ranks): one update of each trainer in ``CONFIGS_JSON`` with ``rows_per_forward``, saved.

``python rows_sharded_train.py TRAJECTORIES.jsonl MODEL_DIR OUT_DIR CONFIGS_JSON``. Prints, per
process, how many padding forwards (:meth:`~colbench.agents.trainer_base.TrainableLM.row_groups`'s
``None`` groups: this process had fewer rows than the other) it ran, then ``rank R done``.
"""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path


def main() -> int:
    data, model, out, configs = sys.argv[1:5]
    rank = int(os.environ.get("RANK", "0"))
    try:  # DeepSpeed's CPU all-reduce kernel compiles on first use (minutes); ZeRO-3's gathers do not use it
        import deepspeed.ops

        deepspeed.ops.__compatible_ops__["deepspeed_shm_comm"] = False
    except ImportError:
        pass
    from colbench.agents.registry import trainer_class
    from colbench.agents.trainer_base import TrainableLM

    padding = {"forwards": 0}
    real = TrainableLM.row_groups

    def counted(self, n, rows_per_forward):
        groups = real(self, n, rows_per_forward)
        padding["forwards"] += sum(g is None for g in groups)
        return groups

    TrainableLM.row_groups = counted
    for algorithm, conf in json.loads(configs).items():
        conf = dict(conf, policy=dict(conf.get("policy", {}), model_name_or_path=model))
        trainer = trainer_class(algorithm)(conf)
        assert trainer.policy.sharding == "deepspeed", trainer.policy.sharding
        trainer.update(data)
        trainer.save(Path(out) / algorithm)
    print(f"rank {rank} padding forwards {padding['forwards']}", flush=True)
    print(f"rank {rank} done", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
