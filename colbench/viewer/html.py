"""The report page: Jinja2 templates (package data, ``colbench/viewer/templates``), code highlighted by
Pygments, styles and script inlined from ``colbench/viewer/static``; one HTML file that needs no
server and no network.

Layout of the page: the index table (one row per episode) is plain HTML; each episode's view and
each task's view are pre-rendered HTML fragments kept in one gzip-compressed JSON block (decoded by
the browser's own ``DecompressionStream`` once the page is interactive) and inserted by the script
when opened, and page images are ``data:`` URLs in a second block, so a page of a thousand episodes
loads in about the time of its index and dialogue text costs a fraction of its size. Views are addressed by the URL's fragment (``#/episode/17``, ``#/compare/0``,
``#/pair/0/5``, ``#/summary``, ``#/results``), so the browser's back button and links work.
"""
from __future__ import annotations

import base64
import functools
import gzip
import hashlib
import json
import re
from importlib import resources
from typing import Sequence

from colbench_env.simulators.identity import describe_humans

from .data import CATEGORIES, Comparison, Episode, Run

__all__ = ["environment", "highlight", "message_html", "render_report"]

_FENCE = re.compile(r"```[ \t]*([\w+.#-]*)[^\n]*\n(.*?)(?:```|\Z)", re.S)
_PAGE = re.compile(r"<html\b.*?</html\s*>|<body\b.*?</body\s*>", re.S | re.I)

#: category -> label, per kind (``{a}``/``{b}``: the two runs' labels)
CATEGORY_LABELS = {"a_only": "{a} solved, {b} not", "b_only": "{b} solved, {a} not", "both": "both solved",
                   "neither": "neither solved", "win": "{a} wins", "loss": "{b} wins", "tie": "ties",
                   "only_a": "only in {a}", "only_b": "only in {b}"}


@functools.lru_cache(maxsize=None)
def _lexer(lang: str):
    from pygments.lexers import get_lexer_by_name
    from pygments.util import ClassNotFound

    try:
        return get_lexer_by_name(lang or "text", stripnl=False, ensurenl=False)
    except ClassNotFound:
        return get_lexer_by_name("text", stripnl=False, ensurenl=False)


@functools.lru_cache(maxsize=1)
def _formatter():
    from pygments.formatters import HtmlFormatter

    return HtmlFormatter(nowrap=True)


def highlight(code: str, lang: str = "python"):
    """``code`` as highlighted HTML inside ``<pre class="code">`` (a ``Markup``)."""
    from markupsafe import Markup
    from pygments import highlight as pyg

    return Markup('<pre class="code">') + Markup(pyg(code, _lexer(lang), _formatter())) + Markup("</pre>")


def message_html(text: str, kind: str):
    """A dialogue message: plain text (escaped, line breaks kept) with fenced code blocks highlighted
    (language from the fence, Python by default on the backend, HTML on the frontend) and, on the
    frontend, a page written without a fence highlighted as HTML and folded away."""
    from markupsafe import Markup, escape

    default = "python" if kind == "backend" else "html"
    parts, pos = [], 0
    spans = []
    for m in _FENCE.finditer(text):
        spans.append((m.start(), m.end(), m.group(1) or default, m.group(2)))
    if kind == "frontend" and not spans:
        m = _PAGE.search(text)
        if m:
            spans.append((m.start(), m.end(), "html", m.group(0)))
    for start, end, lang, code in spans:
        if start > pos:
            parts.append(Markup('<div class="text">') + escape(text[pos:start].strip("\n")) + Markup("</div>"))
        block = highlight(code, lang)
        if lang.lower() in ("html", "htm") and len(code) > 400:
            block = Markup(f"<details class=\"page-code\"><summary>page source ({len(code):,} characters)</summary>") \
                + block + Markup("</details>")
        parts.append(block)
        pos = end
    if pos < len(text):
        parts.append(Markup('<div class="text">') + escape(text[pos:].strip("\n")) + Markup("</div>"))
    return Markup("").join(parts)


def _fmt(v, digits: int = 3) -> str:
    return "" if v is None else f"{v:.{digits}f}"


@functools.lru_cache(maxsize=1)
def environment():
    """The Jinja2 environment of the report (autoescaping on, templates from the package)."""
    import jinja2

    env = jinja2.Environment(loader=jinja2.PackageLoader("colbench.viewer", "templates"),
                             autoescape=jinja2.select_autoescape(default=True, default_for_string=True),
                             trim_blocks=True, lstrip_blocks=True, undefined=jinja2.StrictUndefined)
    env.filters["highlight"] = highlight
    env.filters["message"] = message_html
    env.filters["num"] = _fmt
    env.filters["humans"] = describe_humans
    return env


