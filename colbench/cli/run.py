"""``colbench run``: run episodes with an agent, write trajectories, print metrics.

This module parses the command line into a :class:`colbench.runs.RunConfig` and calls
:func:`colbench.runs.run` (episodes, resume, the run's configuration file: see :mod:`colbench.runs`).
Exit status: 0; 2 for a user error; 1 when episodes ended with an error (a server failed: the
summary is printed, then one line naming the first error; the same command retries them); 130 on
Ctrl-C.
:func:`add_common_arguments` holds the options ``run`` and ``table`` share.
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from pathlib import Path
from typing import Callable

from colbench.errors import EpisodesFailed
from colbench.runs import SEMANTICS, RunConfig, run
from colbench_env.metrics import format_report
from colbench_env.prompting import PROMPT_STYLES

__all__ = ["JoinURLs", "add_arguments", "add_common_arguments", "config_from_args", "json_object", "main"]


def json_object(option: str) -> Callable[[str], dict]:
    """argparse type: a JSON object given inline."""
    def parse(text: str) -> dict:
        try:
            v = json.loads(text)
        except json.JSONDecodeError as e:
            raise argparse.ArgumentTypeError(f"invalid JSON ({e.msg} at column {e.colno})") from None
        if not isinstance(v, dict):
            raise argparse.ArgumentTypeError(f"must be a JSON object, got {type(v).__name__}")
        return v
    parse.__name__ = f"{option} JSON"
    return parse


class JoinURLs(argparse.Action):
    """An option that may be repeated: its values are kept as one comma-separated string (several
    OpenAI-compatible servers, see :func:`colbench_env.lm.openai_compat.split_base_urls`)."""

    def __call__(self, parser, namespace, values, option_string=None):
        previous = getattr(namespace, self.dest, None)
        setattr(namespace, self.dest, f"{previous},{values}" if previous else values)


def add_common_arguments(p: argparse.ArgumentParser, *, defaults: dict | None = None) -> None:
    """The options ``run`` and ``table`` share (same names, same meaning)."""
    d = {"split": None, "episodes_in_flight": 4, "max_new_tokens": 384, "max_turns": 10, "prompt_style": "paper"}
    d.update(defaults or {})
    p.add_argument("--tasks", default="default",
                   help="'default' (embedded tasks), a task file (jsonl/json, e.g. an official ColBench file), "
                        "or 'generated:N:difficulty[:family]'")
    p.add_argument("--split", default=d["split"], choices=("train", "test"),
                   help="keep only this split (a file without 'split' fields keeps all its tasks)")
    p.add_argument("--episodes", type=int, default=None,
                   help="episodes per run (default: one per task, K with --rollouts-per-task K)")
    p.add_argument("--rollouts-per-task", type=int, default=1,
                   help="K: run each task K times in a row (sampled rollouts for pair-based trainers such as "
                        "mt-dpo and sweet-rl need K >= 2 and --temperature > 0)")
    p.add_argument("--episodes-in-flight", type=int, default=d["episodes_in_flight"],
                   help="episodes in flight, each advancing on its own; a local model batches their turns")
    p.add_argument("--simulator", default="scripted",
                   help="the human: scripted | hf | smollm2 | openai | record | replay, or a plug-in "
                        "(module:Name, path/to/file.py:Name, or an entry point of group colbench.simulators)")
    p.add_argument("--simulator-kwargs", type=json_object("--simulator-kwargs"), default={},
                   help="JSON object of keyword arguments for the simulator")
    p.add_argument("--simulator-model", default=None, help="LLM simulator's model (hf path or served name)")
    p.add_argument("--simulator-base-url", default=None, action=JoinURLs,
                   help="LLM simulator's OpenAI-compatible base URL; several servers: repeat the option or "
                        "separate the URLs with commas (each request goes to the least busy one)")
    p.add_argument("--simulator-cache", default=None, help="record/replay cache file")
    p.add_argument("--max-turns", type=int, default=d["max_turns"],
                   help="agent turns per episode (the last one is taken as the answer)")
    p.add_argument("--prompt-style", default=d["prompt_style"], choices=PROMPT_STYLES,
                   help="LM agents' prompt: the paper's instructions, or a worked example for very small models")
    p.add_argument("--max-new-tokens", type=int, default=d["max_new_tokens"], help="LM agents' tokens per turn")
    p.add_argument("--temperature", type=float, default=0.0, help="LM agents' sampling temperature (0: greedy)")
    p.add_argument("--seed", type=int, default=0, help="episode k is reset with seed SEED + k")
    p.add_argument("--workers", type=int, default=2, help="sandboxed evaluator workers (backend)")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--out", required=True,
                   help="trajectory jsonl (appended to; rerun the same command to resume; "
                        "its configuration is kept in OUT.run.json)")
    p.add_argument("--env", default="ColBench-Backend-v0", help="ColBench-Backend-v0 or ColBench-Frontend-v0")
    p.add_argument("--agent", default="smollm2",
                   help="smollm2 (embedded SmolLM2-135M-Instruct), scripted (asks, then answers 'return None', "
                        "or a plain page on the frontend: a lower bound), hf (--agent-model PATH), openai (--agent-base-url/--agent-model), or a "
                        "plug-in: module:Name, path/to/file.py:Name (a class, factory or callable), or an "
                        "entry point of group colbench.agents")
    p.add_argument("--agent-kwargs", type=json_object("--agent-kwargs"), default={},
                   help="JSON object of keyword arguments for the agent's class or factory")
    p.add_argument("--agent-model", default=None, help="local model path/hub id (hf) or served model name (openai)")
    p.add_argument("--agent-base-url", default=None, action=JoinURLs,
                   help="OpenAI-compatible base URL, e.g. http://localhost:8000/v1; several servers: repeat the "
                        "option or separate the URLs with commas")
    p.add_argument("--agent-4bit", action="store_true", help="load the local agent model in 4-bit NF4")
    add_common_arguments(p)
    p.add_argument("--semantics", choices=SEMANTICS, default="reference",
                   help="reference: the reference scorer's rules, comparable with published numbers (default); "
                        "python: plain Python modules, not comparable with published numbers")
    p.add_argument("--json", action="store_true", help="print the metrics as one JSON object on the last line")


def config_from_args(args: argparse.Namespace) -> RunConfig:
    fields = {f.name for f in dataclasses.fields(RunConfig)}
    return RunConfig(**{k: v for k, v in vars(args).items() if k in fields})


def main(args: argparse.Namespace) -> int:
    config = config_from_args(args)
    try:
        metrics = run(config)
    except EpisodesFailed as e:  # every episode is written; the failed ones are retried by a rerun
        _print_metrics(e.metrics, args.json)
        print(f"colbench run: error: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        from colbench.wrappers.recorder import completed_episode_ids

        n = len(completed_episode_ids(config.out)) if Path(config.out).exists() else 0
        print(f"\ncolbench run: interrupted: {n} episodes saved in {config.out}; "
              "run the same command again to resume", file=sys.stderr)
        return 130
    _print_metrics(metrics, args.json)
    return 0


def _print_metrics(metrics: dict, as_json: bool) -> None:
    print(format_report(metrics))
    if as_json:
        print(json.dumps(metrics, allow_nan=False))
