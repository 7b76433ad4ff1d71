"""Gymnasium wrappers for ColBench: hidden-information access, trajectory recording, prompting."""
from .hidden_info import HiddenInfoWrapper
from .prompting import agent_instructions, format_agent_messages, observation_to_messages, trajectory_turns
from .recorder import TrajectoryRecorder, completed_episode_ids, latest_records

__all__ = ["HiddenInfoWrapper", "TrajectoryRecorder", "completed_episode_ids", "latest_records", "agent_instructions",
           "format_agent_messages", "observation_to_messages", "trajectory_turns"]
