"""PPO's hyperparameters in one dataclass (CleanRL style), for :class:`colbench.agents.ppo.PPO`; imports no torch."""
from __future__ import annotations

from dataclasses import dataclass

from .config import TrainerConfig, _check, _check_positive_ints, _check_rows_per_forward

__all__ = ["PPOConfig"]


@dataclass
class PPOConfig(TrainerConfig):
    """PPO settings (plus every :class:`~colbench.agents.trainer_base.TrainerConfig` field).

    Attributes:
        gamma: discount per agent turn.
        gae_lambda: GAE lambda.
        clip_coef: surrogate clipping coefficient.
        clip_vloss: clip the value loss around the collection-time values (CleanRL).
        vf_coef: weight of the value loss.
        kl_coef: weight of the KL-to-reference penalty.
        kl_estimator: ``"k3"`` (non-negative) or ``"k1"``.
        norm_adv: normalise advantages over the batch of turns.
        update_epochs: PPO epochs over each batch of trajectories (CleanRL's name; PPO has no
            ``epochs`` field).
        target_kl: stop the epochs early when ``approx_kl`` exceeds it (``None``: never).
        value_learning_rate: learning rate of the value head.
        trajectories_per_batch: trajectories per minibatch (each with all its agent turns).
        rollout_temperature: the temperature the trajectories were sampled at (``None``: the
            ``temperature`` field, the one :meth:`PPO.act` samples with). Log-probs (old, new and
            reference) are taken under ``softmax(logits / rollout_temperature)``. Greedy (0)
            rollouts have no sampling distribution and are refused.
        rows_per_forward: sequences per forward of a minibatch (a trajectory is one sequence per
            agent turn with the paper prompt); ``None``: all at once. A number gives the same
            gradients (:meth:`colbench.agents.trainer_base.TrainableLM.row_logps`; one extra forward),
            holding that many sequences' activations and logits at a time.
    """

    gamma: float = 1.0
    gae_lambda: float = 0.95
    clip_coef: float = 0.2
    clip_vloss: bool = True
    vf_coef: float = 0.5
    kl_coef: float = 0.05
    kl_estimator: str = "k3"
    norm_adv: bool = True
    update_epochs: int = 2
    target_kl: float | None = None
    value_learning_rate: float = 1e-4
    trajectories_per_batch: int = 4
    rollout_temperature: float | None = None
    rows_per_forward: int | None = None

    def __post_init__(self) -> None:
        super().__post_init__()
        t = self.temperature if self.rollout_temperature is None else self.rollout_temperature
        _check(isinstance(t, (int, float)) and t > 0, "rollout_temperature" if self.rollout_temperature is not None
               else "temperature", f"PPO needs sampled rollouts: the sampling temperature must be > 0, got {t!r}")
        _check(0.0 <= self.gamma <= 1.0, "gamma", f"must be in [0, 1], got {self.gamma!r}")
        _check(0.0 <= self.gae_lambda <= 1.0, "gae_lambda", f"must be in [0, 1], got {self.gae_lambda!r}")
        _check(self.clip_coef > 0, "clip_coef", f"must be > 0, got {self.clip_coef!r}")
        _check(self.vf_coef >= 0, "vf_coef", f"must be >= 0, got {self.vf_coef!r}")
        _check(self.kl_coef >= 0, "kl_coef", f"must be >= 0, got {self.kl_coef!r}")
        _check(self.kl_estimator in ("k1", "k3"), "kl_estimator", f"must be 'k1' or 'k3', got {self.kl_estimator!r}")
        _check_positive_ints(self, "update_epochs", "trajectories_per_batch")
        _check_rows_per_forward(self)
        _check(self.target_kl is None or self.target_kl > 0, "target_kl", "must be > 0 or None")
        _check(self.value_learning_rate > 0, "value_learning_rate", f"must be > 0, got {self.value_learning_rate!r}")
