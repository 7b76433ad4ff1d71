"""Reference semantics (the default) of the sandboxed backend evaluator: agreement with the
reference scorer (re-stated in tests/reference_scorer.py), result types, explanations."""
from __future__ import annotations

import re

import pytest
from reference_scorer import reference_reward

from colbench_env.evaluation import BackendEvaluator
from colbench_env.evaluation.backend import STATUSES
from colbench_env.evaluation.inprocess import InProcessEvaluator
from colbench_env.generator import generate_tasks
from colbench_env.tasks import BackendTask, default_tasks, task_from_record

pytestmark = pytest.mark.timeout(300)


def make_task(gt: str, tests: dict) -> BackendTask:
    return task_from_record({"problem_description": "p", "ground_truth": gt, "test_cases": tests,
                             "hidden_information": gt}, source="<test>", line=1)


@pytest.fixture(scope="module")
def ev():
    with BackendEvaluator(workers=2, timeout_s=10.0) as e:
        assert e.semantics == "reference"  # the default
        yield e


# ---------------------------------------------------------------- realistic answer sets

def _def_line(code: str) -> tuple[int, str] | None:
    lines = code.split("\n")
    for i, line in enumerate(lines):
        m = re.match(r"def (\w+)\(", line)
        if m and line.rstrip().endswith(":"):
            return i, m.group(1)
    return None


def _with_top_level_helper(code: str) -> str | None:
    found = _def_line(code)
    if found is None:
        return None
    _, name = found
    return code.replace(f"def {name}(", f"def _{name}_impl(", 1) + \
        f"\n\ndef {name}(*args, **kwargs):\n    return _{name}_impl(*args, **kwargs)\n"


def _with_top_level_import(code: str) -> str | None:
    found = _def_line(code)
    if found is None:
        return None
    i, _ = found
    lines = code.split("\n")
    lines.insert(i + 1, "    _ = math.floor(2.5)")
    return "import math\n" + "\n".join(lines)


def _mutants(code: str) -> list[str]:
    found = _def_line(code)
    if found is None:
        return []
    i, _ = found
    head, body = "\n".join(code.split("\n")[: i + 1]), "\n".join(code.split("\n")[i + 1:])
    out = []
    for pat, rep in ((r"(?<![\w.])(\d+)(?![\w.])", lambda m: str(int(m.group(1)) + 1)),
                     (r" <= | < | >= | > ", lambda m: {" <= ": " < ", " < ": " <= ", " >= ": " > ", " > ": " >= "}[m.group(0)]),
                     (r" \+ | \* ", lambda m: " - " if m.group(0) == " + " else " + ")):
        new = re.sub(pat, rep, body, count=1)
        if new != body:
            out.append(head + "\n" + new)
    return out


def answer_set(task: BackendTask) -> list[tuple[str, str]]:
    """(category, answer text after 'I WANT TO ANSWER:') for one task."""
    gt = task.ground_truth
    out = [("gt_fenced_in_prose", f"Here is the function you asked for:\n```python\n{gt}\n```\nTell me if it needs changes."),
           ("gt_bare", gt),
           ("gt_py_fence", f"```py\n{gt}\n```"),
           ("gt_two_fences", f"```python\n{gt}\n```\nand a usage example:\n```python\nprint('hi')\n```"),
           ("imports_os", f"```python\nimport os\n{gt}\n```"),
           ("prose_from_os", f"Adapted from ostensibly similar code:\n```python\n{gt}\n```"),
           ("exit_call", f"```python\n{gt}\n\nif __name__ == '__main__':\n    exit(0)\n```")]
    wrong = task.extra.get("generic_solution")
    if wrong:
        out.append(("generic_solution", f"```python\n{wrong}\n```"))
    out += [("mutant", f"```python\n{m}\n```") for m in _mutants(gt)]
    helper, imp = _with_top_level_helper(gt), _with_top_level_import(gt)
    if helper:
        out.append(("top_level_helper", f"```python\n{helper}\n```"))
    if imp:
        out.append(("top_level_import", f"```python\n{imp}\n```"))
    return out


