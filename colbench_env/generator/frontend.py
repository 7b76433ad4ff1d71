"""Procedural frontend design tasks: unlimited landing pages drawn from a seed.

The frontend twin of the backend generator (:mod:`colbench_env.generator`), with its conventions:
seeded and deterministic, a difficulty that counts hidden facts, ``split`` by seed, the facts in
``extra["generator"]`` and the page an agent writes without asking in ``extra["generic_solution"]``.

A seed draws a business (:data:`~.frontend_templates.BUSINESSES`: a bakery, a yoga studio, a
dentist ...), its name, the welcome section's look (centred, or split with a photo), the order in
which difficulty adds the hidden facts, and one personal value for each of the six facts
(:data:`FACTS`)::

    theme       light (default) | dark: a very dark gray page with light text
    accent      the colour of the navigation bar, the buttons and the footer: blue (default) | green ...
    background  the welcome section's own background: none (default) | dark green | dark blue ...
    headline    the welcome headline: "Welcome to NAME" (default) | the person's own words
    cards       how many cards (or plans of a pricing table): three (default) | two | four
    order       the two middle sections: cards first (default) | the information band first

Difficulty ``d`` (1..6; 1..3 in the ``"simple"`` and ``"mini"`` families) says how many facts take their personal
value: the first ``d`` facts of the seed's order. The other facts keep their default, which the
request states ("a blue navigation bar", "three cards for our bakes", "a light theme"), while an
active fact is only hinted at ("a navigation bar in a colour I have in mind"). So the same seed
gives the same business, name, look and personal values at every difficulty, each level adding
one fact, and the page written from the request alone (``extra["generic_solution"]``) differs
from the ground truth in exactly the ``d`` active facts.

A generated :class:`~colbench_env.records.FrontendTask` has

* ``problem_description``: the short request ("I want a landing page for my bakery, Golden
  Crust. From top to bottom: ...");
* ``ground_truth``: the page (a complete HTML document linking the Tailwind 2.2.19 stylesheet,
  Tailwind 2.2.19 classes only, no scripts, picsum id/48 images only; 25-35 lines; in the ``"mini"``
  family 7 lines: the navigation bar, the welcome section and the footer, see
  :func:`~.frontend_templates.mini_page_html`);
* ``task_id`` ``f"gen-frontend-d{difficulty}-{seed}"`` (``f"gen-frontend-{family}-d{difficulty}-{seed}"``
  for a family other than ``"all"``) and ``split`` ``"test"`` when ``seed % 5 == 0`` else ``"train"``;
* ``extra["generic_solution"]``: the page with every fact at its default;
* ``extra["generator"]``: ``{"template", "name", "hero", "difficulty", "seed", "family", "facts",
  "stated"}``: ``template`` is the business key; ``facts`` the active facts and ``stated`` the
  others the page has (:func:`page_fact_names`; at their default, as the request says them), each ``{"name", "value", "default",
  "sentence", "question", "keywords"}``: ``sentence`` is the fact in plain words as the person says
  it ("The navigation bar, the buttons and the footer are green."), never HTML or class names; ``question`` a
  natural question it answers; ``keywords`` ``{word: weight}``, the words a person asking about it
  uses (the scripted frontend human matches questions to facts with them).

Every active fact changes the render: the ground truth and the page with that one fact reverted to
its default render measurably apart (tests/test_generator_frontend.py checks it in Chromium).
"""
from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, Callable

from ..records import FrontendTask, split_of, split_seeds
from .frontend_templates import (ACCENTS, BACKGROUNDS, BUSINESSES, COUNT_WORDS, HERO_STYLES, Business,
                                 mini_page_html, page_html)

__all__ = ["FACTS", "FRONTEND_FAMILIES", "MINI_FAMILIES", "MIN_DIFFICULTY", "Page", "PageFact",
           "generate_frontend_task", "generate_frontend_tasks", "check_frontend_difficulty", "check_frontend_family",
           "max_difficulty", "page_fact_names", "page_for"]

MIN_DIFFICULTY = 1


@dataclass(frozen=True)
class Page:
    """What a seed fixes besides the facts: the business, its name and the welcome section's look
    (``mini``: a mini page, :func:`~.frontend_templates.mini_page_html`, whose welcome section is
    always centred)."""

    business: Business
    name: str
    hero: str
    mini: bool = False


