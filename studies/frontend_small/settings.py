"""What this study ran over ``colbench pipeline --small --env ColBench-Frontend-v0``: its seeds' settings
from before the preset was cut to the 1 h budget, 12 training tasks x 4 rollouts, two epochs of every
trainer. On the command line: ``--n-train-tasks 12 --rollouts-per-task 4 --trainer-overrides`` with
the JSON of ``trainer_overrides`` (README, "Commands"); ``tests/test_study_frontend_pages.py`` checks
that it resolves to the committed seeds' ``config.json``."""
from __future__ import annotations

from typing import Any

__all__ = ["STUDY_SETTINGS"]

STUDY_SETTINGS: dict[str, Any] = {
    "n_train_tasks": 12, "rollouts_per_task": 4,
    "trainer_overrides": {"rft": {"epochs": 2}, "mt-dpo": {"epochs": 2},
                          "sweet-rl": {"epochs": 2, "critic": {"epochs": 2}}}}
