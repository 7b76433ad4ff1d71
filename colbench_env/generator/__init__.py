"""Procedural backend tasks: unlimited personalised-function tasks from seeded templates.

A *template* is a small family of functions ("add my usual tip to a bill") with four *hidden facts*
(the personal parameters: a rate, a threshold branch, a rounding rule, an edge-case rule, an
ordering...). :func:`generate_task` draws a template and all four personal values from
``random.Random(seed)``; the *difficulty* ``d`` (1..4) says how many of them matter: the first ``d``
facts take their personal values, the others keep the standard default (and the problem description
states those defaults where they are not obvious). So the same seed gives the same template and the
same personal values at every difficulty, each level adding one fact.

A generated :class:`~colbench_env.tasks.BackendTask` has

* ``problem_description``: a vague request that hints at each fact that matters without giving its
  value, ending with the sentence ``"The signature of the function is: def name(args)"``;
* ``ground_truth``: the personalised function (Python source);
* ``test_cases``: exactly 10 literal calls ``{"test1": "name(...)", ...}``;
* ``hidden_information``: one plain-words sentence per fact that matters, in the words an agent
  would use when asking (the scripted simulator matches questions to sentences by word overlap);
* ``task_id`` ``f"gen-d{difficulty}-{seed}"``, ``split`` ``"test"`` when ``seed % 5 == 0`` else
  ``"train"``;
* ``extra["generic_solution"]``: the function an agent writes without asking (every fact at its
  default), and ``extra["generator"]``: ``{"template", "difficulty", "seed", "facts"}`` where each
  fact is ``{"name", "value", "default", "sentence", "question"}`` (``question``: a natural question
  that the fact answers).

The 10 tests are chosen from a seeded pool of candidate inputs so that (i) the generic solution fails
at least one, (ii) for every fact that matters, the ground truth with just that fact reverted to its
default fails at least one (no hidden fact is dead weight), and (iii) no test sits on a rounding
boundary (a ``round``/``math.ceil``/``math.floor`` argument within 1e-6 of a tie), so an answer
computing the same value in another algebraic order scores the same. The checks run the generated
(template-made, pure arithmetic) source with instrumented ``round``/``math``; they only pick inputs.

At difficulty 1 the ground truth is a one-line function of one hidden number or choice, e.g.::

    I want a function that adds my usual tip to a restaurant bill and returns the total,
    rounded to 2 decimal places. The signature of the function is: def add_tip(bill)
    hidden: "I always tip 15 percent of the bill."
    def add_tip(bill):
        return round(bill * 1.15, 2)
"""
from __future__ import annotations

import random
from typing import Any

from ..records import BackendTask, split_of, split_seeds
from .machinery import MAX_DIFFICULTY, MIN_DIFFICULTY, NUM_TESTS, Fact, Template
from .templates import FAMILIES, TEMPLATES
from .test_selection import choose_tests

__all__ = ["Fact", "Template", "TEMPLATES", "FAMILIES", "MIN_DIFFICULTY", "MAX_DIFFICULTY", "NUM_TESTS",
           "generate_task", "generate_tasks", "check_difficulty", "check_family"]


def check_difficulty(difficulty: Any) -> int:
    """``difficulty`` if it is an integer in ``MIN_DIFFICULTY..MAX_DIFFICULTY``, else ValueError."""
    if isinstance(difficulty, bool) or not isinstance(difficulty, int) or not (
            MIN_DIFFICULTY <= difficulty <= MAX_DIFFICULTY):
        raise ValueError(f"difficulty must be an integer from {MIN_DIFFICULTY} to {MAX_DIFFICULTY} "
                         f"(how many hidden facts matter), got {difficulty!r}")
    return difficulty


def _check_seed(seed: Any) -> int:
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    return seed


def check_family(family: Any) -> tuple:
    """The template names of ``family`` (a key of :data:`FAMILIES`), else ValueError."""
    if family not in FAMILIES:
        raise ValueError(f"family must be one of {sorted(FAMILIES)}, got {family!r}")
    return FAMILIES[family]


def generate_task(seed: int, difficulty: int = 1, family: str = "all") -> BackendTask:
    """One procedural backend task, a pure function of ``(seed, difficulty, family)``.

    Args:
        seed: non-negative integer; seeds ``0, 5, 10, ...`` form the test split, the others train.
        difficulty: 1..4, how many hidden facts matter (1: a one-line function of one hidden
            number or choice).
        family: which templates the seed chooses from (a key of :data:`FAMILIES`).

    Returns:
        A :class:`~colbench_env.tasks.BackendTask` with ``task_id`` ``f"gen-d{difficulty}-{seed}"``
        (``f"gen-{family}-d{difficulty}-{seed}"`` for a family other than ``"all"``; fields
        described in the module docstring).

    Raises:
        ValueError: for a difficulty outside 1..4, a negative / non-integer seed or an unknown family.
    """
    _check_seed(seed)
    check_difficulty(difficulty)
    names = check_family(family)
    rng = random.Random(seed)
    template = TEMPLATES[rng.choice(names)]
    drawn: dict = {}
    for fact in template.facts:
        drawn[fact.name] = fact.draw(rng, drawn)
    active = list(template.facts[:difficulty])
    values = template.defaults()
    values.update({f.name: drawn[f.name] for f in active})
    facts = [{"name": f.name, "value": values[f.name], "default": f.default,
              "sentence": f.sentence(values[f.name], values), "question": f.question} for f in active]
    tests = choose_tests(template, values, active, rng)
    description = (f"{template.describe(values, frozenset(f.name for f in active))} "
                   f"The signature of the function is: {template.signature}")
    return BackendTask(
        problem_description=description,
        ground_truth=template.solution(values),
        test_cases={f"test{i}": template.call(args) for i, args in enumerate(tests, 1)},
        hidden_information=" ".join(f["sentence"] for f in facts),
        task_id=f"gen-d{difficulty}-{seed}" if family == "all" else f"gen-{family}-d{difficulty}-{seed}",
        split=split_of(seed),
        extra={"generator": {"template": template.name, "difficulty": difficulty, "seed": seed, "family": family,
                             "facts": facts},
               "generic_solution": template.solution()},
    )


def generate_tasks(n: int, difficulty: int = 1, split: str | None = None, start: int = 0,
                   family: str = "all") -> list[BackendTask]:
    """``n`` procedural tasks, deterministic: seeds ``start, start+1, ...``; with ``split``, the seeds
    of the other split are skipped (so ``n`` tasks of that split are returned); ``family`` restricts
    the templates (:data:`FAMILIES`).

    Raises:
        ValueError: for a negative ``n``, a bad ``split``, ``start``, ``difficulty`` or ``family``.
    """
    seeds = split_seeds(n, split, start)
    check_difficulty(difficulty)
    check_family(family)
    return [generate_task(seed, difficulty, family) for seed in seeds]