def realistic_pairs() -> list[tuple[str, BackendTask, str]]:
    tasks = default_tasks("backend") + generate_tasks(20, difficulty=2) + generate_tasks(20, difficulty=4)
    pairs = []
    for t in tasks:
        pairs += [(cat, t, a) for cat, a in answer_set(t)]
    # ground truths written with a top-level helper / import: the reference scores every answer 0
    for t in default_tasks("backend")[:15]:
        for form in (_with_top_level_helper(t.ground_truth), _with_top_level_import(t.ground_truth)):
            if form:
                t2 = make_task(form, dict(t.test_cases))
                pairs += [("gt_top_level", t2, f"```python\n{form}\n```"), ("gt_top_level", t2, t.ground_truth)]
    return pairs


def test_agreement_with_the_reference_scorer_on_realistic_answers(ev):
    pairs = realistic_pairs()
    assert len(pairs) >= 1500
    ours = ev.score_many([(t, a) for _, t, a in pairs])
    theirs = [reference_reward(t.ground_truth, a, t.test_cases) for _, t, a in pairs]
    agree = [o.reward == r for o, r in zip(ours, theirs)]
    rate = sum(agree) / len(agree)
    bad = [(c, t.task_id, o.reward, r, o.reason) for (c, t, _), o, r, ok in zip(pairs, ours, theirs, agree) if not ok]
    print(f"agreement {rate:.4%} on {len(pairs)} answers")
    assert rate >= 0.995, bad[:10]
    by_cat: dict[str, list[float]] = {}
    for (c, _, _), r in zip(pairs, theirs):
        by_cat.setdefault(c, []).append(r)
    # the set exercises what differs from plain Python: these all score 0 under the reference...
    for c in ("imports_os", "prose_from_os", "exit_call", "top_level_helper", "top_level_import", "gt_py_fence",
              "gt_top_level"):
        assert by_cat[c] and max(by_cat[c]) == 0.0, c
    # ...while ground truths in prose, bare or among several fences, score 1
    for c in ("gt_fenced_in_prose", "gt_bare", "gt_two_fences"):
        assert min(by_cat[c]) == 1.0, c
    assert 0 < sum(by_cat["mutant"]) < len(by_cat["mutant"])
    # the benchmark's in-process baseline is reference-style too
    base = InProcessEvaluator().score_many([(t, a) for _, t, a in pairs[::7]])
    assert [b.reward for b in base] == theirs[::7]


def test_python_semantics_differs_where_the_issue_says(ev):
    gt = "def area(r):\n    return round(3.14159 * r * r, 2)"
    task = make_task(gt, {"t1": "area(1)", "t2": "area(2)"})
    helper = "def _sq(x):\n    return x * x\n\ndef area(r):\n    return round(3.14159 * _sq(r), 2)"
    imp = "import math\ndef area(r):\n    return round(3.14159 * math.pow(r, 2), 2)"
    with BackendEvaluator(workers=1, semantics="python") as py:
        for code in (helper, imp):
            assert py.score(task, code).reward == 1.0
            assert ev.score(task, code).reward == 0.0 == reference_reward(gt, code, task.test_cases)
        os_answer = "import os\n" + gt
        assert py.score(task, os_answer).reward == 1.0
        s = ev.score(task, os_answer)
        assert s.reward == 0.0 and s.reason == "blocked by a reference-semantics rule: the answer contains 'import os'"
        assert [t.status for t in s.tests] == ["blocked", "blocked"]


def test_each_test_reexecutes_the_definitions():
    # state kept at the top level does not carry over: every call starts from fresh definitions
    gt = "def f(x, acc=[]):\n    acc.append(x)\n    return len(acc)"
    task = make_task(gt, {"a": "f(1)", "b": "f(1)", "c": "f(1)"})
    with BackendEvaluator(workers=1) as ref, BackendEvaluator(workers=1, semantics="python") as py:
        assert ref.score(task, "def f(x):\n    return 1").reward == 1.0 == reference_reward(gt, "def f(x):\n    return 1",
                                                                                            task.test_cases)
        assert py.score(task, "def f(x):\n    return 1").reward == pytest.approx(1 / 3)


