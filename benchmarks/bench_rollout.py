"""The rollout runner's benchmarks.

* :func:`run` -- throughput with a local LM: episodes/minute with SmolLM2 as the agent (greedy) and
  the scripted human, one episode at a time vs ``batch`` episodes in flight (the batching queue),
  on the same episodes in one run. The trajectories of both runs must be identical.
* :func:`run_serving` -- serving efficiency: agent and human behind an OpenAI-compatible server
  whose reply times are lognormal (:mod:`colbench.benchmarks.stand_in_server`), ``episodes`` episodes with
  ``in_flight`` of them in flight. No scheduler can finish before ``bound = sum of the reply times
  / in_flight``; ``rollout_serving_efficiency = bound / wall``. The lockstep runner (every round
  waits for all live episodes' agent replies, then for all their human replies; the runner before
  issue 33, kept here as :func:`run_lockstep`) is measured beside it on the same server.

  That bound assumes every slot busy until the end. Episodes are started in order, though, and
  one episode's replies can take as long as the whole bound (its replies come one after another),
  so even a runner without any overhead ends later: ``serving_fifo_bound_s`` is its wall time on
  these episodes (each episode's reply times, recomputed from its trajectory and checked against
  the server's total, placed in the first free of ``in_flight`` slots, in order), and
  ``rollout_serving_efficiency_vs_fifo = serving_fifo_bound_s / wall``.
"""
from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path
from typing import Any, Callable, Sequence

__all__ = ["run", "run_serving", "run_lockstep", "main"]


def run(episodes: int = 8, batch: int = 8, max_turns: int = 2, max_new_tokens: int = 48, threads: int = 1) -> dict:
    import gymnasium as gym
    import torch

    import colbench_env  # noqa: F401
    from colbench.agents.base import LMAgent
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


def run_lockstep(env_fn: Callable[[], Any], policy: Any, episodes: Sequence, *, batch_size: int) -> list[dict]:
    """The lockstep runner that :func:`colbench_env.rollout.run_episodes` replaced (as of commit
    6dab5d5), for comparison: each round, one ``act_batch`` over all live episodes, then one
    ``reply_batch`` over those that need a human reply; a finished episode's slot starts the next."""
    from colbench_env.phased import phased
    from colbench_env.rollout import policy_act_batch
    from colbench_env.simulators import SimulatorError

    queue = list(episodes)
    envs = [env_fn() for _ in range(min(batch_size, len(queue)))]
    steps = [phased(e) for e in envs]
    slots: list = [None] * len(envs)
    results: list[dict] = []

    def start(i: int) -> None:
        slots[i] = None
        if queue:
            spec = queue.pop(0)
            obs, _ = envs[i].reset(seed=spec.seed, options=dict(spec.options, episode_id=spec.episode_id))
            slots[i] = {"spec": spec, "obs": obs}

    try:
        simulator = envs[0].unwrapped.simulator
        for i in range(len(envs)):
            start(i)
        while any(s is not None for s in slots):
            live = [i for i, s in enumerate(slots) if s is not None]
            actions = policy_act_batch(policy, [slots[i]["obs"] for i in live])
            need = [i for i, a in zip(live, actions) if steps[i].agent_step(a)]
            if need:
                try:
                    replies = [(r, None) for r in simulator.reply_batch([steps[i].simulator_request() for i in need])]
                except SimulatorError as e:
                    replies = [(None, f"simulator failed: {e}")] * len(need)
                for i, (reply, err) in zip(need, replies):
                    steps[i].human_step(reply, error=err)
            for i in live:
                obs, _, terminated, truncated, _ = steps[i].transition()
                slots[i]["obs"] = obs
                if terminated or truncated:
                    rec = envs[i].unwrapped.trajectory_record()
                    rec["episode_id"] = slots[i]["spec"].episode_id
                    results.append(rec)
                    start(i)
    finally:
        for e in envs:
            e.close()
    return results


def episode_reply_times(records: list[dict], tasks: list, agent: Any, simulator: Any, timing: dict) -> dict[str, float]:
    """``{episode_id: the time its replies took on the stand-in server}``, recomputed from the
    trajectories: each agent turn's request is ``agent.messages(observation)`` (the observation
    rebuilt from the dialogue as the env shows it), each human reply's ``simulator.build_messages``."""
    from colbench.benchmarks.stand_in_server import reply_time

    by_task = {t.task_id: t for t in tasks}
    out = {}
    for rec in records:
        task, dialogue, t = by_task[rec["task_id"]], rec["dialogue_history"], 0.0
        for i, m in enumerate(dialogue):
            if m["role"] != "assistant":
                continue
            seen = [{k: x[k] for k in ("role", "content", "output") if k in x} for x in dialogue[:i]]
            obs = {"problem_description": task.problem_description, "dialogue": json.dumps(seen, ensure_ascii=False)}
            t += reply_time(agent.messages(obs), **timing)
            if i + 1 < len(dialogue):
                t += reply_time(simulator.build_messages(task, [dict(x) for x in dialogue[:i + 1]]), **timing)
        out[rec["episode_id"]] = t
    return out


def fifo_makespan(durations: Sequence[float], slots: int) -> float:
    """When the last episode ends if each starts, in order, in the first of ``slots`` slots to be
    free, and takes exactly its duration (a runner without overhead)."""
    import heapq

    free = [0.0] * slots
    for d in durations:
        heapq.heappush(free, heapq.heappop(free) + d)
    return max(free)


