"""The turn protocol of ColBench, as in the paper's reference implementation.

* An agent generation may carry a thought before ``OUTPUT:``; the message the human sees is what
  lies between the *first* ``OUTPUT:`` and the next one (the whole generation when there is no
  marker). A second ``OUTPUT:`` and everything after it are dropped, from the message and from the
  generation the trajectory records (:attr:`AgentTurn.output`).
* A message containing ``I WANT TO ANSWER:`` ends the episode; the answer is what lies between the
  *first* ``I WANT TO ANSWER:`` and the next one (not stripped: the reference scorer sees it as is).
  Text before the marker is not part of a backend answer.
* On the last allowed turn the message is taken as the answer whatever it says.
* Backend answers: under the reference semantics the scorer's own fence rule
  (:func:`colbench_env.evaluation.reference.reference_code`); under ``semantics="python"``
  :func:`extract_code`. Frontend answers: the first ``<html>…</html>`` of the final message (the
  whole message, text before the marker included), else its first ``<body>…</body>``, else the last
  page the agent showed in an earlier turn (see :class:`colbench_env.scoring.FrontendScorer`), with
  picsum.photos image URLs normalised to image id 48.
"""
from __future__ import annotations

import re
import textwrap
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
        message: what the human sees (between the first and second ``OUTPUT:``), stripped.
        is_answer: whether this turn ends the episode with an answer.
        answer: the answer text (between the first and second ``I WANT TO ANSWER:`` of the
            unstripped message, or the whole unstripped message on a forced last turn), not
            stripped; ``None`` when the turn is a question.
        output: ``raw`` cut before its second ``OUTPUT:`` (``raw`` when it has fewer than two): what
            the trajectory records as the agent's action, as in the reference.
    """

    raw: str
    message: str
    is_answer: bool
    answer: str | None
    output: str


def _first_segment(text: str, marker: str) -> str:
    """What lies between the first ``marker`` in ``text`` and the next one (or the end)."""
    return text.split(marker, 2)[1]


def parse_agent_turn(raw: str, *, last_turn: bool = False) -> AgentTurn:
    """Split a generation into message and answer (see the module docstring)."""
    if not isinstance(raw, str):
        raise TypeError(f"an agent action must be a str, got {type(raw).__name__}")
    if OUTPUT_MARKER in raw:
        body = _first_segment(raw, OUTPUT_MARKER)
        output = raw[: raw.index(OUTPUT_MARKER) + len(OUTPUT_MARKER) + len(body)]
    else:
        body, output = raw, raw
    message = body.strip()
    if ANSWER_MARKER in body:
        return AgentTurn(raw, message, True, _first_segment(body, ANSWER_MARKER), output)
    if last_turn:
        return AgentTurn(raw, message, True, body, output)
    return AgentTurn(raw, message, False, None, output)


_FENCE_PY = re.compile(r"```[ \t]*(?:python|py|python3)[ \t]*\n(.*?)(?:```|\Z)", re.S | re.I)
_FENCE_ANY = re.compile(r"```[^\n`]*\n(.*?)(?:```|\Z)", re.S)


def extract_code(answer: str | None) -> str:
    """The Python code of a backend answer under ``semantics="python"`` ('' for ``None``).

    The answer part is the reference's (text after the first ``I WANT TO ANSWER:`` up to the next
    one, when the text still has the marker). The fence rule is deliberately more tolerant than the
    reference scorer's (:func:`colbench_env.evaluation.reference.reference_code`, the default
    semantics): the first ```` ```python ````/```` ```py ````/```` ```python3 ```` fence, else the first
    fence of any language, with the language tag dropped (the reference leaves ``py`` or ``3`` as the
    code's first line), else the whole answer; an unclosed fence runs to the end. The code is then
    dedented and stripped (the reference runs it as is: ``I WANT TO ANSWER: def f(): ...`` is an
    ``IndentationError`` there).
    """
    if not answer:
        return ""
    if ANSWER_MARKER in answer:
        answer = _first_segment(answer, ANSWER_MARKER)
    m = _FENCE_PY.search(answer) or _FENCE_ANY.search(answer)
    code = m.group(1) if m else answer
    return textwrap.dedent(code).strip()


_PICSUM = re.compile(r"https?://picsum\.photos/(?:id/\d+/)?(\d+)(?:/(\d+))?")


def normalize_picsum(html: str) -> str:
    """Rewrite every picsum.photos image URL to image id 48 at the same size (as the reference)."""
    def sub(m: re.Match) -> str:
        w, h = m.group(1), m.group(2) or m.group(1)
        return f"https://picsum.photos/id/48/{w}/{h}"
    return _PICSUM.sub(sub, html)


def extract_html(answer: str | None) -> str:
    """The HTML of a frontend message: its first ``<html>…</html>``, else its first
    ``<body>…</body>``, else ''. The whole text is searched, ``I WANT TO ANSWER:`` or not (as the
    reference, which looks for the page in the agent's whole message)."""
    if not answer:
        return ""
    m = re.search(r"<html\b.*?</html\s*>", answer, re.S | re.I)
    if m is None:
        m = re.search(r"<body\b.*?</body\s*>", answer, re.S | re.I)
    return normalize_picsum(m.group(0)) if m else ""
