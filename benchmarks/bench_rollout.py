"""Rollout throughput with a real LM policy: episodes/minute of the rollout runner with SmolLM2 as
the agent (greedy) and the scripted human, one episode at a time vs ``batch`` episodes in flight, on
the same episodes in one run. The trajectories of both runs must be identical."""
from __future__ import annotations

import argparse
import json
import time

__all__ = ["run", "main"]


def run(episodes: int = 8, batch: int = 8, max_turns: int = 2, max_new_tokens: int = 48, threads: int = 1) -> dict:
    import gymnasium as gym
    import torch

    import colbench_env  # noqa: F401
    from agents.base import LMAgent
    from colbench_env.lm.base import SamplingParams
    from colbench_env.evaluation.backend import BackendEvaluator
    from colbench_env.rollout import episode_specs, run_episodes

    torch.set_num_threads(threads)
    agent = LMAgent("smollm2", max_turns=max_turns, sampling=SamplingParams(max_new_tokens=max_new_tokens))
    specs = episode_specs(episodes, seed=0)
    out = {}
    with BackendEvaluator(workers=1) as ev:
        def env_fn():
            return gym.make("ColBench-Backend-v0", split="test", evaluator=ev, max_turns=max_turns)

        trajs = {}
        for name, b in (("one_at_a_time", 1), ("batched", batch)):
            t0 = time.perf_counter()
            recs = run_episodes(env_fn, agent, specs, episodes_in_flight=b)
            dt = time.perf_counter() - t0
            out[f"{name}_episodes_per_min"] = 60 * len(recs) / dt
            trajs[name] = sorted(recs, key=lambda r: int(r["episode_id"]))
    out["rollout_batched_ratio"] = out["batched_episodes_per_min"] / out["one_at_a_time_episodes_per_min"]
    out["rollout_same_trajectories"] = trajs["one_at_a_time"] == trajs["batched"]
    out.update(episodes=episodes, batch=batch, max_turns=max_turns, max_new_tokens=max_new_tokens, threads=threads)
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--episodes", type=int, default=8)
    p.add_argument("--batch", type=int, default=8)
    p.add_argument("--max-turns", type=int, default=2)
    p.add_argument("--max-new-tokens", type=int, default=48)
    p.add_argument("--threads", type=int, default=1)
    a = p.parse_args(argv)
    r = run(a.episodes, a.batch, a.max_turns, a.max_new_tokens, a.threads)
    print(f"episodes/min: one at a time {r['one_at_a_time_episodes_per_min']:.2f}, batched ({a.batch}) "
          f"{r['batched_episodes_per_min']:.2f}, ratio {r['rollout_batched_ratio']:.2f}x, "
          f"same trajectories: {r['rollout_same_trajectories']}")
    print(json.dumps(r))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
