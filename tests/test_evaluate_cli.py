"""``colbench evaluate``: official trajectory files in, metrics and scored records out."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

pytestmark = pytest.mark.timeout(180)

GT = "def total(xs, tax=0.1):\n    return round(sum(xs) * (1 + tax), 2)"
TASK = {"problem_description": "Sum my prices with tax. The signature: def total(xs, tax=0.1)",
        "ground_truth": GT, "hidden_information": GT,
        "test_cases": json.dumps({"test1": "total([1, 2])", "test2": "total([10], 0.2)", "test3": "total([])",
                                  "test4": "total([5, 5], tax=0)"})}


def traj(answer):
    return {"task": TASK, "dialogue_history": [{"role": "assistant", "content": "hi"}, {"role": "user", "content": "ok"}],
            "answer": answer}


def run_cli(*args):
    return subprocess.run([sys.executable, "-m", "colbench", "evaluate", *args], capture_output=True, text=True,
                          timeout=150)


def write(path, recs):
    path.write_text("".join(json.dumps(r) + "\n" for r in recs))


def test_scores_file_and_writes_records_back(tmp_path):
    src, out = tmp_path / "traj.jsonl", tmp_path / "scored.jsonl"
    recs = [traj(f"I WANT TO ANSWER: ```python\n{GT}\n```"),
            traj("```python\ndef total(xs, tax=0.1):\n    return round(sum(xs) * 1.1, 2)\n```"),
            traj(""),
            traj("I WANT TO ANSWER: def total(xs:"),
            traj("```python\ndef total(xs, tax=0.1):\n    while True: pass\n```")]
    write(src, recs)
    r = run_cli(str(src), "--out", str(out), "--workers", "2", "--timeout", "2", "--json")
    assert r.returncode == 0, r.stderr
    metrics = json.loads(r.stdout.strip().splitlines()[-1])
    assert metrics["count"] == 5 and metrics["backend_count"] == 5
    assert metrics["tests_passed_pct"] == pytest.approx(100 * (1 + 0.5) / 5)
    assert metrics["success_rate"] == pytest.approx(0.2)
    assert "tests passed" in r.stdout and "success rate 20.00%" in r.stdout
    assert metrics["isolation"]["netns"] in (True, False)
    got = [json.loads(line) for line in out.read_text().splitlines()]
    assert [g["reward"] for g in got] == [1.0, 0.5, 0.0, 0.0, 0.0]
    assert [g["success"] for g in got] == [True, False, False, False, False]
    assert [g["answer"] for g in got] == [r["answer"] for r in recs]  # same order, fields kept
    assert "eval_reason" not in got[0]
    assert got[1]["eval_reason"] == "2/4 tests failed (wrong_output 2); test2: wrong output: expected 12.0, got 11.0"
    assert [t["status"] for t in got[1]["eval_tests"]] == ["passed", "wrong_output", "passed", "wrong_output"]
    assert got[1]["eval_tests"][1] == {"test": "test2", "status": "wrong_output", "expected": "12.0", "got": "11.0"}
    assert {g["eval_semantics"] for g in got} == {"reference"} and metrics["semantics"] == "reference"
    assert got[2]["eval_reason"].startswith("empty answer")
    assert got[3]["eval_reason"].startswith("answer failed to load: IndentationError")
    assert got[4]["eval_reason"].startswith("timeout")
    assert "evaluate" in r.stderr  # tqdm bar on stderr


def test_semantics_option_and_explain(tmp_path):
    src, out = tmp_path / "traj.jsonl", tmp_path / "scored.jsonl"
    helper = "```python\ndef _r(x):\n    return round(x, 2)\ndef total(xs, tax=0.1):\n    return _r(sum(xs) * (1 + tax))\n```"
    write(src, [traj(f"```python\n{GT}\n```"), traj(helper), traj(f"```python\nimport os\n{GT}\n```")])
    ref = run_cli(str(src), "--out", str(out), "--json", "--no-progress")
    py = run_cli(str(src), "--semantics", "python", "--json", "--no-progress")
    assert ref.returncode == 0 and py.returncode == 0, (ref.stderr, py.stderr)
    m_ref, m_py = (json.loads(r.stdout.strip().splitlines()[-1]) for r in (ref, py))
    assert m_ref["tests_passed_pct"] == pytest.approx(100 / 3) and m_ref["semantics"] == "reference"
    assert m_py["tests_passed_pct"] == pytest.approx(100.0) and m_py["semantics"] == "python"

    r = run_cli("--explain", f"{out}:2")  # stored outcomes, nothing re-run
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].startswith(f"{out}:2") and lines[1] == "reward 0.000 (0/4 tests passed, reference semantics)"
    assert lines[2].startswith("reason: 4/4 tests failed (exception 4); test1: exception: NameError: name '_r'")
    assert [ln.split()[:2] for ln in lines[4:8]] == [[f"test{i}", "exception"] for i in range(1, 5)]
    r = run_cli("--explain", str(src), "--no-progress")  # no stored outcomes: scored now, every record
    assert r.returncode == 0, r.stderr
    assert r.stdout.count("reward ") == 3 and "blocked" in r.stdout and "'import os'" in r.stdout
    r = run_cli("--explain", f"{src}:9")
    assert r.returncode == 2 and r.stderr.strip() == f"colbench evaluate: error: {src}: no record on line 9"
    r = run_cli("--semantics", "js", str(src))
    assert r.returncode == 2 and "invalid choice: 'js'" in r.stderr


def test_without_out_prints_metrics_only(tmp_path):
    src = tmp_path / "t.jsonl"
    write(src, [traj(GT)])
    r = run_cli(str(src), "--no-progress")
    assert r.returncode == 0, r.stderr
    assert "100.00% tests passed" in r.stdout and "count: 1" in r.stdout
    assert list(tmp_path.iterdir()) == [src]


def test_malformed_line_names_file_and_line_and_leaves_out_untouched(tmp_path):
    src, out = tmp_path / "bad.jsonl", tmp_path / "out.jsonl"
    out.write_text("previous\n")
    src.write_text(json.dumps(traj(GT)) + "\n\n{not json\n")
    r = run_cli(str(src), "--out", str(out))
    assert r.returncode == 2
    assert f"{src}:3: invalid JSON" in r.stderr
    assert out.read_text() == "previous\n"
    bad_task = dict(TASK, test_cases=42)
    write(src, [traj(GT), {"task": bad_task, "answer": "x"}])
    r = run_cli(str(src))
    assert r.returncode == 2 and f"{src}:2: field 'test_cases'" in r.stderr
    write(src, [{"answer": "x"}])
    r = run_cli(str(src))
    assert r.returncode == 2 and f"{src}:1: field 'task' is missing" in r.stderr


def test_missing_file(tmp_path):
    r = run_cli(str(tmp_path / "nope.jsonl"))
    assert r.returncode == 2 and "file not found" in r.stderr


def test_cli_import_is_light():
    code = ("import sys, colbench.cli.evaluate, colbench_env.evaluation; "
            "print(sorted(m for m in ('torch', 'transformers', 'colbench_env.evaluation.backend') if m in sys.modules))")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "[]"


def test_frontend_hook_missing_raises_clear_error(tmp_path, monkeypatch):
    import argparse

    from colbench.cli import evaluate as cli

    monkeypatch.setattr(cli, "FRONTEND_HOOK", "colbench_env.evaluation._no_frontend_scorer_here")
    src = tmp_path / "fe.jsonl"
    write(src, [{"task": {"problem_description": "a page", "ground_truth": "<html></html>"}, "answer": "<html></html>"}])
    parser = argparse.ArgumentParser()
    cli.add_arguments(parser)
    with pytest.raises(RuntimeError, match=r"fe\.jsonl:1: frontend trajectory found.*_no_frontend_scorer_here"):
        cli.main(parser.parse_args([str(src)]))
