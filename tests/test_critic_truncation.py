"""The critic never loses the training-time information: over-long dialogues are cut in the middle,
the information, the problem and the action always stay; what cannot fit is dropped and counted."""
from __future__ import annotations

import pytest
import torch
from samples import short_formatter
from tiny_models import tiny_llama

from colbench.agents.sweet_rl import INFO_HEADER, SweetRL, SweetRLConfig
from colbench.agents.tokenize import ContextTooLong, tokenize_turn

SECRET = "def f(x):\n    return x * 41 + 1234567"
TASK = {"task_id": "t0", "problem_description": "Write f(x) that computes my special number.",
        "ground_truth": SECRET, "test_cases": {"test1": "f(1)"}}


def ten_turns(reward: float, tag: str = "") -> dict:
    words = " ".join(f"w{i}" for i in range(40))
    h = []
    for t in range(10):
        act = f"Turn {t}{tag}: is it about {words}? OUTPUT: question {t}" if t < 9 else f"I WANT TO ANSWER: {SECRET}{tag}"
        h.append({"role": "assistant", "content": act, "output": act})
        if t < 9:
            h.append({"role": "user", "content": f"Reply {t}: {words}"})
    return {"task": TASK, "dialogue_history": h, "answer": h[-1]["content"], "reward": reward}


def trainer(tok, max_length: int) -> SweetRL:
    cfg = SweetRLConfig(max_length=max_length, critic={"lora_r": 4, "lora_alpha": 8, "pairs_per_batch": 4},
                        policy={"lora_r": 4, "lora_alpha": 8}, train_policy=False, seed=0, pairs_per_batch=4)
    return SweetRL(cfg, model=tiny_llama(tok, 0), tokenizer=tok, critic=tiny_llama(tok, 1), formatter=short_formatter)


def test_ten_turn_trajectory_longer_than_max_length_keeps_the_info_on_every_turn(tok):
    rec = ten_turns(1.0)
    tr = trainer(tok, max_length=300)
    full = sum(len(s) for s in tr._critic_sequences(rec))
    seqs = tr._critic_sequences(rec)
    assert len(seqs) == 10 and full > 300  # one sequence per turn: the packed dialogue does not fit
    actions = [e["output"] for e in rec["dialogue_history"] if e["role"] == "assistant"]
    for t, s in enumerate(seqs):
        text = tok.decode(s.input_ids)
        assert len(s) <= 300
        assert INFO_HEADER in text and SECRET in text, f"turn {t} lost the training-time information"
        assert TASK["problem_description"] in text, f"turn {t} lost the problem"
        trained = tok.decode([i for i, m in zip(s.input_ids, s.mask) if m])
        assert trained.startswith(actions[t]), f"turn {t}: the action was cut"
        if t >= 3:  # the middle of the dialogue is what goes: the oldest turns, not the latest reply
            assert "Turn 0:" not in text and f"w39<|im_end|>\n<|im_start|>assistant\n{actions[t]}" in text
    # scoring a candidate at a late state uses the same context (information included)
    history = rec["dialogue_history"][:rec["dialogue_history"].index(rec["dialogue_history"][-1])]
    got = tr.score_actions(TASK, history, [actions[-1]])[0]
    with torch.no_grad():
        cur = tr._turn_means(tr.critic, [seqs[-1]], reference=False)
        ref = tr._turn_means(tr.critic, [seqs[-1]], reference=True)
    assert got == pytest.approx(float(tr.config.beta * (cur - ref)[0]), abs=1e-6)


def test_examples_that_cannot_keep_the_info_are_dropped_and_counted(tok):
    tr = trainer(tok, max_length=120)
    short_good = {"task": TASK, "reward": 1.0, "dialogue_history": [{"role": "assistant", "content": "I WANT TO ANSWER: ok"}]}
    short_bad = {"task": TASK, "reward": 0.0, "dialogue_history": [{"role": "assistant", "content": "I WANT TO ANSWER: no"}]}
    huge = {"task": TASK, "reward": 0.5, "dialogue_history": [
        {"role": "assistant", "content": "I WANT TO ANSWER: " + " ".join(["word"] * 200)}]}
    with pytest.raises(ContextTooLong):
        tr._critic_sequences(huge)
    m = tr.update_critic([short_good, short_bad, huge])
    assert m["n_critic_dropped"] == 1 and m["n_critic_pairs"] == 1


def test_keep_head_cuts_the_middle_and_plain_truncation_is_unchanged(tok):
    msgs = [{"role": "system", "content": "HEAD " + SECRET}, {"role": "user", "content": "problem"},
            {"role": "assistant", "content": " ".join(["old"] * 100)}, {"role": "user", "content": "latest reply"}]
    s = tokenize_turn(tok, msgs, "the action", max_length=60, keep_head=2)
    text = tok.decode(s.input_ids)
    assert len(s) == 60 and text.startswith("<|im_start|>system\nHEAD " + SECRET) and "latest reply" in text
    assert tok.decode([i for i, m in zip(s.input_ids, s.mask) if m]).startswith("the action")
    plain = tokenize_turn(tok, msgs, "the action", max_length=60)
    assert len(plain) == 60 and SECRET not in tok.decode(plain.input_ids)  # left cut, as before


def test_a_prompt_with_a_worked_example_keeps_it_and_the_problem_when_cut(tok):
    """The compact frontend prompt has worked dialogues between the instructions and the problem:
    the critic's truncation keeps every message before the dialogue (critic_keep_head)."""
    from functools import partial

    from colbench.agents.sweet_rl import critic_keep_head
    from colbench_env.prompting import COMPACT_FRONTEND_EXAMPLE, record_messages

    page = '<html><body><h1 class="text-4xl">My own words</h1></body></html>'
    task = {"task_id": "p0", "problem_description": "I want a landing page for my shop, Lantern.", "ground_truth": page}
    rec = dict(ten_turns(1.0), task=task)
    fmt = partial(record_messages, max_turns=10, style="compact")
    cfg = SweetRLConfig(max_length=1200, critic={"lora_r": 4, "lora_alpha": 8, "pairs_per_batch": 4},
                        policy={"lora_r": 4, "lora_alpha": 8}, train_policy=False, seed=0, pairs_per_batch=4)
    tr = SweetRL(cfg, model=tiny_llama(tok, 0), tokenizer=tok, critic=tiny_llama(tok, 1), formatter=fmt)
    assert critic_keep_head(tr._critic_formatter(task), task) == 2 + len(COMPACT_FRONTEND_EXAMPLE)
    seqs = tr._critic_sequences(rec)
    assert len(seqs) == 10
    for t, s in enumerate(seqs):
        text = tok.decode(s.input_ids)
        assert len(s) <= 1200 and INFO_HEADER in text and page in text, t
        assert COMPACT_FRONTEND_EXAMPLE[-1]["content"] in text and task["problem_description"] in text, t
    assert "Turn 0:" not in tok.decode(seqs[-1].input_ids)  # the dialogue's middle went, not the head
