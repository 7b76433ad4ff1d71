"""Finding values and code in text: what the audits (:mod:`colbench.audit`) and the offline-human
study (``studies/offline_human``) use to tell whether a reply states a value or reads code out.

* :func:`masked_code`: code with its string literals' contents masked (what a reply may quote);
* :func:`longest_shared_span`: the longest stretch a reply shares with (masked) code;
* :func:`literal_revealed`: whether a text states a value (a string verbatim, a number as written or
  as a percentage).
"""
from __future__ import annotations

import difflib
import io
import re
import tokenize
from typing import Any

__all__ = ["LEAK_CHARS", "masked_code", "longest_shared_span", "literal_revealed"]

#: A shared span longer than this (stripped) counts as reading the code out.
LEAK_CHARS = 20


def masked_code(code: str) -> str:
    """``code`` with the contents of its string literals replaced by NUL characters (quotes kept)."""
    out = list(code)
    starts = [0]
    for line in code.splitlines(True):
        starts.append(starts[-1] + len(line))
    string_types = {tokenize.STRING, getattr(tokenize, "FSTRING_MIDDLE", -1)}
    for tok in tokenize.generate_tokens(io.StringIO(code).readline):
        if tok.type in string_types:
            a = starts[tok.start[0] - 1] + tok.start[1]
            b = starts[tok.end[0] - 1] + tok.end[1]
            for i in range(a, b):
                if out[i] not in "'\"":
                    out[i] = "\0"
    return "".join(out)


def longest_shared_span(reply: str, masked: str) -> str:
    """The longest substring of ``reply`` that also occurs in ``masked`` (stripped of spaces)."""
    m = difflib.SequenceMatcher(None, reply, masked, autojunk=False).find_longest_match(0, len(reply), 0, len(masked))
    return reply[m.a:m.a + m.size].strip()


def literal_revealed(literal: Any, text: str) -> bool:
    """Whether ``text`` states ``literal``: a string verbatim, a number as written (``0.25``,
    ``-1``, ``9.5`` for ``9.50``) or as a percentage (``25 percent`` for ``0.25``)."""
    if isinstance(literal, str):
        return literal in text
    forms = {repr(literal)}
    if isinstance(literal, float) and literal.is_integer():
        forms.add(str(int(literal)))
    if isinstance(literal, float):
        p = round(literal * 100, 6)
        forms.add((str(int(p)) if float(p).is_integer() else repr(p)) + " percent")
    return any(re.search(r"(?<![\d.])" + re.escape(f) + r"(?![\d])", text) for f in forms)
