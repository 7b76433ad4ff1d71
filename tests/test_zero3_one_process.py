"""One process on its own inside a ZeRO-3 launch (issue 49 part 7 found both waiting forever in
``colbench pipeline --paper`` on 2 processes):

* a model one process loads alone (the pipeline's export of a trained policy on the main process; a
  local policy's agent in an episode stage): :func:`colbench.agents.sharding.loaded_whole`. Without
  it transformers partitions the model as it loads it (a collective the other process is not in);
  with it the model is the saved one, whole, and the launch's partitioning is back afterwards;
* a model not yet trained, called by one process inside ``TrainableLM.alone()`` (SWEET-RL's
  candidate stage, its states split unevenly): ZeRO-3's start-of-forward hook checked the module
  order against the other process (a collective) until a whole step was traced; inside ``alone()``
  it is off, and the sharded model trains afterwards."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from math import prod
from pathlib import Path

import pytest
import torch
from safetensors import safe_open
from test_distributed import _free_port

from colbench import configs_dir

HERE = Path(__file__).resolve().parent

pytestmark = pytest.mark.distributed


def test_one_process_loads_and_calls_a_model_on_its_own_inside_a_zero3_launch(tmp_path, tiny_model_dir):
    model = tiny_model_dir()
    cmd = [sys.executable, "-m", "accelerate.commands.launch", "--config_file",
           str(configs_dir() / "accelerate" / "deepspeed_zero3_cpu.yaml"), "--main_process_port", str(_free_port()),
           str(HERE / "zero3_one_process.py"), model, str(tmp_path / "seen")]
    env = dict(os.environ, OMP_NUM_THREADS="1", PYTHONPATH=os.pathsep.join([str(HERE.parent), str(HERE)]))
    env.pop("ACCELERATE_USE_CPU", None)
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=300, env=env)
    assert p.returncode == 0, p.stderr[-4000:]
    main, other = (json.loads((tmp_path / f"seen.rank{k}.json").read_text()) for k in (0, 1))
    with safe_open(f"{model}/model.safetensors", "pt") as f:
        n = sum(prod(f.get_slice(k).get_shape()) for k in f.keys())
    for seen in (main, other):  # the launch partitions what every process loads: no process holds a weight
        assert seen["zero3_before"] and seen["zero3_after"]
        assert seen["partitioned_local_numel"] == 0 and seen["partitioned_full_numel"] == n
    assert main["zero3_inside"] is False
    assert main["whole_numel"] == n and main["equal_to_saved"]
    # the gathered model, called twice by the main process alone, is the saved model (not yet trained)
    whole = torch.tensor(main["whole_logps"])
    for logps in main["alone_logps"]:
        torch.testing.assert_close(torch.tensor(logps), whole, rtol=1e-5, atol=1e-5)
    for seen in (main, other):  # then the sharded forward on both processes: the same model, its mean NLL
        assert abs(seen["sharded_loss"] + whole.mean().item()) < 1e-5
    assert "alone_logps" not in other