def test_answer_per_test_time_limit_is_one_second(ev):
    gt = "def f(x):\n    return x"
    task = make_task(gt, {"fast": "f(1)", "slow": "f(2)"})
    slow = "def f(x):\n    import time\n    if x == 2:\n        time.sleep(1.6)\n    return x"
    s = ev.score(task, slow)
    assert s.per_test == {"fast": True, "slow": False}
    assert s.tests[1].status == "timeout" and "TimeoutError" in s.tests[1].message
    assert reference_reward(gt, slow, task.test_cases) == 0.5


# ---------------------------------------------------------------- result types

TYPES_GT = """def f(k):
    import datetime, decimal, fractions, math, collections
    from collections import namedtuple
    P = namedtuple('P', 'x y')
    tz = datetime.timezone(datetime.timedelta(hours=2))
    return {
        'datetime': datetime.datetime(2024, 2, 29, 13, 5, 7, 11),
        'aware': datetime.datetime(2024, 1, 1, 12, 0, tzinfo=tz),
        'date': datetime.date(1999, 12, 31),
        'time': datetime.time(23, 59),
        'timedelta': datetime.timedelta(days=3, seconds=5),
        'type': int,
        'dtype': datetime.date,
        'decimal': decimal.Decimal('1.10'),
        'fraction': fractions.Fraction(2, 6),
        'set': {1, 2, 3},
        'frozenset': frozenset({'a'}),
        'nested': {'a': [1, (2, {3: frozenset({4})})], 'b': {'c': [None, True]}},
        'nan': float('nan'),
        'math_nan_in_list': [math.nan],
        'big': 3 ** 5000,
        'namedtuple': P(1, 2),
        'counter': collections.Counter('abca'),
        'ordered': collections.OrderedDict([(1, 2), (3, 4)]),
        'deque': collections.deque([1, 2]),
        'range': range(2, 9, 3),
        'bytes': bytearray(b'xy'),
    }[k]"""

TYPE_KEYS = ["datetime", "aware", "date", "time", "timedelta", "type", "dtype", "decimal", "fraction", "set",
             "frozenset", "nested", "nan", "math_nan_in_list", "big", "namedtuple", "counter", "ordered", "deque",
             "range", "bytes"]


def test_result_types_compare_as_the_references_equality(ev):
    task = make_task(TYPES_GT, {k: f"f({k!r})" for k in TYPE_KEYS})
    s = ev.score(task, TYPES_GT)  # the ground truth itself passes every test except NaN's (nan != nan)
    expected = {k: k != "nan" for k in TYPE_KEYS}
    assert s.per_test == expected, s.explain()
    assert s.reward == reference_reward(TYPES_GT, TYPES_GT, task.test_cases)
    # equal values of other types, as == says: aware datetime in another zone, 0.1+0.2-style
    # Decimal vs float, Fraction vs float, namedtuple vs tuple, OrderedDict vs dict, Counter vs dict
    other = """def f(k):
    import datetime, decimal, fractions, math, collections
    utc = datetime.timezone.utc
    return {
        'datetime': datetime.datetime(2024, 2, 29, 13, 5, 7, 11),
        'aware': datetime.datetime(2024, 1, 1, 10, 0, tzinfo=utc),
        'date': datetime.datetime(1999, 12, 31),
        'time': datetime.time(23, 59, 0),
        'timedelta': datetime.timedelta(hours=72, seconds=5),
        'type': bool,
        'dtype': datetime.date,
        'decimal': 1.1,
        'fraction': 1 / 3,
        'set': frozenset({3, 2, 1}),
        'frozenset': {'a'},
        'nested': {'b': {'c': [None, 1]}, 'a': [1, (2, {3: {4}})]},
        'nan': float('nan'),
        'math_nan_in_list': [math.nan],
        'big': 3 ** 5000 + 1,
        'namedtuple': (1, 2),
        'counter': {'a': 2, 'b': 1, 'c': 1},
        'ordered': {3: 4, 1: 2},
        'deque': [1, 2],
        'range': range(2, 10, 3),
        'bytes': b'xy',
    }[k]"""
    s2 = ev.score(task, other)
    assert s2.reward == reference_reward(TYPES_GT, other, task.test_cases)
    assert s2.per_test == {"datetime": True, "aware": True, "date": False, "time": True, "timedelta": True,
                           "type": False, "dtype": True, "decimal": False, "fraction": False, "set": True,
                           "frozenset": True, "nested": True, "nan": False, "math_nan_in_list": True, "big": False,
                           "namedtuple": True, "counter": True, "ordered": True, "deque": False, "range": True,
                           "bytes": True}, s2.explain()


