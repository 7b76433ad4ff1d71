"""`colbench evaluate` on frontend trajectories (similarity) and `--compare` (win rate), in the real browser."""
import json
import subprocess
import sys

import pytest

from colbench_env.tasks import default_tasks
from colbench_env.trajectories import append_jsonl, read_trajectories

pytestmark = pytest.mark.browser


def colbench(*args):
    return subprocess.run([sys.executable, "-m", "colbench", *args], capture_output=True, text=True, timeout=300)


def traj(task, answer):
    return {"task": task.to_record(), "task_id": task.task_id,
            "dialogue_history": [{"role": "assistant", "content": f"I WANT TO ANSWER: {answer}"}], "answer": answer}


def test_evaluate_and_compare_frontend(tmp_path):
    t1, t2, t3 = default_tasks("frontend", split="test")[:3]
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    append_jsonl(a, [traj(t1, t1.ground_truth), traj(t2, t2.ground_truth), traj(t3, "sorry, no page")])
    append_jsonl(b, [traj(t1, t2.ground_truth), traj(t2, "<body></body>"), traj(t3, "no page either")])
    out = tmp_path / "scored.jsonl"
    p = colbench("evaluate", str(a), "--out", str(out), "--json")
    assert p.returncode == 0, p.stderr[-2000:]
    scored = read_trajectories(out)
    assert scored[0]["reward"] > 0.99 and scored[1]["reward"] > 0.99
    assert scored[2]["reward"] == 0.0 and "no <html>" in scored[2]["eval_reason"]
    assert json.loads(p.stdout.strip().splitlines()[-1])["frontend_count"] == 3
    p = colbench("evaluate", "--compare", str(a), str(b), "--json")
    assert p.returncode == 0, p.stderr[-2000:]
    res = json.loads(p.stdout.strip().splitlines()[-1])
    assert (res["wins"], res["losses"], res["ties"], res["tasks"]) == (2, 0, 1, 3)
    assert "win rate of" in p.stdout and "66.7%" in p.stdout
    p = colbench("evaluate")
    assert p.returncode == 2 and "TRAJ.jsonl is required" in p.stderr
