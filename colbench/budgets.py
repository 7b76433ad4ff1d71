"""Training budgets as the reports read and print them: what each method's training really did.

Every trainer's ``update`` metrics carry its budget (:data:`colbench.agents.trainer_base.BUDGET_FIELDS`):
``optimizer_steps`` (counted where the optimiser steps), ``examples`` (pairs, sequences or
trajectories trained on), ``learning_rate`` (read from the optimiser), ``nll_coef`` and ``epochs``
(passes over the examples, a pass cut short counting its fraction). The pipeline keeps them in
``models/<method>/pipeline_done.json``; :func:`budget_table` reads them back for every report
(``stats.md`` by :mod:`colbench.pipeline.analysis`, ``report.html`` by :mod:`colbench.viewer`), and
:func:`budget_differences` flags budgets that differ by more than :data:`TOLERANCE` (10 %) between
compared methods: then a difference in results may be one of budgets. Matching budgets is
:mod:`colbench.pipeline.budget`'s.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Sequence

__all__ = ["TOLERANCE", "BUDGET_COLUMNS", "EXAMPLE_UNITS", "HEADLINE_COMPARISON", "budget_of", "budget_table",
           "example_unit", "budget_differences", "budget_markdown", "budget_cells", "fmt_budget", "TOKEN_COLUMNS",
           "token_table", "token_markdown"]

#: relative difference above which two budgets are reported as different
TOLERANCE = 0.10
#: the budget's columns in reports, with their headings
BUDGET_COLUMNS = {"optimizer_steps": "optimiser steps", "examples": "examples", "learning_rate": "learning rate",
                  "nll_coef": "NLL coef.", "epochs": "epochs"}
#: what ``examples`` counts, per method
EXAMPLE_UNITS = {"rft": "sequences", "mt-dpo": "trajectory pairs", "ppo": "trajectories", "grpo": "sequences",
                 "sweet-rl": "step pairs"}
#: the comparison the paper's claim is about (SWEET-RL against the best multi-turn baseline)
HEADLINE_COMPARISON = ("sweet-rl", "mt-dpo")


def budget_of(metrics: dict) -> dict:
    """The budget fields of a method's training metrics (``None`` where not recorded: runs made before
    budgets were; then ``examples`` falls back to the count the metrics have, ``n_pairs``,
    ``n_sequences`` or ``n_trajectories``)."""
    out = {k: metrics.get(k) for k in BUDGET_COLUMNS}
    if out["examples"] is None:
        for k in ("n_pairs", "n_sequences", "n_trajectories"):
            if metrics.get(k) is not None:
                out["examples"] = metrics[k]
                break
    return out


def budget_table(run_dirs: Sequence[str | Path], methods: Sequence[str]) -> dict[str, dict]:
    """``{method: {"seeds": [budget per run], "unit": what examples are}}`` from each run's
    ``models/<method>/pipeline_done.json`` (:func:`budget_of`), else the training record its
    ``results.json`` keeps (``train``), for the ``methods`` trained in some run (zero-shot and
    untrained ones are left out)."""
    table: dict[str, dict] = {}
    for m in methods:
        per_run = []
        step_pairs = False
        for d in run_dirs:
            info = _training_record(Path(d), m)
            per_run.append(budget_of(info["metrics"]) if info and "metrics" in info else None)
            step_pairs |= bool(info and "n_step_pairs" in (info.get("metrics") or {}))
        if any(b is not None for b in per_run):
            table[m] = {"seeds": per_run, "unit": example_unit(m, step_pairs)}
    return table


def example_unit(method: str, step_pairs: bool = False) -> str:
    """What ``method``'s examples are (:data:`EXAMPLE_UNITS`); a method not listed there whose metrics
    count step pairs (SWEET-RL's policy stage under another name, e.g. a study's arm) trained on
    step pairs; else "examples"."""
    return EXAMPLE_UNITS.get(method, "step pairs" if step_pairs else "examples")


def _training_record(run_dir: Path, method: str) -> dict | None:
    marker = run_dir / "models" / method / "pipeline_done.json"
    if marker.exists():
        return json.loads(marker.read_text())
    results = run_dir / "results.json"
    if results.exists():
        return (json.loads(results.read_text()).get("train") or {}).get(method)
    return None


def _differs(a: float | None, b: float | None) -> bool:
    if a is None or b is None:
        return False
    top = max(abs(a), abs(b))
    return top > 0 and abs(a - b) / top > TOLERANCE


def budget_differences(table: dict[str, dict], pairs: Sequence[tuple[str, str]]) -> list[str]:
    """Sentences naming, for each compared pair of trained methods, the budget fields (optimiser
    steps, examples, learning rate, NLL coefficient, epochs) that differ by more than
    :data:`TOLERANCE` in some run; a field either method did not record is not compared."""
    out = []
    for a, b in pairs:
        if a not in table or b not in table:
            continue
        fields = []
        for k, label in BUDGET_COLUMNS.items():
            runs = [(x[k], y[k]) for x, y in zip(table[a]["seeds"], table[b]["seeds"])
                    if x is not None and y is not None and _differs(x[k], y[k])]
            if runs:
                fields.append(f"{label} " + ", ".join(f"{fmt_budget(x)} vs {fmt_budget(y)}" for x, y in runs))
        if fields:
            out.append(f"{a} vs {b}: " + "; ".join(fields))
    return out


def fmt_budget(v: Any) -> str:
    """One budget value as the reports print it (``n/r``: not recorded)."""
    if v is None:
        return "n/r"
    if isinstance(v, float) and not v.is_integer():
        return f"{v:.3g}"
    return str(int(v)) if isinstance(v, (int, float)) else str(v)


def budget_markdown(table: dict[str, dict], n_runs: int) -> list[str]:
    """The budget table as Markdown lines: one row per method, each cell the runs' values joined by
    ``/`` (``n/r``: not recorded, trained before budgets were; one ``n/r`` when no run recorded it)."""
    if not table:
        return []
    lines = ["| method | " + " | ".join(BUDGET_COLUMNS.values()) + " | examples are |",
             "|---" * (len(BUDGET_COLUMNS) + 2) + "|"]
    for m, entry in table.items():
        lines.append(f"| {m} | " + " | ".join(budget_cells(entry)) + f" | {entry['unit']} |")
    return lines


def budget_cells(entry: dict) -> list[str]:
    """A :func:`budget_table` row's cells, one per :data:`BUDGET_COLUMNS`: the runs' values joined by
    ``/``, or one ``n/r`` when no run recorded the field."""
    cells = []
    for k in BUDGET_COLUMNS:
        values = [b[k] if b is not None else None for b in entry["seeds"]]
        cells.append("n/r" if all(v is None for v in values) else " / ".join(fmt_budget(v) for v in values))
    return cells


#: the columns of a method's token counts in reports (its metrics' ``tokens``, kept by ``colbench pipeline``:
#: :meth:`colbench.agents.tokenize.TokenReport.counts`), with their headings
TOKEN_COLUMNS = {"turns": "agent turns", "recorded": "on recorded ids", "retokenized": "re-tokenized",
                 "differ": "differ from the policy's", "unchecked": "unchecked (no ids)"}


def token_table(run_dirs: Sequence[str | Path], methods: Sequence[str]) -> dict[str, list[dict | None]]:
    """``{method: [token counts per run]}`` (each run's training record's ``metrics.tokens``; ``None``
    where not recorded) for the ``methods`` that recorded them in some run."""
    table = {}
    for m in methods:
        per_run = []
        for d in run_dirs:
            info = _training_record(Path(d), m)
            per_run.append((info.get("metrics") or {}).get("tokens") if info else None)
        if any(t is not None for t in per_run):
            table[m] = per_run
    return table


def token_markdown(table: dict[str, list[dict | None]]) -> list[str]:
    """The token table as Markdown lines: one row per method, each cell the runs' counts joined by
    ``/`` (``n/r``: not recorded)."""
    if not table:
        return []
    lines = ["| method | " + " | ".join(TOKEN_COLUMNS.values()) + " |", "|---" * (len(TOKEN_COLUMNS) + 1) + "|"]
    for m, runs in table.items():
        cells = [" / ".join(fmt_budget(r.get(k) if r else None) for r in runs) for k in TOKEN_COLUMNS]
        lines.append(f"| {m} | " + " | ".join(cells) + " |")
    return lines
