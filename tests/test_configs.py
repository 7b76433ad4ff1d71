"""Trainer configs: nested model settings (``policy``, ``critic``), each per-batch count named for
what it counts, one path from a dict (``config_from_dict``) whose errors name the field."""
from __future__ import annotations

import json

import pytest
from samples import BAD, GOOD, MID

from colbench.agents.config import ConfigError, config_from_dict, merge_config_dicts
from colbench.agents.grpo import GRPOConfig
from colbench.agents.mt_dpo import MultiTurnDPOConfig
from colbench.agents.ppo import PPOConfig
from colbench.agents.rft import RFTConfig
from colbench.agents.sweet_rl import SweetRL, SweetRLConfig


def test_flat_model_keys_are_unknown_fields_that_name_the_nested_ones():
    """A model setting lives in its nested config only: a flat ``lora_r`` (or ``batch_size``) is an
    unknown field, and the message lists the known names (``policy.lora_r``, ``pairs_per_batch``)."""
    with pytest.raises(ConfigError, match=r"unknown field\(s\) \['lora_r'\] for RFTConfig \(known: \[.*'policy.lora_r'"):
        config_from_dict(RFTConfig, {"lora_r": 4})
    with pytest.raises(ConfigError, match=r"unknown field\(s\) \['batch_size'\] for MultiTurnDPOConfig .*'pairs_per_batch'"):
        config_from_dict(MultiTurnDPOConfig, {"batch_size": 4})
    with pytest.raises(ConfigError, match=r"unknown field\(s\) \['critic_learning_rate'\] for SweetRLConfig"):
        config_from_dict(SweetRLConfig, {"critic_learning_rate": 1e-4})
    with pytest.raises(ConfigError, match=r"unknown field\(s\) \['critic'\] for PPOConfig"):
        config_from_dict(PPOConfig, {"critic": {"learning_rate": 1e-4}})
    with pytest.raises(ConfigError, match=r"unknown field\(s\) \['epochs'\] for GRPOConfig .*'update_epochs'"):
        config_from_dict(GRPOConfig, {"epochs": 1})
    assert not hasattr(PPOConfig(), "epochs")


def test_errors_name_the_field():
    with pytest.raises(ConfigError, match=r"<x>: unknown field\(s\) \['critic.lr'\] for SweetRLConfig"):
        config_from_dict(SweetRLConfig, {"critic": {"lr": 1e-4}}, source="<x>")
    with pytest.raises(ConfigError, match="<x>: field 'critic.learning_rate': must be > 0"):
        config_from_dict(SweetRLConfig, {"critic": {"learning_rate": 0}}, source="<x>")
    with pytest.raises(ConfigError, match="field 'critic': must be a CriticConfig or a JSON object, got int"):
        config_from_dict(SweetRLConfig, {"critic": 3})
    with pytest.raises(ConfigError, match="field 'critic.full_finetune': cannot fully fine-tune a 4-bit base"):
        SweetRLConfig(critic={"full_finetune": True, "load_in_4bit": True})


def test_merge_is_field_by_field_in_nested_configs():
    base = {"critic": {"learning_rate": 1e-4, "epochs": 2}, "policy": {"lora_r": 4}}
    merged = merge_config_dicts(SweetRLConfig, base, {"critic": {"epochs": 3}, "policy": {"learning_rate": 1e-3}})
    assert merged == {"critic": {"learning_rate": 1e-4, "epochs": 3}, "policy": {"lora_r": 4, "learning_rate": 1e-3}}
    assert base == {"critic": {"learning_rate": 1e-4, "epochs": 2}, "policy": {"lora_r": 4}}  # inputs untouched


def test_a_checkpoint_resumes_with_overrides_merged_into_its_nested_config(model_dir, tmp_path):
    """``LMTrainer.load(overrides=...)``: the saved config with the override merged field by field
    (the critic's learning rate changes, its other settings stay), adapters and counters resumed."""
    cfg = SweetRLConfig(policy={"model_name_or_path": model_dir, "lora_r": 4, "lora_alpha": 8},
                        critic={"lora_r": 2, "lora_alpha": 4, "learning_rate": 1e-3, "pairs_per_batch": 3},
                        pairs_per_batch=5, train_policy=False, max_length=512)
    trainer = SweetRL(cfg)
    trainer.update([GOOD, BAD, MID])  # the critic only (train_policy=False)
    trainer.save(tmp_path / "ck")
    meta = json.loads((tmp_path / "ck" / "trainer.json").read_text())
    assert meta["config"]["critic"]["pairs_per_batch"] == 3  # written nested
    loaded = SweetRL.load(tmp_path / "ck", overrides={"critic": {"learning_rate": 5e-4}})
    assert loaded.config == SweetRLConfig(**{**cfg.to_dict(), "critic": {**cfg.to_dict()["critic"],
                                                                        "learning_rate": 5e-4}})
    assert loaded.updates == 1
    assert loaded.trajectory_score(GOOD) == pytest.approx(float(trainer.trajectory_score(GOOD)), abs=1e-5)


def test_every_trainer_config_imports_without_torch():
    """The configs live in torch-free modules (``agents/<method>_config.py``), so a command line or
    the pipeline builds and checks them before any model loads: a fresh interpreter imports every
    one (from its module and from ``colbench.agents``) and builds the pipeline's resolved trainer configs,
    and torch is still not loaded. The trainers use the same classes."""
    import subprocess
    import sys

    code = ("import sys\n"
            "from colbench.agents.rft_config import RFTConfig\n"
            "from colbench.agents.mt_dpo_config import MultiTurnDPOConfig\n"
            "from colbench.agents.ppo_config import PPOConfig\nfrom colbench.agents.grpo_config import GRPOConfig\n"
            "from colbench.agents.sweet_rl_config import CriticConfig, SweetRLConfig\n"
            "from colbench import agents\n"
            "assert (agents.RFTConfig, agents.MultiTurnDPOConfig, agents.PPOConfig, agents.GRPOConfig, agents.SweetRLConfig,"
            " agents.CriticConfig) == (RFTConfig, MultiTurnDPOConfig, PPOConfig, GRPOConfig, SweetRLConfig, CriticConfig)\n"
            "from colbench.pipeline import PRESETS, PipelineConfig, trainer_config\n"
            "cfg = PipelineConfig(**PRESETS['paper'])\n"
            "assert trainer_config(cfg, 'sweet-rl', cfg.policy).critic.learning_rate == 2e-7\n"
            "print(sorted(m for m in ('torch', 'transformers', 'peft', 'colbench.agents.trainer_base') if m in sys.modules))\n")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr[-2000:]
    assert p.stdout.strip() == "[]"
    from colbench.agents.registry import TRAINERS, config_class, trainer_class

    assert {m: trainer_class(m).config_class for m in TRAINERS} == {m: config_class(m) for m in TRAINERS}
    assert (GRPOConfig, MultiTurnDPOConfig, PPOConfig, RFTConfig, SweetRLConfig) == (
        config_class("grpo"), config_class("mt-dpo"), config_class("ppo"), config_class("rft"), config_class("sweet-rl"))
