"""The simulated human's prompts (the paper's human-simulator instructions, reworded).

Backend programming: the human knows the hidden information (usually the ground-truth function)
and answers only from it, in at most two sentences. Frontend design: the human sees the agent's
rendered page and the target page and describes the most outstanding differences.

Each prompt is one user message; the backend human's request also opens with the generic system line
:data:`BACKEND_HUMAN_SYSTEM`, as the reference's backend simulator request does (its frontend request
has none). Bump :data:`PROMPT_VERSION` whenever a prompt's wording or the request's shape changes: it
is part of the simulator's config and so of every record/replay cache key.
"""
from __future__ import annotations

import hashlib
from typing import Sequence

__all__ = ["PROMPT_VERSION", "BACKEND_HUMAN_SYSTEM", "BACKEND_HUMAN_PROMPT", "FRONTEND_HUMAN_PROMPT", "FRONTEND_NO_PAGE_PROMPT",
           "format_dialogue", "backend_prompt", "frontend_prompt", "prompt_sha256"]

PROMPT_VERSION = "colbench-human-v2"  # v2: the backend request's system line

#: The system message of the backend human's request (the stock assistant line the reference sends).
BACKEND_HUMAN_SYSTEM = "You are a helpful assistant."

BACKEND_HUMAN_PROMPT = """\
You are playing the part of a human user who wants an LLM agent to help with this problem:
{problem_description}

Take part in the conversation so that the agent can reach the answer that is personalised to you.
You hold the following hidden information, which the agent cannot see; use it to answer the agent:
{hidden_information}

Behave like a real person who needs help, not like an assistant.
Use ONLY facts that appear in the hidden information. If the agent asks about something the hidden \
information does not cover, say that you do not know.

The dialogue so far:
{dialogue}

Now write your reply to the agent directly, in at most two sentences."""

FRONTEND_HUMAN_PROMPT = """\
You are playing the part of a human user who wants an LLM agent to build a web page. You described \
it like this:
{problem_description}

The first image is the page the agent has made. The second image is the page you actually want.
As that human, describe to the agent the most outstanding differences between its page and the page \
you want (layout, colours, text, images, sizes, positions), so that it can get closer. Be concrete \
and brief, do not write code, and do not mention that you are looking at an image of the target.

The dialogue so far:
{dialogue}

Now write your reply to the agent directly."""

FRONTEND_NO_PAGE_PROMPT = """\
You are playing the part of a human user who wants an LLM agent to build a web page. You described \
it like this:
{problem_description}

The agent has not shown you any page in its last message, so you have nothing to compare. The image \
is the page you actually want.
As that human, tell the agent that you did not see any page from it, and describe briefly the most \
outstanding features of the page you want. Do not write code, and do not mention that you are \
looking at an image of the target.

The dialogue so far:
{dialogue}

Now write your reply to the agent directly."""

_SPEAKERS = {"assistant": "agent", "user": "human"}


def format_dialogue(dialogue: Sequence[dict]) -> str:
    """The dialogue as ``agent: ...`` / ``human: ...`` lines (``"(empty)"`` when there is none).

    Raises:
        ValueError: a message is not a ``{"role", "content"}`` dict with a known role.
    """
    lines = []
    for i, msg in enumerate(dialogue):
        if not isinstance(msg, dict) or not isinstance(msg.get("content"), str):
            raise ValueError(f"dialogue message {i}: expected {{'role': ..., 'content': str}}, got {msg!r:.200}")
        role = msg.get("role")
        if role not in _SPEAKERS:
            raise ValueError(f"dialogue message {i}: role must be 'assistant' (agent) or 'user' (human), got {role!r}")
        lines.append(f"{_SPEAKERS[role]}: {msg['content']}")
    return "\n".join(lines) if lines else "(empty)"


def backend_prompt(problem_description: str, hidden_information: str, dialogue: Sequence[dict]) -> str:
    """The backend-programming human's prompt."""
    return BACKEND_HUMAN_PROMPT.format(problem_description=problem_description,
                                      hidden_information=hidden_information, dialogue=format_dialogue(dialogue))


def frontend_prompt(problem_description: str, dialogue: Sequence[dict], *, agent_page_shown: bool) -> str:
    """The frontend-design human's prompt (text part; the images go alongside)."""
    template = FRONTEND_HUMAN_PROMPT if agent_page_shown else FRONTEND_NO_PAGE_PROMPT
    return template.format(problem_description=problem_description, dialogue=format_dialogue(dialogue))


def prompt_sha256(kind: str) -> str:
    """sha256 (hex) of the prompt templates the ``kind`` (``"backend"`` / ``"frontend"``) human is sent:
    the backend's system line and prompt, the frontend's two prompts (joined by NUL characters). It
    names the prompt on every record (:mod:`colbench_env.simulators.identity`): two humans whose
    hashes differ were not asked the same way."""
    parts = {"backend": (BACKEND_HUMAN_SYSTEM, BACKEND_HUMAN_PROMPT),
             "frontend": (FRONTEND_HUMAN_PROMPT, FRONTEND_NO_PAGE_PROMPT)}
    if kind not in parts:
        raise ValueError(f"kind must be 'backend' or 'frontend', got {kind!r}")
    return hashlib.sha256("\0".join(parts[kind]).encode("utf-8")).hexdigest()
