"""agents.losses against hand-computed numbers (multi-turn masks, variable-length turns)."""
from __future__ import annotations

import math

import pytest
import torch

from agents import losses as L


def t(x):
    return torch.tensor(x, dtype=torch.float32)


def test_token_logprobs_shifts_labels():
    logits = torch.log(t([[[0.5, 0.25, 0.25], [0.1, 0.1, 0.8], [1 / 3, 1 / 3, 1 / 3]]]))
    labels = torch.tensor([[0, 2, 1]])
    out = L.token_logprobs(logits, labels)
    assert out.shape == (1, 2)
    assert torch.allclose(out, torch.log(t([[0.25, 0.1]])), atol=1e-6)


def test_masked_sum_and_mean_over_two_turns_of_different_lengths():
    # a dialogue: [prompt prompt | turn1 (2 tokens) | human human | turn2 (3 tokens) | pad]
    logps = t([[-9.0, -9.0, -1.0, -2.0, -7.0, -7.0, -0.5, -0.5, -1.0, -9.0]])
    mask = t([[0, 0, 1, 1, 0, 0, 1, 1, 1, 0]])
    assert L.masked_sum(logps, mask).item() == pytest.approx(-5.0)
    assert L.masked_mean(logps, mask).item() == pytest.approx(-1.0)
    assert L.sequence_logprobs(logps, mask).item() == pytest.approx(-5.0)
    assert L.sequence_logprobs(logps, mask, average=True).item() == pytest.approx(-1.0)
    # the human/prompt tokens do not matter
    logps2 = logps.clone()
    logps2[mask == 0] = -100.0
    assert L.masked_sum(logps2, mask).item() == pytest.approx(-5.0)
    # empty rows give 0, not NaN
    assert L.masked_mean(t([[1.0, 2.0]]), t([[0, 0]])).item() == 0.0
    assert L.masked_mean(t([[1.0, 2.0], [3.0, 5.0]]), t([[1, 0], [0, 1]]), dim=None).item() == pytest.approx(3.0)


def test_dpo_loss_hand_computed():
    pc, pr, rc, rr = t([-10.0]), t([-12.0]), t([-11.0]), t([-11.0])
    loss, stats = L.dpo_loss(pc, pr, rc, rr, beta=0.5)
    # beta * ((pc - rc) - (pr - rr)) = 0.5 * (1 - (-1)) = 1.0
    assert loss.item() == pytest.approx(-math.log(1 / (1 + math.exp(-1.0))), rel=1e-6)
    assert stats["chosen_reward"].item() == pytest.approx(0.5)
    assert stats["rejected_reward"].item() == pytest.approx(-0.5)
    assert stats["reward_accuracy"].item() == 1.0
    loss2, _ = L.dpo_loss(pc, pr, rc, rr, beta=0.5, chosen_nll=t([2.0]), nll_coef=0.1)
    assert loss2.item() == pytest.approx(loss.item() + 0.2, rel=1e-6)
    with pytest.raises(ValueError, match="chosen_nll"):
        L.dpo_loss(pc, pr, rc, rr, nll_coef=0.1)


def test_dpo_gradient_pushes_chosen_up_rejected_down():
    pc, pr = t([-3.0]).requires_grad_(), t([-3.0]).requires_grad_()
    loss, _ = L.dpo_loss(pc, pr, t([-3.0]), t([-3.0]), beta=0.1)
    loss.backward()
    assert pc.grad.item() < 0 < pr.grad.item()  # gradient descent raises chosen, lowers rejected
    assert pc.grad.item() == pytest.approx(-0.05)  # -beta * sigmoid(0)


def test_bradley_terry_loss():
    assert L.bradley_terry_loss(t([2.0, 0.0]), t([0.0, 0.0])).item() == pytest.approx(
        (math.log(1 + math.exp(-2.0)) + math.log(2.0)) / 2, rel=1e-6)


