"""``rows_per_forward`` under DeepSpeed ZeRO-3 in 2 CPU processes (:mod:`rows_sharded_train`): the
processes' micro-batches have different numbers of sequences (trajectories of one and of two turn
sequences), so one process pads with forwards whose result no loss uses
(:meth:`~colbench.agents.trainer_base.TrainableLM.row_groups`) -- without them ZeRO-3's gathers would
wait forever -- and after one update the trained weights (LoRA, PPO's value head) equal those of one
process with the same global batch in one forward per micro-batch (``rows_per_forward=None``), within
test_distributed.py's tolerance for two processes (3e-5 of the largest weight)."""
from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from samples import BAD, GOOD, MID, TASK, traj

from colbench import configs_dir
from colbench.agents.registry import trainer_class

HERE = Path(__file__).resolve().parent
RTOL = 3e-5
TASK2 = dict(TASK, task_id="t2", problem_description="Write g(x) that returns twice x.",
             ground_truth="def g(x):\n    return 2 * x")
# a thought before OUTPUT: makes the next turn's context differ from what was trained: a turn per sequence
DATA = [GOOD, MID, BAD,
        traj(["Twice? OUTPUT: Twice?", "I WANT TO ANSWER: def g(x): return x * 2"], ["Yes."], 1.0, task=TASK2),
        traj(["I WANT TO ANSWER: def g(x): return x + 2"], [], 0.5, task=TASK2),
        traj(["I WANT TO ANSWER: def g(x): return 0"], [], 0.0, task=TASK2)]


def _config(algorithm: str, per_process: int, rows: int | None) -> dict:
    common = dict(seed=0, max_length=512, policy={"lora_r": 4, "learning_rate": 1e-3},
                  rows_per_forward=rows)
    if algorithm == "mt-dpo":
        return dict(common, pairs_per_batch=per_process, nll_coef=0.1)
    return dict(common, trajectories_per_batch=per_process, update_epochs=1, temperature=0.7)


def _saved(d: Path) -> dict[str, torch.Tensor]:
    from safetensors.torch import load_file

    out = {f"policy/{k}": v for k, v in load_file(d / "policy" / "adapter_model.safetensors").items()}
    if (d / "value_head.pt").exists():
        out.update({f"value/{k}": v for k, v in torch.load(d / "value_head.pt").items()})
    return out


@pytest.mark.skipif(not __import__("importlib").util.find_spec("deepspeed"), reason="deepspeed is not installed")
def test_rows_per_forward_under_zero3_equals_one_process(tmp_path, tiny_model_dir):
    torch.set_num_threads(1)
    model = tiny_model_dir(0, 32, "small")
    data = tmp_path / "trajs.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in DATA))
    algorithms = ("mt-dpo", "ppo")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    cmd = [sys.executable, "-m", "accelerate.commands.launch", "--config_file",
           str(configs_dir() / "accelerate" / "deepspeed_zero3_cpu.yaml"), "--main_process_port", str(port),
           str(HERE / "rows_sharded_train.py"), str(data), model, str(tmp_path / "two"),
           json.dumps({a: _config(a, 1, 1) for a in algorithms})]
    env = dict(os.environ, OMP_NUM_THREADS="1", PYTHONPATH=os.pathsep.join([str(HERE.parent), str(HERE)]))
    env.pop("ACCELERATE_USE_CPU", None)
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=900, env=env)
    assert p.returncode == 0, p.stderr[-5000:]
    padding = [int(p.stdout.split(f"rank {r} padding forwards ")[1].split()[0]) for r in (0, 1)]
    assert "rank 0 done" in p.stdout and "rank 1 done" in p.stdout
    assert sum(padding) > 0, p.stdout[-2000:]  # the processes' row counts differed
    for algorithm in algorithms:
        one = trainer_class(algorithm)(dict(_config(algorithm, 2, None), policy={"lora_r": 4, "learning_rate": 1e-3,
                                                                                 "model_name_or_path": model}))
        before = _saved_model_state(one)
        one.update(str(data))
        one.save(tmp_path / "one" / algorithm)
        want, got = _saved(tmp_path / "one" / algorithm), _saved(tmp_path / "two" / algorithm)
        assert want.keys() == got.keys() and want
        scale = max(float(w.abs().max()) for w in want.values())
        worst = max(float((got[k] - w).abs().max()) for k, w in want.items())
        assert worst <= RTOL * scale, (algorithm, worst, scale)
        moved = max(float((want[k] - before[k]).abs().max()) for k in want if k in before)
        assert moved > 30 * RTOL * scale, (algorithm, moved)  # the update moved the weights far beyond it


def _saved_model_state(trainer) -> dict[str, torch.Tensor]:
    """The adapter's weights before training, named as in its saved file."""
    import peft

    return {f"policy/{k}": v.detach().clone()
            for k, v in peft.get_peft_model_state_dict(trainer.policy.peft_model).items()}
