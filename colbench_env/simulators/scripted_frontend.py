"""An offline, deterministic frontend human simulator (no LLM).

The human compares the page the agent showed with the page they want and names the most outstanding
differences concretely, like the paper's VLM human does from the two screenshots. Two sources:

* **Pixels** (the two renders): the dominant colour of the top band (header/hero) and of the whole
  page, named by the nearest Tailwind 2 colour family ("green", "gray", ...); the page height.
* **Structure** (the two HTML documents): headings and their text, the number of sections, images,
  buttons, links in the navigation, and multi-column grids.

Differences are ranked by how much they matter for the look of the page (colours of large areas
first, then missing sections and headings, then counts) and the top ``max_points`` are said in plain
words. The reply never pastes HTML or class names of the target. Cut to 1000 characters.

Generated tasks (:mod:`colbench_env.generator.frontend`: ``extra["generator"]`` holds the page's
facts, each with a plain-words ``sentence``, a ``question`` and ``keywords``) are also answered in
words, as the scripted backend human answers backend questions:

* the agent's last message, its page and code cut out, is matched to the facts by the keywords its
  words hit (lower-cased, plural ``s`` dropped, "color" read "colour"), each counting its weight;
  the facts scoring at least half the best form the reply, at most ``max_facts`` of them, the hidden
  (active) facts before the ones the request already states. "How many cards?" gets "I want four
  cards for our bakes.";
* a broad question that hits no keyword ("what do you have in mind?") gets the first hidden facts
  not told yet; any other message that hits none, "I don't know about that" and an invitation;
* a message that holds a page gets the answers only to what it asks (a question mark, a question
  word ...: :func:`~.scripted_backend.asks_something`; a broad question gets no facts), then the
  differences between the renders that matter most, as on any task.

On any other task (the official-format records) the replies are what they always were.
"""
from __future__ import annotations

import re
from html.parser import HTMLParser
from typing import Any, Sequence

import numpy as np
from PIL import Image

from ..protocol import extract_html
from .base import FRONTEND_REPLY_LIMIT, Simulator
from .scripted_backend import asks_something

__all__ = ["ScriptedFrontendSimulator", "page_structure", "colour_name", "generated_facts", "answer_facts"]

# Tailwind 2's default palette (shades 100/300/500/700/900, grays in more steps), for naming colours.
_SHADES = {
    "red": ("FEE2E2", "FCA5A5", "EF4444", "B91C1C", "7F1D1D"),
    "yellow": ("FEF3C7", "FCD34D", "F59E0B", "B45309", "78350F"),
    "green": ("D1FAE5", "6EE7B7", "10B981", "047857", "064E3B"),
    "blue": ("DBEAFE", "93C5FD", "3B82F6", "1D4ED8", "1E3A8A"),
    "indigo": ("E0E7FF", "A5B4FC", "6366F1", "4338CA", "312E81"),
    "purple": ("EDE9FE", "C4B5FD", "8B5CF6", "6D28D9", "4C1D95"),
    "pink": ("FCE7F3", "F9A8D4", "EC4899", "BE185D", "831843"),
}
_PALETTE: dict[str, tuple[int, int, int]] = {"white": (255, 255, 255), "black": (0, 0, 0)}
for _family, _hexes in _SHADES.items():
    for _prefix, _hex in zip(("very light ", "light ", "", "dark ", "very dark "), _hexes):
        _PALETTE[_prefix + _family] = tuple(int(_hex[i:i + 2], 16) for i in (0, 2, 4))
for _name, _hex in (("off-white", "F9FAFB"), ("very light gray", "F3F4F6"), ("light gray", "D1D5DB"),
                    ("gray", "6B7280"), ("dark gray", "374151"), ("very dark gray", "111827")):
    _PALETTE[_name] = tuple(int(_hex[i:i + 2], 16) for i in (0, 2, 4))
_NAMES = list(_PALETTE)
_RGB = np.array([_PALETTE[n] for n in _NAMES], dtype=np.int32)


def colour_name(rgb: Sequence[int]) -> str:
    """The nearest named Tailwind 2 colour ("green", "light blue", "very dark gray", ...)."""
    d = ((_RGB - np.asarray(rgb[:3], dtype=np.int32)) ** 2).sum(axis=1)
    return _NAMES[int(d.argmin())]


