"""Pure loss functions of the trainers (no model, no state; tensors in, tensors out).

Conventions shared by every function here:

* ``logps`` are per-token log-probabilities of the *label* tokens, shape ``(batch, seq)``: position
  ``i`` holds ``log p(token[i+1] | tokens[:i+1])`` once :func:`token_logprobs` has shifted them.
* ``mask`` has the same shape; 1 marks a token the agent generated (an action token), 0 marks the
  prompt, simulator (human) turns and padding. Masks may cover several separate spans (one per agent
  turn of a multi-turn dialogue) and spans of different lengths.
* Reductions that divide by a token count treat an all-zero row as count 1 (result 0, never NaN).
"""
from __future__ import annotations

import torch
import torch.nn.functional as F

__all__ = [
    "token_logprobs",
    "masked_sum",
    "masked_mean",
    "sequence_logprobs",
    "dpo_loss",
    "bradley_terry_loss",
    "sweet_advantage",
    "gae",
    "ppo_clip_loss",
    "kl_penalty",
    "value_loss",
    "explained_variance",
    "nanstd",
    "group_relative_advantages",
    "grpo_loss",
]


def token_logprobs(logits: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    """Log-probability of each next token.

    Args:
        logits: ``(batch, seq, vocab)`` model outputs.
        labels: ``(batch, seq)`` the input ids.

    Returns:
        ``(batch, seq - 1)``: entry ``i`` is ``log softmax(logits[:, i])[labels[:, i + 1]]``.
    """
    logits = logits[:, :-1].float()
    targets = labels[:, 1:]
    return torch.gather(F.log_softmax(logits, dim=-1), 2, targets.unsqueeze(-1)).squeeze(-1)


def masked_sum(values: torch.Tensor, mask: torch.Tensor, dim: int = -1) -> torch.Tensor:
    """Sum of ``values`` where ``mask`` is 1, along ``dim``."""
    return (values * mask.to(values.dtype)).sum(dim=dim)


def masked_mean(values: torch.Tensor, mask: torch.Tensor, dim: int | None = -1) -> torch.Tensor:
    """Mean of ``values`` where ``mask`` is 1, along ``dim`` (all dims when ``None``); 0 for empty rows."""
    m = mask.to(values.dtype)
    if dim is None:
        return (values * m).sum() / m.sum().clamp(min=1.0)
    return (values * m).sum(dim=dim) / m.sum(dim=dim).clamp(min=1.0)


def sequence_logprobs(logps: torch.Tensor, mask: torch.Tensor, *, average: bool = False) -> torch.Tensor:
    """Log-probability of each sequence's masked tokens: the sum (``average=False``) or the mean.

    For a multi-turn dialogue whose mask covers every agent turn this is
    ``sum_t log pi(a_t | context_t)`` -- the trajectory log-probability of multi-turn DPO.
    """
    return masked_mean(logps, mask) if average else masked_sum(logps, mask)


def dpo_loss(
    policy_chosen: torch.Tensor,
    policy_rejected: torch.Tensor,
    reference_chosen: torch.Tensor,
    reference_rejected: torch.Tensor,
    *,
    beta: float = 0.1,
    chosen_nll: torch.Tensor | None = None,
    nll_coef: float = 0.0,
) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
    """Direct preference optimisation (Rafailov et al. 2023), optionally plus an NLL term on the chosen.

    ``loss = mean(-log sigmoid(beta * ((pc - rc) - (pr - rr)))) + nll_coef * mean(chosen_nll)``

    Args:
        policy_chosen, policy_rejected: ``(batch,)`` summed log-probs under the trained policy.
        reference_chosen, reference_rejected: ``(batch,)`` the same under the reference policy.
        beta: inverse temperature of the implicit reward.
        chosen_nll: ``(batch,)`` negative log-likelihood of the chosen sequences (typically the
            per-token mean, as in the reference SWEET-RL and TRL's ``"sft"`` term); required when
            ``nll_coef > 0``.
        nll_coef: weight of the NLL term.

    Returns:
        ``(loss, stats)``; ``stats`` holds detached ``chosen_reward``, ``rejected_reward`` (means of
        ``beta * (policy - reference)``), ``reward_accuracy`` and ``dpo_loss``.
    """
    if nll_coef and chosen_nll is None:
        raise ValueError("dpo_loss: nll_coef > 0 needs chosen_nll")
    chosen_reward = beta * (policy_chosen - reference_chosen)
    rejected_reward = beta * (policy_rejected - reference_rejected)
    pref = -F.logsigmoid(chosen_reward - rejected_reward).mean()
    loss = pref
    if nll_coef:
        loss = loss + nll_coef * chosen_nll.mean()
    stats = {
        "dpo_loss": pref.detach(),
        "chosen_reward": chosen_reward.detach().mean(),
        "rejected_reward": rejected_reward.detach().mean(),
        "reward_accuracy": (chosen_reward > rejected_reward).float().mean().detach(),
    }
    return loss, stats


def bradley_terry_loss(score_chosen: torch.Tensor, score_rejected: torch.Tensor) -> torch.Tensor:
    """``mean(-log sigmoid(score_chosen - score_rejected))`` over the pairs."""
    return -F.logsigmoid(score_chosen - score_rejected).mean()


def sweet_advantage(
    critic_logps: torch.Tensor,
    reference_logps: torch.Tensor,
    mask: torch.Tensor,
    *,
    beta: float = 0.1,
) -> torch.Tensor:
    """SWEET-RL's per-turn advantage ``beta * (mean log pi_c(a|o,c) - mean log pi_ref(a|o,c))``.

    Args:
        critic_logps, reference_logps: ``(n_turns, seq)`` per-token log-probs of the action tokens
            under the critic and under the reference (the critic's frozen base, or the sampling
            policy when ranking candidates).
        mask: ``(n_turns, seq)`` 1 on the action tokens; the means are over each turn's own tokens.

    Returns:
        ``(n_turns,)`` advantages. A trajectory's score is the sum over its turns.
    """
    return turn_advantage(masked_mean(critic_logps, mask), masked_mean(reference_logps, mask), beta=beta)


def turn_advantage(critic_means: torch.Tensor, reference_means: torch.Tensor, *, beta: float = 0.1) -> torch.Tensor:
    """:func:`sweet_advantage` from per-turn mean log-probs (what the trainer computes once per
    turn, whatever the padding of the batch each came from): ``beta * (critic - reference)``."""
    return beta * (critic_means - reference_means)


def gae(
    rewards: torch.Tensor,
    values: torch.Tensor,
    *,
    gamma: float = 1.0,
    lam: float = 0.95,
    last_value: float | torch.Tensor = 0.0,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Generalised advantage estimation over the turns of one episode (Schulman et al. 2016).

    ``delta_t = r_t + gamma * V_{t+1} - V_t`` with ``V_T = last_value`` (0 for a finished episode),
    ``A_t = delta_t + gamma * lam * A_{t+1}``; returns ``R_t = A_t + V_t``.

    Args:
        rewards: ``(T,)`` reward after each agent turn (ColBench: 0 except the terminal reward).
        values: ``(T,)`` value estimate at each turn's context.

    Returns:
        ``(advantages, returns)``, each ``(T,)``.
    """
    if rewards.shape != values.shape or rewards.dim() != 1:
        raise ValueError(f"gae: rewards and values must be 1-D of equal length, got {tuple(rewards.shape)} "
                         f"and {tuple(values.shape)}")
    T = rewards.shape[0]
    advantages = torch.zeros_like(values, dtype=torch.float32)
    next_value = torch.as_tensor(last_value, dtype=torch.float32)
    running = torch.zeros((), dtype=torch.float32)
    for t in reversed(range(T)):
        delta = rewards[t].float() + gamma * next_value - values[t].float()
        running = delta + gamma * lam * running
        advantages[t] = running
        next_value = values[t].float()
    return advantages, advantages + values.float()


def ppo_clip_loss(
    new_logps: torch.Tensor,
    old_logps: torch.Tensor,
    advantages: torch.Tensor,
    mask: torch.Tensor,
    *,
    clip: float = 0.2,
) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
    """Token-level clipped surrogate (PPO), averaged over the masked (agent) tokens.

    ``ratio = exp(new - old)``; ``loss = mean(max(-A * ratio, -A * clip(ratio, 1-clip, 1+clip)))``.

    Args:
        new_logps, old_logps: ``(batch, seq)`` per-token log-probs now and at collection time.
        advantages: ``(batch, seq)`` -- a turn's advantage broadcast to that turn's tokens.
        mask: ``(batch, seq)`` 1 on agent tokens.

    Returns:
        ``(loss, stats)`` with detached ``clipfrac`` (fraction of masked tokens whose ratio left the
        clip range) and ``approx_kl`` (the ``(ratio - 1) - log ratio`` estimator, as CleanRL).
    """
    log_ratio = new_logps - old_logps
    ratio = torch.exp(log_ratio)
    surrogate = torch.max(-advantages * ratio, -advantages * torch.clamp(ratio, 1.0 - clip, 1.0 + clip))
    loss = masked_mean(surrogate, mask, dim=None)
    with torch.no_grad():
        clipfrac = masked_mean(((ratio - 1.0).abs() > clip).float(), mask, dim=None)
        approx_kl = masked_mean((ratio - 1.0) - log_ratio, mask, dim=None)
    return loss, {"clipfrac": clipfrac, "approx_kl": approx_kl}


def kl_penalty(logps: torch.Tensor, reference_logps: torch.Tensor, mask: torch.Tensor, *, kind: str = "k3") -> torch.Tensor:
    """Mean per-token KL(pi || pi_ref) estimate over the masked tokens (samples from ``pi``).

    ``kind="k1"``: ``log pi - log pi_ref`` (unbiased, can be negative);
    ``kind="k3"``: ``exp(log pi_ref - log pi) - (log pi_ref - log pi) - 1`` (unbiased, >= 0; Schulman's k3).
    """
    if kind == "k1":
        kl = logps - reference_logps
    elif kind == "k3":
        d = reference_logps - logps
        kl = torch.exp(d) - d - 1.0
    else:
        raise ValueError(f"kl_penalty: kind must be 'k1' or 'k3', got {kind!r}")
    return masked_mean(kl, mask, dim=None)


def value_loss(values: torch.Tensor, returns: torch.Tensor, old_values: torch.Tensor | None = None,
               *, clip: float | None = None) -> torch.Tensor:
    """``0.5 * mean((V - R)^2)``; with ``clip`` the CleanRL clipped variant around ``old_values``."""
    unclipped = (values - returns) ** 2
    if clip is None or old_values is None:
        return 0.5 * unclipped.mean()
    clipped_v = old_values + torch.clamp(values - old_values, -clip, clip)
    return 0.5 * torch.max(unclipped, (clipped_v - returns) ** 2).mean()


def explained_variance(predicted: torch.Tensor, target: torch.Tensor) -> float | None:
    """``1 - Var(target - predicted) / Var(target)``, as CleanRL; ``None`` when the target has no
    variance (undefined: CleanRL's NaN, which a JSON metrics file cannot hold)."""
    var_y = torch.var(target.float(), unbiased=False)
    if var_y.item() == 0:
        return None
    return float(1.0 - torch.var((target - predicted).float(), unbiased=False) / var_y)


def nanstd(x: torch.Tensor) -> torch.Tensor:
    """The Bessel-corrected standard deviation of all of ``x`` ignoring NaNs (NaN with fewer than two
    values): TRL's ``trl.trainer.utils.nanstd`` with ``dim=None``, the same operations in the same
    order (tests/test_losses.py compares them). Not imported from TRL: importing ``trl`` costs
    seconds of CPU in a process that needs nothing else of it."""
    mean = torch.nanmean(x, dim=None, keepdim=True)
    variance = torch.nanmean((x - mean) ** 2, dim=None, keepdim=True)
    count = torch.sum(~torch.isnan(x), dim=None, keepdim=True)
    correction = count / (count - 1)
    correction = torch.where(count > 1, correction, torch.full_like(correction, float("nan")))
    variance *= correction
    return torch.sqrt(variance).squeeze()


def group_relative_advantages(rewards: torch.Tensor, groups, *, scale: str = "group", eps: float = 1e-4) -> torch.Tensor:
    """GRPO's advantages (Shao et al. 2024): each reward minus the mean reward of its group.

    ``A_i = r_i - mean_{j in g(i)} r_j``, divided by ``std_{g(i)} + eps`` (``scale="group"``), by the
    std over the whole batch plus ``eps`` (``"batch"``) or by nothing (``"none"``, Dr. GRPO). The std
    is Bessel-corrected (:func:`nanstd`, TRL's ``trl.trainer.utils.nanstd``, as TRL's ``GRPOTrainer``).
    A group of one member has advantage 0 (no baseline to compare with), never NaN.

    Args:
        rewards: ``(N,)`` final reward of each trajectory.
        groups: ``N`` hashable group keys (the task of each rollout); groups may differ in size.
    """
    if scale not in ("group", "batch", "none"):
        raise ValueError(f"group_relative_advantages: scale must be 'group', 'batch' or 'none', got {scale!r}")
    groups = list(groups)
    if rewards.dim() != 1 or len(groups) != rewards.shape[0]:
        raise ValueError(f"group_relative_advantages: need (N,) rewards and N group keys, got "
                         f"{tuple(rewards.shape)} and {len(groups)}")
    r = rewards.float()
    adv = torch.zeros_like(r)
    std = torch.zeros_like(r)
    for key in dict.fromkeys(groups):
        idx = torch.tensor([i for i, g in enumerate(groups) if g == key])
        if idx.numel() < 2:
            continue
        adv[idx] = r[idx] - r[idx].mean()
        std[idx] = nanstd(r[idx])
    if scale == "group":
        adv = adv / (std + eps)
    elif scale == "batch" and r.numel() > 1:
        adv = adv / (nanstd(r) + eps)
    return adv


def grpo_loss(
    new_logps: torch.Tensor,
    old_logps: torch.Tensor,
    reference_logps: torch.Tensor,
    advantages: torch.Tensor,
    mask: torch.Tensor,
    *,
    clip: float = 0.2,
    clip_high: float | None = None,
    beta: float = 0.04,
    loss_type: str = "grpo",
) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
    """GRPO's clipped surrogate plus a KL penalty to the reference, per agent token (TRL's formula).

    Per masked token: ``ratio = exp(new - old)``,
    ``l = -min(ratio * A, clip(ratio, 1 - clip, 1 + clip_high) * A) + beta * k3``, with the sequence's
    advantage ``A`` on every one of its agent tokens (all turns of a multi-turn dialogue) and
    ``k3 = exp(ref - new) - (ref - new) - 1``. Aggregation: ``loss_type="grpo"``: the mean over each
    sequence's masked tokens, then the mean over sequences (DeepSeekMath); ``"bnpo"``: the mean over
    every masked token of the batch.

    Args:
        new_logps, old_logps, reference_logps: ``(batch, seq)`` per-token log-probs now, at the start
            of the update, and under the reference policy.
        advantages: ``(batch,)`` one advantage per sequence.
        mask: ``(batch, seq)`` 1 on agent tokens.
        clip_high: upper clip range (DAPO's "clip higher"); ``None``: ``clip``.

    Returns:
        ``(loss, stats)`` with detached ``pg_loss``, ``kl`` (mean k3 to the reference),
        ``clipfrac`` (masked tokens whose ratio left the clip range) and ``approx_kl`` (to ``old``).
    """
    if loss_type not in ("grpo", "bnpo"):
        raise ValueError(f"grpo_loss: loss_type must be 'grpo' or 'bnpo', got {loss_type!r}")
    high = clip if clip_high is None else clip_high
    log_ratio = new_logps - old_logps
    ratio = torch.exp(log_ratio)
    adv = advantages.to(new_logps.dtype).unsqueeze(-1)
    pg = -torch.min(ratio * adv, torch.clamp(ratio, 1.0 - clip, 1.0 + high) * adv)
    d = reference_logps - new_logps
    kl = torch.exp(d) - d - 1.0
    per_token = pg + beta * kl
    if loss_type == "grpo":
        reduce = lambda x: masked_mean(x, mask, dim=-1).mean()  # noqa: E731
    else:
        reduce = lambda x: masked_mean(x, mask, dim=None)  # noqa: E731
    loss = reduce(per_token)
    with torch.no_grad():
        stats = {"pg_loss": reduce(pg), "kl": reduce(kl),
                 "clipfrac": masked_mean(((ratio < 1.0 - clip) | (ratio > 1.0 + high)).float(), mask, dim=None),
                 "approx_kl": masked_mean((ratio - 1.0) - log_ratio, mask, dim=None)}
    return loss, stats
