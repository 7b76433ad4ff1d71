"""The ``colbench`` command line.

Each subcommand lives in its own module exposing ``add_arguments(parser)`` and ``main(args) -> int``;
only the chosen one is imported, so light commands (``colbench evaluate``) never import torch.
"""
from __future__ import annotations

import argparse
import importlib
import sys

#: subcommand -> (module, one-line help)
COMMANDS: dict[str, tuple[str, str]] = {
    "run": ("benchmarks.run", "run episodes with an agent; write trajectories (jsonl) and print metrics"),
    "evaluate": ("colbench_env.evaluation.cli", "score trajectories in the official format; print metrics"),
    "render": ("colbench_env.evaluation.render_cli", "render an HTML page to a PNG in headless Chromium"),
    "train": ("agents.cli", "train an agent: sweet-rl, mt-dpo, ppo or rft"),
    "bench": ("benchmarks.bench", "performance benchmarks, measured side by side; prints ratios"),
    "pipeline": ("benchmarks.pipeline", "the SWEET-RL pipeline end to end: rollouts, training, evaluation"),
    "table": ("benchmarks.evaluate_table", "agents x envs -> the paper's table (Markdown, CSV, PNG)"),
    "critic-analysis": ("benchmarks.critic_analysis",
                        "held-out ranking accuracy of critics: log-prob ratio with/without training-time info vs value head"),
}


def _top_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="colbench",
        description="ColBench environments and SWEET-RL agents.",
        epilog="commands:\n" + "\n".join(f"  {k:<10} {v[1]}" for k, v in COMMANDS.items())
        + "\n\n'colbench COMMAND --help' for a command's options.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("command", choices=sorted(COMMANDS), metavar="COMMAND")
    return p


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help") or argv[0] not in COMMANDS:
        top = _top_parser()
        if not argv or argv[0] in ("-h", "--help"):
            top.print_help()
            return 0 if argv else 2
        top.parse_args(argv[:1])  # exits with a clear "invalid choice" error
        return 2
    name = argv[0]
    module_name, help_text = COMMANDS[name]
    module = importlib.import_module(module_name)
    parser = argparse.ArgumentParser(prog=f"colbench {name}", description=help_text)
    module.add_arguments(parser)
    args = parser.parse_args(argv[1:])
    return int(module.main(args) or 0)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
