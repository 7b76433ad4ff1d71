"""The agent's prompt (the paper's agent instructions, in our words) and chat formatting.

The policy sees a chat: a system message with the instructions (the frontend's ``"compact"`` style:
then a worked dialogue as chat turns), a user message with the human's problem, then the dialogue so
far -- each earlier agent turn as an ``assistant`` message holding the agent's raw generation, each
human reply as a ``user`` message. The next ``assistant`` message is the action. Because every
context is a prefix of the next, a whole trajectory is one chat whose ``assistant`` messages after
the problem are exactly the actions (what multi-turn trainers mask in: the completions of the
agent's turns, never the worked example's).
"""
from __future__ import annotations

import json
from typing import Sequence

from .protocol import ANSWER_MARKER, MAX_TURNS, OUTPUT_MARKER
from .records import record_kind

__all__ = ["dialogue_messages", "history_message", "BACKEND_AGENT_INSTRUCTIONS", "FRONTEND_AGENT_INSTRUCTIONS", "COMPACT_BACKEND_AGENT_INSTRUCTIONS",
           "COMPACT_FRONTEND_AGENT_INSTRUCTIONS", "COMPACT_FRONTEND_EXAMPLE", "PROMPT_STYLES", "agent_instructions",
           "format_agent_messages", "observation_to_messages", "record_messages", "trajectory_turns", "AGENT_PROMPT_FIELD",
           "agent_prompt_settings"]

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


# The "compact" style: short instructions around one worked dialogue, for very small policies (the
# embedded SmolLM2-135M follows a worked example far better than the paper's list of rules; it
# copies the example's one-line answer shape). Same protocol: the answer marker ends the episode,
# the last turn is the answer.
COMPACT_BACKEND_AGENT_INSTRUCTIONS = f"""You help a human write a Python function. The human has a personal number or rule in mind that they did not say.
First ask the human one short question to learn it. Then write "{ANSWER_MARKER}" followed by the function in a ```python code block, using exactly the function name and arguments of the signature and the human's exact number. You have at most {{max_turns}} turns; your last turn is taken as your answer.

Example:
Human: I want a function that works out the total price of some tickets at my ticket price. The signature of the function is: def ticket_total(count)
You: What is your ticket price?
Human: Each ticket costs 12 dollars.
You: {ANSWER_MARKER}
```python
def ticket_total(count):
    return count * 12
```"""

# The frontend's "compact" style: two worked dialogues as chat turns after short instructions, each
# on a mini page (colbench_env.generator.frontend's "mini" family: 7 lines, ~150 tokens), so the
# policy copies the question and then the example page, changing what it was told. Measured with
# SmolLM2-135M greedy on 8 held-out mini tasks: with the dialogue inside the system message it wrote
# no page; with one dialogue as chat turns it never asked the example's question and wrote a page on
# 6 of 8 after being given an ideal question; with two, it asked the question 8 of 8 times and wrote
# a page 8 of 8 times. The question is a broad one, which the scripted human answers with the hidden
# facts.
_TAILWIND = "https://cdn.jsdelivr.net/npm/tailwindcss@2.2.19/dist/tailwind.min.css"
COMPACT_FRONTEND_AGENT_INSTRUCTIONS = f"""You help a human make a web page with HTML and Tailwind CSS. The human has a page in mind and said only part of it.
First ask what they did not tell you. Then write "{ANSWER_MARKER}" followed by the whole page: the example's page with the human's name, headline and colours (a green bar is bg-green-500; a dark red welcome section is bg-red-700 text-white). You have at most {{max_turns}} turns; your last turn is taken as your answer."""

_COMPACT_QUESTION = "What do you have in mind that you did not tell me?"


def _mini_page(name: str, accent: str, section: str, headline: str) -> str:
    # the generator's mini page (colbench_env.generator.frontend_templates.mini_page_html), written
    # out here so that the prompt does not change when the generator does (a test compares them)
    return f"""<html>
<head><link href="{_TAILWIND}" rel="stylesheet"></head>
<body>
<nav class="bg-{accent}-500 text-white p-4">{name}</nav>
<section class="{section}"><h1 class="text-4xl font-bold">{headline}</h1></section>
<footer class="bg-{accent}-500 text-white p-4">{name}</footer>
</body></html>"""


