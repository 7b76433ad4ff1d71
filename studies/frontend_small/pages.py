"""What each method's held-out episodes did, beside their similarity: asked first, wrote a page, was cut.

A frontend episode scores 0 when its answer holds no page (the first ``<html>...</html>``, else
``<body>...</body>``, of the final message, else the last page shown: the record's ``answer`` as the
env kept it, read with :func:`colbench_env.protocol.extract_html`, the scorer's own rule), and a
page cut at ``max_new_tokens`` before ``</html>`` holds none. So a mean similarity mixes two things:
how often a method wrote a page at all, and how close its pages are. This script separates them,
per method, pooled over the seed folders given (each a pipeline ``seed-N`` folder with
``eval/<method>.jsonl``, greedy episodes):

* ``asked``: % of episodes whose first agent message is not an answer (no ``I WANT TO ANSWER:``);
* ``page``: % whose answer holds a page;
* ``cut``: % whose final agent message stopped at the token limit (``finish_reason`` "length");
* ``similarity``: mean reward x 100 (every episode; as ``stats.md``);
* ``similarity of pages``: mean reward x 100 over the episodes with a page;

what the pages say beside the target's (the generated pages' markup, read with regular expressions:
the ``bg-*`` classes of the first ``<nav>`` and of the first ``<section>``, and the first ``<h1>``'s
text; % of all episodes, a missing page counts as different): ``nav colour``, ``welcome
background`` and ``headline`` as the target's, and ``same as zero-shot`` (% whose answer is
zero-shot's answer on that task and seed, character for character); and the mean similarity by the
task's hidden facts (the names in the generated task's
``task["generator"]["facts"]``, e.g. ``headline``; ``+``-joined when several), which says what a
method got better or worse at; and, per hidden fact, how often the page got that fact right: % of
the episodes whose task hides it in which the part of the page it changes is the target's
(``accent``: the navigation bar's ``bg-*`` classes; ``background``: the welcome section's;
``headline``: the ``<h1>`` text). Only the human's answer tells the fact, so this column, not the
similarity, says whether a method used what it was told.

Run from the repository root (writes ``pages.md`` and ``pages.json`` in ``--out``)::

    python -m studies.frontend_small.pages runs/frontend_small/seed-0 runs/frontend_small/seed-1 \\
        runs/frontend_small/seed-2 --out studies/frontend_small
"""
from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

from colbench_env.protocol import ANSWER_MARKER, extract_html
from colbench_env.trajectories import TrajectoryFormatError, read_jsonl, validate_trajectory

COLUMNS = ("episodes", "asked_pct", "page_pct", "cut_pct", "similarity_pct", "page_similarity_pct")
MARKUP = ("nav_as_target_pct", "section_as_target_pct", "headline_as_target_pct", "same_as_zero_shot_pct")
_TAG_CLASS = {tag: re.compile(rf"<{tag}\b[^>]*?\bclass=([\"'])(.*?)\1", re.I | re.S) for tag in ("nav", "section")}
_H1 = re.compile(r"<h1\b[^>]*>(.*?)</h1\s*>", re.I | re.S)
#: The page part (a key of :func:`markup`) each generated ``mini`` fact changes.
FACT_PART = {"accent": "nav", "background": "section", "headline": "h1"}


def markup(html: str) -> dict:
    """The parts of a generated page that its facts change: the ``bg-*`` classes of its first
    ``<nav>`` and first ``<section>`` (sorted; ``None`` without the element) and its first ``<h1>``'s
    text (whitespace collapsed)."""
    out: dict = {}
    for tag, rx in _TAG_CLASS.items():
        m = rx.search(html)
        out[tag] = None if m is None else sorted(c for c in m.group(2).split() if c.startswith("bg-"))
    m = _H1.search(html)
    out["h1"] = None if m is None else " ".join(m.group(1).split())
    return out


def _error(msg: str, code: int = 2) -> "SystemExit":
    print(f"pages: {msg}", file=sys.stderr)
    return SystemExit(code)


def _methods(seed_dirs: list[Path]) -> list[str]:
    """zero-shot, then the methods of the first seed's config.json in their order, then any other
    evaluation file present in every seed folder (sorted)."""
    common = set.intersection(*({p.stem for p in (d / "eval").glob("*.jsonl")} for d in seed_dirs))
    order = ["zero-shot"]
    cfg = seed_dirs[0] / "config.json"
    if cfg.exists():
        from colbench.resume import read_json_object

        try:
            order += list(read_json_object(cfg).get("methods", []))
        except ValueError as exc:
            raise _error(str(exc))
    return [m for m in order if m in common] + sorted(common - set(order))


