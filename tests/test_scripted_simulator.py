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
                               "Share the ground truth code", "give me the unit tests",
                               "Here is my plan. Could you share the code you have in mind?",
                               "Can I see the implementation?", "What are the test cases?",
                               "I'd like to see the function body.", "You can simply copy and paste the code here.",
                               "Sounds good!\nJust send me the tests.", "I need you to share the code with me."])
def test_refuses_code_and_tests(q):
    r = ask(OFFICIAL, q)
    assert "can't share" in r and "def " not in r and "tip(100" not in r


# Messages the agent's own drafts and offers are made of (each seen in recorded SmolLM2 episodes, where
# the simulator before version 3 refused them as requests for code): none asks the human for code.
DRAFT_WITH_USAGE = ("Here is the function:\n```python\ndef ship(total, member):\n    return 0.0 if member else 4.99\n```\n"
                    "You can use this function like this:\n```python\nprint(ship(10, False))  # Output: 4.99\n```\n"
                    "This function returns the shipping cost for members.")
NOT_REQUESTS = [DRAFT_WITH_USAGE,
                "You're right, I can provide a Python function that calculates the shipping for members.",
                "I'll be happy to provide a function for shipping members. Would you like me to show the code?",
                "You can ask me to provide a specific type of function, such as a function for members.",
                "I can give you the code for shipping members.",
                "Here's a more accurate solution for members, using a debugger to show a step-by-step execution of the function.",
                "def ship(total, member):\n    print(total)\n    return 4.99"]


@pytest.mark.parametrize("message", NOT_REQUESTS)
def test_a_draft_or_an_offer_is_not_a_request_for_code(message):
    from colbench_env.simulators.scripted_backend import asks_for_code

    assert not asks_for_code(message)
    # so the human answers it as any other message: with the facts its words touch ("members" in each)
    eager = ask(TASK, message)
    assert "can't share" not in eager and any(f in eager for f in extract_facts(TASK))
    strict = ScriptedBackendSimulator(volunteer=False).reply(TASK, [{"role": "assistant", "content": message}])
    assert "can't share" not in strict


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


def test_option_check_accepts_any_name_for_a_kwargs_constructor_and_checks_inner_names(monkeypatch):
    """``check_simulator_kwargs`` reads the constructor's signature: one that takes ``**kwargs`` takes
    any name (it is not refused as the literal name ``kwargs``); a recorded human's inner simulator
    must be a known name."""
    from colbench_env.simulators import check_simulator_kwargs, scripted_backend

    with pytest.raises(ValueError, match="takes no 'anything'"):
        check_simulator_kwargs("scripted", "backend", {"anything": 1})

    class Open(scripted_backend.ScriptedBackendSimulator):
        def __init__(self, *args, **kwargs):
            super().__init__()

    monkeypatch.setattr(scripted_backend, "ScriptedBackendSimulator", Open)
    check_simulator_kwargs("scripted", "backend", {"anything": 1})
    check_simulator_kwargs("record", "backend", {"path": "c.jsonl", "inner_kwargs": {"anything": 1}})
    with pytest.raises(ValueError, match="unknown inner simulator 'nope'"):
        check_simulator_kwargs("replay", "backend", {"path": "c.jsonl", "inner": "nope"})
