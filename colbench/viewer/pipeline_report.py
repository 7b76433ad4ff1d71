"""``write_pipeline_report``: a ``colbench pipeline`` out-dir -> ``<out_dir>/report.html``.

What it reads (the files the pipeline leaves; nothing is re-run but the sandboxed scoring of
answers without stored per-test outcomes):

* one run (``out_dir/eval/<method>.jsonl``) or one run per seed (``out_dir/seed-<s>/eval/...``);
  ``eval/<method>.sampled.jsonl`` are the sampled evaluation's episodes;
* ``results.json`` (each run's table: one row per method), ``stats.json`` (means with bootstrap
  intervals over tasks and seeds, paired comparisons) and ``stats.png`` (their plot), else
  ``results.png``; ``config.json`` (the settings).

What it shows: a "Results" view (the settings, the statistics table and comparisons, the plot,
each run's results table), then every method's evaluation episodes (one run per method and mode,
its seeds pooled; an episode's group is its seed) in the index, each method compared task by task
with zero-shot in the same mode (same seed, same task) with its episodes side by side, and the
summary charts.
"""
from __future__ import annotations

import base64
import json
import os
import re
from pathlib import Path

from colbench.errors import UsageError

from .report import ViewResult, check_out, write_runs

__all__ = ["write_pipeline_report", "pipeline_runs"]

_SEED_DIR = re.compile(r"^seed-(\d+)$")


def _run_dirs(out_dir: Path) -> list[Path]:
    seeds = sorted((d for d in out_dir.iterdir() if d.is_dir() and _SEED_DIR.match(d.name) and (d / "eval").is_dir()),
                   key=lambda d: int(_SEED_DIR.match(d.name).group(1)))
    if seeds:
        return seeds
    if (out_dir / "eval").is_dir():
        return [out_dir]
    raise UsageError(f"{out_dir}: not a pipeline out-dir (no eval/ folder, no seed-N/eval/ folders)")


def _method_order(names: set[str]) -> list[str]:
    from colbench.agents.registry import TRAINERS

    known = ["zero-shot", *TRAINERS]
    return [m for m in known if m in names] + sorted(names - set(known))


def pipeline_runs(out_dir: str | os.PathLike) -> tuple[list[str], list[str], list[int], list[str], list[tuple[int, int]]]:
    """The evaluation files of a pipeline out-dir as runs: ``(paths, labels, merge, groups,
    comparisons)`` for :func:`colbench.viewer.data.load_runs` and :func:`~.report.write_runs` (see
    the module docstring). Empty files (an evaluation that has not started) are left out."""
    out_dir = Path(out_dir)
    dirs = _run_dirs(out_dir)
    multi = dirs[0] != out_dir
    found: dict[tuple[str, str], list[Path]] = {}
    for d in dirs:
        for f in sorted((d / "eval").glob("*.jsonl")):
            if f.stat().st_size == 0:
                continue
            method, mode = (f.name[: -len(".sampled.jsonl")], "sampled") if f.name.endswith(".sampled.jsonl") \
                else (f.name[: -len(".jsonl")], "greedy")
            found.setdefault((method, mode), []).append(f)
    if not found:
        raise UsageError(f"{out_dir}: no evaluation episodes yet (eval/*.jsonl)")
    paths, labels, merge, groups, comparisons = [], [], [], [], []
    for mode in ("greedy", "sampled"):
        index: dict[str, int] = {}
        for method in _method_order({m for m, md in found if md == mode}):
            index[method] = len(labels)
            labels.append(method if mode == "greedy" else f"{method} (sampled)")
            for f in found[(method, mode)]:
                paths.append(str(f))
                merge.append(index[method])
                groups.append(f.parent.parent.name if multi else "")
        if "zero-shot" in index:
            comparisons += [(i, index["zero-shot"]) for m, i in index.items() if m != "zero-shot"]
    return paths, labels, merge, groups, comparisons


def _read_json(path: Path):
    try:
        return json.loads(path.read_text())
    except (OSError, json.JSONDecodeError):
        return None


def _png(path: Path) -> str | None:
    if not path.is_file():
        return None
    return "data:image/png;base64," + base64.b64encode(path.read_bytes()).decode("ascii")


