"""Multi-turn DPO's settings, beside its trainer :class:`colbench.agents.mt_dpo.MultiTurnDPO` (torch-free, as TRL's
``dpo_config.py``: the command line and the pipeline check a config before any model loads)."""
from __future__ import annotations

from dataclasses import dataclass

from .config import TrainerConfig, _check, _check_max_pairs, _check_positive_ints, _check_rows_per_forward

__all__ = ["MultiTurnDPOConfig"]


@dataclass
class MultiTurnDPOConfig(TrainerConfig):
    """Multi-turn DPO settings (plus every :class:`~colbench.agents.trainer_base.TrainerConfig` field).

    Attributes:
        beta: DPO inverse temperature (reference: 0.1).
        nll_coef: weight of the chosen trajectory's per-token NLL added to the DPO loss (0: plain DPO).
        success_threshold: the chosen rollout must reach this reward.
        min_reward_gap: a rejected rollout's reward must be below the chosen one's by more than this.
        pairing: which rollouts of a task are paired (:func:`colbench.agents.mt_dpo.trajectory_pairs`):
            ``"best_vs_lower"`` (the best vs each lower one) or ``"all_ordered"`` (every two whose
            rewards differ by more than ``min_reward_gap``: the reference's frontend pairs).
        pairs_per_batch: (chosen, rejected) trajectory pairs per micro-batch.
        epochs: passes over the pairs per ``update``.
        max_pairs: train on at most this many pairs: when there are more, a seeded uniform subsample
            (:func:`colbench.agents.mt_dpo.subsample_pairs`, the same on every rerun); ``None``: all of them.
            ``colbench pipeline --matched-budget`` sets it to the smallest preference method's count.
        rows_per_forward: sequences per forward of a micro-batch (a pair is ``2 x turns`` sequences
            with the paper prompt); ``None``: all at once. A number gives the same gradients in two
            passes (:meth:`colbench.agents.trainer_base.TrainableLM.row_logps`; one extra forward),
            holding that many sequences' activations and logits at a time.
    """

    beta: float = 0.1
    nll_coef: float = 0.0
    success_threshold: float = 1.0
    min_reward_gap: float = 0.0
    pairing: str = "best_vs_lower"
    pairs_per_batch: int = 2
    epochs: int = 1
    max_pairs: int | None = None
    rows_per_forward: int | None = None

    def __post_init__(self) -> None:
        super().__post_init__()
        _check_positive_ints(self, "pairs_per_batch", "epochs")
        _check(self.beta > 0, "beta", f"must be > 0, got {self.beta!r}")
        _check_max_pairs(self)
        _check_rows_per_forward(self)
        _check(self.nll_coef >= 0, "nll_coef", f"must be >= 0, got {self.nll_coef!r}")
        _check(0.0 <= self.success_threshold <= 1.0, "success_threshold", f"must be in [0, 1], got {self.success_threshold!r}")
        _check(self.min_reward_gap >= 0, "min_reward_gap", f"must be >= 0, got {self.min_reward_gap!r}")
        _check(self.pairing in ("best_vs_lower", "all_ordered"), "pairing",
               f"must be 'best_vs_lower' or 'all_ordered', got {self.pairing!r}")