def _dominant(img: Any, box: tuple[float, float, float, float] | None = None) -> str:
    """The most frequent colour name in a region (given as fractions of the image): every pixel
    of a nearest-neighbour thumbnail is named, and the most frequent name wins."""
    im = img.convert("RGB")
    if box is not None:
        w, h = im.size
        im = im.crop((int(box[0] * w), int(box[1] * h), max(int(box[2] * w), 1), max(int(box[3] * h), 1)))
    w, h = im.size
    im = im.resize((64, max(1, min(256, int(64 * h / max(w, 1))))), resample=Image.NEAREST)
    px = np.asarray(im, dtype=np.int32).reshape(-1, 1, 3)
    idx = ((px - _RGB[None, :, :]) ** 2).sum(axis=2).argmin(axis=1)
    return _NAMES[int(np.bincount(idx, minlength=len(_NAMES)).argmax())]


class _Structure(HTMLParser):
    VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.headings: list[tuple[str, str]] = []
        self.counts = {"section": 0, "img": 0, "button": 0, "nav_link": 0, "grid_cols": 0, "form": 0,
                       "table": 0, "footer": 0, "header": 0, "nav": 0}
        self.max_grid_cols = 0
        self._stack: list[str] = []
        self._heading: str | None = None
        self._text: list[str] = []
        self.title = ""
        self._in_title = False

    def handle_starttag(self, tag: str, attrs: list) -> None:
        a = dict(attrs)
        if tag in ("section", "img", "button", "form", "table", "footer", "header", "nav"):
            self.counts[tag] += 1
        if tag == "a" and "nav" in self._stack:
            self.counts["nav_link"] += 1
        m = re.findall(r"(?:^|\s)(?:[a-z]+:)?grid-cols-(\d+)", a.get("class") or "")
        if m:
            self.counts["grid_cols"] += 1
            self.max_grid_cols = max(self.max_grid_cols, *(int(x) for x in m))
        if tag in ("h1", "h2", "h3"):
            self._heading, self._text = tag, []
        if tag == "title":
            self._in_title = True
        if tag not in self.VOID:
            self._stack.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag == self._heading:
            text = " ".join(" ".join(self._text).split())
            if text:
                self.headings.append((tag, text))
            self._heading = None
        if tag == "title":
            self._in_title = False
        if tag in self._stack:
            while self._stack and self._stack.pop() != tag:
                pass

    def handle_data(self, data: str) -> None:
        if self._heading:
            self._text.append(data)
        if self._in_title:
            self.title += data.strip()


def page_structure(html: str) -> _Structure:
    """Headings, element counts and grid columns of an HTML page."""
    p = _Structure()
    p.feed(html or "")
    p.close()
    return p


def _norm(s: str) -> str:
    return re.sub(r"[^a-z0-9 ]", "", s.lower()).strip()


# ---- generated tasks: answering questions about the page's facts ---------------------------------

_BROAD = re.compile(r"\b(requirements?|details?|specifics?|preferences?|anything else|what else|tell me (more|about)|"
                    r"more about|look like|have in mind|what (do|would) you (want|like|need)|what kind|describe|"
                    r"ideas?|vision|wishes)\b", re.I)
_PAGE = re.compile(r"<html\b.*?(</html\s*>|\Z)|<body\b.*?(</body\s*>|\Z)|```.*?(```|\Z)", re.S | re.I)
_TAG = re.compile(r"<[^>]*>")
_SPELLING = {"color": "colour", "colors": "colour", "colours": "colour", "colored": "coloured"}
#: replies of the generated-task path that are no fact
DONT_KNOW_PAGE = ("I don't know about that. Ask me how the page should look, or show me a draft and I'll tell you "
                  "what to change.")
ALL_TOLD = "That's everything I have in mind; the rest is as I described it in my request."
CLOSE_ENOUGH = "This looks very close to what I want. I can't see any important difference."


def _words(text: str) -> set[str]:
    """Lower-cased words, plural ``s`` dropped ("cards" -> "card", "bakeries" -> "bakery"), colour spelt
    one way."""
    out = set()
    for w in re.findall(r"[a-z0-9]+", text.lower()):
        w = _SPELLING.get(w, w)
        if len(w) > 4 and w.endswith("ies"):
            w = w[:-3] + "y"
        elif len(w) > 3 and w.endswith("s") and not w.endswith("ss"):
            w = w[:-1]
        out.add(w)
    return out


