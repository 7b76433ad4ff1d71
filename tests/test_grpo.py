"""Multi-turn GRPO on a tiny random Llama (SmolLM2 tokenizer): advantages per task group, the update's
direction, the zero-advantage filter, config validation and ``colbench train grpo``."""
from __future__ import annotations

import json
import math

import pytest
import torch
from samples import TASK, traj

from colbench.agents.grpo import GRPO, GRPOConfig
from colbench.agents.trainer_base import ConfigError

OTHER = dict(TASK, task_id="t1")

WIN = traj(["OUTPUT: Is it plus seven?", "I WANT TO ANSWER: def f(x): return x + 7"], ["Yes."], 1.0)
LOSE = traj(["OUTPUT: Tell me everything.", "I WANT TO ANSWER: def f(x): return 0"], ["No."], 0.0)
FLAT = traj(["OUTPUT: Hm?", "I WANT TO ANSWER: def f(x): return 1"], ["What?"], 0.3, task=OTHER)


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
    trainer = GRPO(GRPOConfig(policy={"model_name_or_path": model_dir}))
    with pytest.raises(ValueError, match=r"grpo: no task among the 3 trajectories has rollouts with different rewards, "
                                         r"so every group-relative advantage is 0; sampled rollouts give them"):
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
    from colbench.cli import main

    path = tmp_path / "rollouts.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in (WIN, LOSE, WIN, LOSE)) + "\n")
    out = tmp_path / "grpo"
    assert main(["train", "grpo", "--trajectories", str(path), "--model", model_dir, "--out", str(out),
                 "--config-json", '{"policy": {"learning_rate": 0.001, "lora_r": 4}}']) == 0
    meta = json.loads((out / "trainer.json").read_text())
    assert meta["algorithm"] == "grpo" and meta["updates"] == 1
    assert main(["train", "grpo", "--trajectories", str(path), "--out", str(out)]) == 0
    assert "resumed grpo" in capsys.readouterr().out


def test_grpo_log_probs_are_the_sampling_distribution_at_the_rollout_temperature(model_dir):
    """Rollouts drawn at T != 1: old, new and reference log-probs are log softmax(logits / T), as TRL's
    GRPOTrainer divides its logits by the generation temperature; the first minibatch's ratio is 1."""
    T = 0.4
    trainer = GRPO(GRPOConfig(policy={"model_name_or_path": model_dir, "lora_dropout": 0.0}, rollout_temperature=T))
    records = [WIN, LOSE]
    items = trainer._items(records, trainer.advantages(records))
    from colbench.agents.tokenize import tokenize_trajectory

    net = trainer.policy.peft_model
    for it in items:
        s = it["sequence"]
        ids = torch.tensor([s.input_ids])
        with torch.no_grad():
            logits = net(input_ids=ids).logits[0].float()
        want = torch.log_softmax(logits[:-1] / T, -1).gather(1, ids[0, 1:, None])[:, 0]
        for start, end in s.turn_spans:
            assert torch.allclose(it["old_logps"][start - 1:end - 1], want[start - 1:end - 1], atol=1e-5)
            # the reference is the same network with the adapter disabled: identical before training
            assert torch.allclose(it["ref_logps"][start - 1:end - 1], want[start - 1:end - 1], atol=1e-5)
        at_one = torch.log_softmax(logits[:-1], -1).gather(1, ids[0, 1:, None])[:, 0]
        start, end = s.turn_spans[0]
        assert not torch.allclose(it["old_logps"][start - 1:end - 1], at_one[start - 1:end - 1], atol=1e-3)
    # WIN's first turn has an OUTPUT: marker, so the second turn's context shows only its message (as
    # the reference's agent sees it): one sequence per turn, both checked above
    assert len(tokenize_trajectory(trainer.tokenizer, WIN, formatter=trainer.formatter)) == 2
    with pytest.raises(ConfigError, match="field 'rollout_temperature'"):
        GRPOConfig(rollout_temperature=0.0)


def test_pipeline_gives_grpo_and_ppo_the_collection_temperature():
    from colbench.pipeline import PipelineConfig, trainer_config

    cfg = PipelineConfig(rollout_temperature=0.1)
    assert trainer_config(cfg, "grpo", "m").rollout_temperature == 0.1
    assert trainer_config(cfg, "ppo", "m").rollout_temperature == 0.1
