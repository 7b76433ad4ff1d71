"""Training budgets: what each method's training really did, and ``--matched-budget``.

Every trainer's ``update`` metrics carry its budget (:data:`colbench.agents.trainer_base.BUDGET_FIELDS`):
``optimizer_steps`` (counted where the optimiser steps), ``examples`` (pairs, sequences or
trajectories trained on), ``learning_rate`` (read from the optimiser), ``nll_coef`` and ``epochs``
(passes over the examples, a pass cut short counting its fraction). The pipeline keeps them in
``models/<method>/pipeline_done.json``; :func:`colbench.budgets.budget_table` reads them back for every report.

**Matched budgets** (``colbench pipeline --matched-budget``, :attr:`PipelineConfig.matched_budget`):

* the preference methods (:data:`PREFERENCE_METHODS`: multi-turn DPO, SWEET-RL's policy DPO) train
  with SWEET-RL's policy-DPO settings (:func:`shared_preference_settings`: learning rate, DPO beta,
  NLL coefficient, pairs per micro-batch, gradient accumulation, epochs; the reference's) on the
  same number of pairs: each method's pairs are counted first (:func:`preference_pair_counts`:
  SWEET-RL's after its critic and candidate stages, which are saved and resumed), and every method
  gets ``max_pairs`` = the smallest count (a seeded subsample, :func:`colbench.agents.mt_dpo.subsample_pairs`);
  equal pairs, batch and epochs make equal optimiser steps;
* RFT, PPO and GRPO get ``optimizer_steps`` = those steps (:func:`matched_overrides`): they train
  exactly as many optimiser steps, their passes over the data going on or cut short
  (:func:`colbench.agents.trainer_base.epoch_plan`). Without a preference method in the run, they get the
  smallest of their own configured step counts (:func:`planned_steps`).

Reading and printing budgets (:func:`~colbench.budgets.budget_table`,
:func:`~colbench.budgets.budget_differences`, the report's table) is :mod:`colbench.budgets`'s.
"""
from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from .config import shared_preference_settings

__all__ = ["PREFERENCE_METHODS", "shared_preference_settings", "preference_pair_counts", "matched_overrides",
           "planned_steps", "steps_for_pairs"]

#: the methods that train on preference pairs (SWEET-RL: its policy DPO on step pairs)
PREFERENCE_METHODS = ("mt-dpo", "sweet-rl")


def steps_for_pairs(n_pairs: int, pairs_per_batch: int, accumulation: int, epochs: int) -> int:
    """Optimiser steps of ``epochs`` passes over ``n_pairs`` pairs (one process): each pass
    ``ceil(ceil(n_pairs / pairs_per_batch) / accumulation)`` steps."""
    return epochs * math.ceil(math.ceil(n_pairs / pairs_per_batch) / accumulation)


def preference_pair_counts(configs: dict[str, Any], rollouts: list[dict], *,
                           sweet_stage_dir: str | Path | None = None, sweet_candidates=None) -> dict[str, int]:
    """Each preference method's pair count on ``rollouts`` before any subsample: multi-turn DPO's
    trajectory pairs (no model: :meth:`~colbench.agents.mt_dpo.MultiTurnDPO.count_pairs`), SWEET-RL's step
    pairs (:meth:`~colbench.agents.sweet_rl.SweetRL.step_pair_count`: its critic and candidates stages run
    into ``sweet_stage_dir``, where its training later resumes them). ``configs``: the resolved
    trainer configs by method (only :data:`PREFERENCE_METHODS` are counted)."""
    from colbench.agents.registry import trainer_class

    counts = {}
    if "mt-dpo" in configs:
        counts["mt-dpo"] = trainer_class("mt-dpo").count_pairs(rollouts, configs["mt-dpo"])
    if "sweet-rl" in configs:
        if sweet_stage_dir is None:
            raise ValueError("preference_pair_counts: SWEET-RL's count needs a stage directory")
        trainer = trainer_class("sweet-rl")(configs["sweet-rl"])
        try:
            counts["sweet-rl"] = trainer.step_pair_count(rollouts, stage_dir=sweet_stage_dir, candidates=sweet_candidates)
        finally:
            del trainer
    return counts


def planned_steps(method: str, config, rollouts: list[dict]) -> int:
    """The optimiser steps ``method`` would take on ``rollouts`` with ``config``'s passes (no model):
    RFT over its kept trajectories, PPO over the trajectories, GRPO over the trajectories with a
    non-zero advantage (all with ``drop_zero_advantage`` off), each one sequence per trajectory (a
    trajectory longer than ``max_length`` is split into more at training time)."""
    from colbench.agents.rft import kept_trajectories
    from colbench.agents.trainer_base import task_key, trajectory_reward

    accumulation = config.gradient_accumulation_steps
    if method == "rft":
        n = len(kept_trajectories(rollouts, config.success_threshold, config.selection))
        return config.epochs * math.ceil(math.ceil(n / config.sequences_per_batch) / accumulation)
    if method == "ppo":
        return config.update_epochs * math.ceil(math.ceil(len(rollouts) / config.trajectories_per_batch) / accumulation)
    if method == "grpo":
        rewards: dict[str, set] = {}
        for r in rollouts:
            rewards.setdefault(task_key(r["task"]), set()).add(trajectory_reward(r))
        n = sum(1 for r in rollouts if not config.drop_zero_advantage or len(rewards[task_key(r["task"])]) > 1)
        return config.update_epochs * math.ceil(math.ceil(max(n, 1) / config.sequences_per_batch) / accumulation)
    raise ValueError(f"planned_steps: {method!r} is a preference method (its steps follow its pairs)")


def matched_overrides(configs: dict[str, Any], rollouts: list[dict], pair_counts: dict[str, int]) -> tuple[dict, dict]:
    """The trainer-config fields a matched budget sets, by method, and the plan it follows.

    ``configs``: every method's resolved config (the preference methods' already with
    :func:`shared_preference_settings`); ``pair_counts``: :func:`preference_pair_counts`'s.

    Returns:
        ``(overrides, plan)``: ``overrides[method]`` a dict of config fields (``max_pairs`` for the
        preference methods, ``optimizer_steps`` for the others); ``plan`` =
        ``{"pairs": {...}, "matched_pairs": n | None, "optimizer_steps": s, "planned_steps": {...}}``.
    """
    overrides: dict[str, dict] = {}
    plan: dict[str, Any] = {"pairs": dict(pair_counts), "matched_pairs": None, "planned_steps": {}}
    prefs = [m for m in PREFERENCE_METHODS if m in configs]
    others = [m for m in configs if m not in PREFERENCE_METHODS]
    if prefs:
        n = min(pair_counts[m] for m in prefs)
        plan["matched_pairs"] = n
        for m in prefs:
            overrides[m] = {"max_pairs": n}
        c = configs[prefs[0]]
        steps = steps_for_pairs(n, c.pairs_per_batch, c.gradient_accumulation_steps, c.epochs)
    else:
        plan["planned_steps"] = {m: planned_steps(m, configs[m], rollouts) for m in others}
        steps = min(plan["planned_steps"].values()) if others else 0
    plan["optimizer_steps"] = steps
    for m in others:
        overrides[m] = {"optimizer_steps": max(steps, 1)}
    return overrides, plan
