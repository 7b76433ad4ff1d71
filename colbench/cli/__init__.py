"""The ``colbench`` command line.

Each subcommand lives in its own module exposing ``add_arguments(parser)`` and ``main(args) -> int``;
``main`` only turns the parsed arguments into a call of the command's typed Python function
(:func:`colbench.runs.run`, :func:`colbench.table.table`, ...). Only the chosen module is
imported, so light commands (``colbench evaluate``) never import torch.

One error style: a user error (:class:`colbench.errors.UsageError`, a malformed task or trajectory
file, an argparse error) prints one line ``colbench <command>: error: <message>`` naming the file,
line and field, and exits with status 2, without a traceback. Episodes that a server failed
(:class:`colbench.errors.StageFailed`: kept, retried by the same command) print one line and exit
with status 1. Ctrl-C exits with status 130.
"""
from __future__ import annotations

import argparse
import importlib
import sys

from colbench import __version__

__all__ = ["COMMANDS", "command_parser", "top_parser", "main"]

#: subcommand -> (module, one-line help)
COMMANDS: dict[str, tuple[str, str]] = {
    "run": ("colbench.cli.run", "run episodes with an agent; write trajectories (jsonl) and print metrics"),
    "evaluate": ("colbench.cli.evaluate", "score trajectories in the official format; print metrics"),
    "audit": ("colbench.cli.audit", "check backend tasks (ground truth, signature, constants, formats) or the human's "
                                    "turns of recorded dialogues"),
    "render": ("colbench.cli.render", "render an HTML page to a PNG in headless Chromium"),
    "train": ("colbench.cli.train", "train an agent: rft, mt-dpo, ppo, grpo or sweet-rl"),
    "export": ("colbench.cli.export", "a colbench train checkpoint as a plain transformers model (LoRA merged)"),
    "table": ("colbench.cli.table", "agents x envs -> the paper's table (Markdown, CSV, PNG)"),
    "pipeline": ("colbench.cli.pipeline", "the SWEET-RL pipeline end to end: rollouts, training, evaluation"),
    "pipeline-stats": ("colbench.cli.pipeline_stats",
                       "intervals over tasks and seeds of pipeline runs made earlier (stats.md, .json, .png)"),
    "critic-analysis": ("colbench.cli.critic_analysis",
                        "held-out ranking accuracy of critics: log-prob ratio with/without training-time info vs value head"),
    "critic-ranking": ("colbench.cli.critic_ranking",
                       "real rollouts: critics ranking N candidate first actions by true value (continuations)"),
    "bench": ("colbench.cli.bench", "performance benchmarks, measured side by side; prints ratios"),
    "demo": ("colbench.cli.demo", "a first look in ~2 minutes: one dialogue turn by turn, then lower bound vs "
                                  "SmolLM2 vs upper bound"),
    "serve": ("colbench.cli.serve", "ColBench as an OpenEnv environment server (HTTP/WebSocket sessions, the human "
                                    "simulated server-side)"),
    "setup": ("colbench.cli.setup", "fetch the frontend's Tailwind stylesheet into the user cache; check the browser"),
    "view": ("colbench.cli.view", "trajectories -> one self-contained HTML report: episodes, per-test tables, pages, "
                                  "two runs compared"),
}


class _HelpFormatter(argparse.ArgumentDefaultsHelpFormatter, argparse.RawDescriptionHelpFormatter):
    """Shows every option's default; keeps the description's line breaks."""

    def _get_help_string(self, action):  # no "(default: None)" / "(default: False)" noise
        if action.default in (None, False) or action.default == argparse.SUPPRESS or action.required:
            return action.help
        return super()._get_help_string(action)


def _plain(doc: str) -> str:
    """A module docstring as plain text for ``--help`` (reST roles and literals unwrapped)."""
    import re

    doc = re.sub(r":[a-z]+:`~?([^`]+)`", r"\1", doc)
    return doc.replace("``", "").replace("**", "").strip()


def top_parser() -> argparse.ArgumentParser:
    """The parser of ``colbench`` itself: ``--version`` and the command's name."""
    p = argparse.ArgumentParser(
        prog="colbench",
        description="ColBench environments and SWEET-RL agents.",
        epilog="commands:\n" + "\n".join(f"  {k:<16} {v[1]}" for k, v in COMMANDS.items())
        + "\n\n'colbench COMMAND --help' for a command's options.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--version", action="version", version=f"colbench {__version__}")
    p.add_argument("command", choices=sorted(COMMANDS), metavar="COMMAND")
    return p


def command_parser(name: str) -> argparse.ArgumentParser:
    """The parser of ``colbench NAME`` (imports that command's module only): its description is the
    module's docstring as plain text, its options the module's ``add_arguments``.

    Raises:
        KeyError: ``name`` is not in :data:`COMMANDS`.
    """
    module_name, help_text = COMMANDS[name]
    module = importlib.import_module(module_name)
    parser = argparse.ArgumentParser(prog=f"colbench {name}", description=_plain(module.__doc__ or help_text),
                                     formatter_class=_HelpFormatter)
    module.add_arguments(parser)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] not in COMMANDS:
        top = top_parser()
        if not argv:
            top.print_help()
            return 2
        top.parse_args(argv[:1])  # -h / --version exit 0; anything else is a clear "invalid choice"
        return 2
    name = argv[0]
    prog = f"colbench {name}"
    from colbench.errors import StageFailed, user_error_types

    try:
        args = command_parser(name).parse_args(argv[1:])
        return int(importlib.import_module(COMMANDS[name][0]).main(args) or 0)
    except user_error_types() as e:
        print(f"{prog}: error: {e}", file=sys.stderr)
        return 2
    except ModuleNotFoundError as e:  # a command that checks its extras first never gets here
        from colbench.extras import extra_of

        extra = extra_of((e.name or "").split(".")[0], prefer=(name,))
        if extra is None:
            raise
        print(f"{prog}: error: this needs the '{extra}' extra ({e}): pip install 'colbench[{extra}]'",
              file=sys.stderr)
        return 2
    except StageFailed as e:  # episodes a server failed: the work done is kept, the same command retries them
        print(f"{prog}: error: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"\n{prog}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
