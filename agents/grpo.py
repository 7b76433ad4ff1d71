"""Multi-turn GRPO (group relative policy optimisation; Shao et al. 2024, DeepSeekMath), the critic-free
baseline: no value model and no turn-level credit assignment.

For the ``k`` rollouts of each task (a *group*, keyed by :func:`~colbench.agents.trainer_base.task_key`):

* each trajectory's advantage is its final reward minus its group's mean, divided by the group's
  std (:func:`colbench.agents.losses.group_relative_advantages`; ``scale_rewards``);
* that one advantage is applied to every agent token of the trajectory -- all its turns; the prompt
  and the human's turns are masked out (:func:`colbench.agents.tokenize.tokenize_trajectory`);
* the loss is the clipped surrogate plus ``beta`` x the k3 KL to the reference policy (the base with
  the LoRA adapter disabled), per token (:func:`colbench.agents.losses.grpo_loss`); ``old`` log-probs are the
  policy's at the start of the update, so the first step's ratio is 1 -- except for turns whose
  policy recorded the log-probs of the ids it sampled (``tokens.logprobs``: the local HF backend,
  vLLM): where the sequence is the recorded ids, there is one per trained token and the ratio is at
  temperature 1 (what they are recorded at), those are the old log-probs, and the first step's
  ratio is ``pi_theta / pi_behaviour`` (:class:`~colbench.agents.trainer_base.RecordedLogprobs`; a
  sequence whose every turn has them needs no recomputing pass). The metrics' ``old_logprobs``
  count the turns of each kind;
* every log-prob (old, new, reference) is of the sampling distribution ``softmax(logits / T)`` at the
  temperature ``T`` the rollouts were drawn with (``rollout_temperature``), as TRL's GRPOTrainer
  divides its logits by the generation temperature.

Why not TRL's ``GRPOTrainer``: it generates single-turn completions itself from a prompt dataset and
scores them with reward functions; its loss mask is one contiguous completion after the prompt and
its loss lives inside the trainer (``_compute_loss``). A ColBench trajectory is a dialogue whose
agent turns are separated by the human's turns (several masked spans), produced by the environment,
not by the trainer. What fits is reused: TRL's Bessel-corrected ``nanstd`` for the group std, and the
loss is TRL's formula (``loss_type`` ``"grpo"`` / ``"bnpo"``, ``epsilon``/``epsilon_high`` as
``clip_coef``/``clip_coef_high``, ``beta``, ``scale_rewards``) on multi-span masks.
"""
from __future__ import annotations

import torch

from .config import SAMPLED_ROLLOUTS_HINT, NoTrainingData
from .grpo_config import GRPOConfig
from .losses import group_relative_advantages, grpo_loss
from .trainer_base import (LMTrainer, RecordedLogprobs, epoch_plan, plan_steps, task_key, training_budget,
                           trajectory_reward)

__all__ = ["GRPOConfig", "GRPO"]


