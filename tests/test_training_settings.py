"""The reference's optimisation settings as trainer options: full fine-tuning with a frozen
reference copy, AdamW betas, the cosine-with-min-lr schedule with warm-up (tiny random Llama)."""
from __future__ import annotations

import math

import pytest
import torch
from samples import BAD, GOOD, MID, TASK, traj

from colbench.agents.rft import RejectionFineTuning, RFTConfig
from colbench.agents.sweet_rl import SweetRL, SweetRLConfig
from colbench.agents.tokenize import ContextTooLong, tokenize_trajectory
from colbench.agents.trainer_base import ConfigError, ModelConfig

# ``tok`` and ``model_dir`` (a saved tiny random Llama, seed 0): tests/conftest.py


GOOD2 = traj(["Which number? OUTPUT: Which number do you add?", "I WANT TO ANSWER: def f(x): return x + 7"],
             ["Seven."], 1.0)
# without thoughts: the paper prompt is prefix-consistent, one sequence per trajectory (GOOD and GOOD2
# are one sequence per turn: the next turn's context shows only the message)
PACKED = traj(["What number do you add?", "I WANT TO ANSWER: def f(x): return x + 7"], ["I add seven."], 1.0)
PACKED2 = traj(["Which number do you add?", "I WANT TO ANSWER: def f(x): return x + 7"], ["Seven."], 1.0)


def _lrs_of_steps(trainer) -> list[float]:
    seen: list[float] = []
    opt = getattr(trainer.policy.optimizer, "optimizer", trainer.policy.optimizer)
    opt.register_step_pre_hook(lambda o, *_: seen.append(o.param_groups[0]["lr"]))
    return seen


def test_cosine_schedule_with_warmup_matches_the_formula(model_dir):
    """2 successful trajectories, batch 1, 2 epochs = 4 optimiser steps; warm-up ceil(0.25 x 4) = 1
    step; then lr x (0.1 + 0.9 x 0.5 (1 + cos(pi p))), p = (step - 1) / 3 (hand-computed)."""
    lr = 1e-3
    trainer = RejectionFineTuning(RFTConfig(policy={"model_name_or_path": model_dir, "learning_rate": lr},
                                            sequences_per_batch=1, epochs=2,
                                            lr_scheduler="cosine", warmup_ratio=0.25, min_lr_ratio=0.1))
    seen = _lrs_of_steps(trainer)
    trainer.update([PACKED, PACKED2, BAD])
    expected = [0.0, lr, lr * (0.1 + 0.9 * 0.75), lr * (0.1 + 0.9 * 0.25)]
    assert seen == pytest.approx(expected, rel=1e-6, abs=1e-12)
    # a second update restarts the schedule from the configured rate
    seen.clear()
    trainer.update([PACKED, PACKED2, BAD])
    assert seen == pytest.approx(expected, rel=1e-6, abs=1e-12)


def test_constant_schedule_and_betas(model_dir):
    trainer = RejectionFineTuning(RFTConfig(policy={"model_name_or_path": model_dir, "learning_rate": 1e-3},
                                            sequences_per_batch=1,
                                            adam_betas=[0.9, 0.95]))
    seen = _lrs_of_steps(trainer)
    trainer.update([PACKED, PACKED2])
    assert seen == [1e-3, 1e-3]
    assert trainer.policy.optimizer.param_groups[0]["betas"] == (0.9, 0.95)
    assert RFTConfig(policy={"model_name_or_path": "m"}).adam_betas == (0.9, 0.999)  # torch's default stays the default
    for bad, field in (({"adam_betas": (0.9,)}, "adam_betas"), ({"lr_scheduler": "linear"}, "lr_scheduler"),
                       ({"warmup_ratio": 1.5}, "warmup_ratio"),
                       ({"policy": {"full_finetune": True, "load_in_4bit": True}}, "policy.full_finetune")):
        with pytest.raises(ConfigError, match=f"field '{field}'"):
            RFTConfig(**{"policy": {"model_name_or_path": "m"}, **bad})


def test_full_finetune_trains_every_weight_against_a_frozen_reference(tok, model_dir, tmp_path):
    trainer = RejectionFineTuning(RFTConfig(policy=ModelConfig(model_name_or_path=model_dir, learning_rate=1e-3,
                                                                        full_finetune=True), sequences_per_batch=2))
    lm = trainer.policy
    n_all = sum(p.numel() for p in lm.peft_model.parameters())
    assert sum(p.numel() for p in lm.peft_model.parameters() if p.requires_grad) == n_all  # no adapter
    batch = lm.batch(tokenize_trajectory(tok, GOOD, formatter=trainer.formatter))
    ref_before = lm.token_logps(batch, reference=True)
    cur_before = lm.token_logps(batch).detach()
    assert torch.allclose(ref_before, cur_before)
    before = lm.trainable_parameters()
    trainer.update([GOOD, BAD])
    after = lm.trainable_parameters()
    assert sum(not torch.equal(before[k], after[k]) for k in before) >= len(before) - 1  # (tied head)
    m = batch["loss_mask"].bool()
    assert torch.equal(lm.token_logps(batch, reference=True), ref_before)  # the reference did not move
    cur_after = lm.token_logps(batch).detach()
    assert float(cur_after[m].sum()) > float(cur_before[m].sum())  # SFT raised the successful turns
    assert lm.merged_model() is lm.peft_model
    # checkpoints hold the full weights; resuming restores them
    trainer.save(tmp_path / "ck")
    assert (tmp_path / "ck" / "policy" / "model.safetensors").exists()
    loaded = RejectionFineTuning.load(tmp_path / "ck")
    assert torch.allclose(loaded.policy.token_logps(batch).detach(), cur_after, atol=1e-6)
    assert torch.allclose(loaded.policy.token_logps(batch, reference=True), ref_before, atol=1e-6)


def test_full_finetune_critic_keeps_its_reference(model_dir):
    other = dict(TASK, task_id="t1")
    data = [GOOD, BAD, MID, traj(["I WANT TO ANSWER: def f(x): return x + 7"], [], 1.0, task=other),
            traj(["I WANT TO ANSWER: def f(x): return 0"], [], 0.0, task=other)]
    trainer = SweetRL(SweetRLConfig(policy={"model_name_or_path": model_dir}, train_policy=False,
                                    critic={"full_finetune": True, "learning_rate": 1e-3, "max_length": 512}))
    assert trainer.critic.full_finetune and not trainer.policy.full_finetune
    # the critic's own length limit applies (its context carries the training-time information)
    short = SweetRL(SweetRLConfig(policy={"model_name_or_path": model_dir}, critic={"max_length": 64},
                                  train_policy=False))
    with pytest.raises(ContextTooLong, match="max_length=64"):
        short.score_actions(TASK, [], ["I WANT TO ANSWER: def f(x): return x + 7"])
    del short
    ref = trainer.score_actions(TASK, [], ["I WANT TO ANSWER: def f(x): return x + 7"])
    assert ref == [pytest.approx(0.0, abs=1e-6)]  # critic == its reference before training
    m = trainer.update_critic(data)
    assert m["n_critic_pairs"] >= 2 and math.isfinite(m["critic_loss"])
    after = trainer.score_actions(TASK, [], ["I WANT TO ANSWER: def f(x): return x + 7"])
    assert after[0] != pytest.approx(0.0, abs=1e-6)  # the critic moved away from its frozen reference
