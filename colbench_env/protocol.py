"""The turn protocol of ColBench, as in the paper's reference implementation.

* An agent generation may carry a thought before ``OUTPUT:``; what follows the last ``OUTPUT:`` is
  the message the human sees (the whole generation when there is no marker).
* A message containing ``I WANT TO ANSWER:`` ends the episode; what follows the marker is the answer.
* On the last allowed turn the message is taken as the answer whatever it says.
* Backend answers: the code inside the first ```` ```python ```` fence (else the first plain
  fence, else the whole answer). Frontend answers: ``<html>…</html>``, else ``<body>…</body>``,
  with picsum.photos image URLs normalised to image id 48.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

OUTPUT_MARKER = "OUTPUT:"
ANSWER_MARKER = "I WANT TO ANSWER:"
#: Agent turns per episode in ColBench; the last one is taken as the answer. Every ``max_turns``
#: default in the package is this constant.
MAX_TURNS = 10

__all__ = ["OUTPUT_MARKER", "ANSWER_MARKER", "MAX_TURNS", "AgentTurn", "parse_agent_turn", "extract_code", "extract_html",
           "normalize_picsum"]


@dataclass(frozen=True)
class AgentTurn:
    """One parsed agent generation.

    Attributes:
        raw: the generation as produced (thought included).
        message: what the human sees (after ``OUTPUT:``).
        is_answer: whether this turn ends the episode with an answer.
        answer: the answer text (after ``I WANT TO ANSWER:``, or the whole message on a forced
            last turn); ``None`` when the turn is a question.
    """

    raw: str
    message: str
    is_answer: bool
    answer: str | None


def parse_agent_turn(raw: str, *, last_turn: bool = False) -> AgentTurn:
    """Split a generation into message and answer (see the module docstring)."""
    if not isinstance(raw, str):
        raise TypeError(f"an agent action must be a str, got {type(raw).__name__}")
    message = raw.rsplit(OUTPUT_MARKER, 1)[1] if OUTPUT_MARKER in raw else raw
    message = message.strip()
    if ANSWER_MARKER in message:
        return AgentTurn(raw, message, True, message.rsplit(ANSWER_MARKER, 1)[1].strip())
    if last_turn:
        return AgentTurn(raw, message, True, message)
    return AgentTurn(raw, message, False, None)


_FENCE_PY = re.compile(r"```[ \t]*(?:python|py|python3)[ \t]*\n(.*?)(?:```|\Z)", re.S | re.I)
_FENCE_ANY = re.compile(r"```[^\n`]*\n(.*?)(?:```|\Z)", re.S)


def extract_code(answer: str | None) -> str:
    """The Python code of a backend answer ('' for ``None``)."""
    if not answer:
        return ""
    if ANSWER_MARKER in answer:
        answer = answer.rsplit(ANSWER_MARKER, 1)[1]
    m = _FENCE_PY.search(answer) or _FENCE_ANY.search(answer)
    code = m.group(1) if m else answer
    return code.strip("\n")


_PICSUM = re.compile(r"https?://picsum\.photos/(?:id/\d+/)?(\d+)(?:/(\d+))?")


def normalize_picsum(html: str) -> str:
    """Rewrite every picsum.photos image URL to image id 48 at the same size (as the reference)."""
    def sub(m: re.Match) -> str:
        w, h = m.group(1), m.group(2) or m.group(1)
        return f"https://picsum.photos/id/48/{w}/{h}"
    return _PICSUM.sub(sub, html)


def extract_html(answer: str | None) -> str:
    """The HTML of a frontend answer: ``<html>…</html>``, else ``<body>…</body>``, else ''."""
    if not answer:
        return ""
    if ANSWER_MARKER in answer:
        answer = answer.rsplit(ANSWER_MARKER, 1)[1]
    m = re.search(r"<html\b.*?</html\s*>", answer, re.S | re.I)
    if m is None:
        m = re.search(r"<body\b.*?</body\s*>", answer, re.S | re.I)
    return normalize_picsum(m.group(0)) if m else ""