def test_objects_of_the_answers_making_never_compare():
    # an answer-defined class claiming equality with everything: the reference is fooled, we are not
    gt = "def f():\n    return 5"
    liar = "class Eq:\n    def __eq__(self, o):\n        return True\n\ndef f():\n    class Eq:\n" \
           "        def __eq__(self, o):\n            return True\n    return Eq()"
    task = make_task(gt, {"a": "f()"})
    with BackendEvaluator(workers=1) as e:
        s = e.score(task, liar)
    assert s.reward == 0.0 and s.tests[0].status == "unsupported_result"
    assert reference_reward(gt, liar, task.test_cases) == 1.0  # documented difference
    # a type object the answer made is equal to nothing the ground truth made
    gt2 = "def f():\n    class A:\n        pass\n    return A"
    with BackendEvaluator(workers=1) as e:
        s = e.score(make_task(gt2, {"a": "f()"}), gt2)
    assert s.reward == 0.0 and s.tests[0].status == "truth_failed"


# ---------------------------------------------------------------- explanations

GT = "def price(n, vip=False):\n    p = n * 2.5\n    return p * 0.9 if vip else p"
TESTS = {"test1": "price(2)", "test2": "price(2, True)", "test3": "price(0)"}


def _only(s):
    return [(t.name, t.status) for t in s.tests]


def test_every_zero_is_explained(ev):
    task = make_task(GT, TESTS)
    s = ev.score(task, "def price(n, vip=False):\n    return n * 2.5")
    assert _only(s) == [("test1", "passed"), ("test2", "wrong_output"), ("test3", "passed")]
    assert (s.tests[1].expected, s.tests[1].got) == ("4.5", "5.0")
    assert s.reason == "1/3 tests failed (wrong_output 1); test2: wrong output: expected 4.5, got 5.0"

    s = ev.score(task, "def cost(n):\n    return n")
    assert {t.status for t in s.tests} == {"missing_function"}
    assert s.tests[0].message == "the answer defines no 'price' (it defines: cost)"

    s = ev.score(task, "def price(n, vip=False):\n    if vip:\n        raise KeyError('vip')\n    return n * 2.5")
    assert _only(s)[1] == ("test2", "exception") and s.tests[1].message == "KeyError: 'vip'"

    s = ev.score(task, "def price(n, vip=False):\n    return 'x' * (10 ** 10)")
    assert {t.status for t in s.tests} == {"memory"}, s.explain()

    s = ev.score(task, "def price(n, vip=False):\n    return 'x' * (5 * 2 ** 20)")
    assert {t.status for t in s.tests} == {"output_limit"}, s.explain()

    s = ev.score(task, "```python\nimport sys\n" + GT + "\n```")
    assert {t.status for t in s.tests} == {"blocked"} and "'import sys'" in s.tests[0].message

    s = ev.score(task, "def _h(n):\n    return n * 2.5\ndef price(n, vip=False):\n    return _h(n)")
    assert {t.status for t in s.tests} == {"exception"}
    assert "NameError: name '_h' is not defined (reference semantics" in s.tests[0].message

    s = ev.score(task, "def price(n, vip=False):\n    return [1]")
    long = ev.score(make_task("def f():\n    return 'a' * 1000", {"t": "f()"}), "def f():\n    return 'b' * 1000")
    assert len(long.tests[0].expected) == 200 == len(long.tests[0].got)
    for s in (s, long):
        assert s.reward < 1 and s.reason
        assert all(t.status in STATUSES for t in s.tests)