def generated_facts(task: Any) -> tuple[list[dict], list[dict]] | None:
    """``(hidden, stated)``: the facts a generated frontend task's human can tell, the hidden ones
    (``extra["generator"]["facts"]``) and the ones the request states (``["stated"]``), each a dict
    with ``sentence`` and ``keywords``; ``None`` for a task without them (an official-format record)."""
    gen = (getattr(task, "extra", None) or {}).get("generator")
    if not isinstance(gen, dict):
        return None
    hidden, stated = list(gen.get("facts", ())), list(gen.get("stated", ()))
    if not hidden or not all(isinstance(f, dict) and "sentence" in f and "keywords" in f for f in hidden + stated):
        return None
    return hidden, stated


def answer_facts(hidden: Sequence[dict], stated: Sequence[dict], message: str, told: str = "",
                 max_facts: int = 2, broad: bool = True) -> list[str]:
    """The sentences of the facts that answer ``message`` (see the module docstring), hidden facts
    first on equal scores; ``told``: what the human said so far; ``broad=False``: a broad question
    gets nothing. ``[]`` when nothing answers it."""
    words = _words(_TAG.sub(" ", _PAGE.sub(" ", message)))
    facts = [*hidden, *stated]
    scored = []
    for i, fact in enumerate(facts):
        weights: dict[str, float] = {}
        for key, weight in fact["keywords"].items():
            for w in _words(key):
                weights[w] = max(weights.get(w, 0), weight)
        score = sum(weights[w] for w in words if w in weights)
        if score > 0:
            scored.append((-score, i))
    if scored:
        scored.sort()
        best = -scored[0][0]
        return [facts[i]["sentence"] for s, i in scored[:max_facts] if -s * 2 >= best]
    if broad and _BROAD.search(message):
        untold = [f["sentence"] for f in hidden if f["sentence"] not in told]
        return untold[:max_facts] or [ALL_TOLD]
    return []


