"""Batched rollouts: keep ``B`` episodes in flight, one batched policy call per turn.

Each round, the live episodes' observations go to the policy in one ``act_batch`` call; the
episodes that need a human reply are answered by one ``reply_batch`` call of one shared simulator
(batched generation for a local LM, concurrent requests for an HTTP one); finished episodes are
handed to ``on_episode`` as they complete and their slot starts the next episode. With a
deterministic policy and simulator the trajectories are exactly those of stepping the episodes one
by one: each episode is reset with its own seed and options.

The envs are driven through their wrappers: ``reset`` through the whole stack (with
``options["episode_id"]``, which :class:`wrappers.TrajectoryRecorder` records), the step through the
phased-step protocol of :mod:`colbench_env.phased`, which ColBench wrappers forward. So a
``TrajectoryRecorder`` in the stack writes every episode, and ``HiddenInfoWrapper``'s info reaches
it, exactly as in a loop of ``env.step`` calls.

The policy is duck-typed (``colbench_env`` does not import ``agents``): an object with
``act_batch(observations) -> list[str]``, or ``act(observation) -> str``, or a plain callable.
Batched policies must not keep per-episode state (decide from the observation); with
``episodes_in_flight=1`` an object's ``reset()`` is called before each episode.
"""
from __future__ import annotations

import time
import warnings
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from .phased import phased
from .simulators import SimulatorError

__all__ = ["EpisodeSpec", "run_episodes", "episode_specs", "policy_act_batch"]


@dataclass(frozen=True)
class EpisodeSpec:
    """One episode to run: its id (unique in a run file), reset seed and reset options."""

    episode_id: str
    seed: int | None = None
    options: dict = field(default_factory=dict)


def episode_specs(n: int, *, n_tasks: int | None = None, seed: int = 0, repeats: int = 1) -> list[EpisodeSpec]:
    """``n`` episodes going through the tasks in order (``task_index = k % n_tasks``) when
    ``n_tasks`` is given, else drawing tasks by seed; episode ``k`` is reset with seed ``seed + k``.
    ``repeats > 1`` runs each task that many times in a row (``episode_id`` ``"k"``)."""
    specs = []
    for k in range(n):
        opts = {"task_index": (k // repeats) % n_tasks} if n_tasks else {}
        specs.append(EpisodeSpec(str(k), seed + k, opts))
    return specs


def policy_act_batch(policy: Any, observations: list) -> list[str]:
    """Call a duck-typed policy on a batch of observations."""
    if hasattr(policy, "act_batch"):
        actions = list(policy.act_batch(observations))
    elif hasattr(policy, "act"):
        actions = [policy.act(o) for o in observations]
    elif callable(policy):
        actions = [policy(o) for o in observations]
    else:
        raise TypeError("policy must have act_batch(observations), act(observation), or be callable")
    if len(actions) != len(observations):
        raise ValueError(f"policy returned {len(actions)} actions for {len(observations)} observations")
    return actions


def _replies(simulator: Any, requests: list[tuple]) -> list[tuple[str | None, str | None]]:
    """(reply, error) per request; one failure does not fail the others."""
    try:
        return [(r, None) for r in simulator.reply_batch(requests)]
    except SimulatorError:
        out = []
        for req in requests:
            try:
                out.append((simulator.reply(*req), None))
            except SimulatorError as e:
                out.append((None, f"simulator failed: {e}"))
        return out


def run_episodes(
    env_fn: Callable[[], Any],
    policy: Any,
    episodes: Sequence[EpisodeSpec] | int,
    *,
    episodes_in_flight: int = 1,
    on_episode: Callable[[dict], None] | None = None,
    progress: Any = None,
    batch_size: int | None = None,
) -> list[dict]:
    """Run episodes and return their trajectory records (official format plus ``episode_id`` and
    ``env_id``), in completion order.

    Args:
        env_fn: makes a ColBench Gymnasium env, wrapped or not (``env.unwrapped`` a
            :class:`~colbench_env.gym_env.ColBenchEnv`; wrappers must forward the phased step, see
            :mod:`colbench_env.phased`); called ``min(episodes_in_flight, len(episodes))`` times. The first
            env's simulator answers for all of them; the others never build theirs.
        policy: see the module docstring.
        episodes: specs, or a number ``n`` (ids ``"0".."n-1"``, seeds ``0..n-1``).
        episodes_in_flight: episodes run side by side (one batched policy call per turn).
        on_episode: called with each finished record as soon as it is finished (to write records
            to a file, wrap the env in :class:`wrappers.TrajectoryRecorder` instead).
        progress: a tqdm-like object (``update(1)``) or ``None``.
        batch_size: the old name of ``episodes_in_flight`` (deprecated: a ``DeprecationWarning``).
    """
    if batch_size is not None:
        warnings.warn("run_episodes(batch_size=...) is deprecated: it is episodes_in_flight=...", DeprecationWarning,
                      stacklevel=2)
        if episodes_in_flight not in (1, batch_size):
            raise TypeError("run_episodes: batch_size is the old name of episodes_in_flight; give one of them")
        episodes_in_flight = batch_size
    if isinstance(episodes, int):
        episodes = episode_specs(episodes)
    queue = list(episodes)
    if episodes_in_flight < 1:
        raise ValueError(f"episodes_in_flight must be >= 1, got {episodes_in_flight}")
    n_envs = min(episodes_in_flight, len(queue))
    envs: list = []
    slots: list[dict | None] = [None] * n_envs
    results: list[dict] = []

    def start(i: int) -> None:
        if not queue:
            slots[i] = None
            return
        spec = queue.pop(0)
        if episodes_in_flight == 1 and hasattr(policy, "reset"):
            policy.reset()
        obs, _ = envs[i].reset(seed=spec.seed, options=dict(spec.options, episode_id=spec.episode_id))
        slots[i] = {"spec": spec, "obs": obs, "t0": time.perf_counter()}

    def finish(i: int) -> None:
        base = envs[i].unwrapped
        rec = base.trajectory_record()
        rec["episode_id"] = slots[i]["spec"].episode_id
        spec = base.spec  # the wrapped env's spec copy may fail on unpicklable kwargs
        if spec is not None:
            rec["env_id"] = spec.id
        results.append(rec)
        if on_episode is not None:
            on_episode(rec)
        if progress is not None:
            progress.update(1)
        start(i)

    try:
        for _ in range(n_envs):
            envs.append(env_fn())
        steps = [phased(e) for e in envs]
        simulator = envs[0].unwrapped.simulator if envs else None
        for i in range(n_envs):
            start(i)
        while any(s is not None for s in slots):
            live = [i for i, s in enumerate(slots) if s is not None]
            actions = policy_act_batch(policy, [slots[i]["obs"] for i in live])
            need = [i for i, a in zip(live, actions) if steps[i].agent_step(a)]
            if need:
                replies = _replies(simulator, [steps[i].simulator_request() for i in need])
                for i, (reply, err) in zip(need, replies):
                    steps[i].human_step(reply, error=err)
            for i in live:
                obs, _, terminated, truncated, _ = steps[i].transition()
                slots[i]["obs"] = obs
                if terminated or truncated:
                    finish(i)
    finally:
        for e in envs:
            e.close()
    return results
