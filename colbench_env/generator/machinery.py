"""Template machinery of the task generator: hidden facts, templates, and the small helpers the
templates share (number formatting, amounts, rounding facts). See :mod:`colbench_env.generator`."""
from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

__all__ = ["Fact", "Template", "MIN_DIFFICULTY", "MAX_DIFFICULTY", "NUM_TESTS", "Values"]

MIN_DIFFICULTY = 1
MAX_DIFFICULTY = 4
#: Test calls per task (as in ColBench).
NUM_TESTS = 10

Values = Mapping[str, Any]


@dataclass(frozen=True)
class Fact:
    """One hidden personal parameter of a template.

    Attributes:
        name: identifier, unique within the template.
        default: the standard value an agent assumes without asking (used when the fact does not
            matter at the chosen difficulty, and by the generic solution).
        draw: ``draw(rng, drawn_so_far) -> value``; never returns ``default``.
        sentence: ``sentence(value, values) -> str``: the hidden-information sentence (one
            sentence, ending with a period, in the words an agent would use).
        question: a natural question whose answer is this fact.
    """

    name: str
    default: Any
    draw: Callable[[random.Random, dict], Any]
    sentence: Callable[[Any, Values], str]
    question: str


@dataclass(frozen=True)
class Template:
    """A family of personalised functions.

    Attributes:
        name: template name (key of :data:`TEMPLATES`).
        func: the function name.
        params: the parameter list as written in the signature (``"bill"``).
        facts: the four hidden facts, in the order difficulty adds them.
        describe: ``describe(values, active) -> str``: the request (without the signature
            sentence); ``active`` is the set of fact names that matter.
        body: ``body(values) -> list[str]``: the function body lines (unindented).
        candidates: ``candidates(rng, values, active) -> list[tuple]``: candidate argument tuples
            for the tests; must include inputs that exercise every active fact.
    """

    name: str
    func: str
    params: str
    facts: tuple
    describe: Callable[[Values, frozenset], str]
    body: Callable[[Values], list]
    candidates: Callable[[random.Random, Values, frozenset], list]

    @property
    def signature(self) -> str:
        """``"def func(params)"``, as in the signature sentence."""
        return f"def {self.func}({self.params})"

    def defaults(self) -> dict:
        """Every fact at its default value."""
        return {f.name: f.default for f in self.facts}

    def solution(self, values: Values | None = None) -> str:
        """The function source for ``values`` (missing facts take their defaults); with no values:
        the generic solution."""
        full = self.defaults()
        if values:
            unknown = set(values) - set(full)
            if unknown:
                raise KeyError(f"template {self.name!r} has no facts {sorted(unknown)}")
            full.update(values)
        body = "\n".join(f"    {line}" for line in self.body(full))
        # the import goes inside the function: under the reference scorer's semantics (the default),
        # a top-level import is invisible to the function and the task would be unsolvable
        return f"{self.signature}:\n" + ("    import math\n" if "math." in body else "") + body

    def call(self, args: Sequence) -> str:
        """The literal test call for one argument tuple."""
        return f"{self.func}({', '.join(repr(a) for a in args)})"


def _pick(*choices):
    return lambda rng, drawn: rng.choice(choices)


def _num(x) -> str:
    """A number as a person writes it: 15, 4.5, 3.99."""
    if isinstance(x, float) and x.is_integer():
        return str(int(x))
    return str(x)


def _lit(x) -> str:
    """A number as a Python literal (shortest repr)."""
    return repr(x)


def _factor(percent_change: float) -> str:
    return _lit(round((100 + percent_change) / 100, 10))


_CENTS = (0, 0, 0.25, 0.5, 0.75, 0.99, 0.4, 0.6, 0.3, 0.8)


def _amount(rng: random.Random, lo: int, hi: int) -> float | int:
    x = rng.randint(lo, max(lo, hi)) + rng.choice(_CENTS)
    return round(x, 2) if isinstance(x, float) else x


# rounding facts ---------------------------------------------------------------------------------

def _rounded(expr: str, mode: str) -> str:
    return {"cents": f"round({expr}, 2)", "dollar": f"round({expr})",
            "up": f"math.ceil({expr})", "down": f"math.floor({expr})"}[mode]


def _rounding_fact(noun: str) -> Fact:
    sentences = {
        "dollar": f"I round the {noun} to the nearest whole dollar.",
        "up": f"I always round the {noun} up to the next whole dollar.",
        "down": f"I always round the {noun} down to a whole dollar, dropping the cents.",
    }
    return Fact("rounding", "cents", _pick("dollar", "up", "down"), lambda v, p: sentences[v],
                f"How should the {noun} be rounded?")


def _request(opening, **hints: str) -> Callable[[Values, frozenset], str]:
    """A template's ``describe``: ``opening`` (a string, or ``opening(values, active)``), then the
    hint sentence of each active fact, in the order given (a hint says *that* something is
    personal, never the value)."""
    def describe(p: Values, active: frozenset) -> str:
        s = opening(p, active) if callable(opening) else opening
        return s + "".join(f" {hint}" for name, hint in hints.items() if name in active)
    return describe


def _round_phrase(active: frozenset) -> str:
    return "rounded the way I like it" if "rounding" in active else "rounded to 2 decimal places"