@dataclass(frozen=True)
class PageFact:
    """One hidden fact of a generated page.

    Attributes:
        name: key of the page values (:func:`~.frontend_templates.page_html`).
        default: ``default(page) -> value``: what the request states when the fact is not active.
        draw: ``draw(rng, page, drawn_so_far) -> value``, never the default.
        sentence: ``sentence(value, page) -> str``: the fact in plain words, one sentence.
        question: ``question(page) -> str``: a natural question whose answer is this fact.
        keywords: ``keywords(page) -> {word: weight}``: words of questions about it (2: says what
            the question is about, 1: a weaker hint).
    """

    name: str
    default: Callable[[Page], Any]
    draw: Callable[[random.Random, Page, dict], Any]
    sentence: Callable[[Any, Page], str]
    question: Callable[[Page], str]
    keywords: Callable[[Page], dict]


_FILLER = frozenset("a and for find how my of our reach say the to us what where with".split())


def _words(text: str, weight: int = 1) -> dict:
    """The words of a noun phrase ("what our readers say") that name it ("readers"), at ``weight``."""
    return {w: weight for w in text.lower().split() if w not in _FILLER}


def _cards_sentence(value: int, page: Page) -> str:
    b = page.business
    if b.items_kind == "plans":
        return f"I want the pricing table to show {COUNT_WORDS[value]} of {b.items_noun}."
    return f"I want {COUNT_WORDS[value]} cards for {b.items_noun}."


def _middle(page: Page) -> str:
    b = page.business
    return "the pricing table" if b.items_kind == "plans" else f"the cards for {b.items_noun}"


def _order_sentence(value: str, page: Page) -> str:
    first, then = _middle(page), page.business.info_noun
    if value == "info first":
        first, then = then, first
    return f"Right after the welcome section I want {first}, and then {then}."


_BUTTONS = {False: ", the buttons", True: ""}  # a mini page has no buttons
_THEMES = {"light": "a light theme: a white page with dark text",
           "dark": "a dark theme: a very dark gray page with light text"}

FACTS: tuple[PageFact, ...] = (
    PageFact("theme", lambda page: "light", lambda rng, page, drawn: "dark",
             lambda v, page: f"I want {_THEMES[v]}.",
             lambda page: "Do you want a light or a dark theme?",
             lambda page: {"theme": 2, "dark": 2, "light": 2, "mode": 2, "night": 2, "overall": 1, "style": 1,
                           "scheme": 1, "background": 1, "white": 1, "black": 1}),
    PageFact("accent", lambda page: "blue", lambda rng, page, drawn: rng.choice(ACCENTS[1:]),
             lambda v, page: f"The navigation bar{_BUTTONS[page.mini]} and the footer are {v}.",
             lambda page: f"What colour should the navigation bar{_BUTTONS[page.mini]} and the footer be?",
             lambda page: {"accent": 2, "brand": 2, "nav": 2, "navigation": 2, "navbar": 2, "menu": 2,
                           "button": 2, "footer": 2, "colour": 2, "bar": 1, "link": 1, "primary": 1,
                           "highlight": 1, "scheme": 1}),
    PageFact("background", lambda page: None,
             lambda rng, page, drawn: rng.choice([c for c in BACKGROUNDS if c != drawn["accent"]]),
             lambda v, page: (f"The welcome section at the top has a dark {v} background." if v else
                              "The welcome section at the top has no background colour of its own."),
             lambda page: "Should the welcome section at the top have a background colour of its own?",
             lambda page: {"background": 2, "welcome": 2, "hero": 2, "banner": 2, "colour": 2, "top": 1,
                           "header": 1}),
    PageFact("headline", lambda page: f"Welcome to {page.name}",
             lambda rng, page, drawn: rng.choice(page.business.headlines),
             lambda v, page: f"The main headline says \"{v}\".",
             lambda page: "What should the main headline say?",
             lambda page: {"headline": 2, "heading": 2, "title": 2, "h1": 2, "slogan": 2, "tagline": 2, "say": 1,
                           "text": 1, "wording": 1, "word": 1, "main": 1, "message": 1, "big": 1}),
    PageFact("cards", lambda page: 3, lambda rng, page, drawn: rng.choice((2, 4)),
             _cards_sentence,
             lambda page: ("How many plans should the pricing table show?" if page.business.items_kind == "plans"
                           else "How many cards should there be?"),
             lambda page: {**_words(page.business.items_noun), "card": 2, "many": 2, "number": 2, "count": 2,
                           "plan": 2, "item": 2, "product": 2, "tier": 2, "box": 2, "tile": 2, "pricing": 1,
                           "price": 1, "column": 1}),
    PageFact("order", lambda page: "cards first", lambda rng, page, drawn: "info first",
             _order_sentence,
             lambda page: "In what order should the sections below the welcome section come?",
             lambda page: {**_words(page.business.info_noun), **_words(page.business.items_noun), "order": 2,
                           "sequence": 2, "arrange": 2, "arrangement": 2, "before": 2, "after": 2,
                           "come": 2, "position": 2, "section": 1, "below": 1, "layout": 1, "structure": 1}),
)
_FACTS_BY_NAME = {f.name: f for f in FACTS}

