"""Agents and trainers: zero-shot LM agents, rejection fine-tuning, multi-turn DPO, PPO, GRPO, SWEET-RL.

Names are imported lazily so that ``import agents`` stays light (no torch until a trainer is used).
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
    "RFTConfig": "agents.rft",
    "MultiTurnDPO": "agents.mt_dpo",
    "MultiTurnDPOConfig": "agents.mt_dpo",
    "PPO": "agents.ppo",
    "PPOConfig": "agents.ppo",
    "SweetRL": "agents.sweet_rl",
    "SweetRLConfig": "agents.sweet_rl",
    "GRPO": "agents.grpo",
    "GRPOConfig": "agents.grpo",
    "CriticConfig": "agents.sweet_rl",
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
