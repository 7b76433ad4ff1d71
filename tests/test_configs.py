"""Trainer configs: nested model settings (``policy``, ``critic``), each per-batch count named for
what it counts, and the documented old keys (flat ``lora_r``, ``critic_*``, ``batch_size``) that old
configs and checkpoints still carry."""
from __future__ import annotations

import json

import pytest
from samples import BAD, GOOD, MID

from agents.config import ConfigError, ModelConfig, config_from_dict, merge_config_dicts
from agents.grpo import GRPOConfig
from agents.mt_dpo import MultiTurnDPOConfig
from agents.ppo import PPOConfig
from agents.rft import RFTConfig
from agents.sweet_rl import CriticConfig, SweetRL, SweetRLConfig

#: a SweetRLConfig as it was written before the nested configs (every old key, non-default values)
OLD_SWEET = {"model": "/m", "lora_r": 8, "lora_alpha": 16, "lora_dropout": 0.1, "lora_target_modules": ["q_proj"],
             "load_in_4bit": False, "compute_dtype": "bfloat16", "full_finetune": False, "learning_rate": 1e-4,
             "batch_size": 3, "epochs": 2, "critic_model": "/c", "critic_load_in_4bit": True, "critic_lora_r": 4,
             "critic_lora_alpha": 8, "critic_learning_rate": 3e-4, "critic_epochs": 5, "critic_batch_size": 7,
             "critic_full_finetune": False, "critic_max_length": 1024, "beta": 0.5}


def test_old_flat_keys_are_aliases_of_the_nested_fields():
    new = SweetRLConfig(
        policy=ModelConfig(model_name_or_path="/m", lora_r=8, lora_alpha=16, lora_dropout=0.1,
                           lora_target_modules=["q_proj"], compute_dtype="bfloat16", learning_rate=1e-4),
        critic=CriticConfig(model_name_or_path="/c", load_in_4bit=True, lora_r=4, lora_alpha=8, learning_rate=3e-4,
                            epochs=5, pairs_per_batch=7, max_length=1024,
                            # the old lora_dropout / lora_target_modules / compute_dtype were shared
                            lora_dropout=0.1, lora_target_modules=["q_proj"], compute_dtype="bfloat16"),
        pairs_per_batch=3, epochs=2, beta=0.5)
    assert config_from_dict(SweetRLConfig, OLD_SWEET) == new
    assert SweetRLConfig(**OLD_SWEET) == new  # the constructor takes them too (old call sites)
    # a shared old key never overrides a model's own setting
    c = config_from_dict(SweetRLConfig, {"compute_dtype": "bfloat16", "critic": {"compute_dtype": "float16"}})
    assert (c.policy.compute_dtype, c.critic.compute_dtype) == ("bfloat16", "float16")


def test_batch_size_maps_to_each_trainers_own_count_only():
    expected = {RFTConfig: "sequences_per_batch", MultiTurnDPOConfig: "pairs_per_batch",
                PPOConfig: "trajectories_per_batch", GRPOConfig: "sequences_per_batch",
                SweetRLConfig: "pairs_per_batch"}
    for cls, name in expected.items():
        c = config_from_dict(cls, {"batch_size": 5})
        assert getattr(c, name) == 5, cls.__name__
        assert not hasattr(c, "batch_size")
    assert config_from_dict(SweetRLConfig, {"batch_size": 5}).critic.pairs_per_batch == 2  # the critic's default
    # the critic's old key exists for SWEET-RL only: elsewhere it is an unknown field
    with pytest.raises(ConfigError, match=r"unknown field\(s\) \['critic_batch_size'\] for RFTConfig"):
        config_from_dict(RFTConfig, {"critic_batch_size": 2})
    with pytest.raises(ConfigError, match=r"unknown field\(s\) \['critic'\] for PPOConfig"):
        config_from_dict(PPOConfig, {"critic": {"learning_rate": 1e-4}})


def test_errors_name_the_field():
    with pytest.raises(ConfigError, match=r"<x>: unknown field\(s\) \['critic.lr'\] for SweetRLConfig"):
        config_from_dict(SweetRLConfig, {"critic": {"lr": 1e-4}}, source="<x>")
    with pytest.raises(ConfigError, match="<x>: field 'critic.learning_rate': must be > 0"):
        config_from_dict(SweetRLConfig, {"critic_learning_rate": 0}, source="<x>")
    with pytest.raises(ConfigError, match="field 'lora_r' is the old name of 'policy.lora_r'; give one of them"):
        config_from_dict(RFTConfig, {"lora_r": 4, "policy": {"lora_r": 8}})
    with pytest.raises(ConfigError, match="field 'batch_size' is the old name of 'pairs_per_batch'"):
        config_from_dict(MultiTurnDPOConfig, {"batch_size": 4, "pairs_per_batch": 2})
    with pytest.raises(ConfigError, match="field 'critic': must be a CriticConfig or a JSON object, got int"):
        config_from_dict(SweetRLConfig, {"critic": 3})
    with pytest.raises(ConfigError, match="field 'critic.full_finetune': cannot fully fine-tune a 4-bit base"):
        SweetRLConfig(critic={"full_finetune": True, "load_in_4bit": True})
    # PPO and GRPO have no epochs: the 1 that every old config carried is dropped, anything else refused
    assert config_from_dict(GRPOConfig, {"epochs": 1}) == GRPOConfig()
    with pytest.raises(ConfigError, match="field 'epochs': GRPO has no 'epochs'.*'update_epochs', got 3"):
        config_from_dict(GRPOConfig, {"epochs": 3})
    assert not hasattr(PPOConfig(), "epochs")