def _records(path: Path, seed: str) -> list[dict]:
    """The fields this report reads from each episode of ``path`` (read and checked by the
    trajectory reader, plus a numeric ``reward``), tagged with the seed folder's name."""
    out = []
    try:
        for n, rec in read_jsonl(path):
            validate_trajectory(rec, source=str(path), line=n)
            if "dialogue_history" not in rec:
                raise TrajectoryFormatError(f"{path}:{n}: field 'dialogue_history' is missing")
            try:
                reward = float(rec["reward"])
            except (KeyError, TypeError, ValueError):
                raise TrajectoryFormatError(f"{path}:{n}: field 'reward' must be a number") from None
            task = rec["task"]
            facts = [f["name"] for f in (task.get("generator") or {}).get("facts") or []]
            page = extract_html(rec.get("answer"))
            got, want = (markup(page) if page else None), markup(task.get("ground_truth") or "")
            out.append({"seed": seed, "task_id": rec.get("task_id"), "reward": reward, "answer": rec.get("answer"),
                        "page": page, "facts": facts, "hidden": "+".join(facts) or "(none recorded)",
                        # per page part: the page has it and it is the target's (no page: all False)
                        "as_target": {k: got is not None and got[k] is not None and got[k] == want[k] for k in want},
                        "agent": [t for t in rec["dialogue_history"] if t.get("role") == "assistant"]})
    except TrajectoryFormatError as exc:
        raise _error(str(exc))
    return out


def summarise(records: list[dict], zero_shot: dict | None = None) -> dict:
    """The columns of some episodes (see the module docstring); ``zero_shot`` maps ``(seed folder
    name, task id)`` to zero-shot's answer there, for ``same_as_zero_shot_pct``."""
    n = len(records)
    if n == 0:
        return {"episodes": 0}
    paged = [r for r in records if r["page"]]
    asked = [r for r in records if r["agent"] and ANSWER_MARKER not in (r["agent"][0].get("content") or "")]
    cut = [r for r in records if r["agent"] and r["agent"][-1].get("finish_reason") == "length"]
    out = {"episodes": n, "asked_pct": 100 * len(asked) / n, "page_pct": 100 * len(paged) / n,
           "cut_pct": 100 * len(cut) / n, "similarity_pct": 100 * sum(r["reward"] for r in records) / n,
           "page_similarity_pct": 100 * sum(r["reward"] for r in paged) / len(paged) if paged else None}
    same = {k: sum(r["as_target"][k] for r in records) for k in ("nav", "section", "h1")}
    out.update({"nav_as_target_pct": 100 * same["nav"] / n, "section_as_target_pct": 100 * same["section"] / n,
                "headline_as_target_pct": 100 * same["h1"] / n})
    if zero_shot is not None:
        out["same_as_zero_shot_pct"] = 100 * sum(r["answer"] == zero_shot.get((r["seed"], r["task_id"]))
                                                 for r in records) / n
    return out


def _by_hidden_fact(records: list[dict]) -> dict:
    groups: dict[str, list[float]] = {}
    for r in records:
        groups.setdefault(r["hidden"], []).append(r["reward"])
    return {h: {"episodes": len(g), "similarity_pct": 100 * sum(g) / len(g)} for h, g in sorted(groups.items())}


def _hidden_fact_right(records: list[dict]) -> dict:
    """Per fact of :data:`FACT_PART` hidden in some of ``records``' tasks: of those episodes, how
    many and the % whose page has that fact's part as the target's (no page: wrong)."""
    counts: dict[str, list[int]] = {}
    for r in records:
        for f in r["facts"]:
            if f in FACT_PART:
                c = counts.setdefault(f, [0, 0])
                c[0] += 1
                c[1] += r["as_target"][FACT_PART[f]]
    return {f: {"episodes": n, "right_pct": 100 * k / n} for f, (n, k) in sorted(counts.items())}


