"""``colbench table``: agents x envs -> the paper's table (Markdown + CSV) and a bar chart (PNG).

Backend columns: % tests passed and success rate; frontend: mean similarity and win rate against
the reference agent (the first one listed; per task, higher similarity to the target wins, ties
counted apart). Any OpenAI-compatible policy or simulator plugs in, so users with GPUs reproduce the
paper's setting (e.g. ``--agents openai:meta-llama/Llama-3.1-8B-Instruct@http://localhost:8000/v1
--simulator openai --simulator-model meta-llama/Llama-3.1-70B-Instruct --simulator-base-url ...``).

Agent specs: ``smollm2``, ``scripted``, ``hf:PATH`` (a local model directory, e.g. a trained
checkpoint), ``openai:MODEL@BASE_URL``. Every run appends to its own trajectory file under
``--out-dir`` and resumes.
"""
from __future__ import annotations

import argparse
import csv
import json
import os
import re
import sys
from pathlib import Path

from colbench_env.evaluation.frontend_cli import win_rate
from wrappers.prompting import PROMPT_STYLES

__all__ = ["add_arguments", "main", "parse_agent_spec", "write_table", "win_rate"]


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
    raise ValueError(f"bad agent spec {spec!r}: expected smollm2, scripted, hf:PATH or openai:MODEL@BASE_URL")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--agents", nargs="+", default=["smollm2"], help="agent specs (the first is the win-rate reference)")
    p.add_argument("--envs", nargs="+", default=["ColBench-Backend-v0"],
                   choices=["ColBench-Backend-v0", "ColBench-Frontend-v0"])
    p.add_argument("--tasks", default="default")
    p.add_argument("--split", default="test", choices=("train", "test"))
    p.add_argument("--episodes", type=int, default=None, help="per agent and env (default: one per task)")
    p.add_argument("--batch-size", type=int, default=4)
    p.add_argument("--simulator", default="scripted")
    p.add_argument("--simulator-model", default=None)
    p.add_argument("--simulator-base-url", default=None)
    p.add_argument("--simulator-cache", default=None)
    p.add_argument("--max-new-tokens", type=int, default=384)
    p.add_argument("--max-turns", type=int, default=10)
    p.add_argument("--prompt-style", default="paper", choices=PROMPT_STYLES,
                   help="LM agents' prompt: the paper's instructions, or a worked example for very small models")
    p.add_argument("--out-dir", default="benchmarks/results/table")
    p.add_argument("--workers", type=int, default=2)


def write_table(rows: list[dict], out_dir: str | os.PathLike) -> dict:
    """Write ``table.md``, ``table.csv`` and ``table.png``; returns their paths."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    cols = ["agent", "env", "episodes", "tests_passed_pct", "success_rate_pct", "similarity", "win_rate_pct"]
    with open(out / "table.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=cols, extrasaction="ignore")
        w.writeheader()
        for r in rows:
            w.writerow(r)

    def fmt(v):
        return "" if v is None else (f"{v:.1f}" if isinstance(v, float) else str(v))

    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    lines += ["| " + " | ".join(fmt(r.get(c)) for c in cols) + " |" for r in rows]
    (out / "table.md").write_text("\n".join(lines) + "\n")

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    metrics = [c for c in ("tests_passed_pct", "success_rate_pct", "similarity", "win_rate_pct")
               if any(r.get(c) is not None for r in rows)]
    fig, axes = plt.subplots(1, len(metrics), figsize=(4 * len(metrics), 3.5), squeeze=False)
    for ax, m in zip(axes[0], metrics):
        sub = [r for r in rows if r.get(m) is not None]
        ax.bar([f"{r['agent']}\n{r['env'].replace('ColBench-', '').replace('-v0', '')}" for r in sub],
               [r[m] for r in sub], color="#4c72b0")
        ax.set_title(m)
        ax.tick_params(axis="x", labelsize=8)
    fig.tight_layout()
    fig.savefig(out / "table.png", dpi=110)
    plt.close(fig)
    return {"md": str(out / "table.md"), "csv": str(out / "table.csv"), "png": str(out / "table.png")}


def main(args: argparse.Namespace) -> int:
    from benchmarks import run as run_mod
    from colbench_env.trajectories import read_trajectories

    specs = [parse_agent_spec(s) for s in args.agents]
    rows, trajs = [], {}
    for env_id in args.envs:
        for spec in specs:
            path = Path(args.out_dir) / f"{spec['name']}__{env_id}.jsonl"
            ns = argparse.Namespace(
                env=env_id, agent=spec["agent"], agent_model=spec["agent_model"], agent_base_url=spec["agent_base_url"],
                agent_4bit=False, tasks=args.tasks, split=args.split, episodes=args.episodes,
                batch_size=args.batch_size, out=str(path), simulator=args.simulator,
                simulator_model=args.simulator_model, simulator_base_url=args.simulator_base_url,
                simulator_cache=args.simulator_cache, max_turns=args.max_turns, max_new_tokens=args.max_new_tokens,
                prompt_style=args.prompt_style,
                temperature=0.0, seed=0, workers=args.workers, json=False)
            print(f"== {spec['name']} on {env_id}", file=sys.stderr)
            m = run_mod.run(ns)
            trajs[(spec["name"], env_id)] = read_trajectories(path, tolerate_partial_last_line=True)
            row = {"agent": spec["name"], "env": env_id, "episodes": m["count"]}
            if "similarity" in m:
                row["similarity"] = m["similarity"]
            else:
                row["tests_passed_pct"] = m["tests_passed_pct"]
                row["success_rate_pct"] = 100 * m["success_rate"]
            rows.append(row)
    ref = specs[0]["name"]
    for row in rows:
        if row["env"] == "ColBench-Frontend-v0":
            row["win_rate_pct"] = 100 * win_rate(trajs[(row["agent"], row["env"])], trajs[(ref, row["env"])])["win_rate"]
    paths = write_table(rows, args.out_dir)
    print(Path(paths["md"]).read_text())
    print(json.dumps({"rows": rows, **paths}))
    return 0
