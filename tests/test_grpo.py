"""Multi-turn GRPO on a tiny random Llama (SmolLM2 tokenizer): advantages per task group, the update's
direction, the zero-advantage filter, config validation and ``colbench train grpo``."""
from __future__ import annotations

import json
import math

import pytest
import torch
from samples import TASK, traj
from tiny_models import smollm2_tokenizer, tiny_llama

from agents.grpo import GRPO, GRPOConfig
from agents.trainer_base import ConfigError

OTHER = dict(TASK, task_id="t1")

WIN = traj(["OUTPUT: Is it plus seven?", "I WANT TO ANSWER: def f(x): return x + 7"], ["Yes."], 1.0)
LOSE = traj(["OUTPUT: Tell me everything.", "I WANT TO ANSWER: def f(x): return 0"], ["No."], 0.0)
FLAT = traj(["OUTPUT: Hm?", "I WANT TO ANSWER: def f(x): return 1"], ["What?"], 0.3, task=OTHER)


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    torch.set_num_threads(1)
    tok = smollm2_tokenizer()
    d = tmp_path_factory.mktemp("tiny_llama_grpo")
    tiny_llama(tok, 0).save_pretrained(d)
    tok.save_pretrained(d)
    return str(d)


def test_grpo_update_raises_the_better_rollouts_of_a_group(model_dir):
    trainer = GRPO(GRPOConfig(policy={"model_name_or_path": model_dir, "learning_rate": 3e-3}, update_epochs=3,
                              sequences_per_batch=2, beta=0.01))
    records = [WIN, LOSE, WIN, LOSE, dict(FLAT), dict(FLAT)]
    adv = trainer.advantages(records)
    a = 0.5 / (math.sqrt(1 / 3) + 1e-4)  # group t0: rewards 1, 0, 1, 0 (Bessel std sqrt(1/3)); t1: all equal
    assert adv.tolist() == pytest.approx([a, -a, a, -a, 0.0, 0.0], rel=1e-6)
    w0, l0 = sum(trainer.turn_logprobs(WIN)), sum(trainer.turn_logprobs(LOSE))
    params = trainer.policy.trainable_parameters()
    m = trainer.update(records)
    for key in ("loss", "pg_loss", "kl", "clipfrac", "approx_kl"):
        assert key in m, key
    assert (m["n_trajectories"], m["n_groups"]) == (4, 2)
    assert m["zero_advantage_fraction"] == pytest.approx(2 / 6)
    assert m["mean_reward"] == pytest.approx(2.6 / 6)
    assert m["kl"] > 0  # the policy left the reference during the epochs
    after = trainer.policy.trainable_parameters()
    assert any(not torch.equal(params[k], after[k]) for k in params)
    assert sum(trainer.turn_logprobs(WIN)) > w0 + 0.5
    assert sum(trainer.turn_logprobs(LOSE)) < l0 - 0.5


def test_grpo_every_turn_of_a_winning_dialogue_gains(model_dir):
    trainer = GRPO(GRPOConfig(policy={"model_name_or_path": model_dir, "learning_rate": 3e-3}, update_epochs=3,
                              sequences_per_batch=2, beta=0.0))
    before = trainer.turn_logprobs(WIN)
    trainer.update([WIN, LOSE, WIN, LOSE])
    after = trainer.turn_logprobs(WIN)
    assert len(before) == 2 and all(b2 > b1 for b1, b2 in zip(before, after))


def test_grpo_without_any_reward_difference_refuses(model_dir):
    trainer = GRPO(GRPOConfig(model=model_dir))
    with pytest.raises(ValueError, match="same reward"):
        trainer.update([FLAT, dict(FLAT), WIN])  # WIN is alone in its group: no baseline, advantage 0


def test_grpo_config_names_the_field():
    with pytest.raises(ConfigError, match="field 'scale_rewards'"):
        GRPOConfig(scale_rewards="rank")
    with pytest.raises(ConfigError, match="field 'loss_type'"):
        GRPOConfig(loss_type="dapo")
    with pytest.raises(ConfigError, match="field 'beta'"):
        GRPOConfig(beta=-1)
    with pytest.raises(ConfigError, match="field 'clip_coef_high'"):
        GRPOConfig(clip_coef_high=0)


def test_cli_train_grpo_and_resume(model_dir, tmp_path, capsys):
    from benchmarks.cli import main

    path = tmp_path / "rollouts.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in (WIN, LOSE, WIN, LOSE)) + "\n")
    out = tmp_path / "grpo"
    assert main(["train", "grpo", "--trajectories", str(path), "--model", model_dir, "--out", str(out),
                 "--config-json", '{"learning_rate": 0.001, "lora_r": 4}']) == 0
    meta = json.loads((out / "trainer.json").read_text())
    assert meta["algorithm"] == "grpo" and meta["updates"] == 1
    assert main(["train", "grpo", "--trajectories", str(path), "--out", str(out)]) == 0
    assert "resumed grpo" in capsys.readouterr().out
