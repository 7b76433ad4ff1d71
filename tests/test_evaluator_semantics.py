"""Python (module) semantics of the sandboxed backend evaluator, on official-format records.

Reference semantics (the default) are pinned in tests/test_evaluator_reference.py."""
from __future__ import annotations

import json
import math

import pytest

from colbench_env.evaluation import BackendEvaluator, BackendScore
from colbench_env.evaluation.inprocess import InProcessEvaluator
from colbench_env.evaluation.sandbox import ProtocolError, SandboxLimits, decode_value
from colbench_env.tasks import task_from_record

pytestmark = pytest.mark.timeout(120)


def make_task(gt: str, tests, **kw):
    rec = {"problem_description": "Write f.", "ground_truth": gt, "test_cases": tests, "hidden_information": gt}
    rec.update(kw)
    return task_from_record(rec, source="<test>", line=1)


def ans(code: str) -> str:
    return f"I WANT TO ANSWER:\n```python\n{code}\n```"


@pytest.fixture(scope="module")
def ev():
    with BackendEvaluator(workers=2, timeout_s=5.0, semantics="python") as e:
        yield e


GT = "def price(n, vip=False):\n    p = n * 2.5\n    return p * 0.9 if vip else p"
TESTS = {"test1": "price(2)", "test2": "price(2, True)", "test3": "price(0)", "test4": "price(10, vip=True)"}


def test_correct_answer_scores_one(ev):
    s = ev.score(make_task(GT, TESTS), ans("def price(n, vip=False):\n    return n*2.5*(0.9 if vip else 1)"))
    assert isinstance(s, BackendScore)
    assert (s.reward, s.success, s.passed, s.total, s.reason) == (1.0, True, 4, 4, None)
    assert s.per_test == {"test1": True, "test2": True, "test3": True, "test4": True}


def test_partial_answer_gets_fraction(ev):
    s = ev.score(make_task(GT, TESTS), ans("def price(n, vip=False):\n    return n * 2.5"))
    assert s.passed == 2 and s.reward == 0.5 and not s.success
    assert s.per_test == {"test1": True, "test2": False, "test3": True, "test4": False}


def test_test_cases_as_json_string(ev):
    task = make_task(GT, json.dumps(TESTS))
    assert task.test_cases == TESTS
    assert ev.score(task, ans(GT)).success


def test_none_results_never_pass(ev):
    gt = "def f(x):\n    if x > 0:\n        return x\n    return None"
    task = make_task(gt, {"a": "f(1)", "b": "f(-1)", "c": "f(2)"})
    s = ev.score(task, ans(gt))
    assert s.per_test == {"a": True, "b": False, "c": True}
    assert s.reward == pytest.approx(2 / 3) and not s.success


def test_exceptions_fail_only_their_test(ev):
    gt = "def f(x):\n    return 10 // x"
    task = make_task(gt, {"a": "f(2)", "b": "f(0)", "c": "f(5)"})
    s = ev.score(task, ans("def f(x):\n    if x == 5:\n        raise ValueError('nope')\n    return 10 // x"))
    assert s.per_test == {"a": True, "b": False, "c": False}  # b: both raise -> fails, as in the reference
    assert "ValueError: nope" in s.errors["c"]


def test_floats_and_int_equality_like_python(ev):
    gt = "def f(x):\n    return x / 2"
    task = make_task(gt, {"a": "f(4)", "b": "f(3)", "c": "f(float('nan'))", "d": "f(-0.0)"})
    s = ev.score(task, ans("def f(x):\n    return {4: 2, 3: 1.5}.get(x, x / 2)"))
    # 2 == 2.0 passes; nan != nan fails (as Python ==); -0.0 == 0.0 passes
    assert s.per_test == {"a": True, "b": True, "c": False, "d": True}