def test_merge_is_field_by_field_in_nested_configs():
    base = {"critic": {"learning_rate": 1e-4, "epochs": 2}, "lora_r": 4}
    merged = merge_config_dicts(SweetRLConfig, base, {"critic_epochs": 3, "policy": {"learning_rate": 1e-3}})
    assert merged == {"critic": {"learning_rate": 1e-4, "epochs": 3}, "policy": {"lora_r": 4, "learning_rate": 1e-3}}
    assert base == {"critic": {"learning_rate": 1e-4, "epochs": 2}, "lora_r": 4}  # inputs untouched


def test_checkpoint_written_before_the_nested_configs_loads(model_dir, tmp_path):
    """A trainer.json in the old flat format (hand-written: critic_*, lora_r, batch_size) resumes
    with the same settings, adapters and counters."""
    cfg = SweetRLConfig(policy={"model_name_or_path": model_dir, "lora_r": 4, "lora_alpha": 8},
                        critic={"lora_r": 2, "lora_alpha": 4, "learning_rate": 1e-3, "pairs_per_batch": 3},
                        pairs_per_batch=5, train_policy=False, max_length=512)
    trainer = SweetRL(cfg)
    trainer.update([GOOD, BAD, MID])  # the critic only (train_policy=False)
    trainer.save(tmp_path / "ck")
    meta = json.loads((tmp_path / "ck" / "trainer.json").read_text())
    assert meta["config"]["critic"]["pairs_per_batch"] == 3  # written nested now
    old = {k: v for k, v in meta["config"].items() if k not in ("policy", "critic")}
    old.update(model=model_dir, lora_r=4, lora_alpha=8, lora_dropout=0.0, lora_target_modules="all-linear",
               load_in_4bit=False, compute_dtype="float32", full_finetune=False, learning_rate=2e-5,
               critic_model=None, critic_load_in_4bit=False, critic_lora_r=2, critic_lora_alpha=4,
               critic_learning_rate=1e-3, critic_epochs=1, critic_batch_size=3, critic_full_finetune=False,
               critic_max_length=None, batch_size=5)
    del old["pairs_per_batch"]
    meta["config"] = old
    (tmp_path / "ck" / "trainer.json").write_text(json.dumps(meta))
    loaded = SweetRL.load(tmp_path / "ck", overrides={"critic": {"learning_rate": 5e-4}})
    assert loaded.config == SweetRLConfig(**{**cfg.to_dict(), "critic": {**cfg.to_dict()["critic"],
                                                                        "learning_rate": 5e-4}})
    assert loaded.updates == 1
    assert loaded.trajectory_score(GOOD) == pytest.approx(float(trainer.trajectory_score(GOOD)), abs=1e-5)


def test_every_trainer_config_imports_without_torch():
    """The configs live in torch-free modules (``agents/<method>_config.py``), so a command line or
    the pipeline builds and checks them before any model loads: a fresh interpreter imports every
    one (from its module and from ``agents``) and builds the pipeline's resolved trainer configs,
    and torch is still not loaded. The trainers use the same classes."""
    import subprocess
    import sys

    code = ("import sys\n"
            "from agents.rft_config import RFTConfig\nfrom agents.mt_dpo_config import MultiTurnDPOConfig\n"
            "from agents.ppo_config import PPOConfig\nfrom agents.grpo_config import GRPOConfig\n"
            "from agents.sweet_rl_config import CriticConfig, SweetRLConfig\n"
            "import agents\n"
            "assert (agents.RFTConfig, agents.MultiTurnDPOConfig, agents.PPOConfig, agents.GRPOConfig, agents.SweetRLConfig,"
            " agents.CriticConfig) == (RFTConfig, MultiTurnDPOConfig, PPOConfig, GRPOConfig, SweetRLConfig, CriticConfig)\n"
            "from colbench.pipeline import PRESETS, PipelineConfig, trainer_config\n"
            "cfg = PipelineConfig(**PRESETS['paper'])\n"
            "assert trainer_config(cfg, 'sweet-rl', cfg.policy).critic.learning_rate == 2e-7\n"
            "print(sorted(m for m in ('torch', 'transformers', 'peft', 'agents.trainer_base') if m in sys.modules))\n")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr[-2000:]
    assert p.stdout.strip() == "[]"
    from agents.registry import TRAINERS, config_class, trainer_class

    assert {m: trainer_class(m).config_class for m in TRAINERS} == {m: config_class(m) for m in TRAINERS}
    assert (GRPOConfig, MultiTurnDPOConfig, PPOConfig, RFTConfig, SweetRLConfig) == (
        config_class("grpo"), config_class("mt-dpo"), config_class("ppo"), config_class("rft"), config_class("sweet-rl"))
