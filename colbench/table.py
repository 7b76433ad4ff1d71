"""Agents x envs -> the paper's table (Markdown + CSV) and a bar chart (PNG): the service behind
``colbench table`` (whose parser is :mod:`colbench.cli.table`).

Backend columns: % tests passed and success rate; frontend: mean similarity and win rate against
the reference agent (the first one listed; per task, higher similarity to the target wins, ties
counted apart). With ``--rollouts-per-task K >= 2`` also pass@k and pass^k for k = 1..K (backend;
:mod:`colbench_env.metrics`); every row names its human and counts the infrastructure errors left out
of its means, and a line warns when the rows had different humans. Any OpenAI-compatible policy or simulator plugs in, so users with GPUs reproduce the
paper's setting (e.g. ``--agents openai:meta-llama/Llama-3.1-8B-Instruct@http://localhost:8000/v1
--simulator openai --simulator-model meta-llama/Llama-3.1-70B-Instruct --simulator-base-url ...``).

Agent specs: ``smollm2``, ``scripted``, ``hf:PATH`` (a local model directory, e.g. a trained
checkpoint), ``openai:MODEL@BASE_URL``, or a plug-in (``module:Name``, ``path/to/file.py:Name``, an
entry point of group ``colbench.agents``; see ``colbench run --agent``). Every run appends to its own
trajectory file under ``--out-dir`` and resumes (:func:`colbench.runs.run`: a changed setting stops
with an error instead of mixing runs).

Python: :func:`table` with a :class:`TableConfig`.
"""
from __future__ import annotations

import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

from colbench.runs import RunConfig, run
from colbench.errors import UsageError
from colbench_env.evaluation.trajectory_scoring import win_rate

__all__ = ["ENVS", "TableConfig", "parse_agent_spec", "table", "write_table", "table_columns", "score_columns"]

ENVS = ("ColBench-Backend-v0", "ColBench-Frontend-v0")
COLUMNS = ["agent", "env", "episodes", "tests_passed_pct", "success_rate_pct", "similarity", "win_rate_pct"]


def parse_agent_spec(spec: str) -> dict:
    """``{"name", "agent", "agent_model", "agent_base_url"}`` from an agent spec string."""
    if spec in ("smollm2", "scripted"):
        return {"name": spec, "agent": spec, "agent_model": None, "agent_base_url": None}
    if spec.startswith("hf:") and len(spec) > 3:
        path = spec[3:]
        return {"name": Path(path).name or path, "agent": "hf", "agent_model": path, "agent_base_url": None}
    m = re.fullmatch(r"openai:(.+)@(https?://.+)", spec)
    if m:
        return {"name": m.group(1).split("/")[-1], "agent": "openai", "agent_model": m.group(1),
                "agent_base_url": m.group(2)}
    from colbench.plugins import AGENT_GROUP, is_plugin_spec

    if spec.startswith(("hf:", "openai:")) or not is_plugin_spec(spec, AGENT_GROUP):
        raise UsageError(f"--agents {spec!r}: expected smollm2, scripted, hf:PATH, openai:MODEL@BASE_URL "
                         "or a plug-in (module:Name, path/to/file.py:Name, an entry point)")
    name = spec.rpartition(":")[2] or spec
    return {"name": name, "agent": spec, "agent_model": None, "agent_base_url": None}