def _static(name: str) -> str:
    return resources.files("colbench.viewer").joinpath("static", name).read_text(encoding="utf-8")


def _task_html_key(ep: Episode) -> str:
    blob = json.dumps(ep.record["task"], sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(blob.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def _json_for_script(obj) -> str:
    """JSON safe inside ``<script type="application/json">`` (no ``</``, no ``<!--``)."""
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":")).replace("</", "<\\/").replace("<!--", "\\u003c!--")


def _compressed(obj) -> str:
    """``obj`` as JSON, gzip-compressed (deterministic: no time stamp), base64: the episodes' block."""
    raw = json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "surrogatepass")
    return base64.b64encode(gzip.compress(raw, compresslevel=6, mtime=0)).decode("ascii")


def _scored_records(run: Run) -> list[dict]:
    """A run's records as scored in the view (the fresh score where the file has none), each task
    keyed by its group too (a pipeline's seeds are different tasks to pair, not trials of one)."""
    return [{**ep.record, "reward": ep.reward, "success": ep.success, "error": ep.error,
             "task_id": "/".join(x for x in ep.key if x)} for ep in run.episodes]


def render_report(runs: Sequence[Run], *, comparisons: Sequence[Comparison] = (), charts: dict | None = None,
                  images: dict | None = None, title: str = "colbench view", results_html: str | None = None,
                  notes: Sequence[str] = ()) -> str:
    """The report page's HTML (see the module docstring).

    Args:
        runs: the runs (scored, and rendered for frontend runs).
        comparisons: two-run comparisons to show.
        charts: the summary's SVG charts (:func:`colbench.viewer.charts.summary_charts`).
        images: page images, ``{key: data URL}`` (:func:`colbench.viewer.pages.render_pages`).
        title: the page title.
        results_html: a "Results" view shown first (the pipeline's tables and plots).
        notes: lines shown under the title (what was read, how it was scored).
    """
    from colbench.comparison import paired_comparison
    from colbench_env.metrics import summarize

    env = environment()
    kind = runs[0].kind
    episodes = [ep for run in runs for ep in run.episodes]
    ep_tpl, task_tpl = env.get_template("episode.html.j2"), env.get_template("task.html.j2")
    tasks: dict[str, str] = {}
    ep_task, fragments = [], []
    for ep in episodes:
        tk = _task_html_key(ep)
        if tk not in tasks:
            tasks[tk] = task_tpl.render(ep=ep, task=ep.record["task"], kind=ep.kind)
        ep_task.append(tk)
        fragments.append(ep_tpl.render(ep=ep, run=runs[ep.run], kind=ep.kind))
    reasons = sorted({ep.reason_kind for ep in episodes})
    summaries = []
    for run in runs:
        m = summarize(_scored_records(run))
        kinds: dict[str, int] = {}
        for ep in run.episodes:
            kinds[ep.reason_kind] = kinds.get(ep.reason_kind, 0) + 1
        summaries.append({"run": run, "m": m, "reasons": sorted(kinds.items(), key=lambda kv: -kv[1])})
    comps = []
    for c in comparisons:
        a, b = runs[c.a].label, runs[c.b].label
        cats = [(cat, CATEGORY_LABELS[cat].format(a=a, b=b), c.counts.get(cat, 0))
                for cat in (*CATEGORIES[kind], "only_a", "only_b") if cat in CATEGORIES[kind] or c.counts.get(cat)]
        try:
            paired = paired_comparison(_scored_records(runs[c.a]), _scored_records(runs[c.b]), labels=(a, b))
        except ValueError:  # no scored task in common
            paired = None
        comps.append({"c": c, "a": runs[c.a], "b": runs[c.b], "cats": cats, "paired": paired,
                      "labels": {cat: lab for cat, lab, _ in cats}})
    data = {"episodes": fragments, "task_of": ep_task, "tasks": tasks,
            "pairs": [{"a": runs[c.a].label, "b": runs[c.b].label, "rows": [{"a": r["a"], "b": r["b"]} for r in c.rows]}
                      for c in comparisons]}
    return env.get_template("report.html.j2").render(
        title=title, notes=list(notes), runs=runs, kind=kind, episodes=episodes, reasons=reasons,
        summaries=summaries, comparisons=comps, charts=charts or {}, results_html=results_html,
        multi=len(runs) > 1, groups=any(ep.group for ep in episodes),
        css=_static("viewer.css") + "\n" + _formatter().get_style_defs(".code"), js=_static("viewer.js"),
        data_b64=_compressed(data), images_json=_json_for_script(images or {}))
