"""Run by ``tests/test_distributed.py`` under ``accelerate launch``: one update, a checkpoint, then a
resume from it (a fresh trainer loaded from the checkpoint) and a second update.

``python ddp_train.py ALGORITHM TRAJECTORIES.jsonl MODEL_DIR OUT_DIR CONFIG_JSON`` writes
``OUT_DIR/first`` (after update 1) and ``OUT_DIR/resumed`` (update 2 after loading ``first``). A
process other than the main one reports any file it opens for writing under ``OUT_DIR``
(``WROTE <path>`` on stderr): checkpoints must be written once, by the main process.
"""
from __future__ import annotations

import json
import os
import sys


def main() -> int:
    algorithm, data, model, out, config = sys.argv[1:6]
    from colbench.agents.config import merge_config_dicts
    from colbench.agents.registry import trainer_class
    from colbench.agents.trainer_base import config_from_dict, load_trajectories

    cls = trainer_class(algorithm)
    records = load_trajectories(data)
    trainer = cls(config_from_dict(cls.config_class, merge_config_dicts(cls.config_class, json.loads(config),
                                                                         {"policy": {"model_name_or_path": model}})))
    if not trainer.accelerator.is_main_process:
        root = os.path.abspath(out)

        def audit(event, args):
            if event == "open" and isinstance(args[0], (str, bytes, os.PathLike)) and args[1] not in (None, "r", "rb"):
                if os.path.abspath(os.fsdecode(args[0])).startswith(root):
                    print(f"WROTE {args[0]}", file=sys.stderr, flush=True)

        sys.addaudithook(audit)
    trainer.update(records)
    trainer.save(os.path.join(out, "first"))
    trainer.accelerator.wait_for_everyone()
    resumed = cls.load(os.path.join(out, "first"))
    resumed.update(records)
    resumed.save(os.path.join(out, "resumed"))
    resumed.accelerator.wait_for_everyone()
    print(f"rank {trainer.accelerator.process_index} of {trainer.accelerator.num_processes} done", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
