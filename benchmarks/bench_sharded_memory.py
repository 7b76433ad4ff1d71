"""Memory per process of sharded training: 2 CPU processes under FSDP and under ZeRO-3 against one
process, on the real SmolLM2-135M-Instruct (float32, 135M parameters: 540 MB of weights).

Two trainings, one update each on 8 two-turn trajectories (2 per micro-batch and optimiser step):

* ``rft``: LoRA (r=16) on the frozen base -- the weights dominate;
* ``mt-dpo-full``: multi-turn DPO as a full fine-tune -- weights, gradients, two AdamW moments and
  the frozen reference copy (5 x 540 MB in one process).

Each process polls its proportional set size (PSS: its resident memory, pages shared with the other
process -- the page cache of the memory-mapped checkpoint, which transformers' tensors may point
into -- counted half) every 20 ms and reports, minus its value after the imports: its peak while
the trainer is built (loading, LoRA, sharding: ``build_peak_mb``), what it holds after that
(``held_mb``; one process's weights may still be unread pages of the mapped checkpoint, not yet
resident), its peak during the update (``update_peak_mb``) and what it holds after the update, the
weights read (``after_update_mb``). ``ru_maxrss`` (the process's whole-run peak RSS) is reported too: it includes
the load, where FSDP's processes each read the whole checkpoint before sharding it (on GPUs
``cpu_ram_efficient_loading`` lets rank 0 alone read it) while transformers partitions the weights
as it loads them under ZeRO-3.

Launches: one process; ``fsdp_cpu.yaml``; ``deepspeed_zero3_cpu.yaml`` as shipped (DeepSpeed's
defaults keep up to 1e9 gathered parameters live and reuse them, so on a 135M model every process
ends up holding the whole model); the same with ``RELEASED`` (every gathered parameter released
after use, no prefetch: ZeRO-3's minimum).

Run: ``python -m colbench.benchmarks.bench_sharded_memory [--only fsdp,deepspeed] [--out FILE]`` (each
launch of each training, sequentially: ~20 minutes on 2 busy cores); headline ``sharded_fsdp_held_ratio``: a
2-process FSDP process's memory after the update over one process's, full fine-tune (ideal 0.5).
"""
from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

__all__ = ["run", "main"]

TASK = {"task_id": "t0", "problem_description": "Write f(x) that returns my number.",
        "ground_truth": "def f(x):\n    return x + 7", "test_cases": {"test1": "f(1)"}}
TRAININGS = {
    "rft": ("rft", {"policy": {"lora_r": 16}, "sequences_per_batch": 2}),
    "mt-dpo-full": ("mt-dpo", {"policy": {"full_finetune": True}, "pairs_per_batch": 2}),
}
LAUNCHES = {"one": None, "fsdp": "fsdp_cpu.yaml", "deepspeed": "deepspeed_zero3_cpu.yaml",
            "deepspeed_released": "deepspeed_zero3_cpu.yaml"}
#: ZeRO-3 releasing every gathered parameter after use (DeepSpeed's defaults keep up to 1e9 gathered
#: parameters live and reuse them: a model under 1e9 parameters ends up whole in every process)
RELEASED = {"stage3_max_live_parameters": 0, "stage3_max_reuse_distance": 0, "stage3_prefetch_bucket_size": 0,
            "stage3_param_persistence_threshold": 0}


def _records() -> list[dict]:
    """8 scored two-turn trajectories of 2 tasks (4 each: rewards 1, 0.5, 0.3, 0)."""
    out = []
    for t in range(2):
        task = dict(TASK, task_id=f"t{t}", problem_description=f"Write f(x) that returns x plus {t + 7}.")
        for k, reward in enumerate((1.0, 0.5, 0.3, 0.0)):
            actions = [f"Which number? OUTPUT: Do you add {k + t}?", f"I WANT TO ANSWER: def f(x): return x + {k + t}"]
            out.append({"task": task, "reward": reward, "answer": actions[-1],
                        "dialogue_history": [{"role": "assistant", "content": actions[0].split("OUTPUT:")[-1].strip(),
                                              "output": actions[0]},
                                             {"role": "user", "content": "No, another one."},
                                             {"role": "assistant", "content": actions[1], "output": actions[1]}]})
    return out


def _pss() -> int:
    """Proportional set size: resident pages, those shared with other processes (the page cache of a
    checkpoint both processes map) divided among them."""
    with open("/proc/self/smaps_rollup") as f:
        for line in f:
            if line.startswith("Pss:"):
                return int(line.split()[1]) * 1024
    return 0


class _Peak:
    """The highest :func:`_pss` seen (polled every 20 ms) since :meth:`reset`."""

    def __init__(self):
        self._lock = threading.Lock()
        self._epoch = 0
        self.peak = _pss()
        threading.Thread(target=self._poll, daemon=True).start()

    def _poll(self):
        while True:
            epoch = self._epoch
            value = _pss()
            with self._lock:
                if epoch == self._epoch:  # not a value read before a reset
                    self.peak = max(self.peak, value)
            time.sleep(0.02)  # reading smaps_rollup walks the page tables: not too often

    def reset(self) -> None:
        with self._lock:
            self._epoch += 1
            self.peak = _pss()


