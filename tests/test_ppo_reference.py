"""PPO's reference log-probs: the base with the adapter disabled, computed here independently; the
reference pass is skipped only while the adapter adds nothing (a fresh LoRA, whose ``B`` matrices are
0: then the policy's own pass gives the same numbers) and runs again once training moved it."""
from __future__ import annotations

import pytest
import torch

from colbench.agents.ppo import PPO, PPOConfig
from colbench.agents.tokenize import tokenize_trajectory

TASK = {"task_id": "t0", "problem_description": "Write f(x) that returns my number.",
        "ground_truth": "def f(x):\n    return x + 7", "test_cases": {"test1": "f(1)"}}
T = 0.5


def records() -> list[dict]:
    """Two two-turn trajectories, rewards 1 and 0."""
    out = []
    for k, (ask, answer) in enumerate([("What number?", "def f(x): return x + 7"), ("Hm?", "def f(x): return 0")]):
        history = [{"role": "assistant", "content": ask, "output": f"OUTPUT: {ask}"},
                   {"role": "user", "content": "It adds seven."},
                   {"role": "assistant", "content": answer, "output": f"OUTPUT: I WANT TO ANSWER: {answer}"}]
        out.append({"task": TASK, "dialogue_history": history, "answer": answer, "reward": float(1 - k)})
    return out


def base_logps(trainer: PPO, rec: dict) -> list[torch.Tensor]:
    """Independently: log softmax(logits / T) of each action token under the base (adapter disabled)."""
    out = []
    net = trainer.policy.peft_model
    for s in tokenize_trajectory(trainer.tokenizer, rec, formatter=trainer.formatter):
        ids = torch.tensor([s.input_ids])
        with torch.no_grad(), net.disable_adapter():
            logits = net(input_ids=ids).logits[0].float()
        lp = torch.log_softmax(logits[:-1] / T, -1).gather(1, ids[0, 1:, None])[:, 0]
        out += [lp[start - 1:end - 1] for start, end in s.turn_spans]
    return out


def spans(item: dict, key: str) -> list[torch.Tensor]:
    return [item[key][b, start - 1:end - 1] for b, s in enumerate(item["sequences"]) for start, end in s.turn_spans]


@pytest.mark.slow  # a PPO update
def test_the_reference_pass_runs_only_once_the_adapter_moved(model_dir, monkeypatch):
    trainer = PPO(PPOConfig(policy={"model_name_or_path": model_dir, "learning_rate": 1e-2, "lora_dropout": 0.0},
                            temperature=T, update_epochs=1, max_length=512))
    passes = []
    forward = trainer._forward
    monkeypatch.setattr(trainer, "_forward", lambda seqs, **kw: passes.append(kw.get("reference", False))
                        or forward(seqs, **kw))
    recs = records()

    assert trainer.policy.is_reference()  # peft's initialisation: every B is 0
    items = trainer.prepare_batch(recs)
    assert passes == [False, False]  # one policy pass per trajectory, no reference pass
    for item, rec in zip(items, recs):
        for got, want in zip(spans(item, "ref_logps"), base_logps(trainer, rec), strict=True):
            assert torch.allclose(got, want, atol=1e-5), (got, want)

    trainer.update(recs)  # one optimiser step: the adapter is no longer 0
    assert not trainer.policy.is_reference()
    passes.clear()
    items = trainer.prepare_batch(recs)
    assert passes.count(True) == len(recs)  # the reference pass is back, one per trajectory
    moved = False
    for item, rec in zip(items, recs):
        for got, want, policy in zip(spans(item, "ref_logps"), base_logps(trainer, rec), spans(item, "old_logps"),
                                     strict=True):
            assert torch.allclose(got, want, atol=1e-5), (got, want)
            moved |= not torch.allclose(policy, want, atol=1e-4)
    assert moved  # the policy's log-probs are not the reference's any more


def test_a_full_fine_tune_always_runs_its_reference(model_dir):
    trainer = PPO(PPOConfig(policy={"model_name_or_path": model_dir, "full_finetune": True}, temperature=T,
                            max_length=512))
    assert not trainer.policy.is_reference()  # its reference is a frozen copy, not an adapter switched off
