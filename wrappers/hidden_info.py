"""Training-time (hidden) information access."""
from __future__ import annotations

from typing import Any

from colbench_env.phased import ColBenchWrapper

__all__ = ["HiddenInfoWrapper"]


class HiddenInfoWrapper(ColBenchWrapper):
    """Puts the task's training-time information in ``info["training_info"]`` on every ``reset`` and
    ``step``: backend ``{"ground_truth", "hidden_information", "test_cases"}``, frontend
    ``{"ground_truth"}``. Observations are untouched: the agent never sees it, only a learner that
    reads ``info`` (e.g. SWEET-RL's critic) does. ``info["task_record"]`` is the task's official
    record. Works in batched rollouts too (:mod:`colbench_env.phased`).
    """

    def _with_info(self, info: dict) -> dict:
        info = dict(info)
        info["training_info"] = dict(self.env.unwrapped.task.training_info)
        info["task_record"] = self.env.unwrapped.task.to_record()
        return info

    def reset(self, **kwargs: Any):
        obs, info = self.env.reset(**kwargs)
        return obs, self._with_info(info)

    def step_result(self, obs: Any, reward: float, terminated: bool, truncated: bool, info: dict):
        return obs, reward, terminated, truncated, self._with_info(info)