def test_containers_and_types_compared_exactly(ev):
    gt = "def f():\n    return {'a': [1, (2, 3)], 'b': {4, 5}, 'c': b'x', 'd': None, 'e': 1+2j}"
    task = make_task(gt, {"same": "f()", "tuple_vs_list": "f()['a']", "str": "str(f()['b'])"})
    s = ev.score(task, ans("def f():\n    return {'e': 1+2j, 'd': None, 'c': b'x', 'b': {5, 4}, 'a': [1, [2, 3]]}"))
    assert s.per_test == {"same": False, "tuple_vs_list": False, "str": True}


def test_state_carries_across_tests_in_order(ev):
    gt = "calls = []\ndef f(x):\n    calls.append(x)\n    return len(calls)"
    task = make_task(gt, {"t1": "f(1)", "t2": "f(1)", "t3": "f(1)"})
    assert ev.score(task, ans(gt)).success
    assert ev.score(task, ans("def f(x):\n    return 1")).per_test == {"t1": True, "t2": False, "t3": False}


def test_fenced_and_unfenced_answers(ev):
    task = make_task(GT, TESTS)
    fenced = "Thought: easy.\nOUTPUT: I WANT TO ANSWER: here it is\n```python\n" + GT + "\n```\nThanks!"
    assert ev.score(task, fenced).success
    assert ev.score(task, GT).success  # no marker, no fence: the whole text is the code
    assert ev.score(task, "I WANT TO ANSWER:\n```\n" + GT + "\n```").success


def test_empty_and_unparsable_answers_score_zero_with_reason(ev):
    task = make_task(GT, TESTS)
    for text in ("", None, "I WANT TO ANSWER:   ", "```python\n```"):
        s = ev.score(task, text)
        assert s.reward == 0 and s.reason.startswith("empty answer"), text
    s = ev.score(task, ans("def price(n:\n    return"))
    assert s.reward == 0 and s.reason.startswith("answer failed to load: SyntaxError")
    s = ev.score(task, ans("raise RuntimeError('boom')"))
    assert s.reward == 0 and "RuntimeError: boom" in s.reason


def test_broken_ground_truth_scores_zero(ev):
    task = make_task("def f(:\n", {"a": "f()"})
    s = ev.score(task, ans("def f():\n    return 1"))
    assert s.reward == 0 and s.reason.startswith("ground truth failed to load")


def test_imports_and_set_order_agree_with_ground_truth(ev):
    gt = ("import math, collections, re, datetime, json\n"
          "def f(words):\n    return list(set(words)), math.floor(2.5), re.sub('a', 'b', 'aa'), "
          "dict(collections.Counter(words))")
    task = make_task(gt, {"a": "f(['x', 'yy', 'zzz', 'x', 'w'])"})
    assert ev.score(task, ans(gt)).success


def test_stdout_is_captured_not_parsed(ev):
    s = ev.score(make_task(GT, TESTS), ans("print('hello from answer')\n" + GT))
    assert s.success and "hello from answer" in s.output


def test_score_many_preserves_order_and_caches_truth(ev):
    t1, t2 = make_task(GT, TESTS), make_task("def g():\n    return 7", {"x": "g()"})
    items = [(t1, ans(GT)), (t2, ans("def g():\n    return 8")), (t1, ""), (t2.to_record(), ans("def g(): return 7"))]
    got = [s.reward for s in ev.score_many(items)]
    assert got == [1.0, 0.0, 0.0, 1.0]


def test_same_scores_as_inprocess_reference_on_honest_answers(ev):
    ref = InProcessEvaluator()  # reference semantics; these answers behave the same under both
    cases = [
        (make_task(GT, TESTS), ans("def price(n, vip=False):\n    return n * 2.5")),
        (make_task(GT, TESTS), ans(GT)),
        (make_task("def f(s):\n    return s.split()[::-1]", {"a": "f('a b c')", "b": "f('')"}),
         ans("def f(s):\n    return list(reversed(s.split(' ')))")),
        (make_task("def f(d):\n    return sorted(d.items())", {"a": "f({'b': 1, 'a': 2})"}),
         ans("def f(d):\n    return [(k, d[k]) for k in sorted(d)]")),
    ]
    for task, text in cases:
        a, b = ev.score(task, text), ref.score(task, text)
        assert (a.reward, a.success, a.per_test) == (b.reward, b.success, b.per_test)


