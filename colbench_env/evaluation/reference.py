"""The reference scorer's answer rules (``semantics="reference"``), as plain functions.

ColBench's published numbers come from the reference implementation's backend scorer. Before
running anything it applies two text rules to the answer (the text after ``I WANT TO ANSWER:``):

1. **blocked substrings**: an answer containing any of :data:`BLOCKED_SUBSTRINGS` anywhere (code,
   comments or the prose around the code) scores 0;
2. **fence stripping**: when the text contains ```` ```python ````, the code is what lies between
   the first ```` ```python ```` and the next ```` ``` ````; otherwise, when it contains ```` ``` ````,
   what lies between the first two ```` ``` ```` (a ```` ```py ```` fence thus leaves ``py`` as the
   first line of the code); otherwise the whole text.

How the code then runs (per test call, definitions executed afresh into new locals; ``Exception``
-> ``None``; a test passes when the ground truth's output is not ``None`` and ``==`` the
answer's) is in :mod:`._sandbox_child` (``_run_reference``) and :mod:`.backend`.
"""
from __future__ import annotations

from ..protocol import ANSWER_MARKER

__all__ = ["BLOCKED_SUBSTRINGS", "blocked_rule", "reference_code", "answer_text"]

#: substrings that make the reference score an answer 0, in the order it checks them
BLOCKED_SUBSTRINGS = ("import os", "from os", "import sys", "from sys", "sudo", "transformers", "exit(", "quit(",
                      "argparse")


def answer_text(text: str) -> str:
    """The answer part of a turn, as the reference env takes it: what follows the *first*
    ``I WANT TO ANSWER:`` up to the next one (the whole text when there is no marker)."""
    return text.split(ANSWER_MARKER)[1] if ANSWER_MARKER in text else text


def blocked_rule(text: str) -> str | None:
    """The first of :data:`BLOCKED_SUBSTRINGS` in ``text`` (``None``: not blocked)."""
    for rule in BLOCKED_SUBSTRINGS:
        if rule in text:
            return rule
    return None


def reference_code(text: str) -> tuple[str, str | None]:
    """``(code, blocked rule)`` of a raw answer under the reference's rules (code ``""`` when
    blocked)."""
    text = answer_text(text)
    rule = blocked_rule(text)
    if rule is not None:
        return "", rule
    if "```python" in text:
        text = text.split("```python")[1].split("```")[0]
    if "```" in text:
        text = text.split("```")[1].split("```")[0]
    return text, None