def test_whole_answer_timeout_and_truth_problems_are_explained():
    task = make_task(GT, TESTS)
    with BackendEvaluator(workers=1, timeout_s=1.5, test_timeout_s=None) as e:
        s = e.score(task, "def price(n, vip=False):\n    while True:\n        pass")
        assert s.reason.startswith("timeout") and {t.status for t in s.tests} == {"timeout"}
        none_gt = make_task("def f(x):\n    return None if x else 1", {"a": "f(1)", "b": "f(0)"})
        s = e.score(none_gt, "def f(x):\n    return None if x else 1")
        assert _only(s) == [("a", "truth_none"), ("b", "passed")] and s.reason.startswith("1/2 tests failed")


def test_explain_table_lists_every_test(ev):
    s = ev.score(make_task(GT, TESTS), "def price(n, vip=False):\n    return n * 2.5")
    table = s.explain().splitlines()
    assert table[0] == "reward 0.667 (2/3 tests passed, reference semantics)"
    assert table[1].startswith("reason: 1/3 tests failed")
    assert [line.split()[:2] for line in table[3:]] == [["test1", "passed"], ["test2", "wrong_output"],
                                                          ["test3", "passed"]]


def test_ground_truth_outputs_are_computed_once_per_evaluator():
    task = make_task(GT, TESTS)
    with BackendEvaluator(workers=2) as e:
        e.score_many([(task, GT), (task, "x")] * 4)
        e.score(task, GT)
        assert e.truth_runs == 1
        other = make_task(GT, dict(TESTS, test4="price(4)"))  # other tests: another cache entry
        e.score(other, GT)
        assert e.truth_runs == 2


def test_a_ground_truth_asked_for_by_many_threads_at_once_runs_once():
    """Sessions of ``colbench serve`` score in their own threads: the first answers of a task arrive
    together, and each used to run the task's ground truth itself (64 sessions: 64 runs)."""
    import threading

    task = make_task(GT, TESTS)
    answers = [GT, "def price(n, vip=False):\n    return n * 2.5", "x", GT] * 2
    go = threading.Barrier(len(answers))
    got: dict[int, float] = {}

    def one(i: int) -> None:
        go.wait()
        got[i] = e.score(task, answers[i]).reward

    with BackendEvaluator(workers=2) as e:
        threads = [threading.Thread(target=one, args=(i,)) for i in range(len(answers))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert e.truth_runs == 1
        assert [got[i] for i in range(len(answers))] == [1.0, 2 / 3, 0.0, 1.0] * 2


def test_nice_lowers_the_priority_of_every_sandbox_process():
    """``nice=3``: the answer's own process runs 3 nice levels below the caller, and the worker's
    scheduling group (its own session's autogroup, where the kernel has them) 3 below the caller's."""
    import os

    import psutil

    mine = os.nice(0)
    expected = min(19, mine + 3)
    task = make_task(f"def level():\n    return {expected}", {"test1": "level()"})
    probe = "def level():\n    import os\n    return os.nice(0)"
    with BackendEvaluator(workers=1, nice=3, semantics="python") as e, \
            BackendEvaluator(workers=1, semantics="python") as plain:  # (reference semantics refuse "import os")
        assert e.start() is e and len(e.worker_tags()) == 1  # started before any score
        assert e.score(task, probe).reward == 1.0
        assert plain.score(make_task(f"def level():\n    return {mine}", {"test1": "level()"}), probe).reward == 1.0
        try:
            with open("/proc/self/autogroup") as f:
                group = int(f.read().split()[-1])
        except (OSError, ValueError, IndexError):
            return  # no autogroup scheduling here (no file, or an empty one, as in some CI containers)
        tag = e.worker_tags()[0]
        zygotes = [p for p in psutil.Process().children(recursive=True) if tag in " ".join(p.cmdline())]
        assert zygotes
        for p in zygotes:
            with open(f"/proc/{p.pid}/autogroup") as f:
                assert int(f.read().split()[-1]) == min(19, group + 3)
    with pytest.raises(ValueError, match="nice must be an int in 0..19"):
        BackendEvaluator(nice=20)
