"""Multi-turn PPO with turn-level values (the paper's PPO baseline, written CleanRL-style).

One *action* is one agent turn. For each collected trajectory:

* the value ``V(o_t)`` of turn ``t`` is a linear value head on the policy's last hidden state at the
  last token of the turn's context (the token before the action; causal attention makes a packed
  multi-turn sequence give each turn's value from its own context only);
* rewards are 0 except the terminal reward (the trajectory's ``reward``) after the last turn;
* advantages come from GAE over the turns (:func:`colbench.agents.losses.gae`), are normalised over the batch
  (``norm_adv``) and broadcast to every token of that turn's action;
* log-probabilities are those of the *sampling* distribution ``softmax(logits / T)`` at the
  temperature ``T`` the trajectories were sampled with (``rollout_temperature``, default the
  config's ``temperature``, which :meth:`act` samples with): the "old" log-probs are the behaviour
  policy's, computed in one no-grad pass before the first step (the weights that sampled the
  trajectories -- PPO assumes the data come from the current policy), and the ratio of the first
  minibatch is exactly 1; with ``T != 1``, log-probs at temperature 1 would make the ratio
  ``pi_1 / pi_T`` from the first step on (off-policy);
* turns whose policy recorded the log-probs of the ids it sampled (``tokens.logprobs``: the local
  HF backend, vLLM) take those as their old log-probs instead of the recomputed ones, when the
  sequence is the recorded ids, there is one per trained token and ``T`` is 1 (what they are
  recorded at): :class:`~colbench.agents.trainer_base.RecordedLogprobs`. The ratio of the first
  step is then ``pi_theta / pi_behaviour`` (1 only where the two agree). Every other turn is
  recomputed as above; the metrics' ``old_logprobs`` counts both and why;
* minibatches are reshuffled every update epoch; the value head is clipped with the LoRA weights
  (one global gradient norm);
* the policy loss is the token-level clipped surrogate (:func:`colbench.agents.losses.ppo_clip_loss`) over the
  agent tokens only, plus ``vf_coef`` x the (clipped) value loss and ``kl_coef`` x a KL penalty to the
  reference policy (the base with the LoRA adapter disabled; :func:`colbench.agents.losses.kl_penalty`).

Logged as CleanRL does: ``approx_kl``, ``clipfrac``, ``explained_variance`` (``None`` when the
returns do not vary: undefined; CleanRL's NaN is not JSON), ``pg_loss``, ``v_loss``, ``kl``.
Trajectories whose rewards are all 0 are refused (:meth:`PPO.check_data`), as the other trainers
refuse data that gives them nothing to learn.
"""
from __future__ import annotations

from pathlib import Path

import torch

from .losses import explained_variance, gae, kl_penalty, ppo_clip_loss, value_loss
from .ppo_config import PPOConfig
from .tokenize import TokenizedSequence
from .config import NoTrainingData
from .trainer_base import (LMTrainer, RecordedLogprobs, epoch_plan, load_trajectories, plan_steps, training_budget,
                           trajectory_reward)

__all__ = ["PPOConfig", "PPO"]

