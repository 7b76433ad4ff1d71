"""``colbench critic-analysis``: held-out pairwise ranking accuracy of three critics -- SWEET-RL's
log-prob ratio with and without training-time information, and a value head -- on synthetic tasks
where only the hidden information tells the better trajectory (or on ``--trajectories FILE``).

Python: :func:`colbench.critics.analysis.run` (what each critic is and how the data are built is
documented there); this module only parses the command line.
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

from colbench.critics import analysis
from colbench_env.prompting import PROMPT_STYLES

__all__ = ["add_arguments", "main"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--train-tasks", type=int, default=12, help="training tasks")
    parser.add_argument("--test-tasks", type=int, default=6, help="held-out tasks")
    parser.add_argument("--epochs", type=int, default=8, help="Bradley-Terry epochs of every critic")
    parser.add_argument("--value-head-epochs", type=int, default=None,
                        help="epochs of the value-head critic (default: --epochs, the matched budget)")
    parser.add_argument("--model", default=None,
                        help="local model directory or 'smollm2' (default: tiny random Llama with SmolLM2's tokenizer)")
    parser.add_argument("--trajectories", default=None,
                        help="scored trajectory jsonl (e.g. a pipeline's rollouts.jsonl) instead of the synthetic tasks")
    parser.add_argument("--holdout-every", type=int, default=3, help="with --trajectories: every k-th task is held out")
    parser.add_argument("--prompt-style", default="paper", choices=PROMPT_STYLES,
                        help="with --trajectories: the agent prompt they were collected with")
    parser.add_argument("--max-turns", type=int, default=10, help="with --trajectories: their turn budget")
    parser.add_argument("--learning-rate", type=float, default=3e-3, help="critic learning rate")
    parser.add_argument("--lora-r", type=int, default=8, help="LoRA rank of every critic")
    parser.add_argument("--batch-size", type=int, default=4, help="training pairs per optimiser step")
    parser.add_argument("--max-length", type=int, default=4096, help="longest critic context (cut from the left)")
    parser.add_argument("--seed", type=int, default=0, help="seeds the data split and training")
    parser.add_argument("--json", action="store_true", help="print the result as one JSON object on the last line")
    parser.add_argument("--out", default=None, help="directory to write critic_analysis.md and critic_analysis.json")


def main(args: argparse.Namespace) -> int:
    if args.model is None:
        import torch

        torch.set_num_threads(1)  # tiny models: one thread is fastest on shared cores
    try:
        result = analysis.run(n_train_tasks=args.train_tasks, n_test_tasks=args.test_tasks, epochs=args.epochs,
                     model=args.model, seed=args.seed, value_head_epochs=args.value_head_epochs,
                     trajectories=args.trajectories, holdout_every=args.holdout_every, prompt_style=args.prompt_style,
                     max_turns=args.max_turns, learning_rate=args.learning_rate, lora_r=args.lora_r,
                     batch_size=args.batch_size, max_length=args.max_length)
    except (ValueError, OSError) as e:
        print(f"colbench critic-analysis: error: {e}")
        return 2
    table = analysis.markdown_table(result)
    print(table)
    if args.out:
        d = Path(args.out)
        d.mkdir(parents=True, exist_ok=True)
        (d / "critic_analysis.md").write_text(table + "\n")
        (d / "critic_analysis.json").write_text(json.dumps(result, indent=2, allow_nan=False) + "\n")
    if args.json:
        print(json.dumps(result, allow_nan=False))
    return 0
