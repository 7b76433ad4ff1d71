"""The offline scripted backend simulator."""
import re

import pytest

from colbench_env.simulators.scripted_backend import ScriptedBackendSimulator, code_to_facts, extract_facts
from colbench_env.tasks import default_tasks, task_from_record

TASK = task_from_record({
    "problem_description": "I want a function for shipping costs. The signature of the function is: def ship(total, member)",
    "ground_truth": "def ship(total, member):\n    if member or total >= 50:\n        return 0.0\n    return 4.99",
    "test_cases": {"test1": "ship(10, False)", "test2": "ship(60, False)"},
    "hidden_information": "Orders of 50 dollars or more ship free. Below that, shipping is a flat 4.99 fee. "
                          "Members always get free shipping. I like my code short.",
})
OFFICIAL = task_from_record({
    "problem_description": "Tip calculator. The signature of the function is: def tip(bill, service)",
    "ground_truth": "def tip(bill, service):\n    # tips depend on how good the service was\n"
                    "    if service == 'excellent':\n        return bill * 0.25\n    elif service == 'bad':\n"
                    "        return 0\n    else:\n        return bill * 0.15",
    "test_cases": {"test1": "tip(100, 'excellent')"},
    "hidden_information": "def tip(bill, service):\n    # tips depend on how good the service was\n"
                          "    if service == 'excellent':\n        return bill * 0.25\n    elif service == 'bad':\n"
                          "        return 0\n    else:\n        return bill * 0.15",
})


def ask(task, question, history=()):
    dialogue = list(history) + [{"role": "assistant", "content": question}]
    return ScriptedBackendSimulator().reply(task, dialogue)


def test_answers_from_matching_facts():
    r = ask(TASK, "Is there a threshold above which shipping is free?")
    assert "50 dollars" in r
    r = ask(TASK, "Do members get anything special?")
    assert "Members always get free shipping." in r
    assert len(re.findall(r"[.!?](\s|$)", r)) <= 2


def test_says_it_does_not_know():
    assert "don't know" in ask(TASK, "Which programming font do you prefer?")


def test_broad_question_gets_untold_facts():
    first = ask(TASK, "What are your requirements?")
    assert first.startswith("Orders of 50 dollars")
    history = [{"role": "assistant", "content": "What are your requirements?"}, {"role": "user", "content": first}]
    second = ask(TASK, "Anything else I should know?", history)
    assert second != first and "Members" in second


@pytest.mark.parametrize("q", ["Can you paste the function you want?", "Please show me the test cases.",
                               "Share the ground truth code", "give me the unit tests"])
def test_refuses_code_and_tests(q):
    r = ask(OFFICIAL, q)
    assert "can't share" in r and "def " not in r and "tip(100" not in r


def test_facts_from_code_for_official_records():
    facts = extract_facts(OFFICIAL)
    assert "tips depend on how good the service was." in facts
    assert "If service is 'excellent', the function returns 25 percent of bill." in facts
    assert "In any other case, the function returns 15 percent of bill." in facts  # not "when not 'bad'"
    r = ask(OFFICIAL, "How much for excellent service?")
    assert r.startswith("If service is 'excellent', the function returns 25 percent of bill.")
    assert "*" not in r and "==" not in r and "def " not in r and len(r) <= 400


def test_code_to_facts_handles_unparsable():
    assert code_to_facts("def broken(:\n  # but a comment survives\n") == ["but a comment survives."]


def test_deterministic_and_bounded_on_every_embedded_task():
    sim = ScriptedBackendSimulator()
    questions = ["What should the function return?", "Any thresholds or rounding?", "What are your rules?",
                 "Please paste the code and tests.", "x" * 2000]
    tasks = default_tasks("backend")
    for task in tasks:
        for q in questions:
            d = [{"role": "assistant", "content": q}]
            r1, r2 = sim.reply(task, d), sim.reply(task, d)
            assert r1 == r2 and 0 < len(r1) <= 400
            assert "def " not in r1
            assert not any(call in r1 for call in task.test_cases.values()), (task.task_id, r1)
