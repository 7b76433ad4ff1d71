"""PPO is on-policy: behaviour log-probs at the sampling temperature, fresh minibatch order every
epoch, the value head inside the global gradient clipping; its reference is the base (the adapter
disabled), whose pass is skipped only while the adapter adds nothing."""
from __future__ import annotations

import contextlib

import pytest
import torch

from colbench.agents import ppo as ppo_module
from colbench.agents.ppo import PPO, PPOConfig
from colbench.agents.tokenize import tokenize_trajectory
from colbench.agents.trainer_base import ConfigError

TASK = {"task_id": "t0", "problem_description": "Write f(x) that returns my number.",
        "ground_truth": "def f(x):\n    return x + 7", "test_cases": {"test1": "f(1)"}}
T = 0.5


def sampled_records(trainer: PPO, n: int = 4) -> list[dict]:
    """Two-turn trajectories whose agent turns the trainer's own policy sampled at temperature ``T``."""
    recs = []
    for k in range(n):
        history: list[dict] = []
        for turn in range(2):
            act = trainer.policy.generate(trainer.formatter(TASK, history), max_new_tokens=10, temperature=T)[0]
            history.append({"role": "assistant", "content": act or "?", "output": act or "?"})
            if turn == 0:
                history.append({"role": "user", "content": "It adds seven."})
        recs.append({"task": TASK, "dialogue_history": history, "answer": history[-1]["content"],
                     "reward": float(k % 2)})
    return recs


def behaviour_logps(trainer: PPO, rec: dict, *, reference: bool = False) -> list[torch.Tensor]:
    """Independently: log softmax(logits / T) of each action token, with the adapter as it sampled
    (``reference``: disabled, the base)."""
    out = []
    net = trainer.policy.peft_model
    for s in tokenize_trajectory(trainer.tokenizer, rec, formatter=trainer.formatter):
        ids = torch.tensor([s.input_ids])
        with torch.no_grad(), net.disable_adapter() if reference else contextlib.nullcontext():
            logits = net(input_ids=ids).logits[0].float()
        lp = torch.log_softmax(logits[:-1] / T, -1).gather(1, ids[0, 1:, None])[:, 0]
        for start, end in s.turn_spans:
            out.append(lp[start - 1:end - 1])
    return out


def test_first_minibatch_ratio_is_one_at_the_sampling_temperature(model_dir, monkeypatch):
    trainer = PPO(PPOConfig(policy={"model_name_or_path": model_dir, "learning_rate": 1e-3, "lora_dropout": 0.0},
                            temperature=T, update_epochs=1, trajectories_per_batch=8))
    recs = sampled_records(trainer)
    # the "old" log-probs are the behaviour policy's (the sampling distribution at T), token by token
    items = trainer.prepare_batch(recs)
    for it, rec in zip(items, recs):
        want = behaviour_logps(trainer, rec)
        got = [it["old_logps"][b, start - 1:end - 1] for b, s in enumerate(it["sequences"])
               for start, end in s.turn_spans]
        assert len(got) == len(want) == 2
        for g, w in zip(got, want):
            assert torch.allclose(g, w, atol=1e-5), (g, w)
    seen = []
    real = ppo_module.ppo_clip_loss

    def spy(new, old, adv, mask, **kw):
        seen.append(((new - old).detach(), mask.clone()))
        return real(new, old, adv, mask, **kw)

    monkeypatch.setattr(ppo_module, "ppo_clip_loss", spy)
    m = trainer.update(recs)
    log_ratio, mask = seen[0]
    assert mask.sum() > 10
    assert float((log_ratio.abs() * mask).max()) < 1e-5
    assert m["approx_kl"] < 1e-8 and m["clipfrac"] == 0.0


def test_rollout_temperature_overrides_and_greedy_is_refused(model_dir):
    assert PPO(PPOConfig(policy={"model_name_or_path": model_dir}, temperature=0.0,
                         rollout_temperature=0.3)).sampling_temperature == 0.3
    with pytest.raises(ConfigError, match="field 'temperature'.*sampled rollouts"):
        PPOConfig(temperature=0.0)
    with pytest.raises(ConfigError, match="field 'rollout_temperature'"):
        PPOConfig(rollout_temperature=0.0)