#: Named sets of facts (``family`` of :func:`generate_frontend_task`): ``"all"`` every fact;
#: ``"simple"`` the three facts an agent applies by copying a word or a phrase into the page (a
#: headline, an accent colour, a background colour): made for very small policies; ``"mini"`` the
#: same three facts on a mini page (:data:`MINI_FAMILIES`): a seed gives the same business, name and
#: fact values as in ``"simple"``, on a page short enough for a very small policy to write.
FRONTEND_FAMILIES: dict[str, tuple] = {
    "all": tuple(f.name for f in FACTS),
    "simple": ("headline", "accent", "background"),
    "mini": ("headline", "accent", "background"),
}
#: Families whose pages are mini pages (navigation bar, welcome section, footer): only their own
#: facts exist on the page, and the request states only those.
MINI_FAMILIES = frozenset({"mini"})


def check_frontend_family(family: Any) -> tuple:
    """The fact names of ``family`` (a key of :data:`FRONTEND_FAMILIES`), else ValueError."""
    if family not in FRONTEND_FAMILIES:
        raise ValueError(f"family must be one of {sorted(FRONTEND_FAMILIES)}, got {family!r}")
    return FRONTEND_FAMILIES[family]


def page_fact_names(family: str = "all") -> tuple:
    """The facts a page of ``family`` shows (hidden or stated), in :data:`FACTS` order: every fact,
    or a mini page's own three."""
    names = check_frontend_family(family)
    return tuple(f.name for f in FACTS if family not in MINI_FAMILIES or f.name in names)


def max_difficulty(family: str = "all") -> int:
    """The largest difficulty of ``family``: how many facts it has."""
    return len(check_frontend_family(family))


def check_frontend_difficulty(difficulty: Any, family: str = "all") -> int:
    """``difficulty`` if it is an integer from 1 to :func:`max_difficulty` ``(family)``, else ValueError."""
    top = max_difficulty(family)
    if isinstance(difficulty, bool) or not isinstance(difficulty, int) or not MIN_DIFFICULTY <= difficulty <= top:
        raise ValueError(f"difficulty must be an integer from {MIN_DIFFICULTY} to {top} (how many hidden facts "
                         f"matter{'' if family == 'all' else f' in family {family!r}'}), got {difficulty!r}")
    return difficulty


def _describe(page: Page, values: dict, active: frozenset) -> str:
    """The request: each fact not in ``active`` stated at its (default) value, each active one only
    hinted at (the hint says *that* the person has something in mind, never what)."""
    b = page.business
    if page.mini:
        return _describe_mini(page, values, active)
    count = "" if "cards" in active else COUNT_WORDS[values["cards"]] + " "
    if b.items_kind == "plans":
        cards = f"a pricing table {'of' if 'cards' in active else f'with {count}of'} {b.items_noun}"
    else:
        cards = f"{count}cards for {b.items_noun}" + (", each with a price" if b.items_kind == "products" else "")
    if "cards" in active:
        cards += " (I know how many I want)"
    middle = (f"{cards}, and {b.info_noun}, in the order I have in mind" if "order" in active
              else f"{cards}; then {b.info_noun}")
    background = ("a background colour I have in mind" if "background" in active
                  else "no background colour of its own")
    headline = "a headline in my own words" if "headline" in active else f'the headline "{values["headline"]}"'
    photo = ", a photo beside the text" if page.hero == "split" else ""
    nav = "a navigation bar" if "accent" in active else f"a {values['accent']} navigation bar"
    colours = ("I have a colour in mind for the navigation bar, the buttons and the footer." if "accent" in active
               else f"The buttons and the footer are {values['accent']} too.")
    theme = ("I have an overall look in mind, light or dark." if "theme" in active
             else _THEMES[values["theme"]][0].upper() + _THEMES[values["theme"]][1:] + ".")
    return (f"I want a landing page for my {b.noun}, {page.name}. From top to bottom: {nav} with the name and "
            f"three links; a welcome section with {background}, {headline}, a short line about us{photo} and a "
            f"button; {middle}; and a footer. {colours} {theme}")


