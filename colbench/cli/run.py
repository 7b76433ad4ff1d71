"""``colbench run``: run episodes with an agent, write trajectories, print metrics.

Episode ``k`` runs task ``k mod len(tasks)`` (in the file's order) with reset seed ``seed + k`` and
``episode_id = "k"``. Trajectories are appended to ``--out`` as each episode finishes; rerunning the
same command skips the episodes already in the file (resume after an interruption). The metrics
are computed over every episode in the file.
"""
from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from wrappers.prompting import PROMPT_STYLES

__all__ = ["add_arguments", "main", "make_agent", "summarize", "format_summary", "run", "run_to_file"]

AGENTS = ("smollm2", "scripted", "hf", "openai")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--env", default="ColBench-Backend-v0", help="ColBench-Backend-v0 or ColBench-Frontend-v0")
    p.add_argument("--agent", default="smollm2", choices=AGENTS,
                   help="smollm2 (embedded SmolLM2-135M-Instruct), scripted (fixed questions, no LLM), "
                        "hf (--agent-model PATH), openai (--agent-base-url/--agent-model)")
    p.add_argument("--agent-model", default=None, help="local model path/hub id (hf) or served model name (openai)")
    p.add_argument("--agent-base-url", default=None, help="OpenAI-compatible base URL, e.g. http://localhost:8000/v1")
    p.add_argument("--agent-4bit", action="store_true", help="load the local agent model in 4-bit NF4")
    p.add_argument("--tasks", default="default", help="'default', a jsonl path, or 'generated:N:difficulty[:family]'")
    p.add_argument("--split", default=None, choices=("train", "test"), help="task split")
    p.add_argument("--episodes", type=int, default=None, help="episodes to run (default: one per task)")
    p.add_argument("--batch-size", type=int, default=4, help="episodes in flight (one batched agent call per turn)")
    p.add_argument("--out", required=True, help="trajectory jsonl (appended; resumes)")
    p.add_argument("--simulator", default="scripted", help="scripted | hf | smollm2 | openai | record | replay")
    p.add_argument("--simulator-model", default=None)
    p.add_argument("--simulator-base-url", default=None)
    p.add_argument("--simulator-cache", default=None, help="record/replay cache file")
    p.add_argument("--max-turns", type=int, default=10)
    p.add_argument("--prompt-style", default="paper", choices=PROMPT_STYLES,
                   help="agent prompt: the paper's instructions, or a worked example for very small models")
    p.add_argument("--max-new-tokens", type=int, default=384)
    p.add_argument("--temperature", type=float, default=0.0)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--workers", type=int, default=2, help="sandboxed evaluator workers (backend)")
    p.add_argument("--json", action="store_true", help="print the metrics as one JSON object on the last line")


def make_agent(args: argparse.Namespace, kind: str):
    """The agent selected on the command line."""
    from agents.base import LMAgent, ScriptedAgent
    from colbench_env.backends.base import SamplingParams

    if args.agent == "scripted":
        return ScriptedAgent()
    sampling = SamplingParams(max_new_tokens=args.max_new_tokens, temperature=args.temperature,
                              seed=args.seed if args.temperature > 0 else None)
    if args.agent == "smollm2":
        return LMAgent("smollm2", kind=kind, max_turns=args.max_turns, sampling=sampling,
                       prompt_style=args.prompt_style, load_in_4bit=args.agent_4bit)
    if args.agent == "hf":
        if not args.agent_model:
            raise SystemExit("--agent hf needs --agent-model PATH")
        return LMAgent("hf", kind=kind, max_turns=args.max_turns, sampling=sampling, model=args.agent_model,
                       prompt_style=args.prompt_style, load_in_4bit=args.agent_4bit)
    if not (args.agent_base_url and args.agent_model):
        raise SystemExit("--agent openai needs --agent-base-url and --agent-model")
    return LMAgent("openai", kind=kind, max_turns=args.max_turns, sampling=sampling, base_url=args.agent_base_url,
                   model=args.agent_model, prompt_style=args.prompt_style)


def _simulator_kwargs(args: argparse.Namespace) -> dict:
    kw: dict[str, Any] = {}
    if args.simulator in ("hf", "smollm2") and args.simulator_model:
        kw["model"] = args.simulator_model
    if args.simulator == "openai":
        if not (args.simulator_base_url and args.simulator_model):
            raise SystemExit("--simulator openai needs --simulator-base-url and --simulator-model")
        kw.update(base_url=args.simulator_base_url, model=args.simulator_model)
    if args.simulator in ("record", "replay"):
        if not args.simulator_cache:
            raise SystemExit(f"--simulator {args.simulator} needs --simulator-cache FILE")
        kw["path"] = args.simulator_cache
    return kw


