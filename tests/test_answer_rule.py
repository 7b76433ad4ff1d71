"""The env, the reference scorer and the trajectory agree on what an agent's answer is.

The reference's rule (written out in colbench_env/protocol.py's docstring): the message is the text
between the first ``OUTPUT:`` and the next; the answer is the text between the first
``I WANT TO ANSWER:`` of that message and the next, unstripped; frontend: the first page of the
final message, else the last page shown earlier. Expected answers below are worked out by hand.
"""
import pytest
from PIL import Image
from reference_scorer import reference_reward

import colbench_env
from colbench_env.evaluation.backend import BackendEvaluator
from colbench_env.protocol import parse_agent_turn
from colbench_env.scoring import FrontendScorer
from colbench_env.tasks import task_from_record

REC = {"task_id": "ship", "problem_description": "Shipping cost. The signature of the function is: def ship(total)",
       "ground_truth": "def ship(total):\n    return 0.0 if total >= 50 else 4.99",
       "test_cases": {"test1": "ship(10)", "test2": "ship(50)", "test3": "ship(80)"},
       "hidden_information": "Orders of 50 dollars or more ship free. Otherwise shipping is 4.99."}
GOOD = "```python\ndef ship(total):\n    return 0.0 if total >= 50 else 4.99\n```"
BAD = "```python\ndef ship(total):\n    return 4.99\n```"   # passes test1 only

# (final agent turn, the answer by the reference's rule, worked out by hand)
CASES = [
    (f"OUTPUT: I WANT TO ANSWER: {GOOD}", f" {GOOD}"),
    # two answer markers: the first segment is the answer (the old last-marker rule took BAD)
    (f"OUTPUT: I WANT TO ANSWER: {GOOD} I WANT TO ANSWER: {BAD}", f" {GOOD} "),
    (f"OUTPUT: I WANT TO ANSWER: {BAD} I WANT TO ANSWER: {GOOD}", f" {BAD} "),
    # text before the marker is not part of the answer (here it would be blocked: "import os")
    (f"I will answer. OUTPUT: I did not import os, promise. I WANT TO ANSWER: {GOOD}", f" {GOOD}"),
    # "import os" inside the answer blocks it
    (f"OUTPUT: I WANT TO ANSWER: {GOOD}\n(no import os here)", f" {GOOD}\n(no import os here)"),
    # unfenced code on a new line runs; on the marker's line the leading space is an IndentationError
    ("OUTPUT: I WANT TO ANSWER:\ndef ship(total):\n    return 0.0 if total >= 50 else 4.99",
     "\ndef ship(total):\n    return 0.0 if total >= 50 else 4.99"),
    ("OUTPUT: I WANT TO ANSWER: def ship(total): return 0.0 if total >= 50 else 4.99",
     " def ship(total): return 0.0 if total >= 50 else 4.99"),
    # a second OUTPUT: is dropped with what follows
    (f"OUTPUT: I WANT TO ANSWER: {GOOD} OUTPUT: I WANT TO ANSWER: {BAD}", f" {GOOD} "),
]
EXPECTED_REWARDS = [1.0, 1.0, 1 / 3, 1.0, 0.0, 1.0, 0.0, 1.0]   # by hand, checked against reference_reward


@pytest.fixture(scope="module")
def evaluator():
    with BackendEvaluator(workers=1) as ev:
        yield ev


def _answer_episode(evaluator, final_turn):
    env = colbench_env.aec_env("backend", tasks=[REC], evaluator=evaluator).unwrapped
    env.reset(seed=0)
    env.step(final_turn)
    return env


@pytest.mark.parametrize("i", range(len(CASES)))
def test_env_answer_and_reward_agree_with_the_reference_scorer(evaluator, i):
    raw, answer = CASES[i]
    assert evaluator.semantics == "reference"
    expected = reference_reward(REC["ground_truth"], answer, REC["test_cases"])
    assert expected == pytest.approx(EXPECTED_REWARDS[i])
    env = _answer_episode(evaluator, raw)
    reward, terminated, _, info = env.outcome()
    assert terminated and info["answer"] == answer and env.trajectory_record()["answer"] == answer
    assert reward == pytest.approx(expected)
    # re-scoring the recorded answer (what `colbench evaluate` does) gives the same reward
    assert evaluator.score(task_from_record(REC), env.trajectory_record()["answer"]).reward == pytest.approx(expected)