def test_minibatches_are_reshuffled_every_epoch_and_reproducibly(model_dir):
    orders = []
    for _ in range(2):
        trainer = PPO(PPOConfig(policy={"model_name_or_path": model_dir, "learning_rate": 1e-4}, update_epochs=3,
                                trajectories_per_batch=2))
        recs = sampled_records(trainer, 8)
        for i, r in enumerate(recs):
            r["task"] = dict(TASK, task_id=f"t{i}")
        seen = []
        real = trainer._batches

        def spy(items, size, **kw):
            out = real(items, size, **kw)
            seen.append([recs_index(b, items) for b in out])
            return out

        def recs_index(batch, items):
            return [next(k for k, it in enumerate(items) if it is x) for x in batch]

        trainer._batches = spy
        trainer.update(recs)
        assert len(seen) == 3
        assert seen[0] != seen[1] and seen[1] != seen[2]
        orders.append(seen)
    assert orders[0] == orders[1]


def test_value_head_is_clipped_with_the_lora_weights(model_dir):
    trainer = PPO(PPOConfig(policy={"model_name_or_path": model_dir}, temperature=T, update_epochs=1,
                            trajectories_per_batch=8, max_grad_norm=1e-3))
    recs = sampled_records(trainer)
    norms = []
    opt = trainer.policy.optimizer
    opt = getattr(opt, "optimizer", opt)

    def hook(optimizer, *_):
        # the LoRA weights' optimiser, then the value head's (its own AdamW, stepped after, clipped together)
        groups = optimizer.param_groups + trainer.policy.extra_optimizer.param_groups
        grads = [p.grad for g in groups for p in g["params"] if p.grad is not None]
        head = [p.grad for p in trainer.value_head.parameters()]
        norms.append((float(torch.linalg.vector_norm(torch.cat([g.flatten() for g in grads]))),
                      float(torch.linalg.vector_norm(torch.cat([g.flatten() for g in head])))))

    opt.register_step_pre_hook(hook)
    trainer.update(recs)
    total, head = norms[0]
    assert head > 0
    assert total == pytest.approx(1e-3, rel=1e-4)


def _spans(item: dict, key: str) -> list[torch.Tensor]:
    """``item[key]`` (a prepared trajectory's per-token log-probs) cut into its agent turns."""
    return [item[key][b, start - 1:end - 1] for b, s in enumerate(item["sequences"]) for start, end in s.turn_spans]


def test_the_reference_pass_runs_only_once_the_adapter_moved(model_dir, monkeypatch):
    """A fresh adapter adds nothing (every LoRA ``B`` is 0), so the reference log-probs are the policy
    pass's own and the reference pass is skipped; once an update moved the adapter it runs again. Both
    times they are the base's, computed here independently."""
    trainer = PPO(PPOConfig(policy={"model_name_or_path": model_dir, "learning_rate": 1e-2, "lora_dropout": 0.0},
                            temperature=T, update_epochs=1, trajectories_per_batch=8))
    recs = sampled_records(trainer, n=2)
    passes = []
    forward = trainer._forward
    monkeypatch.setattr(trainer, "_forward", lambda seqs, **kw: passes.append(kw.get("reference", False))
                        or forward(seqs, **kw))

    assert trainer.policy.is_reference()  # peft's initialisation
    items = trainer.prepare_batch(recs)
    assert passes == [False, False]  # one policy pass per trajectory, no reference pass
    for item, rec in zip(items, recs):
        for got, want in zip(_spans(item, "ref_logps"), behaviour_logps(trainer, rec, reference=True), strict=True):
            assert torch.allclose(got, want, atol=1e-5), (got, want)

    trainer.update(recs)  # one optimiser step: the adapter is no longer 0
    assert not trainer.policy.is_reference()
    passes.clear()
    items = trainer.prepare_batch(recs)
    assert passes.count(True) == len(recs)  # the reference pass is back, one per trajectory
    moved = False
    for item, rec in zip(items, recs):
        for got, want, policy in zip(_spans(item, "ref_logps"), behaviour_logps(trainer, rec, reference=True),
                                     _spans(item, "old_logps"), strict=True):
            assert torch.allclose(got, want, atol=1e-5), (got, want)
            moved |= not torch.allclose(policy, want, atol=1e-4)
    assert moved  # the policy's log-probs are not the reference's any more


def test_a_full_fine_tune_always_runs_its_reference(model_dir):
    trainer = PPO(PPOConfig(policy={"model_name_or_path": model_dir, "full_finetune": True}, temperature=T))
    assert not trainer.policy.is_reference()  # its reference is a frozen copy, not an adapter switched off