def analyse(seed_dirs: list[Path]) -> dict:
    seed_dirs = [Path(d) for d in seed_dirs]
    for d in seed_dirs:
        if not (d / "eval").is_dir():
            raise _error(f"{d}: no eval/ folder (give pipeline seed-N folders)")
    names = [d.name for d in seed_dirs]
    if len(set(names)) < len(names):
        raise _error(f"two seed folders share a name ({', '.join(sorted({n for n in names if names.count(n) > 1}))}): "
                     f"the report keys seeds by folder name")
    methods = _methods(seed_dirs)
    if not methods:
        raise _error("no method has an evaluation file in every seed folder given")
    episodes = {m: {d.name: _records(d / "eval" / f"{m}.jsonl", d.name) for d in seed_dirs} for m in methods}
    zs = ({(r["seed"], r["task_id"]): r["answer"] for rs in episodes["zero-shot"].values() for r in rs}
          if "zero-shot" in episodes else None)
    report = {"seeds": names, "methods": {}}
    for m, per_seed in episodes.items():
        pooled = [r for rs in per_seed.values() for r in rs]
        report["methods"][m] = {"pooled": summarise(pooled, zs),
                                "per_seed": {s: summarise(rs, zs) for s, rs in per_seed.items()},
                                "by_hidden_fact": _by_hidden_fact(pooled),
                                "hidden_fact_right": _hidden_fact_right(pooled)}
    return report


def _cell(v) -> str:
    return "-" if v is None else (str(v) if isinstance(v, int) else f"{v:.1f}")


def markdown(report: dict) -> str:
    head = "| method | episodes | asked first % | page written % | cut at the token limit % | similarity | similarity of pages |"
    lines = [f"Greedy held-out episodes, pooled over {', '.join(report['seeds'])}.", "", head,
             "|" + "---|" * len(COLUMNS + ("method",))]
    for m, entry in report["methods"].items():
        p = entry["pooled"]
        lines.append(f"| {m} | " + " | ".join(_cell(p.get(c)) for c in COLUMNS) + " |")
    lines += ["", "What the pages say beside the target's (% of episodes; a missing page counts as different):", "",
              "| method | nav colour as the target's | welcome background as the target's | headline as the target's "
              "| same answer as zero-shot |", "|---|---|---|---|---|"]
    for m, entry in report["methods"].items():
        p = entry["pooled"]
        lines.append(f"| {m} | " + " | ".join(_cell(p.get(c)) for c in MARKUP) + " |")
    facts = sorted({h for e in report["methods"].values() for h in e["by_hidden_fact"]})
    lines += ["", "Similarity by the hidden fact (episodes):", "", "| method | " + " | ".join(facts) + " |",
              "|" + "---|" * (1 + len(facts))]
    for m, entry in report["methods"].items():
        by = entry["by_hidden_fact"]
        lines.append(f"| {m} | " + " | ".join(f"{by[h]['similarity_pct']:.1f} ({by[h]['episodes']})" if h in by else "-"
                                              for h in facts) + " |")
    right = sorted({f for e in report["methods"].values() for f in e["hidden_fact_right"]})
    if right:
        lines += ["", "The hidden fact right: % of the episodes whose task hides it (episodes) in which the part of the "
                  "page it changes is the target's (accent: navigation bar colour; background: welcome section "
                  "colour; headline: the `<h1>` text):", "",
                  "| method | " + " | ".join(right) + " |", "|" + "---|" * (1 + len(right))]
        for m, entry in report["methods"].items():
            by = entry["hidden_fact_right"]
            lines.append(f"| {m} | " + " | ".join(f"{by[f]['right_pct']:.1f} ({by[f]['episodes']})" if f in by else "-"
                                                  for f in right) + " |")
    if len(report["seeds"]) > 1:
        lines += ["", "Per seed (page written % / similarity):", "",
                  "| method | " + " | ".join(report["seeds"]) + " |", "|" + "---|" * (1 + len(report["seeds"]))]
        for m, entry in report["methods"].items():
            cells = [f"{_cell(entry['per_seed'][s]['page_pct'])} / {_cell(entry['per_seed'][s]['similarity_pct'])}"
                     for s in report["seeds"]]
            lines.append(f"| {m} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m studies.frontend_small.pages", description=__doc__.split("\n")[0])
    ap.add_argument("seed_dirs", nargs="+", type=Path, help="pipeline seed-N folders")
    ap.add_argument("--out", type=Path, default=None, help="folder for pages.md and pages.json (default: print)")
    args = ap.parse_args(argv)
    report = analyse(args.seed_dirs)
    text = markdown(report)
    if args.out is None:
        print(text, end="")
        return 0
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "pages.json").write_text(json.dumps(report, indent=1) + "\n")
    (args.out / "pages.md").write_text(text)
    print(f"wrote {args.out / 'pages.md'} and pages.json")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
