"""``colbench table``: agents x envs -> the paper's table (Markdown + CSV) and a bar chart (PNG).

This module parses the command line into a :class:`colbench.table.TableConfig` and calls
:func:`colbench.table.table` (agent specs, columns: see :mod:`colbench.table`).
"""
from __future__ import annotations

import argparse
import dataclasses
import json
from pathlib import Path

from colbench.cli.run import add_common_arguments
from colbench.runs import RunConfig
from colbench.table import ENVS, TableConfig, table

__all__ = ["add_arguments", "main"]


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--agents", nargs="+", default=["smollm2"],
                   help="agent specs: smollm2, scripted, hf:PATH, openai:MODEL@BASE_URL, or a plug-in "
                        "(module:Name, file.py:Name, entry point); the first is the win-rate reference")
    p.add_argument("--envs", nargs="+", default=["ColBench-Backend-v0"], choices=ENVS, help="env ids")
    p.add_argument("--out-dir", default="runs/table",
                   help="one trajectory file per agent and env (resumed), and table.{md,csv,json,png}")
    add_common_arguments(p, defaults={"split": "test"})


def main(args: argparse.Namespace) -> int:
    run_fields = {f.name for f in dataclasses.fields(RunConfig)} - {"out", "env", "agent"}
    config = TableConfig(agents=args.agents, envs=args.envs, out_dir=args.out_dir,
                         run_settings={k: v for k, v in vars(args).items() if k in run_fields})
    result = table(config)
    print(Path(result["md"]).read_text())
    if result["humans_warning"]:
        print(result["humans_warning"])
    print(json.dumps(result, allow_nan=False))
    return 0
