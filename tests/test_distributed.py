"""Every trainer under ``accelerate launch`` with 2 CPU processes (DDP over gloo) on a tiny random
Llama, its first update made by the code of ``colbench train`` (the one launch of every trainer by
``colbench train`` in the suite besides the sharded ones of test_sharded.py): after one update the
parameters equal those of one process with the same global batch (``colbench train``'s own defaults
included); checkpoints are written by the main process only; resuming from them continues identically.

The launch is ``accelerate launch --config_file colbench/configs/accelerate/ddp_cpu.yaml``, the
multi-GPU launcher (torchrun) with 2 processes: accelerate's ``--cpu`` launcher starts several
processes only through ``mpirun`` (without it, ``--cpu --num_processes 2`` runs ONE process). On a
machine without a GPU the trainers make each process a gloo CPU rank (``DistributedType.MULTI_CPU``,
:func:`colbench.agents.sharding.make_accelerator`), what ``ACCELERATE_USE_CPU=1`` does for any script."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from safetensors.torch import load_file
from samples import BAD, GOOD, MID, TASK, traj

from colbench import configs_dir
from colbench.agents.registry import TRAINERS, trainer_class
from colbench.cli.train import cli_defaults

HERE = Path(__file__).resolve().parent
CLASSES = {name: trainer_class(name) for name in TRAINERS}
TASK2 = dict(TASK, task_id="t2", problem_description="Write g(x) that returns twice x.",
             ground_truth="def g(x):\n    return 2 * x")
GOOD2 = traj(["Which number? OUTPUT: Which number do you add?", "I WANT TO ANSWER: def f(x): return x + 7"],
             ["Seven."], 1.0)
# Sized so that every global batch is full with 2 processes x 1 (a trajectory whose earlier turn has a
# thought is one sequence per turn, since the next turn's context shows only its message: RFT: 4
# successes in 6 sequences, GRPO: 12 sequences; MT-DPO: 2 pairs per task x 2 tasks; SWEET-RL critic:
# 8 ordered pairs with a reward gap, or 4 best-vs-lower pairs).
DATA = [GOOD, GOOD2, MID, BAD,
        traj(["I WANT TO ANSWER: def g(x): return 2 * x"], [], 1.0, task=TASK2),
        traj(["Twice?", "I WANT TO ANSWER: def g(x): return x * 2"], ["Yes."], 1.0, task=TASK2),
        traj(["Plus? OUTPUT: Do you add something?", "I WANT TO ANSWER: def g(x): return x + 2"], ["No."], 0.5,
             task=TASK2),
        traj(["I WANT TO ANSWER: def g(x): return 0"], [], 0.0, task=TASK2)]
CONFIGS = {
    "rft": {},
    "mt-dpo": {},
    "ppo": {"update_epochs": 1},
    "grpo": {"update_epochs": 1},
    # 2 candidates and 2 draws per state: a state gives 0 or 2 pairs, so the pair count stays even
    "sweet-rl": {"n_candidates": 2, "pairs_per_state": 2, "candidate_max_new_tokens": 4, "state_fraction": 1.0},
}
#: what one micro-batch of each trainer counts
PER_BATCH = {"rft": "sequences_per_batch", "mt-dpo": "pairs_per_batch", "ppo": "trajectories_per_batch",
             "grpo": "sequences_per_batch", "sweet-rl": "pairs_per_batch"}
PER_PROCESS = 1  # micro-batch per process; one process gets 2 x this


@pytest.fixture(scope="module")
def tiny_dir(tiny_model_dir):
    torch.set_num_threads(1)
    return tiny_model_dir()


def _free_port() -> int:
    import socket

    with socket.socket() as s:  # other launches on this machine may hold accelerate's default 29500
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _config(algorithm: str, batch: int) -> dict:
    """The trainer's config: ``colbench train``'s defaults (gradient checkpointing; SWEET-RL's candidate
    batches), the trainer's settings here, the micro-batch."""
    conf = dict(cli_defaults(algorithm), **CONFIGS[algorithm], max_length=512,
                policy={"lora_r": 4, "learning_rate": 1e-3})
    conf[PER_BATCH[algorithm]] = batch
    if algorithm == "sweet-rl":
        conf["critic"] = {"learning_rate": 1e-3, "pairs_per_batch": batch}
    return conf


