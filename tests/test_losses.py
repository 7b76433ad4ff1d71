"""colbench.agents.losses against hand-computed numbers (multi-turn masks, variable-length turns)."""
from __future__ import annotations

import math

import pytest
import torch

from colbench.agents import losses as L


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
    assert L.explained_variance(t([1.0]), t([2.0])) is None  # undefined (CleanRL: NaN, not JSON)


def test_group_relative_advantages_hand_computed():
    r = t([1.0, 0.0, 0.0, 1.0, 0.5, 0.5, 0.3])
    groups = ["a", "a", "a", "a", "b", "b", "c"]
    std_a = math.sqrt(4 * 0.25 / 3)  # Bessel-corrected std of [1, 0, 0, 1]
    adv = L.group_relative_advantages(r, groups, scale="group")
    expected = [0.5 / (std_a + 1e-4), -0.5 / (std_a + 1e-4), -0.5 / (std_a + 1e-4), 0.5 / (std_a + 1e-4), 0, 0, 0]
    assert adv.tolist() == pytest.approx(expected, rel=1e-6)  # equal rewards and a lone rollout: 0, not NaN
    assert L.group_relative_advantages(r, groups, scale="none").tolist() == pytest.approx([0.5, -0.5, -0.5, 0.5, 0, 0, 0])
    import statistics

    std_all = statistics.stdev([1.0, 0.0, 0.0, 1.0, 0.5, 0.5, 0.3])
    assert L.group_relative_advantages(r, groups, scale="batch").tolist() == pytest.approx(
        [x / (std_all + 1e-4) for x in [0.5, -0.5, -0.5, 0.5, 0, 0, 0]], rel=1e-6)
    # groups are keys, not positions: interleaved members are grouped together
    inter = L.group_relative_advantages(t([1.0, 0.0, 0.0, 1.0]), ["x", "y", "x", "y"], scale="none")
    assert inter.tolist() == pytest.approx([0.5, -0.5, -0.5, 0.5])
    with pytest.raises(ValueError, match="scale"):
        L.group_relative_advantages(r, groups, scale="rank")
    with pytest.raises(ValueError, match="N group keys"):
        L.group_relative_advantages(r, groups[:3])


def test_nanstd_is_trls():
    """The advantages' std (written in agents/losses.py so that GRPO does not import trl) equals TRL's
    ``nanstd`` bit for bit, NaNs and lone values included."""
    from trl.trainer.utils import nanstd

    gen = torch.Generator().manual_seed(0)
    cases = [torch.rand(n, generator=gen) for n in (2, 3, 7, 64)] + [
        t([1.0, 0.0, 0.0, 1.0]), t([0.5, 0.5]), t([0.3]), t([1.0, float("nan"), 0.0]), t([float("nan")] * 2)]
    for x in cases:
        got, want = L.nanstd(x), nanstd(x)
        assert got.shape == want.shape and (torch.equal(got, want) or bool(got.isnan() & want.isnan())), (x, got, want)
    assert L.nanstd(t([1.0, 0.0, 0.0, 1.0])).item() == pytest.approx(math.sqrt(4 * 0.25 / 3))


def test_grpo_loss_hand_computed():
    new = torch.log(t([[1.5, 0.9, 7.0], [0.5, 1.0, 1.1]]))  # old = 0: these are the ratios
    old = t([[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]])
    ref = new + t([[0.0, math.log(2.0), 5.0], [0.0, 0.0, -1.0]])  # k3 per token: 0, 1 - ln 2, (masked); 0, 0, 1/e
    adv = t([1.0, -2.0])
    mask = t([[1, 1, 0], [1, 1, 1]])
    k3 = [[0.0, 1 - math.log(2.0)], [0.0, 0.0, math.exp(-1.0)]]
    # A = +1: min(1.5, 1.2) -> -1.2; min(0.9, 0.9) -> -0.9.  A = -2: min(-1.0, -1.6) -> 1.6; 2.0; 2.2
    pg = [[-1.2, -0.9], [1.6, 2.0, 2.2]]
    beta = 0.1
    tok = [[p + beta * k for p, k in zip(pr, kr)] for pr, kr in zip(pg, k3)]
    loss, stats = L.grpo_loss(new, old, ref, adv, mask, clip=0.2, beta=beta, loss_type="grpo")
    assert loss.item() == pytest.approx((sum(tok[0]) / 2 + sum(tok[1]) / 3) / 2, rel=1e-5)
    assert stats["pg_loss"].item() == pytest.approx((sum(pg[0]) / 2 + sum(pg[1]) / 3) / 2, rel=1e-5)
    assert stats["kl"].item() == pytest.approx((sum(k3[0]) / 2 + sum(k3[1]) / 3) / 2, rel=1e-5)
    assert stats["clipfrac"].item() == pytest.approx(2 / 5)  # ratios 1.5 and 0.5 left [0.8, 1.2]
    bnpo, _ = L.grpo_loss(new, old, ref, adv, mask, clip=0.2, beta=beta, loss_type="bnpo")
    assert bnpo.item() == pytest.approx((sum(tok[0]) + sum(tok[1])) / 5, rel=1e-5)
    # clip higher (DAPO): the ratio 1.5 is no longer clipped from above
    high, st = L.grpo_loss(new, old, ref, adv, mask, clip=0.2, clip_high=0.6, beta=0.0)
    assert high.item() == pytest.approx(((-1.5 - 0.9) / 2 + (1.6 + 2.0 + 2.2) / 3) / 2, rel=1e-5)
    assert st["clipfrac"].item() == pytest.approx(1 / 5)
    with pytest.raises(ValueError, match="loss_type"):
        L.grpo_loss(new, old, ref, adv, mask, loss_type="dapo")


def test_grpo_gradient_follows_the_advantage_on_every_agent_token():
    new = torch.zeros(2, 4, requires_grad=True)
    mask = t([[1, 0, 1, 0], [1, 1, 0, 0]])  # row 0: two turns with a human turn between
    loss, _ = L.grpo_loss(new, new.detach(), new.detach(), t([1.0, -1.0]), mask, beta=0.04)
    loss.backward()
    g = new.grad
    assert (g[0, [0, 2]] < 0).all() and (g[1, [0, 1]] > 0).all()  # descent raises A>0 tokens, lowers A<0
    assert (g[mask == 0] == 0).all()
