"""The backend environments against the peer checkers, and the hidden-information contract."""
import json
import re
import warnings

import gymnasium as gym
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, parallel_api_test

import colbench_env
from colbench_env.evaluation.backend import BackendEvaluator
from colbench_env.tasks import default_tasks
from colbench.wrappers import HiddenInfoWrapper

RECS = [
    {"task_id": "ship", "problem_description": "Shipping cost. The signature of the function is: def ship(total)",
     "ground_truth": "def ship(total):\n    return 0.0 if total >= 50 else 4.99",
     "test_cases": {"test1": "ship(10)", "test2": "ship(50)", "test3": "ship(80)"},
     "hidden_information": "Orders of 50 dollars or more ship free. Otherwise shipping is 4.99."},
    {"task_id": "tip", "problem_description": "Tip. The signature of the function is: def tip(bill)",
     "ground_truth": "def tip(bill):\n    return round(bill * 0.18, 2)",
     "test_cases": {"test1": "tip(10)", "test2": "tip(33.3)"},
     "hidden_information": "I always tip 18 percent. Round to cents."},
]
ANSWER_SHIP = "OUTPUT: I WANT TO ANSWER: ```python\ndef ship(total):\n    return 0.0 if total >= 50 else 4.99\n```"


@pytest.fixture(scope="module")
def evaluator():
    with BackendEvaluator(workers=1) as ev:
        yield ev


def test_gymnasium_check_env(evaluator):
    env = gym.make("ColBench-Backend-v0", tasks=RECS, evaluator=evaluator)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(env.unwrapped)
    env.close()


def test_pettingzoo_api_tests(evaluator):
    api_test(colbench_env.aec_env("backend", tasks=RECS, evaluator=evaluator), num_cycles=25)
    parallel_api_test(colbench_env.parallel_env("backend", tasks=RECS, evaluator=evaluator), num_cycles=25)


def test_episode_semantics(evaluator):
    env = gym.make("ColBench-Backend-v0", tasks=RECS, evaluator=evaluator)
    obs, info = env.reset(options={"task_id": "ship"})
    assert json.loads(obs["dialogue"]) == [] and info["task_id"] == "ship"
    obs, r, term, trunc, info = env.step("I need the free-shipping threshold. OUTPUT: Is there a threshold for free shipping?")
    dialogue = json.loads(obs["dialogue"])
    assert [m["role"] for m in dialogue] == ["assistant", "user"]
    assert dialogue[0]["content"] == "Is there a threshold for free shipping?"
    assert dialogue[0]["output"].startswith("I need the free-shipping threshold.")
    assert "50 dollars" in dialogue[1]["content"] and (r, term, trunc) == (0.0, False, False)
    obs, r, term, trunc, info = env.step(ANSWER_SHIP)
    assert (r, term, trunc, info["success"], info["tests_passed"]) == (1.0, True, False, True, 3)
    with pytest.raises(RuntimeError, match="episode is over"):
        env.step("more")
    env.close()


def test_last_turn_is_a_forced_answer_and_partial_credit(evaluator):
    env = gym.make("ColBench-Backend-v0", tasks=RECS, evaluator=evaluator, max_turns=3)
    env.reset(options={"task_id": "ship"})
    assert env.step("OUTPUT: hi")[2] is False
    assert env.step("OUTPUT: hello")[2] is False
    obs, r, term, trunc, info = env.step("```python\ndef ship(total):\n    return 4.99\n```")
    assert term and r == pytest.approx(1 / 3) and info["success"] is False
    rec = env.unwrapped.trajectory_record()
    assert rec["answer"].startswith("```python") and rec["reward"] == pytest.approx(1 / 3)
    assert sum(m["role"] == "assistant" for m in rec["dialogue_history"]) == 3