def run_serving(episodes: int = 96, in_flight: int = 32, median_s: float = 0.05, sigma: float = 1.0,
                cap_s: float = 1.5) -> dict:
    """``rollout_serving_efficiency`` of :func:`~colbench_env.rollout.run_episodes` and, beside it,
    ``rollout_serving_efficiency_lockstep`` of :func:`run_lockstep`, on the same stand-in server (see
    the module docstring): agent and human both served (``colbench run --agent openai --simulator
    openai``), the embedded backend tasks, reference scoring with 2 sandbox workers, each episode
    appended to a trajectory file as ``colbench run`` does. Both runs must give the same trajectories."""
    import gymnasium as gym

    import colbench_env  # noqa: F401
    from colbench.agents.base import LMAgent
    from colbench.benchmarks.stand_in_server import StandInServer
    from colbench_env.evaluation.backend import BackendEvaluator
    from colbench_env.lm.base import SamplingParams
    from colbench_env.rollout import episode_specs, run_episodes
    from colbench_env.simulators import make_simulator
    from colbench.wrappers import TrajectoryRecorder

    tasks = colbench_env.default_tasks("backend")
    specs = episode_specs(episodes, n_tasks=len(tasks))
    out: dict[str, Any] = {}
    trajectories = {}
    timing = {"median_s": median_s, "sigma": sigma, "cap_s": cap_s}
    with StandInServer(**timing) as server, \
            tempfile.TemporaryDirectory(prefix="colbench-bench-serving-") as tmp:
        for name, runner in (("lockstep", lambda env_fn, agent: run_lockstep(env_fn, agent, specs,
                                                                                 batch_size=in_flight)),
                             ("independent", lambda env_fn, agent: run_episodes(env_fn, agent, specs,
                                                                                    episodes_in_flight=in_flight))):
            agent = LMAgent("openai", base_url=server.url, model="agent", sampling=SamplingParams(max_new_tokens=384))
            sim = make_simulator("openai", kind="backend", base_url=server.url, model="human")
            path = Path(tmp) / f"{name}.jsonl"
            with BackendEvaluator(workers=2) as ev:  # a fresh one each: both pay for the ground truths
                def env_fn():
                    return TrajectoryRecorder(gym.make("ColBench-Backend-v0", tasks=tasks, simulator=sim,
                                                       evaluator=ev), path)

                server.stats(reset=True)
                t0 = time.perf_counter()
                recs = runner(env_fn, agent)
                wall = time.perf_counter() - t0
                stats = server.stats()
            if name == "independent":
                per_episode = episode_reply_times(recs, tasks, agent, sim, timing)
                recomputed = sum(per_episode.values())
                if abs(recomputed - stats["reply_s"]) > 1e-6 * max(1.0, stats["reply_s"]):
                    raise RuntimeError(f"the reply times recomputed from the trajectories ({recomputed} s) differ "
                                       f"from the server's ({stats['reply_s']} s)")
                fifo = fifo_makespan([per_episode[s.episode_id] for s in specs], in_flight)
                out["serving_fifo_bound_s"] = fifo
                out["serving_longest_episode_s"] = max(per_episode.values())
                out["rollout_serving_efficiency_vs_fifo"] = fifo / wall
            sim.close()
            agent.close()
            bound = stats["reply_s"] / in_flight
            key = "rollout_serving_efficiency" + ("" if name == "independent" else "_lockstep")
            out[key] = bound / wall
            out[f"serving_{name}_wall_s"] = wall
            out[f"serving_{name}_requests"] = stats["requests"]
            out[f"serving_{name}_bound_s"] = bound
            out[f"serving_{name}_errors"] = sum(1 for r in recs if r.get("error"))
            trajectories[name] = sorted(({k: v for k, v in r.items() if k != "env_id"} for r in recs),
                                        key=lambda r: int(r["episode_id"]))
    out["serving_same_trajectories"] = trajectories["lockstep"] == trajectories["independent"]
    out.update(serving_episodes=episodes, serving_in_flight=in_flight, serving_reply_median_s=median_s,
               serving_reply_sigma=sigma, serving_reply_cap_s=cap_s)
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--serving", action="store_true", help="measure rollout_serving_efficiency instead")
    p.add_argument("--episodes", type=int, default=None, help="default: 8 (SmolLM2), 96 (--serving)")
    p.add_argument("--batch", type=int, default=None, help="episodes in flight; default: 8 (SmolLM2), 32 (--serving)")
    p.add_argument("--max-turns", type=int, default=2)
    p.add_argument("--max-new-tokens", type=int, default=48)
    p.add_argument("--threads", type=int, default=1)
    a = p.parse_args(argv)
    if a.serving:
        r = run_serving(a.episodes or 96, a.batch or 32)
        print(f"serving efficiency (bound / wall): independent episodes {r['rollout_serving_efficiency']:.2f} "
              f"({r['serving_independent_wall_s']:.2f} s), lockstep {r['rollout_serving_efficiency_lockstep']:.2f} "
              f"({r['serving_lockstep_wall_s']:.2f} s); bound {r['serving_independent_bound_s']:.2f} s, "
              f"{r['serving_independent_requests']} requests; without overhead, in order: "
              f"{r['serving_fifo_bound_s']:.2f} s (independent episodes reach "
              f"{r['rollout_serving_efficiency_vs_fifo']:.2f} of it; longest episode "
              f"{r['serving_longest_episode_s']:.2f} s); same trajectories: {r['serving_same_trajectories']}")
    else:
        r = run(a.episodes or 8, a.batch or 8, a.max_turns, a.max_new_tokens, a.threads)
        print(f"episodes/min: one at a time {r['one_at_a_time_episodes_per_min']:.2f}, batched ({r['batch']}) "
              f"{r['batched_episodes_per_min']:.2f}, ratio {r['rollout_batched_ratio']:.2f}x, "
              f"same trajectories: {r['rollout_same_trajectories']}")
    print(json.dumps(r, allow_nan=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