def test_second_output_marker_is_not_an_answer_and_is_cut_from_the_record(evaluator):
    env = colbench_env.aec_env("backend", tasks=[REC], evaluator=evaluator).unwrapped
    env.reset(seed=0)
    env.step("think OUTPUT: Is there a threshold? OUTPUT: I WANT TO ANSWER: def ship(t): return 0")
    assert not env.episode_over
    assert env.dialogue[-1] == {"role": "assistant", "content": "Is there a threshold?",
                                "output": "think OUTPUT: Is there a threshold? "}


def test_python_semantics_takes_the_same_answer(evaluator):
    with BackendEvaluator(workers=1, semantics="python") as ev:
        raw = f"OUTPUT: I WANT TO ANSWER: {BAD} I WANT TO ANSWER: {GOOD}"
        env = _answer_episode(ev, raw)
        assert env.answer == f" {BAD} " and env.outcome()[0] == pytest.approx(1 / 3)
        # code on the marker's line runs under python semantics (stripped), not under the reference's
        env = _answer_episode(ev, "OUTPUT: I WANT TO ANSWER: def ship(total): return 0.0 if total >= 50 else 4.99")
        assert env.outcome()[0] == 1.0


class _FakeRenderer:
    """Renders a page to a 2x2 image whose colour is a function of the HTML (no browser)."""

    def __init__(self):
        self.rendered = []

    def render(self, html):
        self.rendered.append(html)
        h = sum(html.encode()) % 250
        return Image.new("RGB", (2, 2), (h, 0, 0))

    def close(self):
        pass


def _same(a, b):
    return 1.0 if a.tobytes() == b.tobytes() else 0.0


TARGET = "<html><body>target</body></html>"
FRONT = {"task_id": "page", "problem_description": "A page", "ground_truth": TARGET}


def _front_episode(turns):
    r = _FakeRenderer()
    env = colbench_env.aec_env("frontend", tasks=[FRONT], renderer=r, similarity=_same).unwrapped
    env.reset(seed=0)
    for t in turns[:-1]:
        env.step(t)
        env.step("ok")   # the human
    env.step(turns[-1])
    return env


@pytest.mark.parametrize("turns,answer,reward", [
    # the page before the marker is the answer (the old rule saw only the text after it: no page)
    ([f"OUTPUT: Here it is: {TARGET} I WANT TO ANSWER: done"], TARGET, 1.0),
    # two pages in the final message: the first
    ([f"OUTPUT: I WANT TO ANSWER: {TARGET} or <html><body>other</body></html>"], TARGET, 1.0),
    ([f"OUTPUT: I WANT TO ANSWER: <html><body>other</body></html> I WANT TO ANSWER: {TARGET}"],
     "<html><body>other</body></html>", 0.0),
    # no page in the final message: the last page shown earlier
    ([f"OUTPUT: Draft: {TARGET}", "OUTPUT: <html><body>v2</body></html> better?", "OUTPUT: I WANT TO ANSWER: as shown"],
     "<html><body>v2</body></html>", 0.0),
    ([f"OUTPUT: Draft: {TARGET}", "OUTPUT: I WANT TO ANSWER: the draft"], TARGET, 1.0),
    # never a page: no answer
    (["OUTPUT: I WANT TO ANSWER: sorry"], "", 0.0),
])
def test_frontend_answer_is_the_reference_page(turns, answer, reward):
    env = _front_episode(turns)
    r, terminated, _, info = env.outcome()
    assert terminated and info["answer"] == answer and (r, env.trajectory_record()["answer"]) == (reward, answer)


def test_frontend_scorer_last_page_is_per_episode():
    s = FrontendScorer(renderer=_FakeRenderer(), similarity=_same)
    task = task_from_record(FRONT)
    s.start(task)
    s.agent_message(f"draft {TARGET}")
    assert s.final_answer(parse_agent_turn("OUTPUT: I WANT TO ANSWER: that")) == TARGET
    s.start(task)
    assert s.final_answer(parse_agent_turn("OUTPUT: I WANT TO ANSWER: that")) == ""