def _single_process(algorithm: str, model: str, out: Path, batch: int) -> None:
    """The same two updates (and resume) in this process, for the comparison."""
    cls = CLASSES[algorithm]
    conf = _config(algorithm, batch)
    trainer = cls(dict(conf, policy=dict(conf["policy"], model_name_or_path=model)))
    trainer.update(DATA)
    trainer.save(out / "first")
    resumed = cls.load(out / "first")
    resumed.update(DATA)
    resumed.save(out / "resumed")


def _weights(ckpt: Path) -> dict[str, torch.Tensor]:
    """The weights of a trainer checkpoint (adapters, or full weights with ``full_finetune``; PPO's value head)."""
    out = {}
    for f in sorted(ckpt.glob("*/*.safetensors")):
        out.update({f"{f.parent.name}/{k}": v for k, v in load_file(str(f)).items()})
    if (ckpt / "value_head.pt").exists():
        out.update({f"value_head/{k}": v for k, v in torch.load(ckpt / "value_head.pt").items()})
    return out


def _max_diff(a: dict, b: dict) -> float:
    assert a.keys() == b.keys()
    return max(float((a[k].float() - b[k].float()).abs().max()) for k in a)


@pytest.mark.parametrize("algorithm", sorted(CLASSES))
def test_two_processes_equal_one_with_the_same_global_batch(tmp_path, tiny_dir, algorithm):
    data = tmp_path / "trajs.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in DATA))
    out = tmp_path / "ddp"
    cmd = [sys.executable, "-m", "accelerate.commands.launch", "--config_file",
           str(configs_dir() / "accelerate" / "ddp_cpu.yaml"), "--main_process_port", str(_free_port()),
           str(HERE / "ddp_train.py"), algorithm, str(data), tiny_dir, str(out), json.dumps(_config(algorithm, PER_PROCESS))]
    env = dict(os.environ, OMP_NUM_THREADS="1", PYTHONPATH=os.pathsep.join([str(HERE.parent), str(HERE)]))
    env.pop("ACCELERATE_USE_CPU", None)
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=600, env=env)
    assert p.returncode == 0, p.stderr[-4000:]
    assert "rank 0 of 2 done" in p.stdout and "rank 1 of 2 done" in p.stdout
    assert "WROTE" not in p.stderr, [ln for ln in p.stderr.splitlines() if "WROTE" in ln][:5]
    assert p.stdout.count(f"checkpoint: {out / 'first'}") == 2  # colbench train's last line, on each rank
    for stage, updates in (("first", 1), ("resumed", 2)):
        meta = json.loads((out / stage / "trainer.json").read_text())
        assert meta["updates"] == updates and meta["algorithm"] == algorithm

    same, smaller = tmp_path / "one_same_global", tmp_path / "one_smaller"
    _single_process(algorithm, tiny_dir, same, 2 * PER_PROCESS)
    _single_process(algorithm, tiny_dir, smaller, PER_PROCESS)  # negative control: half the global batch
    for stage in ("first", "resumed"):
        ddp, ref, other = _weights(out / stage), _weights(same / stage), _weights(smaller / stage)
        assert ddp, f"no weights in {out / stage}"
        scale = max(float(v.abs().max()) for v in ref.values())
        diff, control = _max_diff(ddp, ref), _max_diff(other, ref)
        assert diff <= 1e-4 * scale, (stage, diff, scale)
        assert control > 100 * max(diff, 1e-7 * scale), (stage, control, diff)  # the batch size matters
