"""The training algorithms by name: the one map behind ``colbench train`` and the pipeline.

:func:`config_class` gives a method's config without importing its trainer (no torch).
"""
from __future__ import annotations

import importlib

__all__ = ["CONFIGS", "TRAINERS", "config_class", "trainer_class"]

#: method name -> (module, class)
TRAINERS: dict[str, tuple[str, str]] = {
    "rft": ("colbench.agents.rft", "RejectionFineTuning"),
    "mt-dpo": ("colbench.agents.mt_dpo", "MultiTurnDPO"),
    "ppo": ("colbench.agents.ppo", "PPO"),
    "grpo": ("colbench.agents.grpo", "GRPO"),
    "sweet-rl": ("colbench.agents.sweet_rl", "SweetRL"),
}
#: method name -> its config class, in the trainer module's torch-free twin ``<module>_config``
CONFIGS: dict[str, str] = {"rft": "RFTConfig", "mt-dpo": "MultiTurnDPOConfig", "ppo": "PPOConfig", "grpo": "GRPOConfig",
                           "sweet-rl": "SweetRLConfig"}


def trainer_class(name: str):
    """The trainer class of method ``name`` (a key of :data:`TRAINERS`)."""
    if name not in TRAINERS:
        raise ValueError(f"unknown training method {name!r}; choose from {', '.join(TRAINERS)}")
    module, cls = TRAINERS[name]
    return getattr(importlib.import_module(module), cls)


def config_class(name: str):
    """The config class of method ``name`` (a key of :data:`TRAINERS`), imported without its trainer."""
    if name not in CONFIGS:
        raise ValueError(f"unknown training method {name!r}; choose from {', '.join(TRAINERS)}")
    return getattr(importlib.import_module(TRAINERS[name][0] + "_config"), CONFIGS[name])
