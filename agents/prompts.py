"""The agent's prompts (defined once in :mod:`colbench_env.prompting`, re-exported for agents/trainers)."""
from colbench_env.protocol import MAX_TURNS
from colbench_env.records import record_kind
from colbench_env.prompting import (  # noqa: F401
    BACKEND_AGENT_INSTRUCTIONS,
    FRONTEND_AGENT_INSTRUCTIONS,
    PROMPT_STYLES,
    agent_instructions,
    format_agent_messages as _format_agent_messages,
    observation_to_messages,
    trajectory_turns,
)

__all__ = ["BACKEND_AGENT_INSTRUCTIONS", "FRONTEND_AGENT_INSTRUCTIONS", "PROMPT_STYLES", "agent_instructions", "format_agent_messages",
           "format_agent_prompt", "observation_to_messages", "trajectory_turns"]


def format_agent_messages(task_record: dict, dialogue_history: list, *, max_turns: int = MAX_TURNS,
                          style: str = "paper") -> list[dict]:
    """The chat the policy sees before its next turn, from an official task record and the
    ``dialogue_history`` so far (``style``: :data:`PROMPT_STYLES`)."""
    kind = record_kind(task_record)
    return _format_agent_messages(task_record["problem_description"], dialogue_history, kind=kind,
                                  max_turns=max_turns, style=style)


def format_agent_prompt(observation: dict, *, kind: str = "backend", max_turns: int = MAX_TURNS,
                        style: str = "paper") -> list[dict]:
    """The chat for an env observation."""
    return observation_to_messages(observation, kind=kind, max_turns=max_turns, style=style)
