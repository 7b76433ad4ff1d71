"""The probes that bound what learning to ask can buy: whole episodes through the real env, the real
scripted human and the real scorer, with a given first turn and a stand-in policy for the rest whose
right answers are known by hand."""
import json
import re

import pytest

from studies.ask_family.probe_policy import (GivenFirstTurn, main, oracle_first_turns, recorded_first_turns,
                                     run_given_first_turn)
from colbench_env.generator import generate_tasks
from colbench_env.protocol import ANSWER_MARKER


def rate_reader(observation: dict) -> str:
    """Answers weekly_pay with the last number the human said, else the generic rate of 15."""
    said = [m["content"] for m in json.loads(observation["dialogue"]) if m["role"] == "user"]
    nums = re.findall(r"\d+(?:\.\d+)?", said[-1]) if said else []
    return f"{ANSWER_MARKER}\ndef weekly_pay(hours):\n    return hours * {nums[-1] if nums else 15}"


@pytest.fixture(scope="module")
def ask_tasks():
    return generate_tasks(4, difficulty=1, split="test", family="ask")


def rates(tasks):
    return [t.extra["generator"]["facts"][0]["value"] for t in tasks]


def test_the_perfect_first_question_draws_the_fact_and_the_rest_is_the_policy(ask_tasks):
    rounds = oracle_first_turns(ask_tasks)
    assert rounds == [[(t, "What is your hourly rate?") for t in ask_tasks]]
    assert len({t.problem_description for t in ask_tasks}) == 1  # four tasks that look the same to the policy
    r = run_given_first_turn(rounds, rate_reader, max_turns=3)
    assert (r["episodes"], r["successes"], r["tests_passed_pct"]) == (4, 4, 100.0)
    for rec in r["records"]:
        d = rec["dialogue_history"]
        assert d[0]["content"] == "What is your hourly rate?"
        rate = rec["task"]["generator"]["facts"][0]["value"]
        assert f"My hourly rate is {rate} dollars." in d[1]["content"]
        assert len(d) == 3 and "def weekly_pay" in d[2]["content"]  # the policy's answer ended it
    # a first turn that asks nothing gets no fact from a human who only answers questions: the
    # stand-in answers the generic rate and solves exactly the tasks whose rate is 15
    hello = [[(t, "Hello, let us start.") for t in ask_tasks]]
    r = run_given_first_turn(hello, rate_reader)
    assert r["successes"] == sum(v == 15 for v in rates(ask_tasks))
    if r["successes"] == 0:  # exact (Clopper-Pearson) interval of 0 of 4: [0, 1 - 0.025 ** (1 / 4)]
        assert r["success_ci95"][0] == 0 and r["success_ci95"][1] == pytest.approx(1 - 0.025 ** 0.25)
    # ... and from a volunteering human it still gets nothing (no word of the draft touches the rate)
    assert run_given_first_turn(hello, rate_reader, volunteer=True)["successes"] == r["successes"]
    # the policy sees only the problem description: two first turns for one description are refused
    with pytest.raises(ValueError, match="two first turns for one problem description"):
        run_given_first_turn([[(ask_tasks[0], "a"), (ask_tasks[1], "b")]], rate_reader)


def test_given_first_turn_passes_only_later_turns_to_the_policy():
    seen = []

    def policy(obs):
        seen.append(json.loads(obs["dialogue"]))
        return "later"

    p = GivenFirstTurn({"want A": "first 0", "want B": "first 1"}, policy)
    obs = [{"problem_description": "want B", "dialogue": "[]"},
           {"problem_description": "want A",
            "dialogue": json.dumps([{"role": "assistant", "content": "q"}, {"role": "user", "content": "a"}])}]
    assert p.act_batch(obs) == ["first 1", "later"]
    assert len(seen) == 1 and seen[0][1]["content"] == "a"
    assert p.act_batch([obs[0]]) == ["first 1"] and len(seen) == 1


def test_recorded_first_turns_keep_those_that_drew_a_fact(ask_tasks, tmp_path, capsys):
    t0, t1 = ask_tasks[0], ask_tasks[1]
    fact0 = t0.extra["generator"]["facts"][0]["sentence"]

    def rec(task, first, reply):
        return {"task": task.to_record(), "dialogue_history": [{"role": "assistant", "content": first},
                                                              {"role": "user", "content": reply}]}

    path = tmp_path / "rollouts.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in [
        rec(t0, "What is your pay rate?", fact0),
        rec(t1, "def weekly_pay(hours): ...", "Okay. Ask me if there is anything you need to know."),
        rec(t0, "Could you tell me more about what you want?", "I want it simple. " + fact0)]) + "\n")
    rounds = recorded_first_turns([str(path)])
    assert [[(t.task_id, turn) for t, turn in r] for r in rounds] == [[(t0.task_id, "What is your pay rate?")],
                                                                       [(t0.task_id, "Could you tell me more about what you want?")]]
    # replayed through the env, both first turns draw the fact again, and the stand-in solves both
    r = run_given_first_turn(rounds, rate_reader)
    assert (r["episodes"], r["successes"]) == (2, 2)
    assert [x["dialogue_history"][0]["content"] for x in r["records"]] == ["What is your pay rate?", "Could you tell me more about what you want?"]
    # bad input: one line naming the file and line, exit 2
    bad = tmp_path / "bad.jsonl"
    bad.write_text(path.read_text().splitlines()[0] + "\n{\"task\": 1}\n")
    assert main(["--continue-from", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{bad}:2" in err
