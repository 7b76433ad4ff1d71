"""``colbench bench``: the performance benchmarks, each measured side by side in one run, as ratios.

* env steps/s with the scripted agent and simulator (goal >= 1,000 on one core);
* sandboxed evaluator vs the in-process ``exec`` evaluator, answers/s ratio (goal >= 1.0x);
* Chromium driver pool vs one sequential driver, pages/s ratio (goal >= 2x);
* batched (8) vs one-at-a-time SmolLM2 generation, tokens/s ratio (goal >= 3x);
* 4-bit vs full-precision critic training step, peak memory ratio: a 1.07B random Llama (goal
  <= 0.35x), and SmolLM2-135M beside it (``critic_4bit_peak_memory_ratio_smollm2``);
* rollout runner with SmolLM2: episodes/minute batched (8) vs one at a time;
* SWEET-RL's candidate stage with a served policy (stand-in server), 2 processes vs 1, wall time
  ratio (goal <= 0.6x; ``candidates_2proc_wall_ratio``).

``--json`` prints one JSON object as the last line with the keys ``env_steps_per_s``,
``evaluator_ratio_vs_inprocess``, ``render_pool_ratio``, ``batched_generation_ratio``,
``critic_4bit_peak_memory_ratio`` (and each benchmark's details).

Python: :func:`colbench.benchmarks.bench.run_benchmarks`; this module only parses the command line.
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

from colbench.benchmarks.bench import BENCHES, run_benchmarks

__all__ = ["add_arguments", "main"]


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--only", nargs="*", choices=sorted(BENCHES), help="run only these benchmarks")
    p.add_argument("--json", action="store_true", help="one JSON object as the last line")
    p.add_argument("--out", default=None, help="also write the JSON object to this file")


def main(args: argparse.Namespace) -> int:
    results, failed = run_benchmarks(args.only)
    if args.out:
        Path(args.out).write_text(json.dumps(results, indent=2, allow_nan=False) + "\n")
    if args.json:
        print(json.dumps(results, allow_nan=False))
    return 1 if failed else 0
