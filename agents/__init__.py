"""Agents and trainers: zero-shot LM agents, rejection fine-tuning, multi-turn DPO, PPO, GRPO, SWEET-RL.

Names are imported lazily so that ``import colbench.agents`` stays light (no torch until a trainer is used);
the configs (``RFTConfig``, ...) come from their torch-free ``*_config`` modules.
"""
from __future__ import annotations

import importlib

_EXPORTS = {
    "Agent": ".base",
    "CallableAgent": ".base",
    "ScriptedAgent": ".base",
    "LMAgent": ".base",
    "as_agent": ".base",
    "RejectionFineTuning": ".rft",
    "RFTConfig": ".rft_config",
    "MultiTurnDPO": ".mt_dpo",
    "MultiTurnDPOConfig": ".mt_dpo_config",
    "PPO": ".ppo",
    "PPOConfig": ".ppo_config",
    "SweetRL": ".sweet_rl",
    "SweetRLConfig": ".sweet_rl_config",
    "GRPO": ".grpo",
    "GRPOConfig": ".grpo_config",
    "CriticConfig": ".sweet_rl_config",
    "ModelConfig": ".config",
    "ConfigError": ".config",
    "config_from_dict": ".config",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    if name in _EXPORTS:
        return getattr(importlib.import_module(_EXPORTS[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return __all__
