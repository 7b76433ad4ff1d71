"""``colbench pipeline``: the SWEET-RL pipeline end to end, with its baselines, in one table and plot.

Stages (each resumable: a finished stage leaves its output and is skipped when rerun; rollout and
evaluation files are appended episode by episode and resume mid-stage): **collect** ``k`` sampled
rollouts per training task with the base policy -> ``rollouts.jsonl``; **train** RFT, multi-turn DPO,
PPO, GRPO and SWEET-RL on them -> ``ckpt/<method>/`` and ``models/<method>/`` (LoRA merged);
**evaluate** zero-shot and every trained policy on the held-out split -> ``eval/<method>.jsonl``
(``--eval-samples k``: also ``eval/<method>.sampled.jsonl``); **report** ``results.{md,csv,png,json}``
and, over tasks and seeds, ``stats.{md,json,png}``.

Presets: ``--small`` (default) SmolLM2-135M on CPU, generated "rate" tasks, the scripted human,
sized for 2 cores in <= 45 minutes; ``--paper`` the reference implementation's setting for GPUs
(Llama-3.1-8B policy and critic, a 70B human behind an OpenAI-compatible server; every value and its
source in ``colbench.pipeline.PAPER_SETTINGS``). Every option below defaults to the preset's value.
``--env ColBench-Frontend-v0`` runs frontend design instead (reward = similarity of the final page's
render to the target's, results with the win rate of every method over zero-shot;
``colbench.pipeline.config.FRONTEND_PRESETS``: ``--small`` generated mini pages, ``--paper`` the
reference's frontend setting, a Qwen2-VL-72B human and CLIP similarity).

``--dry-run`` prints what would run as one JSON object on stdout, without loading a model or writing
anything: ``{"preset", "env", "pipeline": {...}, "methods": {method: trainer config}, "memory_plan":
{...}}`` (:func:`colbench.pipeline.plan.resolved_settings`).

``--policy-base-url URL``: collection and evaluation send the policy's turns to OpenAI-compatible
server(s) (vLLM, ``transformers serve``), asking for the base policy by ``--policy`` and for each
trained one by its path relative to ``--out-dir``, ``models/<method>``; ``--policy-lora`` loads each
trained LoRA adapter into them under that name first (vLLM ``--enable-lora``). SWEET-RL's candidate
actions come from them too (the base policy). Training runs here.

Under ``accelerate launch`` (``-m colbench pipeline``) every process runs the pipeline: episodes and
SWEET-RL's candidate states are split over the processes, training is sharded (DDP, FSDP, ZeRO-3 by
the launch's config), the main process writes the reports.

Python: :func:`colbench.pipeline.run_pipeline` with a :class:`colbench.pipeline.PipelineConfig`;
this module only parses the command line into one.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from colbench.agents.config import merge_config_dicts
from colbench.agents.registry import config_class
from colbench.cli.run import JoinURLs
from colbench.pipeline.config import ENVS, FRONTEND_REWARD_GAP, METHODS, PipelineConfig, preset_settings
from colbench.pipeline.resume import check_resume, check_sampled_files
from colbench.pipeline.run import run_pipeline
from colbench.errors import StageFailed
from colbench_env.prompting import PROMPT_STYLES

__all__ = ["add_arguments", "main"]


def add_arguments(p: argparse.ArgumentParser) -> None:
    g = p.add_mutually_exclusive_group()
    g.add_argument("--small", action="store_true", help="CPU preset (default); every option below defaults to the preset's value")
    g.add_argument("--paper", action="store_true",
                   help="the reference's setting for every method (8B policy and critic, a 70B / 72B human; GPUs)")
    p.add_argument("--dry-run", action="store_true",
                   help="print the resolved settings (every method's trainer config, the memory plan) as JSON "
                        "and exit: no model is loaded, nothing is written")
    p.add_argument("--env", default="ColBench-Backend-v0", choices=sorted(ENVS),
                   help="backend programming (default) or frontend design (reward: similarity of the renders)")
    p.add_argument("--out-dir", default=None, help="where every stage writes and resumes from (preset's default)")
    p.add_argument("--policy", default=None,
                   help="base policy: smollm2, a local model directory, a colbench train checkpoint, or a hub id")
    p.add_argument("--tasks", default=None,
                   help="'generated' (procedural, see --difficulty/--family), 'default' or a task file")
    p.add_argument("--difficulty", type=int, default=None,
                   help="generated tasks' difficulty (backend 1..4; frontend 1..6, 1..3 in the simple and mini families)")
    from colbench_env.generator import FAMILIES
    from colbench_env.generator.frontend import FRONTEND_FAMILIES

    p.add_argument("--family", default=None, help=f"generated tasks' template family (backend: {', '.join(FAMILIES)}; "
                   "ask: pair it with --simulator-kwargs '{\"volunteer\": false}'; frontend: "
                   f"{', '.join(FRONTEND_FAMILIES)})")
    p.add_argument("--prompt-style", default=None, choices=PROMPT_STYLES,
                   help="LM agents' prompt: the paper's instructions, or a worked example for very small models")
    p.add_argument("--rollout-temperature", type=float, default=None, help="sampling temperature of the collection")
    p.add_argument("--n-train-tasks", type=int, default=None, help="training tasks")
    p.add_argument("--n-test-tasks", type=int, default=None, help="held-out evaluation tasks")
    p.add_argument("--rollouts-per-task", type=int, default=None, help="k sampled rollouts per training task")
    p.add_argument("--max-turns", type=int, default=None,
                   help="agent turns per episode (the last one is taken as the answer)")
    p.add_argument("--methods", nargs="+", choices=METHODS, default=None, help="trainers to run (default: all)")
    p.add_argument("--simulator", default=None, help="the human: scripted (offline) or openai (a served LLM)")
    p.add_argument("--simulator-base-url", default=None, action=JoinURLs,
                   help="LLM simulator's OpenAI-compatible base URL; several servers: repeat the option or "
                        "separate the URLs with commas (each request goes to the least busy one)")
    p.add_argument("--simulator-model", default=None, help="LLM simulator's model (served name)")
    p.add_argument("--simulator-kwargs", default=None,
                   help='JSON object of simulator options, e.g. \'{"volunteer": false}\' for the scripted human')
    p.add_argument("--trainer-overrides", default=None, help="JSON: {method: {field: value}} (merged over the preset's)")
    p.add_argument("--max-new-tokens", type=int, default=None, help="LM agents' tokens per turn")
    p.add_argument("--episodes-in-flight", type=int, default=None,
                   help="episodes in flight, each advancing on its own; a local policy batches their turns")
    p.add_argument("--policy-base-url", default=None, action=JoinURLs,
                   help="generate the policy's turns (collection, SWEET-RL's candidates, evaluation) on this OpenAI-compatible server "
                        "instead of here; several: repeat the option or separate with commas. Models are asked for "
                        "by --policy, then models/<method> (their path relative to --out-dir)")
    p.add_argument("--policy-lora", action="store_true", default=None,
                   help="load each trained policy's LoRA adapter (ckpt/<method>/policy) into the --policy-base-url "
                        "server(s) as models/<method> before its evaluation (vLLM --enable-lora)")
    p.add_argument("--seeds", type=int, nargs="+", default=None,
                   help="one whole run per seed (out-dir/seed-<s>/), then bootstrap intervals over tasks and seeds")
    p.add_argument("--eval-samples", type=int, default=None,
                   help="k more sampled episodes per held-out task (besides the evaluation episode)")
    p.add_argument("--eval-samples-temperature", type=float, default=None,
                   help="temperature of those episodes (default 1.0)")
    p.add_argument("--eval-temperature", type=float, default=None,
                   help="temperature of the evaluation episodes (--small: 0, greedy; --paper: 1.0)")
    p.add_argument("--bootstrap-resamples", type=int, default=None, help="bootstrap resamples for the intervals")
    p.add_argument("--semantics", choices=("reference", "python"), default=None,
                   help="backend scoring: reference (default, comparable with published numbers) or python")
    p.add_argument("--matched-budget", action="store_true", default=None,
                   help="train every method at one budget: the preference methods (mt-dpo, SWEET-RL's policy) "
                        "with SWEET-RL's DPO settings on the same number of pairs (a seeded subsample to the "
                        "smallest count), RFT, PPO and GRPO for the same number of optimiser steps")
    p.add_argument("--strict-tokens", action="store_true", default=None,
                   help="refuse (exit 2, before any method trains) when some agent turn would be trained on a "
                        "re-tokenization of its text that differs from, or cannot be checked against, the token ids "
                        "its policy recorded (as colbench train --strict-tokens)")
    p.add_argument("--similarity", choices=sorted(FRONTEND_REWARD_GAP), default=None,
                   help="frontend reward: visual (offline, default) or clip (the paper's CLIP ViT-B/32 cosine)")


def main(args: argparse.Namespace) -> int:
    preset = "paper" if args.paper else "small"
    try:
        conf = preset_settings(preset, args.env)
    except ValueError as e:
        print(f"colbench pipeline: error: --{preset} --env {args.env}: {e}", file=sys.stderr)
        return 2
    if args.simulator is not None and args.simulator != conf.get("simulator", "scripted"):
        conf.pop("simulator_kwargs", None)  # the preset's options are its own human's (a model name, ...)
    for name in ("out_dir", "policy", "tasks", "difficulty", "family", "prompt_style", "rollout_temperature",
                 "n_train_tasks", "n_test_tasks", "rollouts_per_task", "max_turns", "methods", "simulator",
                 "max_new_tokens", "episodes_in_flight", "semantics", "seeds", "eval_samples", "eval_temperature",
                 "eval_samples_temperature", "policy_base_url", "policy_lora",
                 "bootstrap_resamples", "similarity", "matched_budget", "strict_tokens"):
        v = getattr(args, name, None)
        if v is not None:
            conf[name] = v
    if args.simulator_base_url or args.simulator_model:
        sim = dict(conf.get("simulator_kwargs", {}))  # the preset's simulator model unless one is given
        sim.update({k: v for k, v in (("base_url", args.simulator_base_url), ("model", args.simulator_model)) if v})
        conf["simulator_kwargs"] = sim
    if args.simulator_kwargs:
        try:
            extra = json.loads(args.simulator_kwargs)
        except json.JSONDecodeError as e:
            print(f"colbench pipeline: error: --simulator-kwargs: invalid JSON ({e.msg} at column {e.colno})",
                  file=sys.stderr)
            return 2
        if not isinstance(extra, dict):
            print("colbench pipeline: error: --simulator-kwargs: must be a JSON object", file=sys.stderr)
            return 2
        conf["simulator_kwargs"] = {**conf.get("simulator_kwargs", {}), **extra}
    if args.trainer_overrides:
        merged = {k: dict(v) for k, v in conf.get("trainer_overrides", {}).items()}
        try:
            given = json.loads(args.trainer_overrides)
        except json.JSONDecodeError as e:
            print(f"colbench pipeline: error: --trainer-overrides: invalid JSON ({e.msg} at column {e.colno})",
                  file=sys.stderr)
            return 2
        if not isinstance(given, dict) or not all(isinstance(v, dict) for v in given.values()):
            print("colbench pipeline: error: --trainer-overrides: must be a JSON object {method: {field: value}}",
                  file=sys.stderr)
            return 2
        try:  # over the preset's, nested configs field by field (an unknown method: PipelineConfig says so)
            for k, v in given.items():
                merged[k] = merge_config_dicts(config_class(k), merged.get(k, {}), v,
                                               source=f"--trainer-overrides[{k!r}]") if k in METHODS else v
        except ValueError as e:
            print(f"colbench pipeline: error: {e}", file=sys.stderr)
            return 2
        conf["trainer_overrides"] = merged
    try:
        cfg = PipelineConfig(**conf)
        check_sampled_files(cfg)
        check_resume(cfg)
    except ValueError as e:
        print(f"colbench pipeline: error: {e}", file=sys.stderr)
        return 2
    if args.dry_run:
        from colbench.pipeline.plan import resolved_settings

        print(json.dumps(resolved_settings(cfg, preset=preset), indent=1, allow_nan=False))
        return 0
    try:
        report = run_pipeline(cfg, preset=preset)
    except StageFailed as e:  # a server failed: the finished work is kept, a rerun retries the failed episodes
        print(f"colbench pipeline: error: {e}", file=sys.stderr)
        return 1
    out = Path(cfg.out_dir)
    if report.get("stats") is None:  # another process of an accelerate launch: the main one reports
        return 0
    if not cfg.seeds:
        print((out / "results.md").read_text())
    print((out / "stats.md").read_text())
    print(json.dumps({"rows": report["rows"]}, allow_nan=False))
    return 0
