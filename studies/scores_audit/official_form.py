"""The embedded backend task files in the official ColBench form: ``{problem_description,
ground_truth, test_cases (a JSON string), hidden_information}`` with the ground truth as hidden
information, no ids or splits -- what ``colbench audit tasks`` reads from the official files.

``python -m studies.scores_audit.official_form OUT_DIR`` writes ``OUT_DIR/official_part_a.jsonl``
and ``OUT_DIR/official_part_b.jsonl``.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

from colbench_env.tasks import read_task_file

DATA = Path(__file__).resolve().parents[2] / "colbench_env" / "data" / "backend"


def official_record(task) -> dict:
    """The official record of a backend task, its ground truth as hidden information."""
    return {"problem_description": task.problem_description, "ground_truth": task.ground_truth,
            "test_cases": json.dumps(task.test_cases), "hidden_information": task.ground_truth}


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1:
        print(__doc__.strip().splitlines()[-2].strip(), file=sys.stderr)
        return 2
    out = Path(argv[0])
    out.mkdir(parents=True, exist_ok=True)
    for part in ("part_a", "part_b"):
        tasks = read_task_file(str(DATA / f"{part}.jsonl"), kind="backend")
        (out / f"official_{part}.jsonl").write_text("".join(json.dumps(official_record(t)) + "\n" for t in tasks))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