class ScriptedFrontendSimulator(Simulator):
    """Deterministic offline human for frontend tasks (see the module docstring).

    Args:
        max_points: differences per reply.
        max_facts: facts per answer on a generated task.
    """

    kind = "frontend"
    batched = False  # pure and thread-safe: rollout episodes call it from their own threads

    def __init__(self, max_points: int = 3, max_facts: int = 2):
        if max_points < 1:
            raise ValueError(f"max_points must be >= 1, got {max_points}")
        if not isinstance(max_facts, int) or isinstance(max_facts, bool) or max_facts < 1:
            raise ValueError(f"max_facts must be an integer >= 1, got {max_facts!r}")
        self.max_points = max_points
        self.max_facts = max_facts

    def identity(self) -> dict:
        """``kind`` scripted, its reply version (1; and ``max_points``, ``max_facts``)."""
        return {**super().identity(), "kind": "scripted", "version": self.config()["version"],
                "max_points": self.max_points, "max_facts": self.max_facts}

    def config(self) -> dict:
        # version 1: replies on the tasks answered before generated tasks existed are unchanged;
        # max_facts (generated tasks only) is recorded when it is not the default, so the record/replay
        # key of a default human stays what it was
        config = {"class": type(self).__name__, "max_points": self.max_points, "version": 1}
        if self.max_facts != 2:
            config["max_facts"] = self.max_facts
        return config

    def reply(self, task: Any, dialogue: Sequence[dict], renders: Any = None) -> str:
        facts = generated_facts(task)
        if facts is not None:
            return self._cut(self._reply_generated(task, *facts, dialogue, renders or {}))
        target_html = task.ground_truth
        agent_html = ""
        for m in reversed(dialogue):
            if m.get("role") == "assistant":
                agent_html = extract_html(m.get("content", ""))
                if agent_html:
                    break
        target = page_structure(target_html)
        renders = renders or {}
        if not agent_html or renders.get("agent") is None:
            return self._cut(self._describe(target, renders.get("target")))
        points = self._differences(page_structure(agent_html), target, renders.get("agent"), renders.get("target"))
        if not points:
            return CLOSE_ENOUGH
        return self._cut(" ".join(points[: self.max_points]))

    def _reply_generated(self, task: Any, hidden: list[dict], stated: list[dict], dialogue: Sequence[dict],
                         renders: dict) -> str:
        last = dialogue[-1] if dialogue else {}
        message = last.get("content", "") if last.get("role") == "assistant" else ""
        told = " ".join(m.get("content", "") for m in dialogue if m.get("role") == "user")
        page = extract_html(message)
        # a message with a page gets answers only to what it asks ("Here is a first draft." asks
        # nothing), and a broad question with it ("is this what you have in mind?") the differences
        asks = not page or asks_something(_TAG.sub(" ", _PAGE.sub(" ", message)))
        answers = answer_facts(hidden, stated, message, told, self.max_facts, broad=not page) if asks else []
        if page:
            points = self._differences(page_structure(page), page_structure(task.ground_truth),
                                       renders.get("agent"), renders.get("target"))
            return " ".join(answers + (points[: self.max_points] or [CLOSE_ENOUGH]))
        return " ".join(answers) if answers else DONT_KNOW_PAGE

    # ------------------------------------------------------------------
    def _describe(self, target: _Structure, target_img: Any) -> str:
        parts = ["You haven't shown me a page yet, so I can't compare."]
        if target_img is not None:
            parts.append(f"I want the top of the page mostly {_dominant(target_img, (0, 0, 1, 0.15))} "
                         f"and the page background mostly {_dominant(target_img)}.")
        if target.headings:
            parts.append(f"The main heading should say \"{target.headings[0][1]}\".")
        sections = max(target.counts["section"], len([h for h in target.headings if h[0] == "h2"]))
        if sections:
            parts.append(f"It should have about {sections} sections.")
        return " ".join(parts)

    def _differences(self, agent: _Structure, target: _Structure, agent_img: Any, target_img: Any) -> list[str]:
        scored: list[tuple[float, str]] = []
        if agent_img is not None and target_img is not None:
            for name, box, weight in (("top of the page (header)", (0, 0, 1, 0.12), 10.0),
                                      ("page background", None, 9.0),
                                      ("middle of the page", (0, 0.35, 1, 0.65), 6.0)):
                a, t = _dominant(agent_img, box), _dominant(target_img, box)
                if a != t:
                    scored.append((weight, f"The {name} should be {t}, not {a}."))
            ha, ht = agent_img.size[1], target_img.size[1]
            if ht > 1.4 * ha:
                scored.append((7.0, "The page should be much longer, with more content further down."))
            elif ha > 1.4 * ht:
                scored.append((7.0, "The page is too long; it should be more compact."))
        if target.headings and (not agent.headings or _norm(agent.headings[0][1]) != _norm(target.headings[0][1])):
            scored.append((8.0, f"The main heading should say \"{target.headings[0][1]}\"."))
        agent_texts = {_norm(h) for _, h in agent.headings}
        missing = [h for tag, h in target.headings[1:] if _norm(h) not in agent_texts]
        if missing:
            scored.append((7.5 if len(missing) > 1 else 5.0,
                           "Add a section titled \"" + missing[0] + "\"" +
                           (f" (and {len(missing) - 1} more section{'s' if len(missing) > 2 else ''} I want)"
                            if len(missing) > 1 else "") + "."))
        for key, noun, weight in (("section", "sections", 4.0), ("img", "images", 4.5), ("button", "buttons", 3.0),
                                  ("nav_link", "links in the navigation bar", 3.5), ("form", "forms", 3.0),
                                  ("table", "tables", 3.0), ("footer", "footers", 3.5), ("nav", "navigation bars", 4.0)):
            a, t = agent.counts[key], target.counts[key]
            if a != t:
                if t == 0:
                    scored.append((weight, f"Remove the {noun}; I don't want any."))
                elif a == 0:
                    scored.append((weight + 1, f"There should be {t} {noun if t > 1 else noun.rstrip('s')}."))
                else:
                    scored.append((weight, f"There should be {t} {noun}, not {a}."))
        if target.max_grid_cols != agent.max_grid_cols and target.max_grid_cols > 1:
            scored.append((5.5, f"Put the main cards side by side in a {target.max_grid_cols}-column layout."))
        scored.sort(key=lambda x: -x[0])
        return [s for _, s in scored]

    @staticmethod
    def _cut(text: str) -> str:
        if len(text) <= FRONTEND_REPLY_LIMIT:
            return text
        cut = text[:FRONTEND_REPLY_LIMIT]
        end = cut.rfind(". ")
        return cut[: end + 1] if end > 0 else cut
