"""The agent interface: custom agents as subclasses or callables, the scripted agent. (Every trainer
under ``accelerate launch``, through ``colbench train``: tests/test_distributed.py.)"""
import json

import gymnasium as gym
import pytest

import colbench_env  # noqa: F401
from colbench.agents import Agent, CallableAgent, ScriptedAgent, as_agent
from colbench_env.evaluation.backend import BackendEvaluator


class AlwaysAnswers(Agent):
    def act(self, observation):
        sig = observation["problem_description"].rsplit("def ", 1)[-1].strip().rstrip(".")
        return f"OUTPUT: I WANT TO ANSWER: def {sig}:\n    return 0"


def test_custom_agents_plug_in():
    with BackendEvaluator(workers=1) as ev:
        env = gym.make("ColBench-Backend-v0", evaluator=ev)
        for agent in (AlwaysAnswers(), as_agent(lambda obs: "OUTPUT: I WANT TO ANSWER: def f(): pass")):
            obs, _ = env.reset(seed=0)
            action = agent(obs)
            obs, r, term, trunc, info = env.step(action)
            # the env's reward is the evaluator's score of the answer (the text after the marker)
            expected = ev.score(env.unwrapped.task, action.split("I WANT TO ANSWER:", 1)[1])
            assert term and not trunc and (r, info["tests_passed"]) == (expected.reward, expected.passed)
            assert r < 1.0  # neither answer is the task's function
            if not isinstance(agent, AlwaysAnswers):
                assert r == 0.0 and info["tests_passed"] == 0  # no function of the task's name
        assert AlwaysAnswers().act_batch([obs, obs]) == [AlwaysAnswers().act(obs)] * 2
    with pytest.raises(TypeError, match="an agent must be an Agent or a callable"):
        as_agent(3)
    with pytest.raises(TypeError, match="returned int, expected str"):
        CallableAgent(lambda obs: 3).act({})


def test_scripted_agent_is_stateless_by_turn():
    obs0 = {"problem_description": "x. The signature of the function is: def tip(bill)", "dialogue": "[]"}
    obs2 = dict(obs0, dialogue=json.dumps([{"role": "assistant", "content": "q"}, {"role": "user", "content": "a"}] * 2))
    a = ScriptedAgent()
    assert a.act(obs0).startswith("OUTPUT: What exactly")
    assert "def tip(bill):\n    return None" in a.act(obs2) and "I WANT TO ANSWER:" in a.act(obs2)
    assert ScriptedAgent(["one", "two"]).act_batch([obs0, obs2]) == ["one", "two"]
    with pytest.raises(ValueError):
        ScriptedAgent([])