#: The worked dialogues of the compact frontend prompt (chat turns between the instructions and the
#: human's request): a hidden headline, then a hidden welcome-section background.
COMPACT_FRONTEND_EXAMPLE = (
    {"role": "user", "content": "I want a landing page for my shop, Blue Door: a blue navigation bar with the name, "
                                "a welcome section with no background colour of its own and a headline in my own "
                                "words, and a blue footer."},
    {"role": "assistant", "content": _COMPACT_QUESTION},
    {"role": "user", "content": 'The main headline says "Open every day".'},
    {"role": "assistant", "content": f"{ANSWER_MARKER} "
                                     + _mini_page("Blue Door", "blue", "p-16 text-center", "Open every day")},
    {"role": "user", "content": "I want a landing page for my cafe, Red Cup: a blue navigation bar with the name, a "
                                "welcome section with a background colour I have in mind and the headline \"Welcome "
                                "to Red Cup\", and a blue footer."},
    {"role": "assistant", "content": _COMPACT_QUESTION},
    {"role": "user", "content": "The welcome section at the top has a dark green background."},
    {"role": "assistant", "content": f"{ANSWER_MARKER} " + _mini_page("Red Cup", "blue", "bg-green-700 text-white p-16 "
                                                                      "text-center", "Welcome to Red Cup")},
)

#: Prompt styles: ``"paper"`` (the paper's instructions; the default, for capable policies) and
#: ``"compact"`` (a worked example; for very small policies such as the embedded SmolLM2-135M).
PROMPT_STYLES = ("paper", "compact")

#: Worked dialogues shown as chat turns before the human's request, by ``(kind, style)``.
_EXAMPLES = {("frontend", "compact"): COMPACT_FRONTEND_EXAMPLE}

_INSTRUCTIONS = {("backend", "paper"): BACKEND_AGENT_INSTRUCTIONS, ("frontend", "paper"): FRONTEND_AGENT_INSTRUCTIONS,
                 ("backend", "compact"): COMPACT_BACKEND_AGENT_INSTRUCTIONS,
                 ("frontend", "compact"): COMPACT_FRONTEND_AGENT_INSTRUCTIONS}


def agent_instructions(kind: str = "backend", max_turns: int = MAX_TURNS, style: str = "paper") -> str:
    """The system instructions for ``kind`` (``"backend"`` / ``"frontend"``) in ``style``
    (:data:`PROMPT_STYLES`)."""
    if kind not in ("backend", "frontend"):
        raise ValueError(f"kind must be 'backend' or 'frontend', got {kind!r}")
    if style not in PROMPT_STYLES:
        raise ValueError(f"prompt style must be one of {PROMPT_STYLES}, got {style!r}")
    return _INSTRUCTIONS[kind, style].replace("{max_turns}", str(max_turns))


def format_agent_messages(problem_description: str, dialogue: Sequence[dict], *, kind: str = "backend",
                          max_turns: int = MAX_TURNS, style: str = "paper") -> list[dict]:
    """The chat the policy sees before its next turn.

    Args:
        problem_description: the human's request.
        dialogue: earlier messages (official ``dialogue_history`` entries). An ``assistant`` entry
            shows the message the human saw, not the thought before ``OUTPUT:``, as the reference's
            agent sees its history (its ``get_dialogue_history`` keeps only ``content``): the text
            after the first ``OUTPUT:`` of the recorded ``output`` up to the next, unstripped, or
            the whole ``output`` without a marker; ``content`` when there is no ``output``.
        style: the instructions' style (:data:`PROMPT_STYLES`); the frontend's ``"compact"`` style
            also puts a worked dialogue (:data:`COMPACT_FRONTEND_EXAMPLE`) between the instructions
            and the request.
    """
    return [{"role": "system", "content": agent_instructions(kind, max_turns, style)},
            *(dict(m) for m in _EXAMPLES.get((kind, style), ())),
            {"role": "user", "content": problem_description}, *dialogue_messages(dialogue)]


