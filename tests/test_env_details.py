"""Small env contracts: turn 0 after reset, no frontend ``success``, the parallel env's active agent."""
from __future__ import annotations

import json

import gymnasium as gym
import pytest

import colbench_env

NO_PAGE = "OUTPUT: I WANT TO ANSWER: I cannot write pages."


def test_reset_info_turn_is_zero_after_an_episode():
    env = gym.make("ColBench-Backend-v0", max_turns=3)
    _, info = env.reset(seed=0)
    assert info["turn"] == 0
    for k in range(1, 3):
        *_, info = env.step("OUTPUT: Tell me more?")
        assert info["turn"] == k
    *_, term, _, info = env.step("OUTPUT: I WANT TO ANSWER: def f():\n    return None")
    assert term and info["turn"] == 3
    _, info = env.reset(seed=1)
    assert info["turn"] == 0  # not the previous episode's 3


def test_frontend_has_no_success_backend_does():
    env = gym.make("ColBench-Frontend-v0")
    env.reset(seed=0)
    _, reward, term, _, info = env.step(NO_PAGE)  # no <html>: scored 0 without rendering
    assert term and reward == 0.0 and "success" not in info
    rec = env.unwrapped.trajectory_record()
    assert rec["reward"] == 0.0 and "success" not in rec
    env = gym.make("ColBench-Backend-v0")
    env.reset(seed=0)
    *_, info = env.step("OUTPUT: I WANT TO ANSWER: def f():\n    return None")
    assert info["success"] is False and env.unwrapped.trajectory_record()["success"] is False


def test_frontend_metrics_report_similarity_only():
    from colbench_env.metrics import format_summary, summarize

    recs = [{"task": {"problem_description": "p", "ground_truth": f"<html>{r}</html>"}, "answer": "", "reward": r,
             "dialogue_history": [{"role": "assistant", "content": "x"}]} for r in (0.5, 0.7)]
    m = summarize(recs)  # two tasks, one trial each: no trials block; records without a human: unknown
    assert m == {"count": 2, "errors": 0, "similarity": pytest.approx(0.6), "mean_turns": 1.0, "human": [None]}
    assert format_summary(m) == "similarity 0.6000  episodes 2  errors 0  mean turns 1.00"


def test_parallel_env_names_the_active_agent_from_reset():
    par = colbench_env.parallel_env("backend", max_turns=3)
    obs, infos = par.reset(seed=0)
    assert {a: i["active_agent"] for a, i in infos.items()} == {"agent": "agent", "human": "agent"}
    with pytest.raises(KeyError, match=r"^the action dict must hold the action of 'agent', whose turn it is "
                                       r"\(infos\[a\]\['active_agent'\]\); got \['human'\]$"):
        par.step({"human": "hello"})
    obs, rewards, terms, truncs, infos = par.step({"agent": "OUTPUT: What should it return?"})
    assert infos["agent"]["active_agent"] == "human"
    with pytest.raises(KeyError, match="the action of 'human', whose turn it is"):
        par.step({"agent": "OUTPUT: again"})
    obs, *_, infos = par.step({"human": "It should return 3.", "agent": "ignored"})
    assert infos["agent"]["active_agent"] == "agent"
    assert json.loads(obs["agent"]["dialogue"])[-1] == {"role": "user", "content": "It should return 3."}
