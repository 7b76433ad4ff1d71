"""SWEET-RL's candidate stage split over 2 accelerate processes (issue 49, part 2): each process
samples and scores its share of the states -- locally, or from the served policy -- and the stage
writes the same ``candidates.jsonl`` and gives the same step-level pairs as one process.

The 2 processes run as ``ACCELERATE_USE_CPU=1 accelerate launch --multi_gpu --num_processes 2``
(torchrun, gloo CPU ranks: DESIGN.md's known traps). They start from the one-process run's trained
critic (``critic/`` and ``critic.json`` copied into their stage directories, as a resumed update
loads it): the critic trained on 2 processes differs from one process's in float32 rounding
(tests/test_distributed.py), which would move every score; the candidate stage itself is what is
compared, bit for bit. The local run also resumes a stage begun by one process (2 of its states
already in the file), so the shares are uneven."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from test_distributed import DATA, _free_port

from colbench.benchmarks.stand_in_server import StandInServer

HERE = Path(__file__).resolve().parent

#: an odd number of candidates (a middle one in neither half) and pairs drawn from the halves; the
#: policy stage, which this test does not compare (it receives the pairs), takes one optimiser step
CONFIG = {"n_candidates": 3, "pairs_per_state": 2, "state_fraction": 0.5, "candidate_max_new_tokens": 4,
          "max_length": 512, "critic_pairs": "all_ordered", "pairs_per_batch": 1, "seed": 5, "optimizer_steps": 1,
          "policy": {"lora_r": 4, "learning_rate": 1e-3}, "critic": {"learning_rate": 1e-3, "pairs_per_batch": 1}}


def _lines(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text().splitlines() if x.strip()]


def _begun_from(one: Path, d: Path, states: int = 0) -> Path:
    """A stage directory holding ``one``'s trained critic (and its first ``states`` states)."""
    d.mkdir(parents=True)
    shutil.copytree(one / "critic", d / "critic")
    shutil.copy(one / "critic.json", d / "critic.json")
    if states:
        lines = (one / "candidates.jsonl").read_text().splitlines(keepends=True)
        (d / "candidates.jsonl").write_text("".join(lines[:1 + states]))
    return d


def test_two_processes_write_the_same_candidates_and_pairs_as_one(tmp_path, tiny_model_dir):
    from sweet_rl_ranks import run

    torch.set_num_threads(1)
    model = tiny_model_dir(0, 32, "small")
    data = tmp_path / "trajs.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in DATA))
    timing = {"median_s": 0.01, "sigma": 0.5, "cap_s": 0.1}
    with StandInServer(**timing) as server:
        served = dict(CONFIG, candidate_base_url=server.url, candidate_model="sampler")
        one = run(DATA, model, [[str(tmp_path / "one_local"), CONFIG], [str(tmp_path / "one_served"), served]])
        n_states = int(one[0]["metrics"]["n_states"])
        assert n_states >= 6 and one[0]["pairs"] and one[1]["pairs"]
        local = _begun_from(tmp_path / "one_local", tmp_path / "two_local", states=2)
        remote = _begun_from(tmp_path / "one_served", tmp_path / "two_served")
        server.stats(reset=True)
        runs = [[str(local), CONFIG], [str(remote), served]]
        cmd = [sys.executable, "-m", "accelerate.commands.launch", "--multi_gpu", "--num_processes", "2",
               "--main_process_port", str(_free_port()), str(HERE / "sweet_rl_ranks.py"), str(data), model,
               json.dumps(runs), str(tmp_path / "two")]
        env = dict(os.environ, ACCELERATE_USE_CPU="1", OMP_NUM_THREADS="1",
                   PYTHONPATH=os.pathsep.join([str(HERE.parent), str(HERE)]))
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=600, env=env)
        assert p.returncode == 0, p.stderr[-4000:]
        assert "rank 0 of 2 done" in p.stdout and "rank 1 of 2 done" in p.stdout
        assert server.stats()["requests"] == n_states  # each state asked for once, by one of the processes
    ranks = [json.loads((tmp_path / f"two.rank{k}.json").read_text()) for k in (0, 1)]
    for run_index, (name, resumed) in enumerate((("local", 2), ("served", 0))):
        want, got = tmp_path / f"one_{name}", tmp_path / f"two_{name}"
        # the same file, byte for byte, in state order, with no part file left
        assert (got / "candidates.jsonl").read_bytes() == (want / "candidates.jsonl").read_bytes(), name
        assert not list(got.glob("candidates.part-*")), name
        # each process scored its share of the states not yet done: every other one
        pending = list(range(resumed, n_states))
        shares = [r[run_index]["scored"] for r in ranks]
        assert shares == [pending[0::2], pending[1::2]], name
        # every process draws the pairs of one process, from every state
        for r in ranks:
            assert r[run_index]["pairs"] == one[run_index]["pairs"], name
            assert r[run_index]["metrics"]["n_states_resumed"] == resumed
            for k in ("n_step_pairs", "mean_advantage_gap", "n_states_dropped"):
                assert r[run_index]["metrics"][k] == one[run_index]["metrics"][k], (name, k)
    # a control: the served and the local candidates differ (the comparison can fail)
    assert _lines(tmp_path / "one_local" / "candidates.jsonl")[1]["actions"] != \
        _lines(tmp_path / "one_served" / "candidates.jsonl")[1]["actions"]
