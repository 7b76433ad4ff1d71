"""The SWEET-RL pipeline (``colbench pipeline``): rollouts -> RFT / multi-turn DPO / PPO / GRPO /
SWEET-RL -> held-out evaluation -> report, with bootstrap statistics over tasks and seeds."""
from .analysis import analyse_runs
from .run import (PAPER_SETTINGS, PRESETS, PipelineConfig, base_policy, paper_settings_table, run_pipeline,
                  task_split, trainer_config)
from .stats import Comparison, Interval, bootstrap_mean, paired_bootstrap

__all__ = ["PAPER_SETTINGS", "PRESETS", "PipelineConfig", "analyse_runs", "base_policy", "paper_settings_table",
           "run_pipeline", "task_split", "trainer_config", "Comparison", "Interval", "bootstrap_mean",
           "paired_bootstrap"]
