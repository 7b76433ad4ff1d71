"""Checks of the hand-authored backend tasks, part B: the task folders
``colbench_env/data/authoring/backend/part_b/`` (which build ``colbench_env/data/backend/part_b.jsonl``;
that the packaged file is their build is ``tests/test_authoring_build.py``'s).

The ground truths and generic solutions are executed in one real ``python -c`` subprocess (not in
the test process): each test call is evaluated twice on the ground truth and once on the generic
solution, and the child reports what it saw as JSON.
"""
from __future__ import annotations

import ast
import json
import re
import subprocess
import sys

import pytest

from colbench_env.data.authoring import task_set
from colbench_env.tasks import BackendTask

PART_B = task_set("backend/part_b")

# Runs in the child: reads the records from stdin, executes every task, prints one JSON report.
_CHILD = r'''
import json, sys
report = {}
for rec in json.load(sys.stdin):
    out = {"errors": [], "gt_none": [], "nondeterministic": [], "generic_passed": [], "generic_failed": []}
    try:
        gt1, gt2, gen = {}, {}, {}
        exec(rec["ground_truth"], gt1)
        exec(rec["ground_truth"], gt2)
        exec(rec["generic_solution"], gen)
    except Exception as e:
        out["errors"].append("exec: " + repr(e))
        report[rec["task_id"]] = out
        continue
    for name, call in rec["test_cases"].items():
        try:
            a = eval(call, gt1)
            b = eval(call, gt2)
        except Exception as e:
            out["errors"].append(name + ": " + repr(e))
            continue
        if a is None:
            out["gt_none"].append(name)
        if a != b or repr(a) != repr(b):
            out["nondeterministic"].append(name)
        try:
            g = eval(call, gen)
            ok = a is not None and g is not None and g == a
        except Exception:
            ok = False
        out["generic_passed" if ok else "generic_failed"].append(name)
    report[rec["task_id"]] = out
print(json.dumps(report))
'''


@pytest.fixture(scope="module")
def tasks() -> list[BackendTask]:
    return PART_B.tasks()


@pytest.fixture(scope="module")
def report() -> dict:
    records = [t.to_record() for t in PART_B.tasks()]
    proc = subprocess.run([sys.executable, "-c", _CHILD], input=json.dumps(records), capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_count_ids_and_splits(tasks):
    assert len(tasks) == 55
    ids = [t.task_id for t in tasks]
    assert ids == [f"b{i:03d}" for i in range(1, 56)]
    assert len(set(ids)) == len(ids)
    for i, t in enumerate(tasks, 1):
        assert t.split == ("test" if i % 5 == 0 else "train"), t.task_id
    assert sum(t.split == "test" for t in tasks) == 11


def test_records_have_all_fields(tasks):
    for t in tasks:
        assert set(t.extra) == {"generic_solution"}, t.task_id
        assert t.hidden_information.strip(), t.task_id
        assert len(t.test_cases) == 10, t.task_id
        assert list(t.test_cases) == [f"test{i}" for i in range(1, 11)], t.task_id


def test_description_ends_with_signature_of_ground_truth(tasks):
    for t in tasks:
        m = re.search(r"^def (\w+)\((.*)\):\s*$", t.ground_truth, re.M)
        assert m is not None and t.ground_truth.startswith("def "), t.task_id
        sentence = f"The signature of the function is: def {m.group(1)}({m.group(2)})"
        assert t.problem_description.endswith(sentence), t.task_id
        # the personal parameters stay out of the request: it is a short request plus the signature
        body = t.problem_description[: -len(sentence)].strip()
        assert 2 <= len(re.findall(r"[.?!](?:\s|$)", body)) <= 4, t.task_id
        generic_def = re.search(r"^def (\w+)\((.*)\):", t.extra["generic_solution"], re.M)
        assert generic_def is not None and generic_def.groups() == m.groups(), t.task_id


def test_test_cases_are_literal_calls_of_the_function(tasks):
    for t in tasks:
        name = re.search(r"^def (\w+)\(", t.ground_truth, re.M).group(1)
        for key, call in t.test_cases.items():
            node = ast.parse(call, mode="eval").body
            assert isinstance(node, ast.Call) and isinstance(node.func, ast.Name), (t.task_id, key)
            assert node.func.id == name and not node.keywords, (t.task_id, key)
            for arg in node.args:
                ast.literal_eval(arg)  # raises on anything but a literal
        assert len(set(t.test_cases.values())) == 10, f"{t.task_id}: duplicate test calls"


def test_ground_truth_runs_non_none_and_deterministic(tasks, report):
    assert set(report) == {t.task_id for t in tasks}
    for tid, r in report.items():
        assert r["errors"] == [], (tid, r["errors"])
        assert r["gt_none"] == [], (tid, r["gt_none"])
        assert r["nondeterministic"] == [], (tid, r["nondeterministic"])


def test_generic_solution_fails_at_least_one_test(report):
    for tid, r in report.items():
        assert len(r["generic_passed"]) + len(r["generic_failed"]) == 10, tid
        assert r["generic_failed"], f"{tid}: the generic solution passes every test"
    # most tasks should reject the generic solution on most tests
    fails = [len(r["generic_failed"]) for r in report.values()]
    assert sum(fails) / len(fails) >= 6


def test_ground_truth_is_pure_stdlib_source(tasks):
    forbidden = re.compile(r"\b(open|print|input|exec|eval|__import__)\s*\(|\bimport\s+(os|sys|random|time|subprocess)\b")
    for t in tasks:
        assert not forbidden.search(t.ground_truth), t.task_id
        compile(t.ground_truth, t.task_id, "exec")
