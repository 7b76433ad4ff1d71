"""Checks of the hand-authored part A of the embedded backend tasks: the task folders
colbench_env/data/authoring/backend/part_a/ (which build colbench_env/data/backend/part_a.jsonl; that the
packaged file is their build is tests/test_authoring_build.py's).

The ground truths and generic solutions are executed in real ``python -c`` subprocesses (all tasks in one
batch, twice with different hash seeds to catch non-determinism); results travel back as ``repr`` text and
are compared here with ``==`` after ``ast.literal_eval``.
"""
from __future__ import annotations

import ast
import json
import os
import re
import subprocess
import sys

import pytest

from colbench_env.data.authoring import task_set
from colbench_env.tasks import BackendTask

TASKS = task_set("backend/part_a").tasks()
IDS = [t.task_id for t in TASKS]

# Runs in the child: exec each source in a fresh namespace, evaluate every call, compare with ==.
_CHILD = r"""
import io, json, sys
jobs = json.load(sys.stdin)
real_stdout, sys.stdout = sys.stdout, io.StringIO()  # code under test may print; keep our JSON clean
out = {}
for job in jobs:
    res = {}
    values = {}
    for role in ("ground_truth", "generic_solution"):
        ns = {}
        try:
            exec(job[role], ns)
        except Exception as e:
            res[role] = {"error": "%s: %s" % (type(e).__name__, e)}
            continue
        vals, reprs = {}, {}
        for key, call in job["calls"].items():
            try:
                v = eval(call, ns)
                vals[key] = v
                reprs[key] = {"repr": repr(v), "is_none": v is None}
            except Exception as e:
                reprs[key] = {"error": "%s: %s" % (type(e).__name__, e)}
        values[role] = vals
        res[role] = {"calls": reprs}
    gt, gen = values.get("ground_truth", {}), values.get("generic_solution", {})
    res["generic_passes"] = sorted(
        k for k in job["calls"] if k in gt and k in gen and gt[k] is not None and gen[k] is not None and gt[k] == gen[k]
    )
    out[job["task_id"]] = res
json.dump(out, real_stdout)
"""


def _run_batch(hash_seed: str) -> dict:
    jobs = [
        {"task_id": t.task_id, "ground_truth": t.ground_truth, "generic_solution": t.extra["generic_solution"],
         "calls": t.test_cases}
        for t in TASKS
    ]
    env = dict(os.environ, PYTHONHASHSEED=hash_seed)
    proc = subprocess.run([sys.executable, "-c", _CHILD], input=json.dumps(jobs), capture_output=True,
                          text=True, timeout=120, env=env)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


@pytest.fixture(scope="module")
def runs() -> tuple[dict, dict]:
    return _run_batch("0"), _run_batch("4242")


def _floats(value):
    if isinstance(value, float):
        yield value
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from _floats(v)
    elif isinstance(value, dict):
        for v in value.values():
            yield from _floats(v)


def test_count_ids_and_splits():
    assert len(TASKS) == 55
    assert IDS == [f"a{i:03d}" for i in range(1, 56)]
    assert len(set(IDS)) == len(IDS)
    for i, t in enumerate(TASKS, 1):
        assert isinstance(t, BackendTask)
        assert t.split in ("train", "test")
        assert t.split == ("test" if i % 5 == 0 else "train"), t.task_id
    assert sum(t.split == "test" for t in TASKS) == 11


@pytest.mark.parametrize("task", TASKS, ids=IDS)
def test_task_shape(task: BackendTask):
    def_line = re.search(r"^def \w+\(.*\):$", task.ground_truth, re.M)
    assert def_line is not None, "ground truth has no def line"
    signature = def_line.group(0)[:-1]
    name = re.match(r"def (\w+)\(", signature).group(1)
    # description: ends with the official signature sentence matching the ground truth
    assert task.problem_description.endswith(f"The signature of the function is: {signature}")
    body = task.problem_description[: -len(f"The signature of the function is: {signature}")]
    assert 2 <= len(re.findall(r"[.?!](\s|$)", body)) <= 4, "description should be 2-4 sentences"
    # exactly 10 tests, each a call of the function with literal arguments only
    assert list(task.test_cases) == [f"test{i}" for i in range(1, 11)]
    for key, call in task.test_cases.items():
        node = ast.parse(call, mode="eval").body
        assert isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == name, key
        assert not node.keywords, key
        for arg in node.args:
            ast.literal_eval(arg)
    assert len(set(task.test_cases.values())) == 10, "duplicate test calls"
    # hidden information: plain words, no code; generic solution defines the same function
    hidden = task.hidden_information
    assert hidden.strip() and "\n" not in hidden
    assert not re.search(r"\bdef \w+\(|\blambda\b|==|\w\(\w*\)|\[\w+\]", hidden), "hidden info looks like code"
    assert len(re.findall(r"[.!?](?:\s|$)", hidden)) >= 2, "hidden info should hold several one-fact sentences"
    generic = task.extra["generic_solution"]
    assert re.search(rf"^def {name}\(", generic, re.M), "generic solution must define the same function"
    # no imports outside the function body (the evaluator runs the source as is)
    assert not re.search(r"^(import|from) ", task.ground_truth, re.M)


@pytest.mark.parametrize("task", TASKS, ids=IDS)
def test_ground_truth_runs_deterministically_and_generic_fails(task: BackendTask, runs):
    first, second = runs[0][task.task_id], runs[1][task.task_id]
    for role in ("ground_truth", "generic_solution"):
        assert "error" not in first[role], first[role]
    gt1, gt2 = first["ground_truth"]["calls"], second["ground_truth"]["calls"]
    for key, call in task.test_cases.items():
        assert "error" not in gt1[key], f"{call}: {gt1[key]}"
        assert not gt1[key]["is_none"], f"{call} returns None on the ground truth"
        v1, v2 = ast.literal_eval(gt1[key]["repr"]), ast.literal_eval(gt2[key]["repr"])
        assert v1 == v2 and type(v1) is type(v2), f"{call} is not deterministic: {v1!r} vs {v2!r}"
        for f in _floats(v1):
            assert f == round(f, 4), f"{call} returns an unrounded float {f!r}"
    assert first["generic_passes"] == second["generic_passes"]
    assert len(first["generic_passes"]) < 10, "the generic solution passes every test"


def test_generic_solutions_fail_most_tests_overall(runs):
    passes = sum(len(r["generic_passes"]) for r in runs[0].values())
    assert passes <= 0.4 * 10 * len(TASKS), f"generic solutions pass {passes} of {10 * len(TASKS)} tests"