def _describe_mini(page: Page, values: dict, active: frozenset) -> str:
    """The request for a mini page, in the page's order (the same hints for the active facts)."""
    accent = values["accent"]
    nav, footer = (("a navigation bar in a colour I have in mind", "a footer in the same colour") if "accent" in active
                   else (f"a {accent} navigation bar", f"a {accent} footer"))
    background = ("a background colour I have in mind" if "background" in active
                  else "no background colour of its own")
    headline = "a headline in my own words" if "headline" in active else f'the headline "{values["headline"]}"'
    return (f"I want a landing page for my {page.business.noun}, {page.name}: {nav} with the name, a welcome "
            f"section with {background} and {headline}, and {footer}.")


def page_for(seed: int, difficulty: int = 1, family: str = "all") -> tuple[Page, dict, dict, list]:
    """``(page, values, defaults, active_fact_names)`` of a seed: what :func:`generate_frontend_task`
    builds its task from (``values``: every fact's value in the ground truth; ``defaults``: every
    fact at its default)."""
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    pool = check_frontend_family(family)
    check_frontend_difficulty(difficulty, family)
    rng = random.Random(seed)
    business = rng.choice(BUSINESSES)
    name, hero = rng.choice(business.names), rng.choice(HERO_STYLES)
    mini = family in MINI_FAMILIES
    page = Page(business, name, "centered" if mini else hero, mini)
    order = rng.sample(pool, len(pool))
    drawn: dict = {}
    for fact in FACTS:  # every fact draws, in a fixed order, whatever the family and difficulty
        drawn[fact.name] = fact.draw(rng, page, drawn)
    defaults = {f.name: f.default(page) for f in FACTS}
    active = order[:difficulty]
    values = {**defaults, **{name: drawn[name] for name in active}}
    return page, values, defaults, active


def _fact_record(fact: PageFact, page: Page, value: Any, default: Any) -> dict:
    return {"name": fact.name, "value": value, "default": default, "sentence": fact.sentence(value, page),
            "question": fact.question(page), "keywords": fact.keywords(page)}


def generate_frontend_task(seed: int, difficulty: int = 1, family: str = "all") -> FrontendTask:
    """One procedural frontend task, a pure function of ``(seed, difficulty, family)``.

    Args:
        seed: non-negative integer; seeds ``0, 5, 10, ...`` form the test split, the others train.
        difficulty: how many hidden facts matter, 1 to :func:`max_difficulty` ``(family)``.
        family: which facts the seed chooses from (a key of :data:`FRONTEND_FAMILIES`).

    Returns:
        A :class:`~colbench_env.records.FrontendTask` (fields in the module docstring).

    Raises:
        ValueError: for a bad seed, difficulty or family.
    """
    page, values, defaults, active = page_for(seed, difficulty, family)
    facts = [_fact_record(_FACTS_BY_NAME[n], page, values[n], defaults[n]) for n in active]
    stated = [_fact_record(_FACTS_BY_NAME[n], page, defaults[n], defaults[n]) for n in page_fact_names(family)
              if n not in active]
    return FrontendTask(
        problem_description=_describe(page, values, frozenset(active)),
        ground_truth=_page(page, values),
        task_id=(f"gen-frontend-d{difficulty}-{seed}" if family == "all"
                 else f"gen-frontend-{family}-d{difficulty}-{seed}"),
        split=split_of(seed),
        extra={"generator": {"template": page.business.key, "name": page.name, "hero": page.hero,
                             "difficulty": difficulty, "seed": seed, "family": family, "facts": facts,
                             "stated": stated},
               "generic_solution": _page(page, defaults)},
    )


def _page(page: Page, values: dict) -> str:
    return mini_page_html(page.name, values) if page.mini else page_html(page.business, page.name, page.hero, values)


def generate_frontend_tasks(n: int, difficulty: int = 1, split: str | None = None, start: int = 0,
                            family: str = "all") -> list[FrontendTask]:
    """``n`` procedural frontend tasks, deterministic: seeds ``start, start+1, ...``; with ``split``,
    the seeds of the other split are skipped (so ``n`` tasks of that split are returned).

    Raises:
        ValueError: for a negative ``n``, a bad ``split``, ``start``, ``difficulty`` or ``family``.
    """
    seeds = split_seeds(n, split, start)
    check_frontend_family(family)
    check_frontend_difficulty(difficulty, family)
    return [generate_frontend_task(seed, difficulty, family) for seed in seeds]
