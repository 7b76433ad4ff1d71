"""SWEET-RL's critic: training-time information decides the winner. (A 4-bit critic's training on
CPU, against its dequantized fp32 twin: tests/test_4bit_gradients.py.)

Tiny random Llamas (``tests/tiny_models.py``, hidden size 128) over the small-vocabulary tokenizer with
SmolLM2's chat template (the ``small_tok`` fixture): the vocabulary projection costs a fiftieth of
SmolLM2's 49,152 ids. With 12 critic epochs the critic with the information ranks all 12 held-out
pairs right on each of 4 critic seeds tried (1, 11, 21, 31), the one without at most half.
"""
from __future__ import annotations

import random

import pytest
import torch
from tiny_models import tiny_llama

from colbench.agents.sweet_rl import CriticConfig, SweetRL, SweetRLConfig, critic_messages, training_info
from colbench.agents.trainer_base import ModelConfig

COLOURS = ["red", "blue", "green"]
THINGS = ["a banner", "a button", "a header", "a footer", "a card", "a menu", "a badge", "a sidebar", "a tooltip",
          "a modal", "a table", "a form", "a chart", "a logo", "a tab bar", "a toast", "a slider", "a panel"]


def colour_task(i: int, colour: str) -> dict:
    thing = THINGS[i % len(THINGS)]
    return {"task_id": f"t{i}", "problem_description": f"Please make {thing} for my page in my favourite colour.",
            "ground_truth": f"The favourite colour is {colour}.",
            "hidden_information": f"The favourite colour is {colour}.",
            "test_cases": {"test1": "f()"}}


def colour_rollout(task: dict, said: str, right: str) -> dict:
    return {"task": task, "dialogue_history": [
        {"role": "assistant", "content": "Which colour?", "output": "Which colour would you like?"},
        {"role": "user", "content": "I have one colour in mind."},
        {"role": "assistant", "content": f"I will use {said}.", "output": f"I WANT TO ANSWER: I will use {said}."},
    ], "answer": f"I will use {said}.", "reward": 1.0 if said == right else 0.0}


def colour_data(indices, seed: int):
    rng = random.Random(seed)
    tasks, trajs = [], []
    for i in indices:
        right = COLOURS[i % len(COLOURS)]
        task = colour_task(i, right)
        tasks.append((task, right))
        rolls = [colour_rollout(task, c, right) for c in COLOURS]
        rng.shuffle(rolls)
        trajs += rolls
    return tasks, trajs


def ranking_accuracy(trainer: SweetRL, tasks) -> float:
    """Fraction of (right, wrong) candidate pairs at the answer turn that the critic orders correctly."""
    good, total = 0, 0
    for task, right in tasks:
        rec = colour_rollout(task, right, right)
        history = rec["dialogue_history"][:2]
        acts = [f"I WANT TO ANSWER: I will use {c}." for c in COLOURS]
        scores = dict(zip(COLOURS, trainer.score_actions(task, history, acts)))
        for c in COLOURS:
            if c != right:
                good += scores[right] > scores[c]
                total += 1
    return good / total


# ---- tests ---------------------------------------------------------------------------------------
def test_critic_messages_put_info_before_the_dialogue():
    msgs = [{"role": "system", "content": "INSTR"}, {"role": "user", "content": "PROBLEM"}]
    out = critic_messages(msgs, "SECRET")
    assert out[0]["content"].index("SECRET") < out[0]["content"].index("INSTR")
    assert msgs[0]["content"] == "INSTR"  # input untouched
    assert critic_messages(msgs, None) == msgs
    with pytest.raises(ValueError, match="training-time fields"):
        training_info({"problem_description": "x"}, ["ground_truth"])


def short_formatter(task: dict, history: list) -> list[dict]:
    """A short agent prompt (same shape as colbench_env.prompting.record_messages: instructions, problem, then the turns)."""
    msgs = [{"role": "system", "content": "Help the user."}, {"role": "user", "content": task["problem_description"]}]
    for m in history:
        msgs.append({"role": m["role"], "content": m.get("output") or m["content"]})
    return msgs


def _critic(tok, use_info: bool, epochs: int = 12) -> SweetRL:
    cfg = SweetRLConfig(use_training_info=use_info, beta=1.0, seed=0, train_policy=False, pairs_per_batch=8,
                        critic=CriticConfig(learning_rate=3e-3, lora_r=8, lora_alpha=16, pairs_per_batch=4,
                                            epochs=epochs),
                        policy=ModelConfig(lora_r=4, lora_alpha=8))
    return SweetRL(cfg, model=tiny_llama(tok, 0, 128), tokenizer=tok, critic=tiny_llama(tok, 1, 128),
                   formatter=short_formatter)


def test_training_info_decides_the_winner(small_tok):
    tok = small_tok
    train_tasks, train = colour_data(range(12), seed=0)
    held_out, _ = colour_data(range(12, 18), seed=1)
    accs, losses = {}, {}
    for use_info in (True, False):
        trainer = _critic(tok, use_info)
        before = trainer.critic.trainable_parameters()
        m = trainer.update(train)
        after = trainer.critic.trainable_parameters()
        assert any(not torch.equal(before[k], after[k]) for k in before)
        accs[use_info] = ranking_accuracy(trainer, held_out)
        losses[use_info] = m["critic_loss"]
    print("held-out ranking accuracy with/without info:", accs, "last-epoch BT loss:", losses)
    assert accs[True] >= 0.9
    assert accs[True] >= accs[False] + 0.25
