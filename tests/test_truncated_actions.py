"""A generation cut at ``max_new_tokens`` has no end-of-turn token from the policy.

The chat template appends one (``<|im_end|>``) when the action is rendered as an assistant message;
before this was handled every trainer trained that token, whose log-prob under SmolLM2 is about -27
mid-code (-270 at PPO's sampling temperature 0.1): PPO/GRPO ratios on it exploded (``approx_kl``
~1e9 in the 48-task pipeline run) and it dominated DPO and critic log-probs. The environment now
records ``finish_reason`` and tokenisation trains only what the policy generated.
"""
from __future__ import annotations

import json

import gymnasium as gym
import pytest
import torch

import colbench_env  # noqa: F401
from colbench.agents.base import LMAgent
from colbench.agents.tokenize import TokenizationError, agent_turns, tokenize_trajectory, tokenize_turn
from colbench_env.evaluation.backend import BackendEvaluator
from colbench_env.lm import SamplingParams
from colbench_env.lm.base import GeneratedText, finish_reason_of

TASK = {"task_id": "t0", "problem_description": "Write f(x) that returns my number.",
        "ground_truth": "def f(x):\n    return x + 7", "test_cases": {"test1": "f(1)"}}
MSGS = [{"role": "user", "content": "Write f(x) that returns my number."}]


def trained(seq) -> list[int]:
    return [i for i, m in zip(seq.input_ids, seq.mask) if m]


def test_generated_text_is_a_str_that_keeps_its_reason():
    import pickle

    g = GeneratedText("OUTPUT: hi", "length")
    assert g == "OUTPUT: hi" and isinstance(g, str) and json.dumps(g) == '"OUTPUT: hi"'
    assert finish_reason_of(g) == "length" and finish_reason_of("OUTPUT: hi") is None
    back = pickle.loads(pickle.dumps(g))
    assert back == g and back.finish_reason == "length"


def test_a_cut_turn_trains_its_action_tokens_and_not_the_end_marker(tok):
    end = tok.convert_tokens_to_ids("<|im_end|>")
    action = "I think the function should add seven to"
    plain = tokenize_turn(tok, MSGS, action)
    stop = tokenize_turn(tok, MSGS, GeneratedText(action, "stop"))
    cut = tokenize_turn(tok, MSGS, GeneratedText(action, "length"))
    assert stop == plain and end in trained(stop)  # an ended turn: unchanged, the end token is trained
    assert cut.input_ids == plain.input_ids  # the same tokens: the marker stays as context
    assert tok.decode(trained(cut)) == action and end not in trained(cut)
    (s, e), = cut.turn_spans
    assert cut.input_ids[s:e] == trained(cut) == tok(action, add_special_tokens=False)["input_ids"]
    assert len(trained(plain)) - len(trained(cut)) == 2  # "<|im_end|>" and the template's "\n"


def test_packed_trajectory_masks_each_cut_turn(tok):
    first, second = "Which number do you", "OUTPUT: I WANT TO ANSWER: def f(x):\n    return x + 7"
    history = [{"role": "assistant", "content": first, "output": first, "finish_reason": "length"},
               {"role": "user", "content": "Seven more than x."},
               {"role": "assistant", "content": second, "output": second, "finish_reason": "stop"}]
    rec = {"task": TASK, "dialogue_history": history}
    old = {"task": TASK, "dialogue_history": [{k: v for k, v in m.items() if k != "finish_reason"} for m in history]}
    (seq,), (ref,) = tokenize_trajectory(tok, rec), tokenize_trajectory(tok, old)
    assert seq.input_ids == ref.input_ids and len(seq.turn_spans) == 2
    end = tok.convert_tokens_to_ids("<|im_end|>")
    (s0, e0), (s1, e1) = seq.turn_spans
    assert tok.decode(seq.input_ids[s0:e0]) == first and end not in seq.input_ids[s0:e0]
    assert seq.input_ids[s1:e1] == ref.input_ids[s1:e1] and end in seq.input_ids[s1:e1]
    assert sum(seq.mask) == sum(ref.mask) - 2  # only the cut turn's marker (and newline) left out
    assert [t.action.finish_reason for t in agent_turns(rec)] == ["length", "stop"]
    bad = {"task": TASK, "dialogue_history": [dict(history[0], finish_reason="eos")]}
    with pytest.raises(TokenizationError, match=r"dialogue_history\[0\]\.finish_reason' must be 'stop' or 'length'"):
        tokenize_trajectory(tok, bad)


