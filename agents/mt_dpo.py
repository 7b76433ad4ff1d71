"""Multi-turn DPO: whole-trajectory preferences between rollouts of the same task.

For every task, the best successful rollout (highest reward, at least ``success_threshold``) is the
*chosen* trajectory and every rollout of that task with a strictly lower reward is a *rejected* one
(``pairing="best_vs_lower"``); with ``pairing="all_ordered"`` (the reference's frontend pairs,
``scripts/evaluate_html.py`` of facebookresearch/sweet_rl) every two rollouts of a task whose rewards
differ by more than ``min_reward_gap`` form a pair, the higher one chosen.
A trajectory's log-probability is ``sum_t log pi(a_t | context_t)`` over all its agent turns (one
packed sequence whose mask covers only the assistant turns; simulator tokens are never in the mask),
and the loss is DPO (:func:`colbench.agents.losses.dpo_loss`) against the reference policy -- the same network
with the LoRA adapter disabled -- plus an optional NLL term on the chosen trajectory.

Why not TRL's ``DPOTrainer``: its examples are ``prompt + completion`` pairs, one completion span per
sequence, so a trajectory whose trained tokens are several assistant turns interleaved with human
turns cannot be expressed; and it builds a new ``transformers.Trainer`` (optimiser, scheduler,
accelerator) per ``train()`` call, which would reset the optimiser between SWEET-RL rounds and bypass
this package's checkpoints. The DPO step here is the pure :func:`~colbench.agents.losses.dpo_loss` on top of
accelerate; :func:`train_preference_pairs` is shared with SWEET-RL's step-level policy update.
"""
from __future__ import annotations

import random
from collections import defaultdict
from typing import Callable, Sequence

import torch

from colbench_env.lm.base import derived_seed

from .config import SAMPLED_ROLLOUTS_HINT, NoTrainingData
from .losses import dpo_loss, masked_sum
from .mt_dpo_config import MultiTurnDPOConfig
from .tokenize import TokenizedSequence
from .trainer_base import LMTrainer, TrainableLM, epoch_plan, plan_steps, task_key, training_budget, trajectory_reward

__all__ = ["MultiTurnDPOConfig", "MultiTurnDPO", "all_ordered_pairs", "trajectory_pairs", "train_preference_pairs",
           "PreferencePair", "subsample_pairs", "SUBSAMPLE_STREAM"]

#: (chosen sequences, rejected sequences): each side is one trajectory (or one action) as 1+ sequences
PreferencePair = tuple[list[TokenizedSequence], list[TokenizedSequence]]


def trajectory_pairs(trajectories: Sequence[dict], *, success_threshold: float = 1.0,
                     min_reward_gap: float = 0.0, pairing: str = "best_vs_lower") -> list[tuple[dict, dict]]:
    """``(chosen, rejected)`` trajectory pairs of rollouts of the same task. ``"best_vs_lower"``: the
    best rollout, when its reward reaches ``success_threshold``, vs each one lower by more than
    ``min_reward_gap``; ``"all_ordered"``: :func:`all_ordered_pairs` whose chosen side reaches
    ``success_threshold``."""
    if pairing == "all_ordered":
        return [(a, b) for a, b in all_ordered_pairs(trajectories, min_reward_gap)
                if trajectory_reward(a) >= success_threshold]
    if pairing != "best_vs_lower":
        raise ValueError(f"pairing must be 'best_vs_lower' or 'all_ordered', got {pairing!r}")
    pairs = []
    for recs in _by_task(trajectories):
        best = max(recs, key=trajectory_reward)
        r_best = trajectory_reward(best)
        if r_best < success_threshold:
            continue
        pairs += [(best, r) for r in recs if r is not best and trajectory_reward(r) < r_best - min_reward_gap]
    return pairs


def _by_task(records: Sequence[dict]) -> list[list[dict]]:
    """The records grouped by task (:func:`~colbench.agents.trainer_base.task_key`), in data order."""
    groups: dict[str, list[dict]] = defaultdict(list)
    for r in records:
        groups[task_key(r["task"])].append(r)
    return list(groups.values())


