"""``colbench audit tasks``: generated tasks with planted defects are each flagged by the check that
names the defect, clean generated tasks are not; the JSONL, the verified file, a served human
through the stand-in server, and bad input (exit 2, one line)."""
import ast
import dataclasses
import json

import pytest

from colbench.audit.tasks import CHECKS, audit_tasks, conveys, signature_problems, states_value, summary_table
from colbench_env.evaluation.backend import BackendEvaluator
from colbench_env.records import BackendTask
from colbench_env.simulators import make_simulator
from colbench_env.tasks import load_tasks

from cli_helpers import assert_user_error, colbench, last_json
from openai_test_server import OpenAITestServer

CLEAN_SPEC = "generated:8:2:rate"


@pytest.fixture(scope="module")
def evaluator():
    with BackendEvaluator(workers=2, semantics="reference") as ev:
        yield ev


@pytest.fixture(scope="module")
def clean():
    return load_tasks(CLEAN_SPEC)


def _first_arg(task: BackendTask):
    call = ast.parse(next(iter(task.test_cases.values())), mode="eval").body
    return ast.literal_eval(call.args[0])


def _with_first_statement(task: BackendTask, statement: str) -> str:
    """The ground truth with ``statement`` run first in its function (``{p}``: its first parameter,
    ``{a}``: test1's first argument), so that test1 and only calls like it take that path."""
    tree = ast.parse(task.ground_truth)
    fn = next(n for n in tree.body if isinstance(n, ast.FunctionDef))
    code = statement.format(p=fn.args.args[0].arg, a=repr(_first_arg(task)))
    fn.body[0:0] = ast.parse(code).body
    return ast.unparse(tree)


def _fact(task: BackendTask) -> dict:
    return task.extra["generator"]["facts"][0]


def planted(clean_tasks) -> dict:
    """check -> a task with that defect planted (the defect's check is what must flag it)."""
    numeric = next(t for t in clean_tasks if isinstance(_fact(t)["value"], (int, float)) and
                   not states_value(_fact(t)["value"], t.problem_description))
    base = clean_tasks[0]
    name = ast.parse(base.ground_truth).body[0].name
    param = ast.parse(base.ground_truth).body[0].args.args[0].arg
    out = {
        "truth_none": dataclasses.replace(base, ground_truth=_with_first_statement(base, "if {p} == {a}:\n    return None"),
                                          task_id="planted-none"),
        "truth_raises": dataclasses.replace(base, ground_truth=_with_first_statement(
            base, "if {p} == {a}:\n    raise ValueError('planted')"), task_id="planted-raises"),
        "truth_nondeterministic": dataclasses.replace(base, ground_truth=_with_first_statement(
            base, "import random\nif {p} == {a}:\n    return random.random()"), task_id="planted-random"),
        "truth_as_answer": dataclasses.replace(base, ground_truth=_with_first_statement(
            base, "import sys\nif {p} == {a}:\n    pass"), task_id="planted-blocked"),
        "signature": dataclasses.replace(base, problem_description=base.problem_description.replace(
            f"def {name}({param}", f"def {name}(amount"), task_id="planted-signature"),
        "constant_not_conveyed": dataclasses.replace(numeric, hidden_information=numeric.hidden_information.replace(
            _fact(numeric)["sentence"], ""), task_id="planted-constant"),
    }
    assert out["constant_not_conveyed"].hidden_information != numeric.hidden_information
    assert out["signature"].problem_description != base.problem_description
    return out


TAX = BackendTask(
    problem_description="I want the price with my local sales tax added. The signature of the function is: "
                        "def with_tax(price)",
    ground_truth="def with_tax(price):\n    return round(price * 1.0825, 2)\n",
    test_cases={"test1": "with_tax(10)", "test2": "with_tax(19.99)", "test3": "with_tax(3.33)"},
    hidden_information="My sales tax is 8.25 percent, added on top of the price.", task_id="tax")


def test_planted_defects_are_each_flagged_and_clean_tasks_are_not(clean, evaluator):
    plants = planted(clean)
    rounding_told = dataclasses.replace(TAX, hidden_information=TAX.hidden_information + " Round to 2 decimals.",
                                        task_id="tax-told")
    tasks = [*clean, *plants.values(), TAX, rounding_told]
    audits = audit_tasks(tasks, evaluator=evaluator)
    by_id = {a.task_id: a for a in audits}
    assert [a.line for a in audits] == list(range(1, len(tasks) + 1))
    for t in clean:
        assert by_id[t.task_id].flags == [], (t.task_id, by_id[t.task_id].flags)
    for check, t in plants.items():
        got = {f["check"] for f in by_id[t.task_id].flags}
        assert got == {check}, (check, by_id[t.task_id].flags)
    assert {f["check"] for f in by_id["tax"].flags} == {"format_not_informed"}
    assert "rounding to 2 decimal places" in by_id["tax"].flags[0]["detail"]
    assert by_id["tax-told"].flags == []
    # what the checks found
    none = by_id["planted-none"].details["truth"]
    assert none["none"] == ["test1"] and none["raised"] == {} and none["runs"] == 2
    assert by_id["planted-raises"].details["truth"]["raised"]["test1"].startswith("ValueError")
    assert list(by_id["planted-random"].details["truth"]["nondeterministic"]) == ["test1"]
    assert "blocked" in by_id["planted-blocked"].flags[0]["detail"] and "import sys" in by_id["planted-blocked"].flags[0]["detail"]
    lacking = plants["constant_not_conveyed"]
    entry = next(e for e in by_id[lacking.task_id].details["constants"] if e["value"] == _fact(lacking)["value"])
    assert entry["conveyed"] is False and entry["in_information"] is False and entry["stated"] is False
    twin = next(t for t in clean if t.ground_truth == lacking.ground_truth)
    twin_entry = next(e for e in by_id[twin.task_id].details["constants"] if e["value"] == _fact(twin)["value"])
    assert twin_entry["conveyed"] is True and twin_entry["in_information"] is True
    table = summary_table(audits)
    assert table.splitlines()[-1].split() == ["any", str(len(plants) + 1), "of", str(len(tasks)), "tasks",
                                              f"({100 * (len(plants) + 1) / len(tasks):.1f}%)"]


