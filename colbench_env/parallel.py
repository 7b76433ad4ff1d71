"""The PettingZoo Parallel form of the ColBench env: PettingZoo's ``turn_based_aec_to_parallel``
with two details made explicit.

* ``infos[a]["active_agent"]`` names the agent whose action the next ``step`` applies, after
  ``reset()`` too (PettingZoo's conversion sets it only after a step).
* ``step(actions)`` needs the active agent's action; a dict without it raises :class:`MissingActionError` (a ``KeyError``) that says
  which agent is expected (actions of the other agent are ignored: the conversation is turn-based).
"""
from __future__ import annotations

from pettingzoo.utils.conversions import turn_based_aec_to_parallel_wrapper

__all__ = ["ColBenchParallelEnv", "MissingActionError"]


class MissingActionError(KeyError):
    """The action dict lacks the active agent's action (a ``KeyError`` whose message reads plainly)."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


class ColBenchParallelEnv(turn_based_aec_to_parallel_wrapper):
    """Turn-based Parallel view of a :class:`~colbench_env.pz_env.ColBenchAECEnv`."""

    def reset(self, seed=None, options=None):
        observations, infos = super().reset(seed=seed, options=options)
        active = self.aec_env.agent_selection
        return observations, {a: dict(info, active_agent=active) for a, info in infos.items()}

    def step(self, actions):
        if self.agents:
            active = self.aec_env.agent_selection
            if not isinstance(actions, dict) or active not in actions:
                got = sorted(actions) if isinstance(actions, dict) else type(actions).__name__
                raise MissingActionError(f"the action dict must hold the action of {active!r}, whose turn it is "
                                         f"(infos[a]['active_agent']); got {got}")
        return super().step(actions)
