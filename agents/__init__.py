"""Agents and trainers: zero-shot LM agents, rejection fine-tuning, multi-turn DPO, PPO, GRPO, SWEET-RL.

Names are imported lazily so that ``import agents`` stays light (no torch until a trainer is used);
the configs (``RFTConfig``, ...) come from their torch-free ``*_config`` modules.
"""
from __future__ import annotations

import importlib

_EXPORTS = {
    "Agent": "agents.base",
    "CallableAgent": "agents.base",
    "ScriptedAgent": "agents.base",
    "LMAgent": "agents.base",
    "as_agent": "agents.base",
    "RejectionFineTuning": "agents.rft",
    "RFTConfig": "agents.rft_config",
    "MultiTurnDPO": "agents.mt_dpo",
    "MultiTurnDPOConfig": "agents.mt_dpo_config",
    "PPO": "agents.ppo",
    "PPOConfig": "agents.ppo_config",
    "SweetRL": "agents.sweet_rl",
    "SweetRLConfig": "agents.sweet_rl_config",
    "GRPO": "agents.grpo",
    "GRPOConfig": "agents.grpo_config",
    "CriticConfig": "agents.sweet_rl_config",
    "ModelConfig": "agents.config",
    "ConfigError": "agents.config",
    "config_from_dict": "agents.config",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    if name in _EXPORTS:
        return getattr(importlib.import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'agents' has no attribute {name!r}")


def __dir__():
    return __all__
