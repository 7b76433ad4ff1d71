"""The settings of rejection fine-tuning (:class:`colbench.agents.rft.RejectionFineTuning`); no torch here."""
from __future__ import annotations

from dataclasses import dataclass

from .config import TrainerConfig, _check, _check_positive_ints

__all__ = ["RFTConfig"]


@dataclass
class RFTConfig(TrainerConfig):
    """Rejection fine-tuning settings (plus every :class:`~colbench.agents.trainer_base.TrainerConfig` field).

    Attributes:
        success_threshold: a trajectory is kept when its reward is ``>=`` this (``success`` is used
            when ``reward`` is absent).
        selection: which trajectories are kept (:func:`colbench.agents.rft.kept_trajectories`).
            ``"threshold"`` (backend: the successful ones): every trajectory reaching
            ``success_threshold``; ``"task_best"`` (a continuous reward such as the frontend's
            similarity): per task, the rollouts with the task's highest reward, when it reaches
            ``success_threshold``.
        sequences_per_batch: tokenised sequences per micro-batch (one per kept trajectory, or one
            per agent turn of a trajectory longer than ``max_length``).
        epochs: passes over the kept trajectories per ``update``.

    The policy's learning rate (``policy.learning_rate``, default 2e-5) is the reference SFT's with
    LoRA-free 8B models; LoRA tolerates larger.
    """

    success_threshold: float = 1.0
    selection: str = "threshold"
    sequences_per_batch: int = 4
    epochs: int = 1

    def __post_init__(self) -> None:
        super().__post_init__()
        _check_positive_ints(self, "sequences_per_batch", "epochs")
        _check(0.0 <= self.success_threshold <= 1.0, "success_threshold",
               f"must be in [0, 1], got {self.success_threshold!r}")
        _check(self.selection in ("threshold", "task_best"), "selection",
               f"must be 'threshold' or 'task_best', got {self.selection!r}")