def test_unsupported_result_types_fail_the_test(ev):
    gt = "def f():\n    return 1"
    s = ev.score(make_task(gt, {"a": "f()"}), ans("class X:\n    pass\ndef f():\n    return X()"))
    assert s.reward == 0 and "unsupported result type X" in s.errors["a"]


def test_decode_value_is_strict():
    assert decode_value(["l", [["i", "-ff"], ["f", (0.1).hex()], ["s", "68c3a9"], None, True]]) == [-255, 0.1, "hé", None, True]
    assert decode_value(["d", [[["t", [["i", "1"]]], ["S", [["y", "00"]]]]]]) == {(1,): {b"\x00"}}
    assert math.isnan(decode_value(["f", "nan"]))
    for bad in (1, "x", ["?", "1"], ["i", 5], ["S", [["l", []]]], ["d", [[1]]], ["s", "zz"], []):
        with pytest.raises(ProtocolError):
            decode_value(bad)


def test_config_validation():
    with pytest.raises(ValueError, match="timeout_s"):
        SandboxLimits(timeout_s=0)
    with pytest.raises(ValueError, match="memory_mb"):
        SandboxLimits(memory_mb=10)
    with pytest.raises(ValueError, match="workers"):
        BackendEvaluator(workers=0)
    with pytest.raises(ValueError, match="isolation mode"):
        BackendEvaluator(isolation="none")


def test_minimal_isolation_mode_still_scores_and_times_out():
    with BackendEvaluator(workers=1, timeout_s=1.0, isolation="minimal") as e:
        assert e.isolation["netns"] is False and e.isolation["uid_drop"] is False
        task = make_task(GT, TESTS)
        assert e.score(task, ans(GT)).success
        s = e.score(task, ans("def price(n, vip=False):\n    while True: pass"))
        assert s.reward == 0 and s.reason.startswith("timeout")


def test_benchmark_run_is_callable_and_agrees_with_reference():
    from colbench.benchmarks.bench_evaluator import run

    r = run(n_tasks=6, rl_tasks=2, workers=1)
    assert r["evaluator_same_rewards"] is True
    one, rl = r["evaluator_single_pass"], r["evaluator_rl_workload"]
    # every ground truth runs once (all 6 in one batch child) and every answer in its own child
    assert (one["n_answers"], one["jobs"], one["truth_runs"]) == (6, 7, 6)
    assert one["truth_batches"] == {"batches": 1, "programs": 6, "stopped_by_change": 0, "alone": 0}
    assert (rl["n_answers"], rl["jobs"], rl["truth_runs"]) == (8, 9, 2)  # ... and is reused for 4 answers
    assert r["evaluator_cores_for_goal_single"] == pytest.approx(1.0 / r["evaluator_cpu_ratio_vs_inprocess"])
    assert r["evaluator_cores_for_goal_rl"] == pytest.approx(2.0 / r["evaluator_cpu_ratio_rl_workload"])
    assert r["evaluator_sandboxed_cpu_ms_per_answer"] == one["sandboxed_cpu_ms_per_answer"] > 0
    assert r["evaluator_ratio_vs_inprocess"] == pytest.approx(one["sandboxed_answers_per_s"] / one["inprocess_answers_per_s"])
    assert set(r["evaluator_cpu_breakdown_ms_per_job"]) == {"fork", "setup", "exec", "exit", "sweep", "transfer",
                                                            "evaluator_other", "zygote_other"}
    measured = {k: v for k, v in r["evaluator_cpu_breakdown_ms_per_job"].items() if k in ("fork", "setup", "sweep",
                                                                                          "transfer")}
    assert all(v > 0 for v in measured.values()), measured
    for d in (one, rl):  # every fresh child copies some of the zygote's pages; the zygote too, after fork
        assert d["page_faults_per_job"]["job_processes"] > 10 and d["page_faults_per_job"]["zygote"] > 0, d
    assert r["evaluator_page_faults_per_job"] == one["page_faults_per_job"]