def all_ordered_pairs(records: Sequence[dict], min_gap: float) -> list[tuple[dict, dict]]:
    """Every ``(higher, lower)`` pair of rollouts of the same task whose rewards differ by more than
    ``min_gap``, in data order."""
    out = []
    for recs in _by_task(records):
        for a in recs:
            for b in recs:
                if trajectory_reward(a) > trajectory_reward(b) + min_gap:
                    out.append((a, b))
    return out


def _summed_logps(lm: TrainableLM, sides: list[list[TokenizedSequence]], *, reference: bool,
                  whole_sequence: int = 0, rows_per_forward: int | None = None):
    """Summed log-prob and token count of each side's actions (a side may span several sequences).

    With ``whole_sequence = k``, also the NLL (mean negative log-prob) of the first ``k`` sides over
    *every* token of their sequences (context included; all sides are then scored at every token).
    Either way the log-probs come from :meth:`~colbench.agents.trainer_base.TrainableLM.row_logps`
    (``rows_per_forward`` sequences per forward), whose vocabulary projection runs at the scored
    positions only (never the full ``(B, L, vocab)`` logits)."""
    flat = [s for side in sides for s in side]
    owner = torch.tensor([k for k, side in enumerate(sides) for _ in side], device=lm.device)
    logps, batch, _ = lm.row_logps(flat, reference=reference, score_all=bool(whole_sequence),
                                   rows_per_forward=rows_per_forward)
    actions = batch["loss_mask"]
    if whole_sequence:
        every = batch["attention_mask"][:, 1:].to(actions.dtype)
    sums = masked_sum(logps, actions)
    counts = actions.sum(-1)
    n = len(sides)
    total = torch.zeros(n, device=lm.device, dtype=sums.dtype).index_add(0, owner, sums)
    tokens = torch.zeros(n, device=lm.device, dtype=counts.dtype).index_add(0, owner, counts)
    if not whole_sequence:
        return total, tokens
    all_sum = torch.zeros(n, device=lm.device, dtype=sums.dtype).index_add(0, owner, masked_sum(logps, every))
    all_n = torch.zeros(n, device=lm.device, dtype=counts.dtype).index_add(0, owner, every.sum(-1))
    nll = -all_sum[:whole_sequence] / all_n[:whole_sequence].clamp(min=1)
    return total, tokens, nll


def subsample_pairs(pairs: Sequence, max_pairs: int | None, seed: int) -> list:
    """At most ``max_pairs`` of ``pairs``: all of them when there are no more, else a uniform sample
    without replacement drawn by ``random.Random(seed)`` and kept in data order. The same ``pairs``,
    ``max_pairs`` and ``seed`` give the same sample on every run (the trainers pass
    ``derived_seed(config.seed, SUBSAMPLE_STREAM, update)``)."""
    if max_pairs is None or len(pairs) <= max_pairs:
        return list(pairs)
    keep = sorted(random.Random(seed).sample(range(len(pairs)), max_pairs))
    return [pairs[i] for i in keep]


#: ``derived_seed`` key of the pair subsample (:func:`subsample_pairs`) of both preference trainers
SUBSAMPLE_STREAM = 0x5AB5E