def summarize(records: list[dict]) -> dict:
    """Metrics over trajectory records: backend ``tests_passed_pct`` (mean reward x 100) and
    ``success_rate``; frontend ``similarity`` (mean reward); and ``count``/``errors``."""
    n = len(records)
    rewards = [float(r.get("reward") or 0.0) for r in records]
    out = {"count": n, "errors": sum(1 for r in records if r.get("error"))}
    kinds = {("backend" if "test_cases" in r["task"] else "frontend") for r in records}
    if "frontend" in kinds and "backend" not in kinds:
        out["similarity"] = sum(rewards) / n if n else 0.0
    else:
        out["tests_passed_pct"] = 100.0 * sum(rewards) / n if n else 0.0
        out["success_rate"] = sum(1 for r in records if r.get("success")) / n if n else 0.0
    out["mean_turns"] = (sum(sum(1 for m in r["dialogue_history"] if m["role"] == "assistant") for r in records) / n
                         if n else 0.0)
    return out


def format_summary(m: dict) -> str:
    if "similarity" in m:
        head = f"similarity {m['similarity']:.4f}"
    else:
        head = f"% tests passed {m['tests_passed_pct']:.1f}  success rate {100 * m['success_rate']:.1f}%"
    return f"{head}  episodes {m['count']}  errors {m['errors']}  mean turns {m['mean_turns']:.2f}"


def run_to_file(env_fn, make_policy, specs, out, *, batch_size: int, desc: str) -> list[dict]:
    """Run the episodes of ``specs`` not yet completed in ``out`` (resume), appending each record
    as it finishes; returns the latest record of every episode of ``specs`` found in ``out``.

    Args:
        env_fn: makes one env (see :func:`colbench_env.rollout.run_episodes`).
        make_policy: builds the policy; called only when some episode is left to run (a policy
            with ``close()`` is closed afterwards).
    """
    from tqdm import tqdm

    from colbench_env.rollout import run_episodes
    from colbench_env.trajectories import append_jsonl, read_trajectories
    from wrappers.recorder import completed_episode_ids, latest_records

    done = completed_episode_ids(out)
    todo = [s for s in specs if s.episode_id not in done]
    if done:
        print(f"resuming: {len(done)} episodes already in {out}, {len(todo)} to run", file=sys.stderr)
    retried = completed_episode_ids(out, include_errors=True) - done
    if retried:
        print(f"retrying {len(retried)} episodes that ended with an error", file=sys.stderr)
    if todo:
        policy = make_policy()
        try:
            with tqdm(total=len(todo), desc=desc, unit="ep", file=sys.stderr) as bar:
                run_episodes(env_fn, policy, todo, batch_size=batch_size, progress=bar,
                             on_episode=lambda rec: append_jsonl(out, [rec]))
        finally:
            if hasattr(policy, "close"):
                policy.close()
    wanted = {s.episode_id for s in specs}
    latest = latest_records(read_trajectories(out, tolerate_partial_last_line=True))
    return [r for k, r in latest.items() if k in wanted]


def run(args: argparse.Namespace) -> dict:
    import gymnasium as gym

    import colbench_env  # noqa: F401  (registers the envs)
    from colbench_env.rollout import episode_specs
    from colbench_env.simulators import make_simulator

    spec = gym.spec(args.env)
    kind = spec.kwargs.get("kind", "backend")
    simulator = make_simulator(args.simulator, kind=kind, **_simulator_kwargs(args))
    shared: dict[str, Any] = {}
    if kind == "backend":
        from colbench_env.evaluation.backend import BackendEvaluator

        shared["evaluator"] = BackendEvaluator(workers=args.workers)
    else:
        from colbench_env.evaluation.render import Renderer

        shared["renderer"] = Renderer(pool_size=max(1, min(args.batch_size, 2)))

    def env_fn():
        return gym.make(args.env, tasks=args.tasks, split=args.split, simulator=simulator,
                        max_turns=args.max_turns, **shared)

    try:
        probe = env_fn()
        n_tasks = len(probe.unwrapped.tasks)
        probe.close()
        n = args.episodes if args.episodes is not None else n_tasks
        records = run_to_file(env_fn, lambda: make_agent(args, kind), episode_specs(n, n_tasks=n_tasks, seed=args.seed),
                              args.out, batch_size=args.batch_size, desc=f"{args.agent} on {args.env}")
    finally:
        for v in shared.values():
            v.close()
        simulator.close()
    return summarize(records)


def main(args: argparse.Namespace) -> int:
    metrics = run(args)
    print(format_summary(metrics))
    if args.json:
        print(json.dumps(metrics))
    return 0
