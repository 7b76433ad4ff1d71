"""The per-test outcomes of a scored answer (``eval_tests``: expected outputs included) never reach
a prompt: not the policy's observations, not HiddenInfoWrapper's ``training_info``, not the records
TrajectoryRecorder writes, and not the policy's or the critic's training sequences built from them
(even from a record that ``colbench evaluate --out`` annotated with ``eval_tests``).

The task's expected outputs are numbers that appear nowhere else (not in the ground truth, the
hidden information or the problem), so finding them anywhere means eval_tests leaked.
"""
from __future__ import annotations

import json

import gymnasium as gym
import pytest
from tiny_models import tiny_llama

from colbench.agents.sweet_rl import SweetRL, SweetRLConfig
from colbench.agents.tokenize import tokenize_trajectory
from colbench_env.evaluation.backend import BackendEvaluator
from colbench_env.prompting import trajectory_turns
from colbench_env.trajectories import read_trajectories
from colbench.wrappers import HiddenInfoWrapper, TrajectoryRecorder

REC = {"task_id": "scale", "problem_description": "Scale a number. The signature of the function is: def scale(x)",
       "ground_truth": "def scale(x):\n    return x * 7919 + 1",
       "test_cases": {"test1": "scale(3)", "test2": "scale(11)"},
       "hidden_information": "Multiply by the prime 7919, then add one."}
EXPECTED = ("23758", "87110")   # scale(3), scale(11): only the evaluator computes them


def _leaks(text: str) -> list[str]:
    return [e for e in EXPECTED if e in text]


@pytest.fixture(scope="module")
def episode(tmp_path_factory):
    """One recorded episode (question, wrong answer) and everything the env showed or returned."""
    path = tmp_path_factory.mktemp("leak") / "traj.jsonl"
    with BackendEvaluator(workers=1) as ev:
        env = TrajectoryRecorder(HiddenInfoWrapper(gym.make("ColBench-Backend-v0", tasks=[REC], evaluator=ev)), path)
        obs, info = env.reset(seed=0)
        observations, infos = [obs], [info]
        obs, *_, info = env.step("OUTPUT: What should the number be multiplied by?")
        observations.append(obs)
        infos.append(info)
        obs, r, term, _, info = env.step("OUTPUT: I WANT TO ANSWER:\ndef scale(x):\n    return x")
        observations.append(obs)
        infos.append(info)
        env.close()
    assert term and r == 0.0
    # the check can fail: the final info really carries the expected outputs
    assert sorted(_leaks(json.dumps(info["eval_tests"]))) == sorted(EXPECTED)
    return {"observations": observations, "infos": infos, "record": read_trajectories(path)[0]}


def test_observations_training_info_and_record_carry_no_expected_outputs(episode):
    for obs in episode["observations"]:
        assert _leaks(json.dumps(obs)) == []
    for info in episode["infos"]:
        assert _leaks(json.dumps(info["training_info"])) == [] and "7919" in info["training_info"]["ground_truth"]
    rec = episode["record"]
    assert "eval_tests" not in rec and rec["training_info"]["ground_truth"] == REC["ground_truth"]
    assert _leaks(json.dumps(rec)) == []


def test_policy_and_critic_sequences_carry_no_expected_outputs(episode, tok):
    # a record annotated as `colbench evaluate --out` does, and one where the annotation sits in the
    # task record too: neither may put the expected outputs into a prompt
    final_info = episode["infos"][-1]
    annotated = dict(episode["record"], eval_tests=final_info["eval_tests"], eval_reason=final_info["eval_reason"])
    in_task = dict(annotated, task=dict(annotated["task"], eval_tests=final_info["eval_tests"]))
    # every string field of the task record the critic can be shown, and "eval_tests" asked for by name
    fields = ["ground_truth", "hidden_information", "problem_description", "eval_tests"]
    cfg = SweetRLConfig(info_fields=fields, train_policy=False, policy={"lora_r": 4, "lora_alpha": 8},
                        critic={"lora_r": 4, "lora_alpha": 8}, seed=0)
    trainer = SweetRL(cfg, model=tiny_llama(tok, 0), tokenizer=tok, critic=tiny_llama(tok, 1))
    for rec in (annotated, in_task):
        for ctx, action in trajectory_turns(rec):
            assert _leaks(json.dumps(ctx) + action) == []
        critic_text = "".join(tok.decode(s.input_ids) for s in trainer._critic_sequences(rec))
        assert "7919" in critic_text          # the critic does see the training-time information
        assert _leaks(critic_text) == []
        # the policy's training sequences (the trainers' default formatter)
        policy_seqs = tokenize_trajectory(tok, rec, formatter=trainer.formatter, max_length=cfg.max_length)
        policy_text = "".join(tok.decode(s.input_ids) for s in policy_seqs)
        assert "scale" in policy_text and _leaks(policy_text) == []
