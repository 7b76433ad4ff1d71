"""The agent's prompt (the paper's agent instructions, in our words) and chat formatting.

The policy sees a chat: a system message with the instructions, a user message with the human's
problem, then the dialogue so far -- each earlier agent turn as an ``assistant`` message holding the
agent's raw generation, each human reply as a ``user`` message. The next ``assistant`` message is the
action. Because every context is a prefix of the next, a whole trajectory is one chat whose
``assistant`` messages are exactly the actions (what multi-turn trainers mask in).
"""
from __future__ import annotations

import json
from typing import Sequence

from colbench_env.protocol import ANSWER_MARKER, OUTPUT_MARKER

__all__ = ["BACKEND_AGENT_INSTRUCTIONS", "FRONTEND_AGENT_INSTRUCTIONS", "agent_instructions",
           "format_agent_messages", "observation_to_messages"]

BACKEND_AGENT_INSTRUCTIONS = f"""You are a helpful LLM agent. You help a human user write a Python function.
The request is personalised: the human has exact rules, numbers and preferences in mind that they did not state.
1) Ask clarification questions to find out these hidden details. Ask one short question per turn; the human answers in at most two sentences and only knows their own requirements.
2) You have at most {{max_turns}} turns. Your last turn is taken as your final answer.
3) When you are ready, write "{ANSWER_MARKER}" followed by the complete Python function in a ```python code block, with exactly the signature given in the request.
You may think first; then write "{OUTPUT_MARKER}" followed by your message to the human.
Example of a question turn:
I do not know the member discount yet. {OUTPUT_MARKER} What discount should members get?
Example of an answer turn:
I know enough now. {OUTPUT_MARKER} {ANSWER_MARKER}
```python
def price(total, member):
    return round(total * 0.9, 2) if member else total
```"""

FRONTEND_AGENT_INSTRUCTIONS = f"""You are a helpful LLM agent. You help a human user design a web page with HTML and Tailwind CSS.
The request is personalised: the human has an exact page in mind (layout, colours, text, images) that they described only vaguely.
1) You may show the human one draft page per turn as a complete HTML document (<html>...</html>) that links Tailwind with <link href="https://cdn.jsdelivr.net/npm/tailwindcss@2.2.19/dist/tailwind.min.css" rel="stylesheet">; the human sees it rendered next to the page they want and tells you the most important differences. You may also ask a short question instead.
2) Use images only as https://picsum.photos/id/48/W/H. You have at most {{max_turns}} turns. Your last turn is taken as your final answer.
3) When you are ready, write "{ANSWER_MARKER}" followed by the complete final HTML document.
You may think first; then write "{OUTPUT_MARKER}" followed by your message to the human.
Example of an answer turn:
The human wants a dark header. {OUTPUT_MARKER} {ANSWER_MARKER} <html><head><link href="https://cdn.jsdelivr.net/npm/tailwindcss@2.2.19/dist/tailwind.min.css" rel="stylesheet"></head><body><header class="bg-gray-800 text-white p-6"><h1 class="text-3xl">My Shop</h1></header></body></html>"""


def agent_instructions(kind: str = "backend", max_turns: int = 10) -> str:
    """The system instructions for ``kind`` (``"backend"`` / ``"frontend"``)."""
    if kind not in ("backend", "frontend"):
        raise ValueError(f"kind must be 'backend' or 'frontend', got {kind!r}")
    text = BACKEND_AGENT_INSTRUCTIONS if kind == "backend" else FRONTEND_AGENT_INSTRUCTIONS
    return text.replace("{max_turns}", str(max_turns))


def format_agent_messages(problem_description: str, dialogue: Sequence[dict], *, kind: str = "backend",
                          max_turns: int = 10) -> list[dict]:
    """The chat the policy sees before its next turn.

    Args:
        problem_description: the human's request.
        dialogue: earlier messages (official ``dialogue_history`` entries): ``assistant`` entries
            use their raw ``output`` when present, else ``content``.
    """
    msgs = [{"role": "system", "content": agent_instructions(kind, max_turns)},
            {"role": "user", "content": problem_description}]
    for m in dialogue:
        role = m.get("role")
        if role == "assistant":
            msgs.append({"role": "assistant", "content": m.get("output") or m.get("content", "")})
        elif role == "user":
            msgs.append({"role": "user", "content": m.get("content", "")})
        else:
            raise ValueError(f"dialogue message role must be 'assistant' or 'user', got {role!r}")
    return msgs


def observation_to_messages(observation: dict, *, kind: str = "backend", max_turns: int = 10) -> list[dict]:
    """The chat for an env observation ``{"problem_description", "dialogue" (JSON)}``."""
    try:
        dialogue = json.loads(observation["dialogue"])
        problem = observation["problem_description"]
    except (KeyError, TypeError, json.JSONDecodeError) as e:
        raise ValueError(f"not a ColBench observation (need 'problem_description' and a JSON 'dialogue'): {e}") from None
    return format_agent_messages(problem, dialogue, kind=kind, max_turns=max_turns)


def trajectory_turns(record: dict, *, kind: str | None = None, max_turns: int = 10) -> list[tuple[list[dict], str]]:
    """``[(context_messages, action), ...]`` for each agent turn of an official trajectory record."""
    task = record["task"]
    kind = kind or ("backend" if "test_cases" in task else "frontend")
    out = []
    dh = record.get("dialogue_history", [])
    for i, m in enumerate(dh):
        if m.get("role") == "assistant":
            ctx = format_agent_messages(task["problem_description"], dh[:i], kind=kind, max_turns=max_turns)
            out.append((ctx, m.get("output") or m.get("content", "")))
    return out


__all__.append("trajectory_turns")