def dialogue_messages(dialogue: Sequence[dict]) -> list[dict]:
    """The chat messages of the dialogue so far as the agent sees them (agent turns by
    :func:`history_message`, the human's as they are); the tail of every agent or critic context."""
    msgs = []
    for m in dialogue:
        role = m.get("role")
        if role == "assistant":
            msgs.append({"role": "assistant", "content": history_message(m)})
        elif role == "user":
            msgs.append({"role": "user", "content": m.get("content", "")})
        else:
            raise ValueError(f"dialogue message role must be 'assistant' or 'user', got {role!r}")
    return msgs


def history_message(entry: dict) -> str:
    """What an earlier agent turn shows in the agent's own context: the reference's ``content``,
    the message after the first ``OUTPUT:`` of the generation up to the next one, unstripped (the
    whole generation without a marker). Computed from the recorded ``output`` (this package's
    ``content`` is stripped); an entry without ``output`` (an official record) shows its ``content``."""
    output = entry.get("output")
    if not output:
        return entry.get("content", "")
    return output.split(OUTPUT_MARKER, 2)[1] if OUTPUT_MARKER in output else output


def observation_to_messages(observation: dict, *, kind: str = "backend", max_turns: int = MAX_TURNS,
                            style: str = "paper") -> list[dict]:
    """The chat for an env observation ``{"problem_description", "dialogue" (JSON)}``."""
    try:
        dialogue = json.loads(observation["dialogue"])
        problem = observation["problem_description"]
    except (KeyError, TypeError, json.JSONDecodeError) as e:
        raise ValueError(f"not a ColBench observation (need 'problem_description' and a JSON 'dialogue'): {e}") from None
    return format_agent_messages(problem, dialogue, kind=kind, max_turns=max_turns, style=style)


def record_messages(task_record: dict, dialogue_history: Sequence[dict], *, max_turns: int = MAX_TURNS,
                    style: str = "paper") -> list[dict]:
    """The chat the policy sees before its next turn, from an official task record (its kind by
    :func:`colbench_env.records.record_kind`) and the ``dialogue_history`` so far: the trainers'
    default formatter ``(task_record, dialogue_history) -> messages``."""
    return format_agent_messages(task_record["problem_description"], dialogue_history, kind=record_kind(task_record),
                                 max_turns=max_turns, style=style)


def trajectory_turns(record: dict, *, kind: str | None = None, max_turns: int = MAX_TURNS,
                     style: str = "paper") -> list[tuple[list[dict], str]]:
    """``[(context_messages, action), ...]`` for each agent turn of an official trajectory record."""
    task = record["task"]
    kind = kind or record_kind(task)
    out = []
    dh = record.get("dialogue_history", [])
    for i, m in enumerate(dh):
        if m.get("role") == "assistant":
            ctx = format_agent_messages(task["problem_description"], dh[:i], kind=kind, max_turns=max_turns,
                                        style=style)
            out.append((ctx, m.get("output") or m.get("content", "")))
    return out


#: The trajectory record field holding the settings that shaped the agent's contexts,
#: ``{"kind", "max_turns", "prompt_style"}``: what a trainer must use to rebuild those contexts
#: (``colbench train`` takes them from there by default and refuses other ones).
AGENT_PROMPT_FIELD = "agent_prompt"


def agent_prompt_settings(agent) -> dict | None:
    """``{"kind", "max_turns", "prompt_style"}`` of an agent whose contexts this module builds from
    those settings (it has the three attributes, as :class:`colbench.agents.LMAgent`), else ``None`` (an agent
    with a prompt of its own, or none)."""
    try:
        kind, max_turns, style = agent.kind, agent.max_turns, agent.prompt_style
    except AttributeError:
        return None
    if kind not in ("backend", "frontend") or style not in PROMPT_STYLES or isinstance(max_turns, bool) \
            or not isinstance(max_turns, int):
        return None
    return {"kind": kind, "max_turns": max_turns, "prompt_style": style}
