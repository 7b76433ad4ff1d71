"""SWEET-RL's candidate stage on 2 processes against 1, with the candidates from a served policy.

The stage (:meth:`colbench.agents.sweet_rl.SweetRL.step_pairs`): for each selected state, one request for
``n`` candidates to the policy's server, then the critic scores them here. The server is the stand-in
of :mod:`colbench.benchmarks.stand_in_server` (model ``sampler``: seeded choices; each reply takes a
lognormal time, median ``median_s``), the policy and critic a tiny random Llama (2 layers, width 32,
SmolLM2's vocabulary): the stage waits on the server, as it does at scale where the server generates
up to 1,024 tokens per candidate, and the critic's scoring is small beside it.

One critic is trained once (one process, :meth:`SweetRL.update` with ``train_policy`` off). Each
measurement then starts from a stage directory holding that critic and no candidates: one process
(``python -m colbench.benchmarks.bench_candidates --worker ...``), then two
(``ACCELERATE_USE_CPU=1 accelerate launch --multi_gpu --num_processes 2``), each timing the stage
alone -- from a barrier after the models are built to the end of ``step_pairs`` (the part files
merged, every process holding every state). Headline ``candidates_2proc_wall_ratio`` = 2-process wall
/ 1-process wall (goal <= 0.6); ``candidates_same_file``: both wrote the same ``candidates.jsonl``.

Run: ``python -m colbench.benchmarks.bench_candidates [--states N] [--median-s S]`` (prints the JSON), or
``colbench bench --only candidates``.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

__all__ = ["run", "main"]

#: the policy's and critic's shape (LlamaConfig fields): tiny, so that the server's replies dominate
TINY = dict(hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
            max_position_embeddings=4096)
CONFIG = {"n_candidates": 4, "pairs_per_state": 2, "state_fraction": 1.0, "candidate_max_new_tokens": 16,
          "max_length": 1024, "critic_pairs": "all_ordered", "pairs_per_batch": 4, "seed": 0,
          "candidate_model": "sampler", "policy": {"lora_r": 4}, "critic": {"learning_rate": 1e-3}}


def _records(n_states: int) -> list[dict]:
    """Scored trajectories of 2 agent turns each (``n_states`` turns in all, rounded up to even), in
    tasks of 4 rollouts with rewards 1, 0.5, 0.3, 0."""
    out = []
    for k in range(-(-n_states // 2)):
        t = k // 4
        task = {"task_id": f"t{t}", "problem_description": f"Write f(x) that returns x plus {t + 7}.",
                "ground_truth": f"def f(x):\n    return x + {t + 7}", "test_cases": {"test1": "f(1)"}}
        first, last = f"Which number? OUTPUT: Do you add {k}?", f"I WANT TO ANSWER: def f(x): return x + {k}"
        out.append({"task": task, "reward": (1.0, 0.5, 0.3, 0.0)[k % 4], "answer": last,
                    "dialogue_history": [{"role": "assistant", "content": first.split("OUTPUT:")[-1].strip(),
                                          "output": first},
                                         {"role": "user", "content": "No, another one."},
                                         {"role": "assistant", "content": last, "output": last}]})
    return out


def _worker(model: str, data: str, stage_dir: str, config: str, out: str) -> None:
    """The timed candidate stage in this process (one of a launch's), its wall time to ``out``."""
    import torch

    from colbench.agents.config import merge_config_dicts
    from colbench.agents.sweet_rl import StageFiles, SweetRL, SweetRLConfig
    from colbench.agents.trainer_base import load_trajectories

    torch.set_num_threads(1)
    trainer = SweetRL(merge_config_dicts(SweetRLConfig, json.loads(config), {"policy": {"model_name_or_path": model}}))
    records = trainer.training_records(load_trajectories(data))
    stages = StageFiles(stage_dir, trainer._stage_signature(records))
    metrics = trainer._critic_stage(records, stages)  # the trained critic, loaded from the stage files
    trainer.accelerator.wait_for_everyone()
    t0 = time.perf_counter()
    _, stats = trainer.step_pairs(records, stages=stages, critic_metrics=metrics)
    wall = time.perf_counter() - t0
    if trainer.accelerator.is_main_process:
        Path(out).write_text(json.dumps({"wall_s": wall, "processes": trainer.accelerator.num_processes, **stats}, allow_nan=False))


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run(states: int = 48, median_s: float = 1.0, sigma: float = 0.5, cap_s: float = 3.0) -> dict:
    from colbench.agents.config import merge_config_dicts
    from colbench.agents.sweet_rl import SweetRL, SweetRLConfig
    from colbench.benchmarks.bench_critic_memory import make_random_llama
    from colbench.benchmarks.stand_in_server import StandInServer

    root = Path(tempfile.mkdtemp(prefix="bench_candidates_"))
    try:
        model = str(root / "tiny")
        make_random_llama(model, TINY, "float32")
        records = _records(states)
        data = root / "trajs.jsonl"
        data.write_text("".join(json.dumps(r) + "\n" for r in records))
        env = dict(os.environ, OMP_NUM_THREADS="1", PYTHONPATH=os.pathsep.join(
            [str(Path(__file__).resolve().parents[1]), os.environ.get("PYTHONPATH", "")]))
        env.pop("WORLD_SIZE", None)
        out: dict = {"states": len(records) * 2, "median_s": median_s, "sigma": sigma, "cap_s": cap_s,
                     "n_candidates": CONFIG["n_candidates"], "model": TINY}
        with StandInServer(median_s=median_s, sigma=sigma, cap_s=cap_s) as server:
            config = dict(CONFIG, candidate_base_url=server.url, train_policy=False)
            trained = root / "critic_only"
            config = merge_config_dicts(SweetRLConfig, config, {"policy": {"model_name_or_path": model}})
            SweetRL(config).update(records, stage_dir=trained)  # the critic alone
            walls = {}
            for n in (1, 2):
                stage = root / f"stage{n}"
                stage.mkdir()
                shutil.copytree(trained / "critic", stage / "critic")
                shutil.copy(trained / "critic.json", stage / "critic.json")
                args = ["--worker", model, str(data), str(stage), json.dumps(config), str(root / f"wall{n}.json")]
                if n == 1:
                    cmd = [sys.executable, "-m", "colbench.benchmarks.bench_candidates", *args]
                    run_env = env
                else:
                    cmd = [sys.executable, "-m", "accelerate.commands.launch", "--multi_gpu", "--num_processes", "2",
                           "--main_process_port", str(_port()), "-m", "colbench.benchmarks.bench_candidates", *args]
                    run_env = dict(env, ACCELERATE_USE_CPU="1")
                server.stats(reset=True)
                p = subprocess.run(cmd, capture_output=True, text=True, env=run_env, timeout=3600)
                if p.returncode:
                    raise RuntimeError(f"{n} process(es): exit {p.returncode}: {p.stderr[-3000:]}")
                walls[n] = json.loads((root / f"wall{n}.json").read_text())
                served = server.stats()
                out[f"candidates_{n}proc_wall_s"] = walls[n]["wall_s"]
                out[f"candidates_{n}proc_requests"] = served["requests"]
                out[f"candidates_{n}proc_server_reply_s"] = served["reply_s"]
        out["candidates_same_file"] = (root / "stage1" / "candidates.jsonl").read_bytes() == \
            (root / "stage2" / "candidates.jsonl").read_bytes()
        out["candidates_2proc_wall_ratio"] = walls[2]["wall_s"] / walls[1]["wall_s"]
        return out
    finally:
        shutil.rmtree(root, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "--worker":
        _worker(*argv[1:6])
        return 0
    from colbench.benchmarks.stand_in_server import timing_arguments

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--states", type=int, default=48, help="candidate states (agent turns)")
    timing_arguments(p, median_s=1.0, sigma=0.5, cap_s=3.0)
    a = p.parse_args(argv)
    print(json.dumps(run(a.states, a.median_s, a.sigma, a.cap_s), indent=2, allow_nan=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
