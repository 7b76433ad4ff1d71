"""The phased step: one Gymnasium ``step`` of a ColBench env split in the phases that a batched
rollout runner interleaves across many envs (one batched policy call, one batched simulator call).

A ColBench env (:class:`~colbench_env.gym_env.ColBenchEnv`) and every ColBench wrapper
(:class:`ColBenchWrapper`) implement :class:`PhasedStep`; ``env.step(action)`` is exactly::

    if env.agent_step(action):                                   # the agent's turn
        reply = simulator.reply(*env.simulator_request())        # the human's reply, from outside
        env.human_step(reply)                                    # (or human_step(error=...))
    return env.transition()                                      # the 5-tuple of ``step``

and a runner whose policy could not produce an action (its server failed) ends the episode with
``env.fail(error)`` instead of ``agent_step``, then ``env.transition()``.

A wrapper changes what a step returns by overriding :meth:`ColBenchWrapper.step_result`, which
runs on both paths, so the same wrapper stack behaves the same in a loop of ``step`` calls and in
:func:`colbench_env.rollout.run_episodes`. Gymnasium's own bookkeeping wrappers that ``gym.make``
adds (order enforcing, the passive env checker) are passed through by the phased path; any other
wrapper that does not forward the phases is refused with a ``TypeError`` naming it, rather than
silently skipped.
"""
from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

import gymnasium as gym
from gymnasium.wrappers import OrderEnforcing, PassiveEnvChecker

__all__ = ["PhasedStep", "ColBenchWrapper", "phased"]

_PASS_THROUGH = (OrderEnforcing, PassiveEnvChecker)


@runtime_checkable
class PhasedStep(Protocol):
    """The phases of a ColBench ``step`` (see the module docstring)."""

    def agent_step(self, action: str) -> bool:
        """Apply the agent's action; return whether the human must now reply."""

    def simulator_request(self) -> tuple:
        """``(task, dialogue, renders)``: the arguments of ``Simulator.reply`` for that reply."""

    def human_step(self, reply: str | None = None, *, error: str | None = None) -> None:
        """Apply the human's reply, or end the episode with ``error`` (the simulator failed)."""

    def transition(self) -> tuple:
        """``(observation, reward, terminated, truncated, info)`` after the phases."""

    def fail(self, error: str) -> None:
        """End the episode now with ``error``, without an agent action (the policy failed)."""


def phased(env: Any) -> PhasedStep:
    """The outermost layer of ``env`` that implements the phased step (``env`` itself when it
    does), passing through Gymnasium's order-enforcing and passive-checker wrappers.

    Raises:
        TypeError: a wrapper in between neither forwards the phases nor is a pass-through one.
    """
    layer = env
    while not isinstance(layer, PhasedStep):
        if not isinstance(layer, _PASS_THROUGH):
            raise TypeError(f"{type(layer).__name__} does not forward the phased step that batched rollouts use: "
                            "derive it from colbench_env.phased.ColBenchWrapper (and override step_result)")
        layer = layer.env
    return layer


class ColBenchWrapper(gym.Wrapper):
    """Base class of ColBench wrappers: forwards the phased step to the wrapped env and applies
    :meth:`step_result` to what both ``step`` and ``transition`` return (override it, and
    ``reset`` if needed, rather than ``step``)."""

    @property
    def _inner(self) -> PhasedStep:
        """The wrapped layer that takes the phases (found once: a runtime protocol check is slow)."""
        found = self.__dict__.get("_phased_inner")
        if found is None or found[0] is not self.env:
            found = (self.env, phased(self.env))
            self.__dict__["_phased_inner"] = found
        return found[1]

    def agent_step(self, action: str) -> bool:
        return self._inner.agent_step(action)

    def simulator_request(self) -> tuple:
        return self._inner.simulator_request()

    def human_step(self, reply: str | None = None, *, error: str | None = None) -> None:
        self._inner.human_step(reply, error=error)

    def transition(self) -> tuple:
        return self.step_result(*self._inner.transition())

    def fail(self, error: str) -> None:
        self._inner.fail(error)

    def step(self, action: Any):
        return self.step_result(*self.env.step(action))

    def step_result(self, observation: Any, reward: float, terminated: bool, truncated: bool, info: dict) -> tuple:
        """What this wrapper returns for a step whose inner result is the arguments (identity here)."""
        return observation, reward, terminated, truncated, info