def train_preference_pairs(lm: TrainableLM, pairs: Sequence[PreferencePair], *, beta: float, nll_coef: float,
                           pairs_per_batch: int, epochs: int, batches: Callable[[list, int], list[list]],
                           progress: Callable = lambda it, desc: it, nll_scope: str = "action",
                           optimizer_steps: int | None = None, rows_per_forward: int | None = None) -> dict:
    """DPO (+ NLL) epochs over preference pairs; the reference is ``lm`` with its adapter disabled.

    Reference log-probs are computed once, before the first step. The NLL term is the chosen
    side's mean negative log-prob over its action tokens (``nll_scope="action"``) or over every
    token of its sequences, context included (``"sequence"``: the reference SWEET-RL's policy DPO,
    see :attr:`colbench.agents.sweet_rl.SweetRLConfig.nll_scope`). ``optimizer_steps``: exactly that many
    optimiser steps instead of ``epochs`` passes (:func:`~colbench.agents.trainer_base.epoch_plan`).
    ``rows_per_forward``: sequences per forward (a side's turns are sequences;
    :meth:`~colbench.agents.trainer_base.TrainableLM.row_logps`: the same gradients, one extra forward).

    Returns:
        Means over the last pass of ``loss``, ``dpo_loss``, ``chosen_reward``, ``rejected_reward``,
        ``reward_accuracy``; ``n_pairs``; and the budget (:func:`~colbench.agents.trainer_base.training_budget`:
        ``examples`` the pairs, ``nll_coef``).
    """
    if not pairs:
        raise ValueError("no preference pairs to train on")
    if nll_scope not in ("action", "sequence"):
        raise ValueError(f"nll_scope must be 'action' or 'sequence', got {nll_scope!r}")
    lm.eval()
    refs = []
    with torch.no_grad():  # every pair's reference (on every process: the order may differ per epoch)
        for chunk in (list(range(s, min(s + pairs_per_batch, len(pairs)))) for s in range(0, len(pairs), pairs_per_batch)):
            sides = [pairs[i][0] for i in chunk] + [pairs[i][1] for i in chunk]
            total, _ = _summed_logps(lm, sides, reference=True, rows_per_forward=rows_per_forward)
            refs += list(zip(chunk, total[:len(chunk)].tolist(), total[len(chunk):].tolist()))
    ref_of = {i: (c, r) for i, c, r in refs}
    lm.train()
    per_pass = -(-len(pairs) // (pairs_per_batch * lm.accelerator.num_processes))
    plan = epoch_plan(per_pass, epochs, lm.accumulation, optimizer_steps)
    lm.start_schedule(per_pass, epochs, steps=plan_steps(plan, lm.accumulation))
    start = (lm.optimizer_steps, lm.micro_batches)
    sums: dict[str, float] = defaultdict(float)
    n_batches = 0
    for epoch, planned in enumerate(plan):
        sums, n_batches = defaultdict(float), 0
        for chunk in progress(batches(list(range(len(pairs))), pairs_per_batch)[:planned], f"dpo epoch {epoch}"):
            sides = [pairs[i][0] for i in chunk] + [pairs[i][1] for i in chunk]
            k = len(chunk)
            if nll_scope == "sequence" and nll_coef > 0:
                # chosen sides scored at every token (chunked), rejected ones at their actions only
                c_total, c_tokens, nll = _summed_logps(lm, sides[:k], reference=False, whole_sequence=k,
                                                       rows_per_forward=rows_per_forward)
                r_total, r_tokens = _summed_logps(lm, sides[k:], reference=False, rows_per_forward=rows_per_forward)
                total, tokens = torch.cat([c_total, r_total]), torch.cat([c_tokens, r_tokens])
            else:
                total, tokens = _summed_logps(lm, sides, reference=False, rows_per_forward=rows_per_forward)
                nll = -total[:k] / tokens[:k].clamp(min=1)
            ref_c = torch.tensor([ref_of[i][0] for i in chunk], device=lm.device)
            ref_r = torch.tensor([ref_of[i][1] for i in chunk], device=lm.device)
            loss, stats = dpo_loss(total[:k], total[k:], ref_c, ref_r, beta=beta, chosen_nll=nll, nll_coef=nll_coef)
            lm.backward(loss)
            sums["loss"] += float(loss.detach())
            for name, v in stats.items():
                sums[name] += float(v)
            n_batches += 1
        lm.flush()
    out = {k: v / max(n_batches, 1) for k, v in sums.items()}
    out["n_pairs"] = len(pairs)
    out.update(training_budget(lm, start, examples=len(pairs), micro_batches_per_pass=per_pass, nll_coef=nll_coef))
    return out


class MultiTurnDPO(LMTrainer):
    """Trajectory-level DPO. See :class:`MultiTurnDPOConfig` and :class:`~colbench.agents.trainer_base.LMTrainer`."""

    config_class = MultiTurnDPOConfig
    algorithm = "mt-dpo"

    def pairs(self, trajectories) -> list[PreferencePair]:
        """Tokenised ``(chosen, rejected)`` trajectory pairs (see :func:`trajectory_pairs`)."""
        c = self.config
        out = []
        cache: dict[int, list[TokenizedSequence]] = {}

        def tok(rec: dict) -> list[TokenizedSequence]:
            if id(rec) not in cache:
                cache[id(rec)] = self.trajectory_sequences(rec)
            return cache[id(rec)]

        for chosen, rejected in trajectory_pairs(trajectories, success_threshold=c.success_threshold,
                                                 min_reward_gap=c.min_reward_gap, pairing=c.pairing):
            a, b = tok(chosen), tok(rejected)
            if a and b:
                out.append((a, b))
        return out

    @classmethod
    def check_data(cls, records: list[dict], config) -> None:
        """Some task must have a (successful, worse) pair of rollouts (:class:`~colbench.agents.config.NoTrainingData`)."""
        super().check_data(records, config)
        if not trajectory_pairs(records, success_threshold=config.success_threshold,
                                min_reward_gap=config.min_reward_gap, pairing=config.pairing):
            what = (f"a rollout with reward >= {config.success_threshold:g} and a worse one"
                    if config.pairing == "best_vs_lower"
                    else f"two rollouts whose rewards differ by more than {config.min_reward_gap:g}")
            raise NoTrainingData(f"mt-dpo: no task among the {len(records)} trajectories has {what}, so there is no "
                                 f"(chosen, rejected) pair; {SAMPLED_ROLLOUTS_HINT}")

    def update(self, trajectories) -> dict:
        """DPO epochs over the trajectory pairs of ``trajectories`` (at most ``max_pairs`` of them, a
        seeded subsample: :func:`subsample_pairs`); returns the last pass's mean metrics, the budget
        (:func:`~colbench.agents.trainer_base.training_budget`) and ``n_pairs_available`` (before the subsample)."""
        records = self.training_records(trajectories)
        pairs = self.pairs(records)
        if not pairs:
            raise NoTrainingData(f"mt-dpo: the (successful, worse) pairs among the {len(records)} trajectories "
                                 "have no agent turns to train")
        c = self.config
        available = len(pairs)
        pairs = subsample_pairs(pairs, c.max_pairs, derived_seed(c.seed, SUBSAMPLE_STREAM, self.updates))
        metrics = train_preference_pairs(self.policy, pairs, beta=c.beta, nll_coef=c.nll_coef,
                                         pairs_per_batch=c.pairs_per_batch, epochs=c.epochs, batches=self._batches,
                                         progress=self._progress, optimizer_steps=c.optimizer_steps,
                                         rows_per_forward=c.rows_per_forward)
        return self._record({**metrics, "n_pairs_available": available})

    @classmethod
    def count_pairs(cls, records: list[dict], config) -> int:
        """How many trajectory pairs :meth:`update` would find in ``records`` before
        ``max_pairs`` (no model needed: the pipeline's matched budget reads it)."""
        def has_turn(rec: dict) -> bool:
            return any(isinstance(m, dict) and m.get("role") == "assistant" for m in rec.get("dialogue_history") or [])

        return sum(1 for a, b in trajectory_pairs(records, success_threshold=config.success_threshold,
                                                  min_reward_gap=config.min_reward_gap, pairing=config.pairing)
                   if has_turn(a) and has_turn(b))

    @torch.no_grad()
    def trajectory_logprob(self, record: dict, *, reference: bool = False) -> float:
        """``sum_t log pi(a_t | context_t)`` of one trajectory under the policy (or the reference)."""
        seqs = self.trajectory_sequences(record)
        self.policy.eval()
        total, _ = _summed_logps(self.policy, [seqs], reference=reference)
        return float(total[0])
