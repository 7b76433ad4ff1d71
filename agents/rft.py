"""Rejection fine-tuning (RFT): supervised fine-tuning on the agent turns of the best trajectories.

The paper's simplest baseline: keep the trajectories whose reward reaches ``success_threshold``
(ColBench backend: all hidden tests passed), and maximise the log-likelihood of every agent action
given its context. A continuous reward (the frontend's similarity, which has no pass/fail) keeps
each task's best rollouts instead (``selection="task_best"``, :func:`kept_trajectories`). Only agent tokens are in the loss (simulator turns, prompt and padding are
masked out); the loss is the mean negative log-likelihood per trained token.
"""
from __future__ import annotations

import torch

from .losses import masked_sum
from .rft_config import RFTConfig
from .config import NoTrainingData
from .trainer_base import (LMTrainer, epoch_plan, load_trajectories, plan_steps, task_key, trajectory_reward,
                           training_budget)

__all__ = ["RFTConfig", "RejectionFineTuning", "kept_trajectories", "successful"]


def successful(trajectories: list[dict], threshold: float = 1.0) -> list[dict]:
    """The trajectories whose reward is at least ``threshold``."""
    return [t for t in trajectories if trajectory_reward(t) >= threshold]


def kept_trajectories(trajectories: list[dict], threshold: float = 1.0, selection: str = "threshold") -> list[dict]:
    """The trajectories RFT trains on, in their order (:attr:`RFTConfig.selection`).

    ``"threshold"``: every trajectory whose reward is at least ``threshold`` (:func:`successful`).
    ``"task_best"``: per task (:func:`~colbench.agents.trainer_base.task_key`), the trajectories whose reward
    equals the task's highest, when that reaches ``threshold`` (ties are all kept: two rollouts
    that wrote the same page render the same and score the same).
    """
    if selection == "threshold":
        return successful(trajectories, threshold)
    if selection != "task_best":
        raise ValueError(f"selection must be 'threshold' or 'task_best', got {selection!r}")
    best: dict[str, float] = {}
    for t in trajectories:
        key = task_key(t["task"])
        best[key] = max(best.get(key, float("-inf")), trajectory_reward(t))
    return [t for t in trajectories
            if trajectory_reward(t) == best[task_key(t["task"])] and trajectory_reward(t) >= threshold]


class RejectionFineTuning(LMTrainer):
    """SFT on the kept (successful, or each task's best) trajectories. See :class:`RFTConfig` and :class:`~colbench.agents.trainer_base.LMTrainer`."""

    config_class = RFTConfig
    algorithm = "rft"

    def sequences(self, trajectories) -> list:
        """Tokenised, masked sequences of the kept trajectories (one per trajectory when packable)."""
        return self._tokenize(self.kept(trajectories))

    def _tokenize(self, records: list[dict]) -> list:
        seqs = []
        for i, rec in enumerate(records):
            seqs += self.trajectory_sequences(rec, source=f"<trajectory {i}>")
        return seqs

    def kept(self, trajectories) -> list[dict]:
        """The trajectories trained on (:func:`kept_trajectories` with the config's rule)."""
        return kept_trajectories(load_trajectories(trajectories), self.config.success_threshold,
                                 self.config.selection)

    @classmethod
    def check_data(cls, records: list[dict], config) -> None:
        """Some trajectory must be kept: reach ``success_threshold`` (:class:`~colbench.agents.config.NoTrainingData`)."""
        super().check_data(records, config)
        if not kept_trajectories(records, config.success_threshold, config.selection):
            raise NoTrainingData(f"rft: none of the {len(records)} trajectories reaches reward >= "
                                 f"{config.success_threshold:g}, and rejection fine-tuning trains on successful "
                                 "ones only: collect rollouts that succeed sometimes (more tasks, or several "
                                 "sampled rollouts of each: colbench run --rollouts-per-task K --temperature T), "
                                 "or lower success_threshold")

    def update(self, trajectories) -> dict:
        """SFT epochs over the agent turns of the kept trajectories.

        Returns:
            ``{"loss", "n_trajectories", "n_sequences", "n_tokens", "update"}`` (``loss``: mean NLL
            per agent token over the last pass) and the budget
            (:func:`~colbench.agents.trainer_base.training_budget`: ``examples`` the sequences, ``nll_coef`` 1,
            the loss being the NLL itself). ``optimizer_steps`` set: exactly that many steps, the
            passes going on over the sequences (:func:`~colbench.agents.trainer_base.epoch_plan`).
        """
        records = self.training_records(trajectories)
        kept = self.kept(records)
        seqs = self._tokenize(kept)
        if not seqs:
            raise NoTrainingData(f"rft: the successful trajectories among the {len(records)} have no agent turn; "
                                 "nothing to train on")
        lm, c = self.policy, self.config
        lm.train()
        per_pass = self._n_batches(len(seqs), c.sequences_per_batch)
        plan = epoch_plan(per_pass, c.epochs, lm.accumulation, c.optimizer_steps)
        lm.start_schedule(per_pass, c.epochs, steps=plan_steps(plan, lm.accumulation))
        start = (lm.optimizer_steps, lm.micro_batches)
        total_loss, total_tokens = 0.0, 0.0
        for epoch, n_batches in enumerate(plan):
            total_loss, total_tokens = 0.0, 0.0
            batches = self._batches(seqs, c.sequences_per_batch)[:n_batches]
            for chunk in self._progress(batches, f"rft epoch {epoch}"):
                batch = lm.batch(chunk)
                logps = lm.token_logps(batch)
                n_tok = batch["loss_mask"].sum()
                nll = -masked_sum(logps, batch["loss_mask"]).sum()
                # mean NLL per token of the global batch (reweighted across processes)
                lm.backward(nll / n_tok.clamp(min=1) * self._global_share(n_tok))
                total_loss += float(nll.detach())
                total_tokens += float(n_tok)
            lm.flush()
        return self._record({"loss": total_loss / max(total_tokens, 1.0), "n_trajectories": len(kept),
                             "n_sequences": len(seqs), "n_tokens": total_tokens,
                             **training_budget(lm, start, examples=len(seqs), micro_batches_per_pass=per_pass,
                                               nll_coef=1.0)})

    @torch.no_grad()
    def mean_logprob(self, trajectories) -> float:
        """Mean log-prob per agent token of the given trajectories under the current policy."""
        seqs = []
        for rec in load_trajectories(trajectories):
            seqs += self.trajectory_sequences(rec)
        lm = self.policy
        lm.eval()
        s, n = 0.0, 0.0
        for chunk in self._batches(seqs, self.config.sequences_per_batch, shuffle=False, shard=False):
            batch = lm.batch(chunk)
            s += float(masked_sum(lm.token_logps(batch), batch["loss_mask"]).sum())
            n += float(batch["loss_mask"].sum())
        return s / max(n, 1.0)
