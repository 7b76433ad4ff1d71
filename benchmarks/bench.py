"""The performance benchmarks side by side (``colbench bench``, :mod:`colbench.cli.bench`): each one
module of this package with a ``run() -> dict``; :data:`BENCHES` says which number of its result is
the headline and the goal it is measured against.
"""
from __future__ import annotations

import importlib
import sys
import time
import traceback
from typing import Sequence

__all__ = ["BENCHES", "run_benchmarks"]

#: name -> (module or "module:function" returning a dict, key of the headline number, goal text)
BENCHES = {
    "env": ("colbench.benchmarks.bench_env", "env_steps_per_s", ">= 1000 steps/s"),
    "evaluator": ("colbench.benchmarks.bench_evaluator", "evaluator_ratio_vs_inprocess", ">= 1.0x"),
    "render": ("colbench.benchmarks.bench_render", "render_pool_ratio", ">= 2x"),
    "generation": ("colbench.benchmarks.bench_generation", "batched_generation_ratio", ">= 3x"),
    "critic": ("colbench.benchmarks.bench_critic_memory", "critic_4bit_peak_memory_ratio", "<= 0.35x (1B random Llama)"),
    "rollout": ("colbench.benchmarks.bench_rollout", "rollout_batched_ratio", ">= 2.0x episodes/min batched vs one at a time"),
    "serving": ("colbench.benchmarks.bench_rollout:run_serving", "rollout_serving_efficiency",
                ">= 0.8 of sum(reply times) / 32 (lockstep runner beside it)"),
    "sharded": ("colbench.benchmarks.bench_sharded_memory", "sharded_fsdp_held_ratio",
                "~0.5 (2-process FSDP process / one process, memory after a full fine-tune update)"),
    "candidates": ("colbench.benchmarks.bench_candidates", "candidates_2proc_wall_ratio",
                   "<= 0.6x (SWEET-RL's candidate stage, served: 2 processes / 1)"),
    "serve": ("colbench.benchmarks.bench_serve", "serve_backend_episodes_per_s",
              "errors 0; alive after abrupt disconnects 0; non-final step p99 with scoring <= 2x without"),
    "view": ("colbench.benchmarks.bench_view", "view_load_interactive_s",
             "<= 3 s to interactive, 1,000 backend episodes; file <= 25 MB (view_file_mb)"),
}


def run_benchmarks(only: Sequence[str] | None = None) -> tuple[dict, list[str]]:
    """Run the benchmarks of :data:`BENCHES` (all, or those named in ``only``), one after the other,
    each headline printed as it is measured; returns every result merged into one dict (a failed
    benchmark's headline ``None`` and ``<name>_error``, its traceback on stderr) and the failed names."""
    results: dict = {}
    failed = []
    for name in (only or list(BENCHES)):
        module, key, goal = BENCHES[name]
        t0 = time.perf_counter()
        print(f"[{name}] running ...", file=sys.stderr, flush=True)
        try:
            module_name, _, function = module.partition(":")
            r = getattr(importlib.import_module(module_name), function or "run")()
            if key not in r:
                raise KeyError(f"{module}.run() returned no {key!r}")
        except Exception as e:  # one broken benchmark must not hide the others
            traceback.print_exc()
            failed.append(name)
            results[key] = None
            results[f"{name}_error"] = f"{type(e).__name__}: {e}"
            continue
        results.update({k: v for k, v in r.items() if k != key})
        results[key] = r[key]
        print(f"[{name}] {key} = {r[key]:.3f}  (goal {goal}; {time.perf_counter() - t0:.0f} s)", flush=True)
    return results, failed
