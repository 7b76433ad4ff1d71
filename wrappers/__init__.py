"""Gymnasium wrappers for ColBench: hidden-information access and trajectory recording (both forward
the phased step, so they work in batched rollouts too). The agent prompt is in
:mod:`colbench_env.prompting`."""
from .hidden_info import HiddenInfoWrapper
from .recorder import TrajectoryRecorder, completed_episode_ids, latest_records

__all__ = ["HiddenInfoWrapper", "TrajectoryRecorder", "completed_episode_ids", "latest_records"]
