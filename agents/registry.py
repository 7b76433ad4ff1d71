"""The training algorithms by name: the one map behind ``colbench train`` and the pipeline."""
from __future__ import annotations

import importlib

__all__ = ["TRAINERS", "trainer_class"]

#: method name -> (module, class)
TRAINERS: dict[str, tuple[str, str]] = {
    "rft": ("agents.rft", "RejectionFineTuning"),
    "mt-dpo": ("agents.mt_dpo", "MultiTurnDPO"),
    "ppo": ("agents.ppo", "PPO"),
    "sweet-rl": ("agents.sweet_rl", "SweetRL"),
}


def trainer_class(name: str):
    """The trainer class of method ``name`` (a key of :data:`TRAINERS`)."""
    if name not in TRAINERS:
        raise ValueError(f"unknown training method {name!r}; choose from {', '.join(TRAINERS)}")
    module, cls = TRAINERS[name]
    return getattr(importlib.import_module(module), cls)
