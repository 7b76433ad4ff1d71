"""Reference-faithful defaults of SWEET-RL, each with the earlier choice as a named option:
critic pairs, trajectory-score aggregation, stage-2 state selection, NLL term of the policy DPO.
Each is checked against numbers computed here independently (plain forwards, hand-built pairs)."""
from __future__ import annotations

import math

import pytest
import torch
from samples import short_formatter
from tiny_models import tiny_llama

from colbench.agents.mt_dpo import train_preference_pairs
from colbench.agents.sweet_rl import SweetRL, SweetRLConfig, critic_pairs
from colbench.agents.tokenize import tokenize_turn
from colbench.agents.trainer_base import ConfigError


def task(name: str) -> dict:
    return {"task_id": name, "problem_description": f"Problem {name}.", "ground_truth": f"answer {name}"}


def rec(t: dict, reward: float, turns=("I WANT TO ANSWER: x",)) -> dict:
    h = []
    for k, a in enumerate(turns):
        h.append({"role": "assistant", "content": a})
        if k < len(turns) - 1:
            h.append({"role": "user", "content": f"reply {k}"})
    return {"task": t, "reward": reward, "dialogue_history": h}


def test_defaults_are_the_reference_and_the_options_validate():
    c = SweetRLConfig()
    assert (c.critic_pairs, c.critic_aggregation, c.state_selection, c.nll_scope) == (
        "best_vs_lower", "token_mean", "first_trajectories", "sequence")
    for name in ("critic_pairs", "critic_aggregation", "state_selection", "nll_scope"):
        with pytest.raises(ConfigError, match=f"field '{name}'"):
            SweetRLConfig(**{name: "nope"})


def test_critic_pairs_best_successful_against_each_lower(tok):
    a, b = task("A"), task("B")
    A = [rec(a, r) for r in (0.5, 1.0, 0.0, 1.0)]
    B = [rec(b, r) for r in (0.5, 0.0)]  # no success: the reference makes no pair
    got = critic_pairs(A + B, 0.0)
    assert [(x is A[1], y) for x, y in got] == [(True, A[0]), (True, A[2])]
    old = critic_pairs(A + B, 0.0, "all_ordered")
    assert len(old) == 6 and (B[0], B[1]) in old  # fail-vs-fail included
    tr = SweetRL(SweetRLConfig(train_policy=False, policy={"lora_r": 4}, critic={"lora_r": 4, "pairs_per_batch": 4}),
                 model=tiny_llama(tok, 0), tokenizer=tok, critic=tiny_llama(tok, 1), formatter=short_formatter)
    assert tr.update_critic(A + B)["n_critic_pairs"] == 2
    with pytest.raises(ValueError, match="fully successful"):
        tr.update_critic(B)


def _random_lora(model, seed=0):
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for n, p in model.named_parameters():
            if "lora_" in n:
                p.copy_(torch.randn(p.shape, generator=g) * 0.05)


def test_trajectory_score_aggregation(tok):
    r = rec(task("A"), 1.0, turns=("Is it x? OUTPUT: is it x", "I WANT TO ANSWER: a much longer final answer " * 3))
    scores = {}
    for agg in ("token_mean", "turn_sum"):
        tr = SweetRL(SweetRLConfig(train_policy=False, policy={"lora_r": 4}, critic={"lora_r": 4}, beta=0.5, critic_aggregation=agg),
                     model=tiny_llama(tok, 0), tokenizer=tok, critic=tiny_llama(tok, 1), formatter=short_formatter)
        _random_lora(tr.critic.peft_model)
        scores[agg] = float(tr.trajectory_score(r))
    # independently: per-token log-probs of each action with and without the adapter, plain forwards
    net = tr.critic.peft_model
    seqs = tr._critic_sequences(r)
    diffs = []  # per turn: (sum critic - sum reference, n tokens)
    for s in seqs:
        ids = torch.tensor([s.input_ids])
        with torch.no_grad():
            cur = torch.log_softmax(net(input_ids=ids).logits[0, :-1].float(), -1).gather(1, ids[0, 1:, None])[:, 0]
            with net.disable_adapter():
                ref = torch.log_softmax(net(input_ids=ids).logits[0, :-1].float(), -1).gather(1, ids[0, 1:, None])[:, 0]
        for start, end in s.turn_spans:
            diffs.append((float((cur - ref)[start - 1:end - 1].sum()), end - start))
    assert len(diffs) == 2 and diffs[0][1] != diffs[1][1]
    token_mean = 0.5 * sum(d for d, _ in diffs) / sum(n for _, n in diffs)
    turn_sum = sum(0.5 * d / n for d, n in diffs)
    assert scores["token_mean"] == pytest.approx(token_mean, abs=1e-5)
    assert scores["turn_sum"] == pytest.approx(turn_sum, abs=1e-5)
    assert abs(token_mean - turn_sum) > 1e-4


def test_state_selection_first_trajectories_all_their_turns(tok):
    recs = [rec(task(f"T{i}"), 1.0, turns=tuple(f"q{i}.{k}" for k in range(1 + i % 3))) for i in range(10)]
    for sel, frac in (("first_trajectories", 0.2), ("random_turns", 0.2)):
        tr = SweetRL(SweetRLConfig(train_policy=False, policy={"lora_r": 4}, critic={"lora_r": 4}, state_fraction=frac,
                                   state_selection=sel),
                     model=tiny_llama(tok, 0), tokenizer=tok, critic=tiny_llama(tok, 1), formatter=short_formatter)
        states = tr.select_states(recs)
        if sel == "first_trajectories":  # data[:int(10 * 0.2)] = the first two, 1 + 2 turns
            assert [(r["task"]["task_id"], t.turn) for r, t in states] == [("T0", 0), ("T1", 0), ("T1", 1)]
        else:
            assert len(states) == round(0.2 * 19)


@pytest.mark.parametrize("scope", ["sequence", "action"])
def test_policy_nll_term_scope(tok, scope):
    from accelerate import Accelerator

    from colbench.agents.trainer_base import TrainableLM

    lm = TrainableLM(Accelerator(), tiny_llama(tok, 2), tok, lora_r=4, lora_alpha=8, max_grad_norm=None)
    msgs = short_formatter(task("A"), [])
    chosen = tokenize_turn(tok, msgs, "the chosen action")
    rejected = tokenize_turn(tok, msgs, "another one")
    coef = 1.0
    m = train_preference_pairs(lm, [([chosen], [rejected])], beta=0.1, nll_coef=coef, pairs_per_batch=1, epochs=1,
                               batches=lambda items, size: [items], nll_scope=scope)
    # before the step the policy is the reference: the DPO term is exactly log 2
    ids = torch.tensor([chosen.input_ids])
    with torch.no_grad():
        lp = torch.log_softmax(tiny_llama(tok, 2)(input_ids=ids).logits[0, :-1].float(), -1).gather(1, ids[0, 1:, None])[:, 0]
    mask = torch.tensor(chosen.mask[1:], dtype=torch.bool)
    nll = float(-lp.mean()) if scope == "sequence" else float(-lp[mask].mean())
    assert m["loss"] == pytest.approx(math.log(2) + coef * nll, abs=1e-4)
