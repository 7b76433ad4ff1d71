"""Environment throughput: ``ColBench-Backend-v0`` steps per second with the scripted agent and the
scripted simulator on one core (episodes end by the forced answer on turn 10, which the sandboxed
evaluator scores: scoring is included)."""
from __future__ import annotations

import argparse
import json
import time

__all__ = ["run", "main"]


def run(seconds: float = 5.0, workers: int = 1) -> dict:
    import gymnasium as gym

    import colbench_env  # noqa: F401
    from colbench.agents.base import ScriptedAgent
    from colbench_env.evaluation.backend import BackendEvaluator

    agent = ScriptedAgent(["OUTPUT: What are your rules?", "OUTPUT: Any thresholds?", "OUTPUT: How should I round?",
                           "OUTPUT: What about ties?", "OUTPUT: Anything else?"])
    with BackendEvaluator(workers=workers) as ev:
        env = gym.make("ColBench-Backend-v0", evaluator=ev)
        obs, _ = env.reset(seed=0)
        env.step(agent.act(obs))  # warm up (evaluator pool, caches)
        steps = episodes = 0
        t0 = time.perf_counter()
        seed = 1
        obs, _ = env.reset(seed=seed)
        while time.perf_counter() - t0 < seconds:
            obs, _, term, trunc, _ = env.step(agent.act(obs))
            steps += 1
            if term or trunc:
                episodes += 1
                seed += 1
                obs, _ = env.reset(seed=seed)
        dt = time.perf_counter() - t0
        env.close()
    return {"env_steps_per_s": steps / dt, "env_episodes_per_s": episodes / dt, "steps": steps, "seconds": dt}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--seconds", type=float, default=5.0)
    a = p.parse_args(argv)
    r = run(a.seconds)
    print(f"env steps/s {r['env_steps_per_s']:.0f} (episodes/s {r['env_episodes_per_s']:.1f}, goal >= 1000)")
    print(json.dumps(r, allow_nan=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
