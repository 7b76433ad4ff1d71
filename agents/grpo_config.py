"""GRPOConfig: what :class:`colbench.agents.grpo.GRPO` is run with (a torch-free module, so it loads without a model)."""
from __future__ import annotations

from dataclasses import dataclass

from .config import TrainerConfig, _check, _check_positive_ints

__all__ = ["GRPOConfig"]


@dataclass
class GRPOConfig(TrainerConfig):
    """GRPO settings (plus every :class:`~colbench.agents.trainer_base.TrainerConfig` field).

    Attributes:
        beta: weight of the k3 KL penalty to the reference policy (DeepSeekMath: 0.04).
        clip_coef: lower (and, without ``clip_coef_high``, upper) clip range of the ratio.
        clip_coef_high: upper clip range (DAPO's "clip higher"); ``None``: ``clip_coef``.
        scale_rewards: ``"group"`` (divide by the group's std), ``"batch"`` or ``"none"`` (Dr. GRPO).
        loss_type: ``"grpo"`` (per-sequence token mean, then mean) or ``"bnpo"`` (token mean over the batch).
        update_epochs: passes over the rollouts per ``update`` (TRL's ``num_iterations``; GRPO has
            no ``epochs`` field).
        drop_zero_advantage: skip trajectories whose advantage is 0 (every rollout of their task got
            the same reward): they carry no policy gradient, only the KL term (DAPO's dynamic
            sampling filter); saves most of the compute when most groups are all-fail.
        sequences_per_batch: tokenised sequences per minibatch (one per trajectory, or one per
            agent turn of a trajectory longer than ``max_length``; each carries its trajectory's
            advantage).
        rollout_temperature: the temperature the rollouts were sampled at; log-probs are taken
            under ``softmax(logits / rollout_temperature)`` (the pipeline sets it to its collection
            temperature).
    """

    beta: float = 0.04
    clip_coef: float = 0.2
    clip_coef_high: float | None = None
    scale_rewards: str = "group"
    loss_type: str = "grpo"
    update_epochs: int = 1
    drop_zero_advantage: bool = True
    sequences_per_batch: int = 4
    rollout_temperature: float = 1.0

    def __post_init__(self) -> None:
        super().__post_init__()
        _check(isinstance(self.rollout_temperature, (int, float)) and self.rollout_temperature > 0,
               "rollout_temperature", f"GRPO needs sampled rollouts: must be > 0, got {self.rollout_temperature!r}")
        _check(self.beta >= 0, "beta", f"must be >= 0, got {self.beta!r}")
        _check(self.clip_coef > 0, "clip_coef", f"must be > 0, got {self.clip_coef!r}")
        _check(self.clip_coef_high is None or self.clip_coef_high > 0, "clip_coef_high", "must be > 0 or None")
        _check(self.scale_rewards in ("group", "batch", "none"), "scale_rewards",
               f"must be 'group', 'batch' or 'none', got {self.scale_rewards!r}")
        _check(self.loss_type in ("grpo", "bnpo"), "loss_type", f"must be 'grpo' or 'bnpo', got {self.loss_type!r}")
        _check_positive_ints(self, "update_epochs", "sequences_per_batch")
