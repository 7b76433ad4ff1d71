"""ColBench environments (Zhou et al. 2025, arXiv 2503.15478) for Gymnasium and PettingZoo.

Importing this package registers ``ColBench-Backend-v0`` and ``ColBench-Frontend-v0``::

    import gymnasium as gym
    import colbench_env
    env = gym.make("ColBench-Backend-v0")

PettingZoo forms: :func:`aec_env` and :func:`parallel_env`.
"""
from __future__ import annotations

from gymnasium.envs.registration import register, registry

from .protocol import ANSWER_MARKER, MAX_TURNS, OUTPUT_MARKER, extract_code, extract_html, parse_agent_turn
from .tasks import BackendTask, FrontendTask, TaskFormatError, default_tasks, load_tasks

__all__ = [
    "BackendTask", "FrontendTask", "TaskFormatError", "default_tasks", "load_tasks",
    "ANSWER_MARKER", "OUTPUT_MARKER", "MAX_TURNS", "parse_agent_turn", "extract_code", "extract_html",
    "aec_env", "parallel_env",
]

for _kind in ("Backend", "Frontend"):
    _id = f"ColBench-{_kind}-v0"
    if _id not in registry:
        register(id=_id, entry_point="colbench_env.gym_env:ColBenchEnv",
                 kwargs={"kind": _kind.lower()}, disable_env_checker=False)


def aec_env(kind: str = "backend", **kwargs):
    """The PettingZoo AEC environment (agents ``"agent"`` and ``"human"``), wrapped in PettingZoo's
    ``OrderEnforcingWrapper`` as PettingZoo's own envs are (``.unwrapped`` is the
    :class:`colbench_env.pz_env.ColBenchAECEnv`, whose docstring lists the keyword arguments)."""
    from pettingzoo.utils.wrappers import OrderEnforcingWrapper

    from .pz_env import ColBenchAECEnv

    return OrderEnforcingWrapper(ColBenchAECEnv(kind=kind, **kwargs))


def parallel_env(kind: str = "backend", **kwargs):
    """The PettingZoo Parallel form of :func:`aec_env` (:class:`colbench_env.parallel.ColBenchParallelEnv`):
    each parallel step applies the active agent's action; ``infos[a]["active_agent"]`` names it,
    from ``reset()`` on, and an action dict without it is a clear ``KeyError``."""
    from .parallel import ColBenchParallelEnv

    return ColBenchParallelEnv(aec_env(kind, **kwargs))