def _results_html(out_dir: Path, dirs: list[Path]) -> str:
    from .html import environment

    tables = []
    for d in dirs:
        res = _read_json(d / "results.json")
        if isinstance(res, dict) and isinstance(res.get("rows"), list):
            rows = [r for r in res["rows"] if isinstance(r, dict)]
            metrics = ("tests_passed_pct", "success_rate_pct", "similarity_pct", "win_rate_pct")
            columns = [c for c in ("method", "episodes", *metrics, "sampled_episodes",
                                   *(f"sampled_{m}" for m in metrics), "train_seconds", "note")
                       if any(r.get(c) not in (None, "") for r in rows)]
            tables.append({"name": d.name if d != out_dir else "", "rows": rows, "columns": columns,
                           "preset": res.get("preset"), "policy": res.get("policy")})
    stats_dir = next((p for p in (out_dir, *dirs) if (p / "stats.json").is_file()), None)
    stats = _read_json(stats_dir / "stats.json") if stats_dir else None
    plot = _png(out_dir / "stats.png") or (_png(dirs[0] / "stats.png") if len(dirs) == 1 else None) \
        or (_png(out_dir / "results.png") if dirs == [out_dir] else None)
    config = _read_json(out_dir / "config.json") or _read_json(dirs[0] / "config.json")
    shown = ("env", "policy", "tasks", "family", "difficulty", "prompt_style", "n_train_tasks", "n_test_tasks",
             "rollouts_per_task", "max_turns", "max_new_tokens", "rollout_temperature", "eval_temperature",
             "eval_samples", "eval_samples_temperature", "simulator", "simulator_kwargs", "semantics", "similarity", "seed", "seeds",
             "methods", "human_version")
    settings = [(k, json.dumps(config[k])) for k in shown if isinstance(config, dict) and k in config]
    budget_columns, budget_rows, budget_notes = _budgets(dirs, stats if isinstance(stats, dict) else None)
    return environment().get_template("results.html.j2").render(
        out_dir=str(out_dir), tables=tables, stats=stats if isinstance(stats, dict) else None,
        stats_dir=str(stats_dir) if stats_dir else None, plot=plot, settings=settings,
        budget_columns=budget_columns, budget_rows=budget_rows, budget_notes=budget_notes)


def _budgets(dirs: list[Path], stats: dict | None) -> tuple[list[str], list[tuple[str, list[str], str]], list[str]]:
    """The training budget table of the runs (:func:`colbench.budgets.budget_table`, read from
    their files whether or not the run matched budgets): its headings, ``(method, cells, unit)`` rows
    (each cell the runs' values joined by /) and the > 10 % differences between compared methods."""
    from colbench.budgets import BUDGET_COLUMNS, HEADLINE_COMPARISON, budget_cells, budget_differences, budget_table

    methods = _method_order({p.name for d in dirs for p in (d / "models").glob("*") if p.is_dir()}
                            | set(((_read_json(dirs[0] / "results.json") or {}).get("train") or {})))
    table = budget_table(dirs, [m for m in methods if m != "zero-shot"])
    rows = [(m, budget_cells(e), e["unit"]) for m, e in table.items()]
    if stats is not None and "budget_differences" in stats:
        notes = list(stats["budget_differences"])
    else:
        notes = budget_differences(table, [HEADLINE_COMPARISON])
    return list(BUDGET_COLUMNS.values()), rows, notes


def write_pipeline_report(out_dir: str | os.PathLike, *, out: str | os.PathLike | None = None, score: bool = True,
                          workers: int | None = None, progress: bool = True) -> ViewResult:
    """Write ``report.html`` in the pipeline out-dir ``out_dir`` (or at ``out``): see the module
    docstring. Bad input (not an out-dir, malformed episode files) raises a one-line error before
    anything is written.

    Args:
        score: score the backend episodes that have no per-test outcomes (the pipeline's own files
            have none), as ``colbench evaluate --explain`` does.
        workers: sandbox workers for that (default: the CPU count).
    """
    from colbench.extras import require

    from .data import load_runs

    require("view")  # before any file is read
    od = Path(out_dir)
    if not od.is_dir():
        raise UsageError(f"{out_dir}: no such folder")
    dirs = _run_dirs(od)
    paths, labels, merge, groups, comparisons = pipeline_runs(od)
    target = check_out(out if out is not None else od / "report.html", paths)
    runs = load_runs(paths, labels, groups=groups, merge=merge)
    n = sum(len(r.episodes) for r in runs)
    seeds = f" over {len(dirs)} seeds ({', '.join(d.name for d in dirs)})" if dirs[0] != od else ""
    notes = [f"{n} evaluation episodes of {len(runs)} method/mode runs{seeds}, from {od}/"
             f"{'seed-N/' if seeds else ''}eval/*.jsonl; each method is compared with zero-shot task by task."]
    config = _read_json(od / "config.json") or _read_json(dirs[0] / "config.json")
    semantics = config.get("semantics", "reference") if isinstance(config, dict) else "reference"
    if semantics not in ("reference", "python"):
        semantics = "reference"
    if runs[0].kind == "backend":
        notes.append(f"Per-test outcomes scored now in the sandbox ({semantics} semantics, the run's), as colbench "
                     "evaluate --explain does, where the files have none.")
    return write_runs(runs, target, comparisons=comparisons, title=f"colbench pipeline report: {od}",
                      results_html=_results_html(od, dirs), notes=notes, semantics=semantics, score=score,
                      workers=workers, progress=progress)