class PPO(LMTrainer):
    """Turn-level PPO. See :class:`PPOConfig` and :class:`~colbench.agents.trainer_base.LMTrainer`."""

    config_class = PPOConfig
    algorithm = "ppo"

    @classmethod
    def check_data(cls, records: list[dict], config) -> None:
        """Some trajectory must have a reward other than 0 (:class:`~colbench.agents.config.NoTrainingData`):
        with every reward 0 there is no return to follow, and every advantage would be the value
        head's own error."""
        super().check_data(records, config)
        if all(trajectory_reward(r) == 0 for r in records):
            raise NoTrainingData(f"ppo: all {len(records)} trajectories have reward 0, so there is no return to "
                                 "learn from (every advantage would be the value head's own error); collect rollouts "
                                 "that succeed sometimes (more tasks, or several sampled rollouts of each: colbench "
                                 "run --rollouts-per-task K --temperature T)")

    def _build(self) -> None:
        hidden = self.policy.peft_model.config.get_text_config().hidden_size
        head = torch.nn.Linear(hidden, 1)
        torch.nn.init.zeros_(head.weight)
        torch.nn.init.zeros_(head.bias)
        self.value_head = head.to(self.policy.device)
        # outside the (possibly sharded) model: its own AdamW, stepped, clipped and averaged with it
        self.policy.add_parameters(list(self.value_head.parameters()), lr=self.config.value_learning_rate)

    def _save_extra(self, d: Path) -> None:
        if self.accelerator.is_main_process:
            torch.save(self.value_head.state_dict(), d / "value_head.pt")

    def _load_extra(self, d: Path) -> None:
        self.value_head.load_state_dict(torch.load(d / "value_head.pt", map_location=self.policy._load_device()))

    @property
    def sampling_temperature(self) -> float:
        """The behaviour policy's temperature (:attr:`PPOConfig.rollout_temperature`)."""
        c = self.config
        return float(c.temperature if c.rollout_temperature is None else c.rollout_temperature)

    # ---------------------------------------------------------------------------------------------
    def _forward(self, sequences: list[TokenizedSequence], *, with_values: bool, reference: bool = False):
        """Per-token log-probs ``(B, L-1)`` at the sampling temperature, the batch, and per-turn
        values (in span order; ``None`` without ``with_values``). ``reference``: the adapter disabled.
        :attr:`PPOConfig.rows_per_forward` sequences per forward
        (:meth:`~colbench.agents.trainer_base.TrainableLM.row_logps`)."""
        lm = self.policy
        at = [(b, start - 1) for b, s in enumerate(sequences) for start, _ in s.turn_spans] if with_values else None
        # log-probs only at the action tokens, chunked (bounded memory), of softmax(logits / T)
        logps, batch, h = lm.row_logps(sequences, reference=reference, temperature=self.sampling_temperature,
                                       hidden_at=at, rows_per_forward=self.config.rows_per_forward)
        values = self.value_head(h.to(self.value_head.weight.dtype)).squeeze(-1) if with_values else None
        return logps, batch, values

    def _turn_token_mask(self, sequences: list[TokenizedSequence], length: int, per_turn: torch.Tensor) -> torch.Tensor:
        """Broadcast a per-turn quantity (span order) onto its action's tokens: ``(B, length - 1)``."""
        out = torch.zeros(len(sequences), length - 1, device=per_turn.device)
        k = 0
        for b, s in enumerate(sequences):
            for start, end in s.turn_spans:
                out[b, start - 1:end - 1] = per_turn[k]
                k += 1
        return out

    def prepare_batch(self, trajectories) -> list[dict]:
        """Tokenise trajectories and compute collection-time log-probs (recorded ones where usable,
        :class:`~colbench.agents.trainer_base.RecordedLogprobs`, counted in :attr:`old_logprob_counts`),
        reference log-probs, values, GAE advantages and returns (one entry per trajectory). While the
        adapter is fresh (:meth:`~colbench.agents.trainer_base.TrainableLM.is_reference`: a new
        training's first update) the reference log-probs are the policy pass's own, which they equal
        exactly, and the reference pass is skipped."""
        c = self.config
        items = []
        recorded = RecordedLogprobs(self.sampling_temperature)
        #: turns whose old log-probs were recorded or recomputed, in the last :meth:`prepare_batch`
        self.old_logprob_counts = recorded.counts
        self.policy.eval()
        # a fresh adapter adds nothing: the reference's log-probs are the policy's, bit for bit
        fresh = self.policy.is_reference()
        for i, rec in enumerate(load_trajectories(trajectories)):
            seqs = self.trajectory_sequences(rec, source=f"<trajectory {i}>")
            if not seqs:
                continue
            with torch.no_grad():
                logps, batch, values = self._forward(seqs, with_values=True)
                ref = logps if fresh else self._forward(seqs, with_values=False, reference=True)[0]
            n_turns = values.shape[0]
            rewards = torch.zeros(n_turns, device=values.device)
            rewards[-1] = trajectory_reward(rec)
            adv, ret = gae(rewards, values.float(), gamma=c.gamma, lam=c.gae_lambda)
            items.append({"sequences": seqs, "old_logps": recorded.fill(seqs, logps.detach()), "ref_logps": ref,
                          "values": values.detach(),
                          "advantages": adv.to(values.device), "returns": ret.to(values.device)})
        if not items:
            raise NoTrainingData("ppo: no trajectory has an agent turn")
        if c.norm_adv:
            all_adv = torch.cat([it["advantages"] for it in items])
            mean, std = all_adv.mean(), all_adv.std(unbiased=False)
            for it in items:
                it["advantages"] = (it["advantages"] - mean) / (std + 1e-8)
        return items

    def update(self, trajectories) -> dict:
        """PPO epochs over the trajectories (collected by the current policy).

        Returns:
            CleanRL diagnostics averaged over the minibatches of the last epoch: ``pg_loss``,
            ``v_loss``, ``kl``, ``approx_kl``, ``clipfrac``, ``explained_variance``, plus
            ``mean_reward``, ``n_turns``, ``old_logprobs`` (turns whose old log-probs were recorded
            or recomputed: :class:`~colbench.agents.trainer_base.RecordedLogprobs`) and the budget (:func:`~colbench.agents.trainer_base.training_budget`:
            ``examples`` the trajectories, ``nll_coef`` 0; ``epochs`` fewer than ``update_epochs``
            when ``target_kl`` stopped them). ``optimizer_steps`` set: exactly that many steps
            (unless ``target_kl`` stops earlier), the passes going on over the trajectories.
        """
        c = self.config
        records = self.training_records(trajectories)
        items = self.prepare_batch(records)
        lm = self.policy
        lm.train()
        per_pass = self._n_batches(len(items), c.trajectories_per_batch)
        plan = epoch_plan(per_pass, c.update_epochs, lm.accumulation, c.optimizer_steps)
        lm.start_schedule(per_pass, c.update_epochs, steps=plan_steps(plan, lm.accumulation))
        start = (lm.optimizer_steps, lm.micro_batches)
        self.value_head.train()
        stats: dict[str, float] = {}
        for epoch, n_batches in enumerate(plan):
            sums: dict[str, float] = {}
            n = 0
            batches = self._batches(items, c.trajectories_per_batch)[:n_batches]
            for chunk in self._progress(batches, f"ppo epoch {epoch}"):
                seqs = [s for it in chunk for s in it["sequences"]]
                logps, batch, values = self._forward(seqs, with_values=True)
                L = batch["input_ids"].shape[1]
                mask = batch["loss_mask"]
                old = _pad_cat([it["old_logps"] for it in chunk], L - 1)
                ref = _pad_cat([it["ref_logps"] for it in chunk], L - 1)
                adv_turn = torch.cat([it["advantages"] for it in chunk])
                adv = self._turn_token_mask(seqs, L, adv_turn)
                pg_loss, pg_stats = ppo_clip_loss(logps, old, adv, mask, clip=c.clip_coef)
                old_v = torch.cat([it["values"] for it in chunk])
                ret = torch.cat([it["returns"] for it in chunk])
                v_loss = value_loss(values.float(), ret, old_v, clip=c.clip_coef if c.clip_vloss else None)
                kl = kl_penalty(logps, ref, mask, kind=c.kl_estimator)
                loss = pg_loss + c.vf_coef * v_loss + c.kl_coef * kl
                # token / turn means of the global batch under N processes (1 with one process)
                tok_share, turn_share = self._global_share(mask.sum()), self._global_share(values.numel())
                lm.backward((pg_loss + c.kl_coef * kl) * tok_share + c.vf_coef * v_loss * turn_share)
                for k, v in {"loss": loss, "pg_loss": pg_loss, "v_loss": v_loss, "kl": kl, **pg_stats}.items():
                    sums[k] = sums.get(k, 0.0) + float(v.detach())
                n += 1
            lm.flush()
            stats = {k: v / max(n, 1) for k, v in sums.items()}
            if c.target_kl is not None and stats.get("approx_kl", 0.0) > c.target_kl:
                break
        values = torch.cat([it["values"] for it in items]).float().cpu()
        returns = torch.cat([it["returns"] for it in items]).float().cpu()
        stats["explained_variance"] = explained_variance(values, returns)
        stats["mean_reward"] = sum(trajectory_reward(r) for r in records) / len(records)
        stats["n_turns"] = int(values.numel())
        stats["old_logprobs"] = dict(self.old_logprob_counts)
        stats.update(training_budget(lm, start, examples=len(items), micro_batches_per_pass=per_pass, nll_coef=0.0))
        return self._record(stats)

    @torch.no_grad()
    def turn_logprobs(self, record: dict) -> list[float]:
        """Summed log-prob of each agent turn of a trajectory under the current policy (at the
        sampling temperature, as in the PPO loss)."""
        seqs = self.trajectory_sequences(record)
        self.policy.eval()
        logps, batch, _ = self._forward(seqs, with_values=False)
        out = []
        for b, s in enumerate(seqs):
            for start, end in s.turn_spans:
                out.append(float(logps[b, start - 1:end - 1].sum()))
        return out

def _pad_cat(tensors: list[torch.Tensor], width: int) -> torch.Tensor:
    """Concatenate ``(b_i, w_i)`` tensors along rows, zero-padding each to ``width`` columns."""
    return torch.cat([torch.nn.functional.pad(t, (0, width - t.shape[1])) for t in tensors])

