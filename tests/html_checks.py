"""Checkers of Tailwind 2.2.19 HTML pages in the ColBench frontend format, shared by the tests of the
embedded tasks (test_authoring_frontend.py, which tests the checkers themselves on crafted input)
and of the generated ones (test_generator_frontend.py)."""
from __future__ import annotations

import os
import re
from html.parser import HTMLParser
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CDN = "https://cdn.jsdelivr.net/npm/tailwindcss@2.2.19/dist/tailwind.min.css"
PICSUM = re.compile(r"https://picsum\.photos/id/48/\d+/\d+")
URL = re.compile(r"""(?:[a-zA-Z][a-zA-Z0-9+.-]*:)?//[^\s"'<>()]+""")
HEX_COLOUR = re.compile(r"#[0-9a-fA-F]{3,8}\b")
VOID = frozenset("area base br col embed hr img input link meta param source track wbr".split())



def _css_unescape(name: str) -> str:
    def repl(m: re.Match) -> str:
        esc = m.group(1)
        if re.fullmatch(r"[0-9a-fA-F]{1,6}\s?", esc):
            return chr(int(esc.strip(), 16))
        return esc
    return re.sub(r"\\([0-9a-fA-F]{1,6}\s?|.)", repl, name)


def tailwind_classes(css: str) -> set[str]:
    """Every class name that appears in a selector of ``css`` (escapes such as ``md\\:`` resolved)."""
    css = re.sub(r"/\*.*?\*/", "", css, flags=re.S)
    names: set[str] = set()
    for prelude in re.findall(r"([^{}]+)\{", css):
        if prelude.lstrip().startswith("@"):
            continue  # @media (...), @keyframes name, ...: not selectors
        for m in re.finditer(r"\.((?:\\[0-9a-fA-F]{1,6}\s?|\\.|[A-Za-z0-9_-])+)", prelude):
            names.add(_css_unescape(m.group(1)))
    return names


class _Structure(HTMLParser):
    """Collects classes, tag names, attributes and nesting errors of a document."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.errors: list[str] = []
        self.classes: set[str] = set()
        self.tags: list[str] = []
        self.attrs: list[tuple[str, str, str]] = []  # (tag, name, value)
        self.links: list[tuple[dict, list[str]]] = []  # (attrs, open elements at that point)

    def _attrs(self, tag: str, attrs: list) -> None:
        self.tags.append(tag)
        for name, value in attrs:
            self.attrs.append((tag, name, value or ""))
            if name == "class" and value:
                self.classes.update(value.split())
        if tag == "link":
            self.links.append((dict(attrs), list(self.stack)))

    def handle_starttag(self, tag, attrs):
        self._attrs(tag, attrs)
        if tag not in VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        self._attrs(tag, attrs)
        if tag not in VOID:
            self.errors.append(f"non-void <{tag}/> self-closed at line {self.getpos()[0]}")

    def handle_endtag(self, tag):
        if tag in VOID:
            self.errors.append(f"end tag for void <{tag}> at line {self.getpos()[0]}")
        elif not self.stack or self.stack[-1] != tag:
            self.errors.append(f"</{tag}> at line {self.getpos()[0]} does not close {self.stack[-1:] or 'anything'}")
        else:
            self.stack.pop()


def structure(html: str) -> _Structure:
    parser = _Structure()
    parser.feed(html)
    parser.close()
    if parser.stack:
        parser.errors.append(f"unclosed elements at end: {parser.stack}")
    return parser


def foreign_urls(html: str) -> list[str]:
    """URLs in ``html`` other than the Tailwind CDN stylesheet and picsum id/48 images."""
    return [u for u in URL.findall(html) if u != CDN and not PICSUM.fullmatch(u)]


def leaked_classes(description: str, classes: set[str]) -> list[str]:
    """Class names of the page that occur as whole tokens in the description (case-insensitive)."""
    text = description.lower()
    return sorted(c for c in classes
                  if re.search(r"(?<![\w:/.-])" + re.escape(c.lower()) + r"(?![\w:/-])", text))


def stylesheet() -> Path | None:
    """The Tailwind 2.2.19 stylesheet ``make assets`` downloaded, if it is here."""
    candidates = []
    if os.environ.get("COLBENCH_ASSETS"):
        candidates.append(Path(os.environ["COLBENCH_ASSETS"]) / "tailwind-2.2.19.min.css")
    candidates.append(REPO / "assets" / "tailwind-2.2.19.min.css")
    return next((p for p in candidates if p.is_file()), None)
