"""The procedural backend task generator (colbench_env.generator).

Generated code is only ever executed in a child process (see ``_run_checker``).
"""
import ast
import json
import os
import re
import subprocess
import sys
import textwrap

import pytest

from colbench_env.generator import FAMILIES, TEMPLATES, generate_task, generate_tasks
from colbench_env.simulators.scripted_backend import ScriptedBackendSimulator, extract_facts
from colbench_env.tasks import BackendTask, load_tasks, task_from_record

SEEDS = range(60)
DIFFICULTIES = (1, 2, 3, 4)
SIGNATURE_RE = re.compile(r"The signature of the function is: def (\w+)\(([^)]*)\)$")


def _all_tasks():
    """Seeds 0..59 at every difficulty, plus, for a template that those seeds never draw, its first seed."""
    tasks = [generate_task(s, d) for d in DIFFICULTIES for s in SEEDS]
    missing = set(TEMPLATES) - {t.extra["generator"]["template"] for t in tasks}
    seed = len(SEEDS)
    while missing:
        t = generate_task(seed, 1)
        name = t.extra["generator"]["template"]
        if name in missing:
            missing.discard(name)
            tasks += [generate_task(seed, d) for d in DIFFICULTIES]
        seed += 1
    # the "rate" family draws other personal values for the same seeds: check those tasks too
    tasks += [generate_task(s, d, "rate") for d in DIFFICULTIES for s in range(20)]
    return tasks


@pytest.fixture(scope="module")
def tasks():
    return _all_tasks()


# ---------------------------------------------------------------------------------------------
# Running generated code: one child process for all tasks
# ---------------------------------------------------------------------------------------------

CHECKER = textwrap.dedent(r'''
    import builtins, json, math, sys

    boundary_hits = []
    _round, _ceil, _floor = builtins.round, math.ceil, math.floor

    def round_checked(x, ndigits=None):
        if isinstance(x, float):
            scaled = x * 10 ** (ndigits or 0)
            if abs(scaled - _floor(scaled) - 0.5) < 1e-6:
                boundary_hits.append(f"round({x!r}, {ndigits})")
        return _round(x) if ndigits is None else _round(x, ndigits)

    def step_checked(fn):
        def wrapped(x):
            if isinstance(x, float) and abs(x - _round(x)) < 1e-6:
                boundary_hits.append(f"{fn.__name__}({x!r})")
            return fn(x)
        return wrapped

    def run(source, calls, check=False):
        """repr of each call's result ('<error ...>' when it raises)."""
        if check:
            builtins.round, math.ceil, math.floor = round_checked, step_checked(_ceil), step_checked(_floor)
        try:
            out = []
            for call in calls:
                ns = {}
                try:
                    exec(source, ns)
                    value = eval(call, ns)
                    out.append(("ok", value))
                except Exception as e:
                    out.append(("error", f"{type(e).__name__}: {e}"))
            return out
        finally:
            builtins.round, math.ceil, math.floor = _round, _ceil, _floor

    def passes(truth, answer):
        """ColBench scoring: a test passes when both give equal, non-None results."""
        return [t[0] == "ok" and a[0] == "ok" and t[1] is not None and t[1] == a[1] for t, a in zip(truth, answer)]

    report = []
    for item in json.load(sys.stdin):
        calls = item["calls"]
        del boundary_hits[:]
        truth = run(item["ground_truth"], calls, check=True)
        hits = list(boundary_hits)
        again = run(item["ground_truth"], calls)
        report.append({
            "task_id": item["task_id"],
            "truth": [repr(v) for _, v in truth],
            "truth_errors": [v for kind, v in truth if kind == "error"],
            "none_results": sum(1 for kind, v in truth if kind == "ok" and v is None),
            "deterministic": [repr(v) for v in truth] == [repr(v) for v in again],
            "self_pass": sum(passes(truth, again)),
            "boundary_hits": hits,
            "generic_pass": sum(passes(truth, run(item["generic"], calls))),
            "ablated_pass": {name: sum(passes(truth, run(src, calls))) for name, src in item["ablated"].items()},
        })
    json.dump(report, sys.stdout)
''')