class GRPO(LMTrainer):
    """Multi-turn GRPO. See the module docstring, :class:`GRPOConfig` and
    :class:`~colbench.agents.trainer_base.LMTrainer`."""

    config_class = GRPOConfig
    algorithm = "grpo"

    @classmethod
    def check_data(cls, records: list[dict], config) -> None:
        """Some task's rollouts must differ in reward (else every advantage is 0:
        :class:`~colbench.agents.config.NoTrainingData`)."""
        super().check_data(records, config)
        rewards: dict[str, set[float]] = {}
        for r in records:
            rewards.setdefault(task_key(r["task"]), set()).add(trajectory_reward(r))
        if all(len(v) < 2 for v in rewards.values()):
            raise NoTrainingData(f"grpo: no task among the {len(records)} trajectories has rollouts with different "
                                 f"rewards, so every group-relative advantage is 0; {SAMPLED_ROLLOUTS_HINT}")

    def advantages(self, records: list[dict]) -> torch.Tensor:
        """``(N,)`` group-relative advantage of each record (groups: same task)."""
        rewards = torch.tensor([trajectory_reward(r) for r in records], dtype=torch.float32)
        return group_relative_advantages(rewards, [task_key(r["task"]) for r in records],
                                         scale=self.config.scale_rewards)

    def _items(self, records: list[dict], adv: torch.Tensor) -> list[dict]:
        """Tokenised sequences (one item per sequence) with their advantage and start-of-update log-probs
        (recorded ones where usable, counted in :attr:`old_logprob_counts`)."""
        c = self.config
        items = []
        recorded = RecordedLogprobs(c.rollout_temperature)
        #: turns whose old log-probs were recorded or recomputed, in the last :meth:`_items`
        self.old_logprob_counts = recorded.counts
        self.policy.eval()
        for i, (rec, a) in enumerate(zip(records, adv.tolist())):
            if c.drop_zero_advantage and a == 0.0:
                continue
            seqs = self.trajectory_sequences(rec, source=f"<trajectory {i}>")
            for s in seqs:
                batch = self.policy.batch([s])
                with torch.no_grad():
                    ref = self._logps(batch, reference=True)
                    old = recorded.fill([s], torch.zeros_like(ref) if recorded.covers(s) else self._logps(batch))
                items.append({"sequence": s, "advantage": a, "old_logps": old[0], "ref_logps": ref[0]})
        return items

    def _logps(self, batch: dict, *, reference: bool = False) -> torch.Tensor:
        """Per-token log-probs under the sampling distribution (``rollout_temperature``)."""
        return self.policy.logps_and_hidden(batch, reference=reference, temperature=self.config.rollout_temperature)[0]

    def update(self, trajectories) -> dict:
        """GRPO epochs over the rollouts (``k`` per task, collected by the current policy).

        Returns:
            Averages over the minibatches of the last epoch: ``loss``, ``pg_loss``, ``kl``,
            ``clipfrac``, ``approx_kl``; plus ``mean_reward``, ``n_trajectories`` (used),
            ``n_groups``, ``zero_advantage_fraction``, ``old_logprobs`` (turns whose old log-probs were
            recorded or recomputed: :class:`~colbench.agents.trainer_base.RecordedLogprobs`) and the budget
            (:func:`~colbench.agents.trainer_base.training_budget`: ``examples`` the sequences trained,
            ``nll_coef`` 0). ``optimizer_steps`` set: exactly that many steps, the passes going on
            over the sequences.

        Raises:
            ValueError: no trajectory has a non-zero advantage (every task's rollouts got equal
                rewards: nothing to learn).
        """
        c = self.config
        records = self.training_records(trajectories)
        adv = self.advantages(records)
        used = int((adv != 0).sum())
        if used == 0:
            raise NoTrainingData("grpo: every task's rollouts got the same reward (zero advantage everywhere); "
                                 f"nothing to learn from: GRPO compares rollouts of the same task; {SAMPLED_ROLLOUTS_HINT}")
        items = self._items(records, adv)
        if not items:
            raise NoTrainingData("grpo: no trajectory has an agent turn")
        lm = self.policy
        lm.train()
        per_pass = self._n_batches(len(items), c.sequences_per_batch)
        plan = epoch_plan(per_pass, c.update_epochs, lm.accumulation, c.optimizer_steps)
        lm.start_schedule(per_pass, c.update_epochs, steps=plan_steps(plan, lm.accumulation))
        start = (lm.optimizer_steps, lm.micro_batches)
        stats: dict[str, float] = {}
        for epoch, n_batches in enumerate(plan):
            sums: dict[str, float] = {}
            n = 0
            batches = self._batches(items, c.sequences_per_batch)[:n_batches]
            for chunk in self._progress(batches, f"grpo epoch {epoch}"):
                batch = lm.batch([it["sequence"] for it in chunk])
                width = batch["input_ids"].shape[1] - 1
                new = self._logps(batch)
                old = _pad_rows([it["old_logps"] for it in chunk], width)
                ref = _pad_rows([it["ref_logps"] for it in chunk], width)
                a = torch.tensor([it["advantage"] for it in chunk], device=new.device)
                loss, st = grpo_loss(new, old, ref, a, batch["loss_mask"], clip=c.clip_coef,
                                     clip_high=c.clip_coef_high, beta=c.beta, loss_type=c.loss_type)
                lm.backward(loss)
                for k, v in {"loss": loss, **st}.items():
                    sums[k] = sums.get(k, 0.0) + float(v.detach())
                n += 1
            lm.flush()
            stats = {k: v / max(n, 1) for k, v in sums.items()}
        stats["mean_reward"] = sum(trajectory_reward(r) for r in records) / len(records)
        stats["n_trajectories"] = used if c.drop_zero_advantage else len(records)
        stats["n_groups"] = len({task_key(r["task"]) for r in records})
        stats["zero_advantage_fraction"] = 1.0 - used / len(records)
        stats["old_logprobs"] = dict(self.old_logprob_counts)
        stats.update(training_budget(lm, start, examples=len(items), micro_batches_per_pass=per_pass, nll_coef=0.0))
        return self._record(stats)

    @torch.no_grad()
    def turn_logprobs(self, record: dict) -> list[float]:
        """Summed log-prob of each agent turn of a trajectory under the current policy."""
        seqs = self.trajectory_sequences(record)
        self.policy.eval()
        batch = self.policy.batch(seqs)
        logps = self.policy.token_logps(batch)
        return [float(logps[b, start - 1:end - 1].sum()) for b, s in enumerate(seqs) for start, end in s.turn_spans]


def _pad_rows(rows: list[torch.Tensor], width: int) -> torch.Tensor:
    """Stack 1-D tensors, zero-padded (or cut) to ``width``."""
    return torch.stack([torch.nn.functional.pad(r, (0, width - r.shape[0]))[:width] for r in rows])