def test_smollm2_episode_records_why_turns_ended_and_trains_exactly_its_greedy_tokens(tok):
    """The real embedded policy, greedy, 12 tokens a turn, through the Gym environment: every agent
    entry says why it ended, and every trained token of a cut turn is the policy's own argmax at
    that position (an independent check: the appended end marker was never the argmax there)."""
    from colbench_env.lm.smollm2 import smollm2_path
    from transformers import AutoModelForCausalLM

    agent = LMAgent("smollm2", max_turns=2, sampling=SamplingParams(max_new_tokens=12, temperature=0.0))
    with BackendEvaluator(workers=1) as ev:
        env = gym.make("ColBench-Backend-v0", evaluator=ev, max_turns=2)
        obs, _ = env.reset(seed=0)
        done = False
        while not done:
            obs, _, term, trunc, _ = env.step(agent.act(obs))
            done = term or trunc
        rec = env.unwrapped.trajectory_record()
    agent.close()
    entries = [m for m in rec["dialogue_history"] if m["role"] == "assistant"]
    assert entries and all(m["finish_reason"] in ("stop", "length") for m in entries)
    assert any(m["finish_reason"] == "length" for m in entries)  # 12 tokens cut the first turn at least
    assert all("finish_reason" not in m for m in json.loads(obs["dialogue"]))  # not observed
    model = AutoModelForCausalLM.from_pretrained(smollm2_path())
    end = tok.convert_tokens_to_ids("<|im_end|>")
    turns, checked = agent_turns(rec), 0
    for seq in tokenize_trajectory(tok, rec):
        with torch.no_grad():
            logits = model(input_ids=torch.tensor([seq.input_ids])).logits[0]
        argmax = logits.argmax(-1)
        for (s, e), tid in zip(seq.turn_spans, seq.turn_ids):
            if turns[tid].action.finish_reason != "length":
                continue
            ids = seq.input_ids[s:e]
            assert end not in ids and len(ids) >= 10
            assert argmax[s - 1:e - 1].tolist() == ids  # exactly what greedy decoding emitted
            assert int(argmax[e - 1]) != end  # where the template puts the marker, the policy would go on
            checked += 1
    assert checked >= 1


def test_trainer_generate_says_why_each_sample_ended(tok, model_dir):
    """SWEET-RL's candidates come from ``TrainableLM.generate``: each says whether it ended; checked
    against the model's own greedy continuation (an end token in it or not)."""
    from colbench.agents.rft import RejectionFineTuning, RFTConfig

    trainer = RejectionFineTuning(RFTConfig(policy={"model_name_or_path": model_dir}))
    sampled = trainer.policy.generate(MSGS, n=3, max_new_tokens=3, temperature=1.0)
    assert all(isinstance(o, GeneratedText) and o.finish_reason in ("stop", "length") for o in sampled)
    net = trainer.policy.peft_model
    ids = tok.apply_chat_template(MSGS, add_generation_prompt=True, return_tensors="pt", return_dict=True)
    eos = net.generation_config.eos_token_id
    eos = {eos} if isinstance(eos, int) else set(eos)
    for k in (1, 2, 6):
        (greedy,) = trainer.policy.generate(MSGS, max_new_tokens=k, temperature=0.0)
        with torch.no_grad():
            row = net.generate(**ids, max_new_tokens=k, do_sample=False, pad_token_id=tok.pad_token_id)[0]
        ended = any(int(t) in eos for t in row[ids["input_ids"].shape[1]:])
        assert greedy.finish_reason == ("stop" if ended else "length"), k