def _run_checker(items):
    proc = subprocess.run([sys.executable, "-c", CHECKER], input=json.dumps(items), capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return {r["task_id"]: r for r in json.loads(proc.stdout)}


def _checker_item(task):
    gen = task.extra["generator"]
    template = TEMPLATES[gen["template"]]
    values = {f["name"]: f["value"] for f in gen["facts"]}
    return {
        "task_id": task.task_id,
        "calls": list(task.test_cases.values()),
        "ground_truth": task.ground_truth,
        "generic": task.extra["generic_solution"],
        # the ground truth with one hidden fact put back to its default
        "ablated": {f["name"]: template.solution({**values, f["name"]: f["default"]}) for f in gen["facts"]},
    }


@pytest.fixture(scope="module")
def checked(tasks):
    return _run_checker([_checker_item(t) for t in tasks])


def test_ground_truth_passes_its_own_tests_deterministically(tasks, checked):
    for t in tasks:
        r = checked[t.task_id]
        assert r["truth_errors"] == [] and r["none_results"] == 0, (t.task_id, r)
        assert r["deterministic"] and r["self_pass"] == 10, (t.task_id, r)


def test_generic_solution_fails_at_least_one_test(tasks, checked):
    for t in tasks:
        assert checked[t.task_id]["generic_pass"] <= 9, (t.task_id, t.extra["generic_solution"])


def test_every_hidden_fact_matters(tasks, checked):
    """Reverting any one hidden fact to its default fails at least one test."""
    for t in tasks:
        ablated = checked[t.task_id]["ablated_pass"]
        assert len(ablated) == t.extra["generator"]["difficulty"]
        assert all(n <= 9 for n in ablated.values()), (t.task_id, ablated)


def test_no_test_sits_on_a_rounding_boundary(tasks, checked):
    """So an answer computing the same value in another algebraic order scores the same."""
    for t in tasks:
        assert checked[t.task_id]["boundary_hits"] == [], (t.task_id, t.ground_truth, checked[t.task_id])


def test_checker_catches_a_wrong_ground_truth():
    """The child-process checker is not vacuous: a broken ground truth and a fragile test are reported."""
    t = next(t for t in (generate_task(s, 1) for s in range(200)) if t.extra["generator"]["template"] == "tip")
    item = _checker_item(t)
    broken = dict(item, task_id="broken", ground_truth=item["ground_truth"].replace("return ", "return None and "))
    fragile = dict(item, task_id="fragile", calls=["round(2.675 * 1.0 + 0.0, 2)", "round(0.5)"])
    report = _run_checker([item, broken, fragile])
    assert report[t.task_id]["self_pass"] == 10
    assert report["broken"]["none_results"] == 10 and report["broken"]["self_pass"] == 0
    assert report["fragile"]["boundary_hits"]


# ---------------------------------------------------------------------------------------------
# Shape of the records
# ---------------------------------------------------------------------------------------------

def test_ten_literal_test_calls(tasks):
    for t in tasks:
        func, params = SIGNATURE_RE.search(t.problem_description).groups()
        n_params = len([p for p in params.split(",") if p.strip()])
        assert list(t.test_cases) == [f"test{i}" for i in range(1, 11)], t.task_id
        assert len(set(t.test_cases.values())) == 10, t.task_id
        for call in t.test_cases.values():
            node = ast.parse(call, mode="eval").body
            assert isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == func, call
            assert not node.keywords and len(node.args) == n_params, call
            for arg in node.args:
                ast.literal_eval(arg)


def test_signature_sentence_matches_the_def(tasks):
    for t in tasks:
        m = SIGNATURE_RE.search(t.problem_description)
        assert m is not None and t.problem_description.endswith(m.group(0)), t.problem_description
        func, params = m.groups()
        for source in (t.ground_truth, t.extra["generic_solution"]):
            defs = [n for n in ast.parse(source).body if isinstance(n, ast.FunctionDef)]
            assert len(defs) == 1 and defs[0].name == func, source
            assert [a.arg for a in defs[0].args.args] == [p.strip() for p in params.split(",")], source
            assert f"def {func}({params}):" in source


def test_hidden_facts_grow_with_difficulty(tasks):
    by_id = {t.task_id: t for t in tasks}
    for t in tasks:
        gen = t.extra["generator"]
        d, seed, family = gen["difficulty"], gen["seed"], gen["family"]
        prefix = "gen-" if family == "all" else f"gen-{family}-"
        assert t.task_id == f"{prefix}d{d}-{seed}"
        assert len(gen["facts"]) == d
        sentences = [f["sentence"] for f in gen["facts"]]
        assert t.hidden_information == " ".join(sentences)
        assert all(s.endswith(".") for s in sentences)
        assert all(f["value"] != f["default"] for f in gen["facts"])
        for s in sentences:  # the hidden numbers are not in the request
            for number in re.findall(r"\b\d+(?:\.\d+)?\b", s):
                assert not re.search(rf"(?<![\d.]){re.escape(number)}(?![\d.])", t.problem_description) or \
                    number in ("0", "100", "273.15"), (t.task_id, number)
        if d > 1:  # the same seed keeps its template and values; one more fact matters
            lower = by_id[f"{prefix}d{d - 1}-{seed}"].extra["generator"]
            assert lower["template"] == gen["template"]
            assert [(f["name"], f["value"]) for f in lower["facts"]] == [(f["name"], f["value"]) for f in gen["facts"][:-1]]


def test_difficulty_one_is_a_one_liner(tasks):
    """At difficulty 1 the function is one return statement (the grade template needs its if-ladder)."""
    for t in tasks:
        if t.extra["generator"]["difficulty"] != 1 or t.extra["generator"]["template"] == "grade_letter":
            continue
        (fn,) = ast.parse(t.ground_truth).body
        assert len(fn.body) == 1 and isinstance(fn.body[0], ast.Return), t.ground_truth


def test_scripted_simulator_finds_each_fact_from_a_natural_question(tasks):
    sim = ScriptedBackendSimulator()
    for t in tasks:
        facts = t.extra["generator"]["facts"]
        assert extract_facts(t) == [f["sentence"] for f in facts]  # one fact per sentence, as the simulator splits
        for f in facts:
            reply = sim.reply(t, [{"role": "assistant", "content": f["question"]}])
            assert f["sentence"] in reply, (t.task_id, f["question"], reply)


def test_templates():
    assert len(TEMPLATES) >= 12
    for name, template in TEMPLATES.items():
        assert template.name == name and len(template.facts) == 4
        assert len({f.name for f in template.facts}) == 4
        assert template.solution() == template.solution(template.defaults())
    with pytest.raises(KeyError, match="has no facts"):
        TEMPLATES["tip"].solution({"colour": "red"})


def test_difficulty_one_example():
    seed = next(s for s in range(200) if generate_task(s, 1).extra["generator"]["template"] == "tip")
    t = generate_task(seed, 1)
    assert t.problem_description.startswith("I want a function that adds my usual tip to a restaurant bill")
    assert t.problem_description.endswith("The signature of the function is: def add_tip(bill)")
    rate = t.extra["generator"]["facts"][0]["value"]
    assert t.hidden_information == f"I always tip {rate} percent of the bill."
    assert t.ground_truth == f"def add_tip(bill):\n    return round(bill * {(100 + rate) / 100}, 2)"


# ---------------------------------------------------------------------------------------------
# Determinism, splits, errors, round trips, loader
# ---------------------------------------------------------------------------------------------

def test_deterministic_per_seed():
    for d in DIFFICULTIES:
        for s in (0, 7, 123):
            assert generate_task(s, d).to_record() == generate_task(s, d).to_record()


def test_deterministic_across_processes():
    """Same records in a fresh interpreter with another hash seed (no reliance on set/dict-hash order)."""
    here = [generate_task(s, d).to_record() for d in DIFFICULTIES for s in range(15)]
    code = ("import json; from colbench_env.generator import generate_task; "
            "print(json.dumps([generate_task(s, d).to_record() for d in (1, 2, 3, 4) for s in range(15)]))")
    env = dict(os.environ, PYTHONHASHSEED="12345")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == json.loads(json.dumps(here))


def test_different_seeds_mostly_different():
    for d in DIFFICULTIES:
        recs = [generate_task(s, d) for s in SEEDS]
        assert len({json.dumps(t.to_record(), sort_keys=True) for t in recs}) == len(recs)
        assert len({t.ground_truth for t in recs}) >= 0.6 * len(recs)
        assert len({t.extra["generator"]["template"] for t in recs}) >= 10


def test_splits():
    assert generate_task(0).split == "test" and generate_task(5).split == "test"
    assert generate_task(1).split == "train" and generate_task(9).split == "train"
    test = generate_tasks(4, difficulty=3, split="test", start=1)
    assert [t.task_id for t in test] == ["gen-d3-5", "gen-d3-10", "gen-d3-15", "gen-d3-20"]
    train = generate_tasks(5, split="train")
    assert [t.task_id for t in train] == ["gen-d1-1", "gen-d1-2", "gen-d1-3", "gen-d1-4", "gen-d1-6"]
    assert [t.to_record() for t in generate_tasks(3, difficulty=2)] == [generate_task(s, 2).to_record() for s in range(3)]
    assert generate_tasks(0) == []


@pytest.mark.parametrize("bad", [0, 5, -1, "2", 2.0, True, None])
def test_bad_difficulty(bad):
    message = f"difficulty must be an integer from 1 to 4 (how many hidden facts matter), got {bad!r}"
    with pytest.raises(ValueError, match=re.escape(message)):
        generate_task(0, bad)
    with pytest.raises(ValueError, match=re.escape(message)):
        generate_tasks(3, difficulty=bad)


def test_bad_arguments():
    with pytest.raises(ValueError, match=re.escape("seed must be a non-negative integer, got -3")):
        generate_task(-3)
    with pytest.raises(ValueError, match=re.escape("seed must be a non-negative integer, got '4'")):
        generate_task("4")
    with pytest.raises(ValueError, match=re.escape("n must be a non-negative integer, got -1")):
        generate_tasks(-1)
    with pytest.raises(ValueError, match=re.escape("split must be 'train', 'test' or None, got 'dev'")):
        generate_tasks(2, split="dev")
    with pytest.raises(ValueError, match=re.escape("start must be a non-negative integer (the first seed), got -2")):
        generate_tasks(2, start=-2)


def test_round_trip_through_records(tasks):
    for t in tasks[::7]:
        rec = json.loads(json.dumps(t.to_record()))
        back = task_from_record(rec)
        assert isinstance(back, BackendTask) and back == t
        assert back.to_record() == rec
        assert back.extra["generator"] == t.extra["generator"] and back.extra["generic_solution"]


def test_load_tasks_generated_spec():
    loaded = load_tasks("generated:20:2")
    assert len(loaded) == 20
    assert [t.task_id for t in loaded] == [f"gen-d2-{s}" for s in range(20)]
    assert all(t.extra["generator"]["difficulty"] == 2 and len(t.extra["generator"]["facts"]) == 2 for t in loaded)
    test_only = load_tasks("generated:4:1", split="test")
    assert [t.task_id for t in test_only] == ["gen-d1-0", "gen-d1-5", "gen-d1-10", "gen-d1-15"]


def test_rate_family():
    rate = generate_tasks(40, difficulty=1, family="rate")
    assert [t.task_id for t in rate[:3]] == ["gen-rate-d1-0", "gen-rate-d1-1", "gen-rate-d1-2"]
    names = [t.extra["generator"]["template"] for t in rate]
    assert set(names) == set(FAMILIES["rate"])  # only rate templates, and each of them is drawn
    assert all(t.extra["generator"]["family"] == "rate" for t in rate)
    assert [t.to_record() for t in rate[:5]] == [generate_task(s, 1, "rate").to_record() for s in range(5)]
    assert [t.split for t in rate[:6]] == ["test", "train", "train", "train", "train", "test"]
    # a rate task at difficulty 1 is the argument times one hidden number
    for t in rate:
        body = t.ground_truth.splitlines()[-1].strip()
        assert "*" in body and body.startswith("return"), t.ground_truth
    assert generate_task(3).extra["generator"]["family"] == "all" and FAMILIES["all"] == tuple(TEMPLATES)
    with pytest.raises(ValueError, match=re.escape("family must be one of ['all', 'ask', 'rate'], got 'easy'")):
        generate_task(0, 1, "easy")
    with pytest.raises(ValueError, match="family must be one of"):
        generate_tasks(2, family="easy")


def test_load_tasks_generated_family_spec():
    test_only = load_tasks("generated:3:1:rate", split="test")
    assert [t.task_id for t in test_only] == ["gen-rate-d1-0", "gen-rate-d1-5", "gen-rate-d1-10"]
    assert load_tasks("generated:2::rate")[0].task_id == "gen-rate-d1-0"
    with pytest.raises(ValueError, match="family must be one of"):
        load_tasks("generated:2:1:nope")
    with pytest.raises(ValueError, match=re.escape("task spec 'generated:x': N and difficulty must be integers")):
        load_tasks("generated:x")
    with pytest.raises(ValueError, match=re.escape("expected 'generated:N:difficulty:family'")):
        load_tasks("generated:2:1:rate:extra")


def test_generated_spec_checks_each_part_and_round_trips():
    from colbench_env.tasks import generated_spec, parse_generated_spec

    assert generated_spec(7, 2, "rate") == "generated:7:2:rate"
    assert parse_generated_spec("generated") == (100, 1, "all")
    assert parse_generated_spec("generated:7:2:rate") == (7, 2, "rate")
    assert [t.task_id for t in load_tasks(generated_spec(2, 3), split="train")] == ["gen-d3-1", "gen-d3-2"]
    with pytest.raises(ValueError, match=re.escape("difficulty must be an integer from 1 to 4 (how many hidden "
                                                   "facts matter), got 5")):
        generated_spec(3, 5)
    with pytest.raises(ValueError, match=re.escape("task spec 'generated:-1:1:all': N must be >= 0")):
        generated_spec(-1)


def _package_imports(path):
    """Absolute names of the ``colbench_env`` modules that the file at ``path`` imports."""
    import colbench_env
    from source_imports import imported_modules

    names = imported_modules(path, os.path.dirname(os.path.dirname(colbench_env.__file__)))
    return {n for n in names if n == "colbench_env" or n.startswith("colbench_env.")}


def test_records_generator_loading_import_without_a_cycle():
    """records imports nothing of the package; the generator imports records (and itself) only;
    loading (``colbench_env.tasks``) is the only module of the package that imports the generator."""
    import colbench_env

    root = os.path.dirname(colbench_env.__file__)
    assert _package_imports(os.path.join(root, "records.py")) == set()
    gen_dir = os.path.join(root, "generator")
    for name in os.listdir(gen_dir):
        if name.endswith(".py"):
            imported = _package_imports(os.path.join(gen_dir, name))
            assert all(m.startswith(("colbench_env.generator", "colbench_env.records")) for m in imported), (name, imported)
            assert not any(m.startswith("colbench_env.tasks") for m in imported), (name, imported)
    importers = set()
    for folder, _, files in os.walk(root):
        for name in files:
            path = os.path.join(folder, name)
            if name.endswith(".py") and not path.startswith(gen_dir):
                if any(m.startswith("colbench_env.generator") for m in _package_imports(path)):
                    importers.add(os.path.relpath(path, root))
    assert importers == {"tasks.py"}