def test_signature_checks_by_hand():
    t = BackendTask("Sum things. The signature of the function is: def total(items, tax=0.1)",
                    "def total(items, tax=0.1):\n    return sum(items) * (1 + tax)\n",
                    {"test1": "total([1, 2])", "test2": "total([1], tax=0.2)"}, "")
    assert signature_problems(t)[0] == []
    bad = dataclasses.replace(t, test_cases={"test1": "total([1], 0.1, 3)", "test2": "total(tax=0.2)",
                                             "test3": "totals([1])", "test4": "total([1], rate=1)"})
    problems = signature_problems(bad)[0]
    assert problems == ["test1: total(...) does not fit the ground truth's def: 3 positional arguments for 2 parameters",
                        "test2: total(...) does not fit the ground truth's def: missing 'items'",
                        "test3: calls 'totals', which the ground truth does not define",
                        "test4: total(...) does not fit the ground truth's def: no parameter 'rate'"]
    no_default = dataclasses.replace(t, problem_description="The signature of the function is: def total(items, tax)")
    assert signature_problems(no_default)[0] == ["the request gives 0 parameters a default, the ground truth 1"]
    assert signature_problems(dataclasses.replace(t, problem_description="Sum things."))[0] == [
        "the request states no signature (def name(...))"]


def test_values_are_found_in_their_written_forms():
    assert states_value(0.2, "the rate is 0.20 dollars") and states_value(6000, "up to 6,000 a month")
    assert states_value(0.3, "a 30% markup") and states_value(12, "twelve items") and states_value(0.5, "half price")
    assert not states_value(5, "15 dollars") and not states_value(0.25, "0.255")
    assert conveys(0.7, "clothing is 30 percent off") and conveys(1.08, "8 percent tax on top")
    assert conveys(-5, "the last 5 scores") and not conveys(0.7, "70 dollars")


def test_a_served_human_is_asked_through_the_server(clean, evaluator):
    lacking = planted(clean)["constant_not_conveyed"]
    with OpenAITestServer(served_model="org/human-8b") as server:
        human = make_simulator("openai", kind="backend", base_url=server.url, model="h")
        (a,) = audit_tasks([lacking], human=human, evaluator=evaluator)
        asked = [b["messages"][-1]["content"] for b in server.state.requests]
    entry = next(e for e in a.details["constants"] if e["value"] == _fact(lacking)["value"])
    assert any(entry["questions"][0] in m for m in asked) and any("What should the function return?" in m for m in asked)
    assert a.details["human"]["kind"] == "served" and a.details["human"]["model"] == "org/human-8b"
    assert {f["check"] for f in a.flags} == {"constant_not_conveyed"}  # the echo holds no value the information lacks


def test_cli_writes_flags_in_input_order_and_the_verified_tasks(tmp_path, clean):
    plants = planted(clean)
    tasks = [clean[0], plants["truth_none"], clean[1], plants["signature"]]
    src = tmp_path / "tasks.jsonl"
    src.write_text("".join(json.dumps(t.to_record()) + "\n" for t in tasks))
    p = colbench("audit", "tasks", src, "--out", tmp_path / "audit.jsonl", "--verified", tmp_path / "ok.jsonl",
                 "--json", "--workers", 2)
    j = last_json(p)
    assert j == {"tasks": 4, "flagged": 2, "by_check": {**dict.fromkeys(CHECKS, 0), "truth_none": 1, "signature": 1}}
    assert "2 of 4 tasks (50.0%)" in p.stdout
    lines = [json.loads(ln) for ln in (tmp_path / "audit.jsonl").read_text().splitlines()]
    assert [ln["task_id"] for ln in lines] == [t.task_id for t in tasks]
    assert [[f["check"] for f in ln["flags"]] for ln in lines] == [[], ["truth_none"], [], ["signature"]]
    verified = [json.loads(ln) for ln in (tmp_path / "ok.jsonl").read_text().splitlines()]
    assert verified == [clean[0].to_record(), clean[1].to_record()]


def test_cli_bad_input_is_one_line_exit_2(tmp_path):
    assert_user_error(colbench("audit", "tasks", tmp_path / "missing.jsonl"), "audit", "missing.jsonl: no such file")
    fe = tmp_path / "fe.jsonl"
    fe.write_text(json.dumps({"problem_description": "a page", "ground_truth": "<html></html>"}) + "\n")
    assert_user_error(colbench("audit", "tasks", fe), "audit", "fe.jsonl:1", "test_cases")
    good = tmp_path / "t.jsonl"
    good.write_text(json.dumps(TAX.to_record()) + "\n")
    assert_user_error(colbench("audit", "tasks", good, "--out", good), "audit", "is the file being audited")
    assert_user_error(colbench("audit", "tasks", good, "--simulator", "openai"), "audit", "--simulator-base-url")
    assert_user_error(colbench("audit", "tasks", good, "--workers", 0), "audit", "--workers must be >= 1")