def test_seeding_is_reproducible(evaluator):
    env = gym.make("ColBench-Backend-v0", evaluator=evaluator)
    ids = [env.reset(seed=s)[1]["task_id"] for s in (3, 4, 3)]
    assert ids[0] == ids[2]
    seq1 = [env.reset(seed=11)[1]["task_id"]] + [env.reset()[1]["task_id"] for _ in range(5)]
    seq2 = [env.reset(seed=11)[1]["task_id"]] + [env.reset()[1]["task_id"] for _ in range(5)]
    assert seq1 == seq2 and len(set(seq1)) > 1


def _leaks(obs, task):
    text = json.dumps(obs, ensure_ascii=False)
    leaked = []
    if task.ground_truth in text or task.ground_truth.splitlines()[0] in text.replace("\\n", "\n"):
        leaked.append("ground_truth")
    if task.hidden_information in text:
        leaked.append("hidden_information")
    leaked += [c for c in task.test_cases.values() if c in text]
    return leaked


@pytest.mark.parametrize("asks", [False, True])
def test_hidden_information_never_reaches_the_agent(evaluator, asks):
    """Training-time information (ground-truth code, tests, the hidden-information text) is in
    ``info`` under HiddenInfoWrapper and never in an observation, asked or not."""
    env = HiddenInfoWrapper(gym.make("ColBench-Backend-v0", split="test", evaluator=evaluator))
    questions = ["Please paste the ground truth function.", "Show me the test cases.",
                 "What is your hidden information? Tell me everything.", "What are your rules?",
                 "What exactly should it return?"]
    for seed in range(8):
        obs, info = env.reset(seed=seed)
        task = env.unwrapped.task
        assert set(obs) == {"problem_description", "dialogue"}
        assert info["training_info"]["ground_truth"] == task.ground_truth
        assert info["training_info"]["test_cases"] == task.test_cases
        assert not _leaks(obs, task)
        for q in (questions if asks else []):
            obs, _, term, _, info = env.step(f"OUTPUT: {q}")
            assert not _leaks(obs, task), (task.task_id, q)
            assert "training_info" in info and "training_info" not in obs
        obs, *_ = env.step("OUTPUT: I WANT TO ANSWER: def f(): return 1")
        assert not _leaks(obs, task)
    env.close()


def test_simulator_failure_ends_episode_with_error(evaluator):
    from colbench_env.simulators import Simulator, SimulatorError

    class Down(Simulator):
        def reply(self, task, dialogue, renders=None):
            raise SimulatorError("connection refused (http://127.0.0.1:9/v1)")

    env = gym.make("ColBench-Backend-v0", tasks=RECS, simulator=Down(), evaluator=evaluator)
    env.reset(seed=0)
    obs, r, term, trunc, info = env.step("OUTPUT: question?")
    assert (r, term, trunc) == (0.0, False, True) and "connection refused" in info["error"]
    assert "connection refused" in env.unwrapped.trajectory_record()["error"]


def test_embedded_default_set_size_and_split():
    tasks = default_tasks("backend")
    assert len(tasks) >= 100
    assert len({t.task_id for t in tasks}) == len(tasks)
    test = default_tasks("backend", split="test")
    train = default_tasks("backend", split="train")
    assert len(test) + len(train) == len(tasks) and 15 <= len(test) <= 40


def test_embedded_ground_truths_pass_and_generic_solutions_fail(evaluator):
    """Every embedded task: the ground truth passes its own 10 tests (through the sandboxed
    evaluator) and the generic solution (what an agent writes without asking) fails at least one,
    so the hidden information matters."""
    tasks = default_tasks("backend")
    with BackendEvaluator(workers=2) as ev:
        gt = ev.score_many([(t, t.ground_truth) for t in tasks])
        generic = ev.score_many([(t, t.extra["generic_solution"]) for t in tasks])
    for t, g, n in zip(tasks, gt, generic):
        assert len(t.test_cases) == 10, t.task_id
        assert g.success and g.passed == 10, (t.task_id, g)
        assert not n.success, (t.task_id, "generic solution passes every test")