@dataclass
class TableConfig:
    """``colbench table``: each agent on each env (same options as :class:`colbench.runs.RunConfig`).

    Attributes:
        agents: agent specs (:func:`parse_agent_spec`); the first is the frontend win-rate reference.
        envs: env ids.
        out_dir: one trajectory file per agent and env, and ``table.{md,csv,json,png}``.
        run_settings: the :class:`RunConfig` fields shared by every run (its ``out``, ``env`` and ``agent`` are set per run).
    """

    agents: list = field(default_factory=lambda: ["smollm2"])
    envs: list = field(default_factory=lambda: ["ColBench-Backend-v0"])
    out_dir: str = "runs/table"
    run_settings: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.agents:
            raise UsageError("--agents: give at least one agent")
        bad = [e for e in self.envs if e not in ENVS]
        if bad or not self.envs:
            raise UsageError(f"--envs: unknown {bad or 'none given'}; choose from {', '.join(ENVS)}")
        self.specs = [parse_agent_spec(s) for s in self.agents]
        names = [s["name"] for s in self.specs]
        if len(set(names)) != len(names):
            raise UsageError(f"--agents: two agents have the same name ({names}); their files would collide")
        self.run_configs = {(s["name"], e): RunConfig(**{**self.run_settings, "env": e, "agent": s["agent"],
                                                          "agent_model": s["agent_model"],
                                                          "agent_base_url": s["agent_base_url"],
                                                          "out": str(Path(self.out_dir) / f"{s['name']}__{e}.jsonl")})
                            for e in self.envs for s in self.specs}


def table_columns(rows: list[dict]) -> list[str]:
    """:data:`COLUMNS`, then ``pass@k`` / ``pass^k`` for each ``k`` some row has (runs with ``K >= 2``
    rollouts per task), then ``errors`` and ``human``."""
    ks = sorted({int(c.split("@")[1]) for r in rows for c in r if c.startswith("pass@")})
    return [*COLUMNS, *(f"pass{s}{k}" for k in ks for s in ("@", "^")), "errors", "human"]


def write_table(rows: list[dict], out_dir, meta: dict | None = None) -> dict:
    """Write ``table.md``, ``table.csv``, ``table.json`` (with ``meta``) and ``table.png``; returns their paths."""
    from colbench.report import write_report

    return write_report(rows, out_dir, stem="table", columns=table_columns(rows), label=("agent", "env"),
                        metrics=("tests_passed_pct", "success_rate_pct", "similarity", "win_rate_pct"), meta=meta)


def score_columns(metrics: dict) -> dict:
    """A table row's columns from a run's metrics (:func:`colbench_env.metrics.summarize`): ``pass@k``
    and ``pass^k`` in % (with ``K >= 2`` rollouts per task), ``errors`` (infrastructure errors, left out
    of the means) and ``human`` (:func:`colbench_env.simulators.identity.describe_humans`)."""
    from colbench_env.simulators.identity import describe_humans

    row: dict = {"errors": metrics.get("errors", 0), "human": describe_humans(metrics.get("human") or [None])}
    t = metrics.get("trials") or {}
    for k, v in (t.get("pass_at_k") or {}).items():
        row[f"pass@{k}"], row[f"pass^{k}"] = v, t["pass_hat_k"][k]
    return row


def table(config: TableConfig) -> dict:
    """Run (or resume) every agent on every env; write the table; returns ``{"rows", paths...}``."""
    from colbench_env.simulators.identity import humans_warning
    from colbench_env.trajectories import read_trajectories

    rows, trajs, humans = [], {}, {}
    for env_id in config.envs:
        for spec in config.specs:
            rc = config.run_configs[(spec["name"], env_id)]
            print(f"== {spec['name']} on {env_id}", file=sys.stderr)
            m = run(rc)
            trajs[(spec["name"], env_id)] = read_trajectories(rc.out, tolerate_partial_last_line=True)
            row = {"agent": spec["name"], "env": env_id, "episodes": m["count"]}
            if "similarity" in m:
                row["similarity"] = m["similarity"]
            else:
                row["tests_passed_pct"] = m["tests_passed_pct"]
                row["success_rate_pct"] = 100 * m["success_rate"]
            row.update(score_columns(m))
            humans[f"{spec['name']} on {env_id}"] = m.get("human") or [None]
            rows.append(row)
    ref = config.specs[0]["name"]
    for row in rows:
        if row["env"] == "ColBench-Frontend-v0":
            row["win_rate_pct"] = 100 * win_rate(trajs[(row["agent"], row["env"])], trajs[(ref, row["env"])])["win_rate"]
    warning = humans_warning(humans)
    return {"rows": rows, "humans_warning": warning, **write_table(rows, config.out_dir, {"humans_warning": warning})}