def test_sweet_advantage_uses_per_turn_means():
    critic = t([[-1.0, -3.0, 0.0], [-2.0, 0.0, 0.0]])
    ref = t([[-2.0, -4.0, 0.0], [-1.0, 0.0, 0.0]])
    mask = t([[1, 1, 0], [1, 0, 0]])  # turn 1: 2 tokens, turn 2: 1 token
    adv = L.sweet_advantage(critic, ref, mask, beta=0.1)
    assert torch.allclose(adv, t([0.1 * (-2.0 - -3.0), 0.1 * (-2.0 - -1.0)]))
    assert adv.sum().item() == pytest.approx(0.0)  # a trajectory's score is the sum over its turns
    # the trainer's form (per-turn means computed once, whatever batch padding they came from)
    assert torch.allclose(L.turn_advantage(t([-2.0, -2.0]), t([-3.0, -1.0]), beta=0.1), adv)


def test_gae_turn_level_terminal_reward():
    rewards, values = t([0.0, 0.0, 1.0]), t([0.5, 0.25, 0.5])
    adv, ret = L.gae(rewards, values, gamma=1.0, lam=0.5)
    # deltas: 0+0.25-0.5=-0.25, 0+0.5-0.25=0.25, 1+0-0.5=0.5
    # A2=0.5, A1=0.25+0.5*0.5=0.5, A0=-0.25+0.5*0.5=0.0
    assert torch.allclose(adv, t([0.0, 0.5, 0.5]))
    assert torch.allclose(ret, t([0.5, 0.75, 1.0]))
    adv_g, _ = L.gae(t([0.0, 1.0]), t([0.0, 0.0]), gamma=0.9, lam=1.0)
    assert torch.allclose(adv_g, t([0.9, 1.0]))
    with pytest.raises(ValueError, match="equal length"):
        L.gae(t([0.0]), t([0.0, 1.0]))


def test_ppo_clip_loss_hand_computed():
    old = t([[0.0, 0.0, 0.0, 0.0]])
    new = torch.log(t([[1.5, 0.5, 1.1, 9.0]]))  # ratios 1.5, 0.5, 1.1 and a masked-out 9.0
    adv = t([[1.0, 1.0, -2.0, 5.0]])
    mask = t([[1, 1, 1, 0]])
    loss, stats = L.ppo_clip_loss(new, old, adv, mask, clip=0.2)
    # token 0: max(-1.5, -1.2) = -1.2; token 1: max(-0.5, -0.8) = -0.5; token 2: max(2.2, 2.2) = 2.2
    assert loss.item() == pytest.approx((-1.2 - 0.5 + 2.2) / 3, rel=1e-5)
    assert stats["clipfrac"].item() == pytest.approx(2 / 3)
    expected_kl = ((0.5 - math.log(1.5)) + (-0.5 - math.log(0.5)) + (0.1 - math.log(1.1))) / 3
    assert stats["approx_kl"].item() == pytest.approx(expected_kl, rel=1e-5)


def test_kl_penalty_estimators():
    logp, ref = t([[-1.0, -2.0, -5.0]]), t([[-2.0, -2.0, -0.0]])
    mask = t([[1, 1, 0]])
    assert L.kl_penalty(logp, ref, mask, kind="k1").item() == pytest.approx(0.5)
    assert L.kl_penalty(logp, ref, mask, kind="k3").item() == pytest.approx((math.exp(-1) + 1 - 1) / 2, rel=1e-6)
    with pytest.raises(ValueError, match="k1"):
        L.kl_penalty(logp, ref, mask, kind="k2")


def test_value_loss_and_explained_variance():
    v, r = t([1.0, 3.0]), t([2.0, 2.0])
    assert L.value_loss(v, r).item() == pytest.approx(0.5)
    # clipped: old 0 -> clip 0.5 keeps values at 0.5: (0.5-2)^2=2.25 > 1, (0.5-2)^2=2.25 > 1
    assert L.value_loss(v, r, t([0.0, 0.0]), clip=0.5).item() == pytest.approx(0.5 * 2.25)
    assert L.explained_variance(t([1.0, 2.0, 3.0]), t([1.0, 2.0, 3.0])) == pytest.approx(1.0)
    assert L.explained_variance(t([0.0, 0.0]), t([1.0, 3.0])) == pytest.approx(1 - 1.0 / 1.0)
    assert math.isnan(L.explained_variance(t([1.0]), t([2.0])))