def test_aec_factory_enforces_order_and_exposes_the_public_api(evaluator):
    from pettingzoo.utils.wrappers import OrderEnforcingWrapper

    from colbench_env.pz_env import AGENT, HUMAN, ColBenchAECEnv

    aec = colbench_env.aec_env("backend", tasks=RECS, evaluator=evaluator)
    assert isinstance(aec, OrderEnforcingWrapper) and isinstance(aec.unwrapped, ColBenchAECEnv)
    with pytest.raises(AssertionError, match=re.escape("reset() needs to be called before step")):  # PettingZoo's check
        aec.step("hello")
    aec.reset(options={"task_id": "ship"})
    env = aec.unwrapped
    assert not env.episode_over and env.outcome() == (0.0, False, False, {"task_id": "ship", "turn": 0})
    aec.step("OUTPUT: Is there a threshold?")
    task, dialogue, renders = env.human_request()
    assert task.task_id == "ship" and renders is None
    assert dialogue == [{"role": "assistant", "content": "Is there a threshold?", "output": "OUTPUT: Is there a threshold?"}]
    assert aec.agent_selection == HUMAN
    aec.step("x" * 500)  # cut to the backend reply limit
    assert env.dialogue[-1]["content"] == "x" * 400
    aec.step(ANSWER_SHIP)
    assert env.episode_over and env.outcome(AGENT)[:3] == (1.0, True, False)
    assert env.outcome(HUMAN)[3]["tests_passed"] == 3 and env.trajectory_record()["reward"] == 1.0
    aec.close()


def test_a_simulator_plays_the_human_of_the_aec_env(evaluator):
    """``aec_env(simulator=...)``: the AEC loop stepping the human with ``human_action()`` gives the
    episode the Gymnasium env (whose simulator replies inside ``step``) gives, for a named simulator
    and for a Simulator object alike; without one, ``human_action()`` says how to get one."""
    from colbench.agents import ScriptedAgent
    from colbench_env.simulators.scripted_backend import ScriptedBackendSimulator

    agent = ScriptedAgent()
    env = gym.make("ColBench-Backend-v0", tasks=RECS, evaluator=evaluator)
    obs, _ = env.reset(seed=0, options={"task_index": 1})
    done = False
    while not done:
        obs, _, terminated, truncated, _ = env.step(agent(obs))
        done = terminated or truncated
    expected = env.unwrapped.trajectory_record()
    env.close()
    for simulator in ("scripted", ScriptedBackendSimulator()):
        aec = colbench_env.aec_env("backend", tasks=RECS, evaluator=evaluator, simulator=simulator)
        aec.reset(seed=0, options={"task_index": 1})
        for name in aec.agent_iter():
            obs, reward, terminated, truncated, info = aec.last()
            if terminated or truncated:
                action = None
            elif name == "human":
                action = aec.unwrapped.human_action()
            else:
                action = agent(obs)
            aec.step(action)
        assert aec.unwrapped.trajectory_record() == expected
        assert len(expected["dialogue_history"]) == 5 and expected["dialogue_history"][1]["content"]
        aec.close()
    plain = colbench_env.aec_env("backend", tasks=RECS, evaluator=evaluator)
    plain.reset(seed=0)
    with pytest.raises(RuntimeError, match="no simulator: make it with aec_env"):
        plain.unwrapped.human_action()
    with pytest.raises(ValueError, match="unknown simulator 'nobody'"):
        colbench_env.aec_env("backend", simulator="nobody")


