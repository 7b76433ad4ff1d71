"""Run by ``tests/test_distributed.py`` under ``accelerate launch``: one update through the code of
``colbench train`` (:func:`colbench.cli.main`, as ``accelerate launch -m colbench train`` runs it), its
checkpoint, then a resume from it (a fresh trainer loaded from the checkpoint) and a second update.

``python ddp_train.py ALGORITHM TRAJECTORIES.jsonl MODEL_DIR OUT_DIR CONFIG_JSON`` writes
``OUT_DIR/first`` (``colbench train ALGORITHM --trajectories ... --model MODEL_DIR --out OUT_DIR/first
--config-json CONFIG_JSON``) and ``OUT_DIR/resumed`` (update 2 after loading ``first``). A process
other than the main one reports any file it opens for writing under ``OUT_DIR`` (``WROTE <path>`` on
stderr): checkpoints must be written once, by the main process. The one file another process may
write is its own share of SWEET-RL's candidate stage (``stages/.../candidates.part-<rank>.jsonl``,
which the main process merges), and only its own rank's.
"""
from __future__ import annotations

import os
import sys


def main() -> int:
    algorithm, data, model, out, config = sys.argv[1:6]
    if int(os.environ.get("RANK", "0")) != 0:  # set by the launcher before anything runs
        root = os.path.abspath(out)
        own_part = f"candidates.part-{os.environ['RANK']}.jsonl"

        def audit(event, args):
            if event == "open" and isinstance(args[0], (str, bytes, os.PathLike)) and args[1] not in (None, "r", "rb"):
                path = os.path.abspath(os.fsdecode(args[0]))
                if path.startswith(root) and os.path.basename(path) != own_part:
                    print(f"WROTE {args[0]}", file=sys.stderr, flush=True)

        sys.addaudithook(audit)
    from accelerate import PartialState

    from colbench.agents.registry import trainer_class
    from colbench.agents.trainer_base import load_trajectories
    from colbench.cli import main as colbench

    first = os.path.join(out, "first")
    rc = colbench(["train", algorithm, "--trajectories", data, "--model", model, "--out", first, "--config-json", config])
    if rc != 0:
        return rc
    PartialState().wait_for_everyone()  # the main process has written the checkpoint
    resumed = trainer_class(algorithm).load(first)
    resumed.update(load_trajectories(data))
    resumed.save(os.path.join(out, "resumed"))
    resumed.accelerator.wait_for_everyone()
    print(f"rank {resumed.accelerator.process_index} of {resumed.accelerator.num_processes} done", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
