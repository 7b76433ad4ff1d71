"""The SWEET-RL pipeline (``colbench pipeline``): rollouts -> RFT / multi-turn DPO / PPO / GRPO /
SWEET-RL -> held-out evaluation -> report, with bootstrap statistics over tasks and seeds.

By job, with no import circle (each imports only those before it):

* :mod:`.config` -- :class:`PipelineConfig` (backend or frontend, ``env``), the ``--small`` /
  ``--paper`` :data:`PRESETS` (:func:`preset_settings`: with the frontend's over them),
  :data:`PAPER_SETTINGS` (each reference value with its source) and :func:`trainer_config`;
* :mod:`.stages` -- the run's tasks and base policy, :func:`run_stage_episodes` (the policy's
  episodes into a resumed file, :func:`colbench.runs.run_policy_episodes`), :func:`train_method` and
  the stage markers (:func:`training_outcome`);
* :mod:`.resume` -- what a resumed out-dir may not change (:func:`check_resume`,
  :func:`check_sampled_files`);
* :mod:`.analysis` -- the evaluation files -> ``stats.{json,md,png}`` (:func:`analyse_runs`), with
  the bootstrap over tasks and seeds of :mod:`colbench.stats`;
* :mod:`.run` -- :func:`run_pipeline`: every stage of every seed, and the report.

The command lines are :mod:`colbench.cli.pipeline` (``colbench pipeline``) and
:mod:`colbench.cli.pipeline_stats` (``colbench pipeline-stats``).
"""
from .analysis import analyse_runs
from .config import (ENVS, FRONTEND_PRESETS, METHODS, PAPER_SETTINGS, PRESETS, PipelineConfig,
                     paper_settings_table, preset_settings, resolve_setting, trainer_config)
from .resume import changed_fields, check_resume, check_sampled_files, read_json_object
from .run import run_pipeline
from .stages import (base_policy, episodes_in_file, finished_methods, run_stage_episodes, task_split, train_method,
                     training_outcome)

__all__ = ["ENVS", "FRONTEND_PRESETS", "METHODS", "PAPER_SETTINGS", "PRESETS",
           "PipelineConfig", "preset_settings", "paper_settings_table", "resolve_setting", "trainer_config",
           "base_policy", "episodes_in_file", "finished_methods", "run_stage_episodes", "task_split", "train_method",
           "training_outcome", "changed_fields", "check_resume", "check_sampled_files", "read_json_object",
           "run_pipeline", "analyse_runs"]