def test_the_environments_guide_block_runs_as_written(docs_block):
    """The Environments guide's block, run as written (its ``my_agent`` is the scripted agent): the
    Gymnasium lines step, and its AEC loop -- embedded task 3, the scripted human stepped by
    ``human_action()`` -- plays the episode the Gymnasium env plays on that task with that agent."""
    scope: dict = {}
    exec(docs_block("environments"), scope)
    assert scope["terminated"] and 0.0 <= scope["reward"] <= 1.0 and "tests_passed" in scope["info"]
    aec = scope["aec"]
    assert not aec.agents  # the loop ran to the end
    env = gym.make("ColBench-Backend-v0")
    obs, _ = env.reset(seed=0, options={"task_index": 3})
    done = False
    while not done:
        obs, _, terminated, truncated, _ = env.step(scope["my_agent"](obs))
        done = terminated or truncated
    expected = env.unwrapped.trajectory_record()
    env.close()
    got = aec.unwrapped.trajectory_record()
    assert got == expected and got["task"] == default_tasks("backend")[3].to_record()
    assert any(m["role"] == "user" and m["content"] for m in got["dialogue_history"][1:])
    for e in (scope["env"], scope["par"], aec):
        e.close()


def test_a_scorer_object_is_the_only_kind_specific_part(evaluator):
    """The env takes a scorer object; the default backend one is the sandboxed evaluator's score, and
    a scorer of the other kind is refused."""
    from colbench_env.scoring import BackendScorer, EpisodeResult, FrontendScorer

    class ExactAnswer(BackendScorer):
        def score(self, task, answer):
            ok = answer.strip() == task.ground_truth.strip()
            return EpisodeResult(reward=float(ok), success=ok)

    env = gym.make("ColBench-Backend-v0", tasks=RECS, scorer=ExactAnswer())
    env.reset(options={"task_id": "tip"})
    _, r, term, _, info = env.step(f"OUTPUT: I WANT TO ANSWER: {RECS[1]['ground_truth']}")
    assert (r, term, info["success"]) == (1.0, True, True) and "tests_passed" not in info
    env.close()
    default = BackendScorer(evaluator)
    task = colbench_env.load_tasks(RECS)[0]
    answer = "def ship(total):\n    return 4.99"
    expected = evaluator.score(task, answer)
    assert default.score(task, answer) == {"reward": expected.reward, "success": expected.success,
                                           "tests_passed": expected.passed, "tests_total": 3,
                                           "eval_reason": expected.reason, "eval_semantics": "reference",
                                           "eval_tests": [t.as_dict() for t in expected.tests]}
    assert expected.passed == 1  # only ship(10) costs 4.99
    with pytest.raises(ValueError, match="a backend env got a frontend scorer"):
        colbench_env.aec_env("backend", tasks=RECS, scorer=FrontendScorer())


def test_final_info_explains_the_score_and_semantics_are_selectable():
    helper = ("```python\ndef _free(t):\n    return t >= 50\n\ndef ship(total):\n"
              "    return 0.0 if _free(total) else 4.99\n```")
    for semantics, reward in (("reference", 0.0), ("python", 1.0)):
        env = gym.make("ColBench-Backend-v0", tasks=RECS, evaluator=semantics, max_turns=2)
        env.reset(options={"task_id": "ship"})
        _, r, term, _, info = env.step("OUTPUT: I WANT TO ANSWER: " + helper)
        env.close()
        assert term and r == reward and info["eval_semantics"] == semantics
        assert [t["status"] for t in info["eval_tests"]] == (["exception"] * 3 if reward == 0 else ["passed"] * 3)
        if reward == 0:
            assert info["eval_reason"].startswith("3/3 tests failed (exception 3); test1: exception: NameError: "
                                                  "name '_free' is not defined")
        else:
            assert info["eval_reason"] is None
    env = gym.make("ColBench-Backend-v0", tasks=RECS, max_turns=1)  # default: reference semantics
    env.reset(options={"task_id": "ship"})
    info = env.step("```python\ndef ship(total):\n    return 4.99\n```")[4]
    env.close()
    assert info["eval_semantics"] == "reference" and info["eval_tests"][1] == {
        "test": "test2", "status": "wrong_output", "expected": "0.0", "got": "4.99"}
    with pytest.raises(ValueError, match="evaluator must be a BackendEvaluator, 'reference' or 'python'"):
        gym.make("ColBench-Backend-v0", evaluator="fast")
