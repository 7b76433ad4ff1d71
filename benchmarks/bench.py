"""``colbench bench``: the performance benchmarks, each measured side by side in one run, as ratios.

* env steps/s with the scripted agent and simulator (goal >= 1,000 on one core);
* sandboxed evaluator vs the in-process ``exec`` evaluator, answers/s ratio (goal >= 1.0x);
* Chromium driver pool vs one sequential driver, pages/s ratio (goal >= 2x);
* batched (8) vs one-at-a-time SmolLM2 generation, tokens/s ratio (goal >= 3x);
* 4-bit vs full-precision critic training step, peak memory ratio: a 1.07B random Llama (goal
  <= 0.35x), and SmolLM2-135M beside it (``critic_4bit_peak_memory_ratio_smollm2``);
* rollout runner with SmolLM2: episodes/minute batched (8) vs one at a time;
* rollout runner against a served agent and human (a stand-in server on 127.0.0.1 with lognormal
  reply times): bound / wall, independent episodes and the lockstep runner side by side (goal >= 0.8).

``--json`` prints one JSON object as the last line with the keys ``env_steps_per_s``,
``evaluator_ratio_vs_inprocess``, ``render_pool_ratio``, ``batched_generation_ratio``,
``critic_4bit_peak_memory_ratio``, ``rollout_batched_ratio``, ``rollout_serving_efficiency`` (and
each benchmark's details, e.g. ``rollout_serving_efficiency_lockstep``).
"""
from __future__ import annotations

import argparse
import importlib
import json
import sys
import time
import traceback

__all__ = ["add_arguments", "main", "BENCHES"]

#: name -> (module or "module:function" returning a dict, key of the headline number, goal text)
BENCHES = {
    "env": ("benchmarks.bench_env", "env_steps_per_s", ">= 1000 steps/s"),
    "evaluator": ("benchmarks.bench_evaluator", "evaluator_ratio_vs_inprocess", ">= 1.0x"),
    "render": ("benchmarks.bench_render", "render_pool_ratio", ">= 2x"),
    "generation": ("benchmarks.bench_generation", "batched_generation_ratio", ">= 3x"),
    "critic": ("benchmarks.bench_critic_memory", "critic_4bit_peak_memory_ratio", "<= 0.35x (1B random Llama)"),
    "rollout": ("benchmarks.bench_rollout", "rollout_batched_ratio", ">= 2.0x episodes/min batched vs one at a time"),
    "serving": ("benchmarks.bench_rollout:run_serving", "rollout_serving_efficiency",
                ">= 0.8 of sum(reply times) / 32 (lockstep runner beside it)"),
}


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--only", nargs="*", choices=sorted(BENCHES), help="run only these benchmarks")
    p.add_argument("--json", action="store_true", help="one JSON object as the last line")
    p.add_argument("--out", default=None, help="also write the JSON object to this file")


def main(args: argparse.Namespace) -> int:
    results: dict = {}
    failed = []
    for name in (args.only or list(BENCHES)):
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
    if args.out:
        from pathlib import Path

        Path(args.out).write_text(json.dumps(results, indent=2) + "\n")
    if args.json:
        print(json.dumps(results))
    return 1 if failed else 0
