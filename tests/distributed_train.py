"""Run by ``tests/test_distributed.py`` under ``accelerate launch`` (DDP, FSDP or DeepSpeed ZeRO-3 on 2
CPU processes): every trainer through ``colbench train`` (:func:`colbench.cli.main`, as ``accelerate
launch -m colbench train`` runs it), with an interruption, in one launch.

``python distributed_train.py PHASE TRAJECTORIES.jsonl MODEL_DIR OUT_DIR CONFIGS_JSON``, where
CONFIGS_JSON maps each algorithm to its ``--config-json`` object:

* ``PHASE=interrupted``: for each algorithm, ``colbench train ALG --updates 2 --out OUT_DIR/ALG``,
  the second update interrupted (``KeyboardInterrupt`` at its first optimiser step, in every
  process; the command exits 130) -- ``OUT_DIR/ALG`` then holds the checkpoint that update 1 wrote.
* ``PHASE=resume`` (a new launch, as after the interruption): ``colbench train ALG --updates 1 --out
  OUT_DIR/ALG`` for each algorithm, which resumes from that checkpoint.
* ``PHASE=both``: per algorithm, ``interrupted`` then ``resume`` in the same processes (a fresh
  trainer loaded from the files), the checkpoint the interruption left kept as ``OUT_DIR/ALG.first``.

Written by the main process, per algorithm and phase: ``OUT_DIR/ALG.PHASE.json`` with, per completed update
and per model, the losses of its ``backward`` calls averaged over the processes -- the loss of the
global batch one process computes (the trainers scale each process's loss so that their mean is it)
-- and each process's count of the model's parameters it holds, next to the whole model's, and (a
model not sharded: DDP) each process's digest of its parameters (the sum of each parameter tensor,
in float64; the value head's included), which must agree.

A process other than the main one reports any file it opens for writing under ``OUT_DIR`` (``WROTE
<path>`` on stderr): checkpoints are written once, by the main process. The one file another process
may write is its own share of SWEET-RL's candidate stage (``stages/.../candidates.part-<rank>.jsonl``,
which the main process merges), and only its own rank's.
"""
from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path


def _local_numel(p) -> int:
    """How many of a parameter's values this process holds: ZeRO-3's partition, FSDP 2's local
    shard (FSDP 1 parameters are views of the local shard already)."""
    if hasattr(p, "ds_tensor"):
        return int(p.ds_tensor.numel())
    return int(p.to_local().numel() if hasattr(p, "to_local") else p.numel())


def _audit_writes(out: str, rank: int) -> None:
    """(A process other than the main one) say ``WROTE <path>`` for every file opened for writing under ``out``."""
    root = os.path.abspath(out)
    own_part = f"candidates.part-{rank}.jsonl"

    def audit(event, args):
        if event == "open" and isinstance(args[0], (str, bytes, os.PathLike)) and args[1] not in (None, "r", "rb"):
            path = os.path.abspath(os.fsdecode(args[0]))
            if path.startswith(root) and os.path.basename(path) != own_part:
                print(f"WROTE {args[0]}", file=sys.stderr, flush=True)

    sys.addaudithook(audit)


def main() -> int:
    phase, data, model, out, configs = sys.argv[1:6]
    rank = int(os.environ.get("RANK", "0"))  # set by the launcher before anything runs
    if rank != 0:
        _audit_writes(out, rank)
    import torch
    from accelerate.state import PartialState

    from colbench.agents.sweet_rl import SweetRL
    from colbench.agents.trainer_base import LMTrainer, TrainableLM
    from colbench.cli import main as colbench

    try:  # DeepSpeed's CPU all-reduce kernel compiles on first use (minutes); ZeRO-3's gathers do not use it
        import deepspeed.ops

        deepspeed.ops.__compatible_ops__["deepspeed_shm_comm"] = False
    except ImportError:
        pass

    pending: dict[int, list[float]] = {}   # id(TrainableLM) -> losses of its backward calls in this update
    updates: list[dict] = []               # per completed update: {model name: [mean loss per backward call]}
    shards: dict = {}
    state = {"interrupt": False, "phase": phase}

    def backward(self, loss):
        pending.setdefault(id(self), []).append(float(loss.detach()))
        return TrainableLM_backward(self, loss)

    def flush(self):
        if state["interrupt"] and self._pending:
            raise KeyboardInterrupt("simulated interruption of update 2")
        return TrainableLM_flush(self)

    released: dict[str, list[float]] = {}  # losses of a model freed during the update (SWEET-RL's critic)

    def account(acc, name, lm) -> list[float]:
        """(A collective.) ``lm``'s losses of this update, and its parameter count per process in ``shards``
        (with a model not sharded, each process's parameter digest)."""
        mine = torch.tensor(pending.pop(id(lm), []), dtype=torch.float64)
        local = sum(_local_numel(p) for p in lm.model.parameters())
        counts = acc.gather(torch.tensor([local])).tolist()
        shards[name] = {"per_process": counts, "whole": lm.n_parameters, "sharding": lm.sharding}
        if lm.sharding is None:
            params = [*lm.model.parameters(), *lm.sync_params]
            digest = torch.tensor([[float(p.detach().double().sum()) for p in params]], dtype=torch.float64)
            shards[name]["digests"] = acc.gather(digest).tolist()
        return acc.reduce(mine, reduction="mean").tolist() if mine.numel() else []

    def release_critic(self):
        if self._critic is not None and self._critic_saved is not None:  # counted before it is freed
            released["critic"] = account(self.accelerator, "critic", self._critic)
        return SweetRL_release_critic(self)

    def record(self, metrics):
        acc = self.accelerator
        losses = {name: account(acc, name, lm) for name, lm in self._models().items()}
        losses.update(released)
        released.clear()
        updates.append(losses)
        state["interrupt"] = state["phase"] == "interrupted"
        return LMTrainer_record(self, metrics)

    TrainableLM_backward, TrainableLM_flush, LMTrainer_record = TrainableLM.backward, TrainableLM.flush, LMTrainer._record
    TrainableLM.backward, TrainableLM.flush, LMTrainer._record = backward, flush, record
    SweetRL_release_critic = SweetRL.release_critic
    SweetRL.release_critic = release_critic

    for algorithm, config in json.loads(configs).items():
        steps = ["interrupted", "resume"] if phase == "both" else [phase]
        for step in steps:
            pending.clear()
            updates.clear()
            shards.clear()
            state["interrupt"] = False
            state["phase"] = step
            rc = colbench(["train", algorithm, "--trajectories", data, "--model", model,
                           "--out", str(Path(out) / algorithm), "--config-json", json.dumps(config),
                           "--updates", "2" if step == "interrupted" else "1"])
            if step == "interrupted" and rc == 130:  # colbench train's exit status on KeyboardInterrupt
                print(f"INTERRUPTED {algorithm} rank {rank}", flush=True)
            elif rc != 0:
                print(f"colbench train {algorithm} ({step}) exited {rc} on rank {rank}", file=sys.stderr, flush=True)
                return rc
            if rank == 0:
                (Path(out) / f"{algorithm}.{step}.json").write_text(json.dumps({"updates": updates, "shards": shards}))
                if step == "interrupted" and phase == "both":  # what the interrupted run left, kept
                    shutil.copytree(Path(out) / algorithm, Path(out) / f"{algorithm}.first")
            PartialState().wait_for_everyone()
    print(f"rank {rank} {phase} done", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