def worker(training: str, out: str, launch: str) -> None:
    """One process (of a launch or alone): build the trainer, one update, write its figures."""
    import accelerate  # noqa: F401  (the libraries' own memory is in the baseline)
    import peft  # noqa: F401
    import transformers  # noqa: F401
    import trl  # noqa: F401

    from colbench.agents.registry import trainer_class
    from colbench_env.lm.smollm2 import smollm2_path

    if launch == "deepspeed_released":  # the launch's DeepSpeed plugin, which the trainer's Accelerator reuses
        from colbench.agents.sharding import make_accelerator

        make_accelerator().state.deepspeed_plugin.deepspeed_config["zero_optimization"].update(RELEASED)
    probe = _Peak()
    imports = _pss()
    probe.reset()
    algorithm, config = TRAININGS[training]
    trainer = trainer_class(algorithm)(dict(config, model=smollm2_path(), max_length=256))
    build_peak, held = probe.peak, _pss()
    probe.reset()
    trainer.update(_records())
    update_peak, after = probe.peak, _pss()
    acc = trainer.accelerator
    mb = 1 << 20
    row = {"rank": acc.process_index, "processes": acc.num_processes, "sharding": trainer.policy.sharding,
           "imports_mb": imports / mb, "build_peak_mb": (build_peak - imports) / mb, "held_mb": (held - imports) / mb,
           "update_peak_mb": (update_peak - imports) / mb, "after_update_mb": (after - imports) / mb,
           "ru_maxrss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}
    Path(f"{out}.rank{acc.process_index}.json").write_text(json.dumps(row, allow_nan=False))


def _measure(training: str, launch: str, tmp: Path) -> list[dict]:
    root = Path(__file__).resolve().parent.parent
    out = tmp / f"{training}.{launch}"
    env = dict(os.environ, OMP_NUM_THREADS="1", PYTHONPATH=os.pathsep.join(filter(None, [str(root), os.environ.get("PYTHONPATH")])))
    env.pop("ACCELERATE_USE_CPU", None)
    script = [str(Path(__file__).resolve()), "--worker", training, str(out), launch]
    if LAUNCHES[launch] is None:
        cmd = [sys.executable, *script]
    else:
        from colbench import configs_dir

        cmd = [sys.executable, "-m", "accelerate.commands.launch", "--config_file",
               str(configs_dir() / "accelerate" / LAUNCHES[launch]), "--main_process_port", str(_free_port()), *script]
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=3600)
    if p.returncode != 0:
        raise RuntimeError(f"{training} {launch}: exit {p.returncode}\n{p.stderr[-3000:]}")
    return [json.loads(f.read_text()) for f in sorted(tmp.glob(f"{training}.{launch}.rank*.json"))]


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run(launches: list[str] | None = None) -> dict:
    """Every training under every launch (or ``one`` and ``launches``); per launch and process the
    figures of :func:`worker`, and the ratios of a sharded process's memory after the update and its
    update peak to one process's."""
    result: dict = {"sharded_memory": {}}
    launches = list(LAUNCHES) if launches is None else ["one", *launches]
    with tempfile.TemporaryDirectory() as d:
        for training in TRAININGS:
            rows = {launch: _measure(training, launch, Path(d)) for launch in launches}
            result["sharded_memory"][training] = rows
            one = rows["one"][0]
            for launch in launches[1:]:
                for key in ("after_update_mb", "update_peak_mb"):
                    worst = max(r[key] for r in rows[launch])
                    result[f"sharded_{launch}_{key.removesuffix('_mb')}_ratio_{training}"] = worst / one[key]
    if "fsdp" in launches:
        result["sharded_fsdp_held_ratio"] = result["sharded_fsdp_after_update_ratio_mt-dpo-full"]
    return result


def main(argv: list[str] | None = None) -> int:
    import argparse

    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--worker"]:  # one launched process (internal)
        worker(*argv[1:4])
        return 0
    p = argparse.ArgumentParser(prog="python -m colbench.benchmarks.bench_sharded_memory",
                                description="Memory per process of sharded training (module docstring).")
    p.add_argument("--only", default=None, help="comma-separated launches besides one process: "
                   + ",".join(k for k in LAUNCHES if k != "one"))
    p.add_argument("--out", default=None, help="also write the JSON result to this file")
    args = p.parse_args(argv)
    only = args.only.split(",") if args.only else None
    unknown = [x for x in only or [] if x not in LAUNCHES or x == "one"]
    if unknown:
        p.error(f"--only: unknown launch(es) {', '.join(unknown)}")
    r = run(only)
    print(json.dumps(r, indent=1, allow_nan=False))
    if args.out:
        Path(args.out).write_text(json.dumps(r, indent=2, allow_nan=False) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
