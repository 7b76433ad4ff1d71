"""Micro-batching by row (``rows_per_forward``) and per-row vocabulary projection.

:meth:`colbench.agents.trainer_base.TrainableLM.row_logps` computes a micro-batch's log-probs a few
sequences per forward and takes the gradient in two passes (no-grad forwards, the loss's gradient
on their outputs, then each group again with grad). The independent computation is the one-forward
path (``rows_per_forward=None``) of the same trainer on the same float32 model: every trained
parameter's gradient (LoRA, a full fine-tune's weights, PPO's value head) agrees to 1e-5, for
multi-turn DPO (both NLL scopes), SWEET-RL's critic (Bradley-Terry on trajectory pairs) and PPO.
The sharded path's per-row projection is checked against log-softmax of the full logits.
"""
from __future__ import annotations

import copy

import pytest
import torch
from tiny_models import tiny_llama

from colbench.agents.config import ConfigError
from colbench.agents.losses import token_logprobs
from colbench.agents.mt_dpo import MultiTurnDPO, MultiTurnDPOConfig, train_preference_pairs
from colbench.agents.ppo import PPO, PPOConfig
from colbench.agents.sweet_rl import CriticConfig, SweetRL, SweetRLConfig

TOL = 1e-5


def context_formatter(task: dict, history: list) -> list[dict]:
    """Earlier turns shown as the message the human saw (``content``), as the paper prompt does, while
    the trainers train the raw ``output``: each agent turn is its own sequence."""
    msgs = [{"role": "system", "content": "Help the user."}, {"role": "user", "content": task["problem_description"]}]
    return msgs + [{"role": m["role"], "content": m["content"]} for m in history]


def records(n_tasks: int = 2) -> list[dict]:
    """``n_tasks`` tasks x 3 three-turn rollouts (rewards 1, 0.5, 0) of different lengths."""
    out = []
    for t in range(n_tasks):
        task = {"task_id": f"t{t}", "problem_description": f"Write f(x) returning x plus {t} and explain it.",
                "ground_truth": f"def f(x):\n    return x + {t}", "test_cases": {"test1": "f(1)"}}
        for k, reward in enumerate((1.0, 0.5, 0.0)):
            words = " ".join(["more detail"] * (3 + 4 * k + t))
            history = []
            for turn in range(3):
                out_text = f"Thought {turn} {words}. OUTPUT: question {turn} about {t}?"
                history += [{"role": "assistant", "content": f"question {turn} about {t}?", "output": out_text},
                            {"role": "user", "content": f"answer {turn} {'yes ' * (k + turn)}"}]
            answer = f"I WANT TO ANSWER: def f(x): return x + {t if reward == 1 else k}"
            history.append({"role": "assistant", "content": answer, "output": answer})
            out.append({"task": task, "dialogue_history": history, "answer": answer, "reward": reward})
    return out


def _grads_at_flush(lm, extra: dict | None = None) -> list[dict]:
    """Record every trained parameter's gradient each time ``lm`` steps (before clipping)."""
    seen: list[dict] = []
    real = lm.flush

    def flush():
        if lm._pending:
            named = {n: p.grad.detach().clone() for n, p in lm.peft_model.named_parameters()
                     if p.requires_grad and p.grad is not None}
            named.update({f"extra.{n}": p.grad.detach().clone() for n, p in (extra or {}).items() if p.grad is not None})
            seen.append(named)
        real()

    lm.flush = flush
    return seen


def _assert_same(a: list[dict], b: list[dict]) -> None:
    assert len(a) == len(b) and a, (len(a), len(b))
    for ga, gb in zip(a, b):
        assert ga.keys() == gb.keys() and ga
        for k in ga:
            torch.testing.assert_close(gb[k], ga[k], atol=TOL, rtol=TOL, msg=k)
        assert any(g.abs().sum() > 0 for g in ga.values())


def _trainers(cls, conf_cls, tok, rows, **fields):
    model = tiny_llama(tok, 0)
    out = []
    for r in (None, rows):
        torch.manual_seed(1)
        conf = conf_cls(**fields, rows_per_forward=r)
        out.append(cls(conf, model=copy.deepcopy(model), tokenizer=tok, formatter=context_formatter))
    return out


def test_turns_are_separate_sequences(tok):
    trainer = MultiTurnDPO(MultiTurnDPOConfig(seed=0), model=tiny_llama(tok, 0), tokenizer=tok,
                           formatter=context_formatter)
    assert len(trainer.trajectory_sequences(records()[0])) == 4


@pytest.mark.parametrize("full", [False, True])
def test_multi_turn_dpo_gradients_equal_one_forward(tok, full):
    """4 pairs x 2 sides x 4 turns = 32 sequences in one micro-batch, 3 per forward (a last group of 2)."""
    a, b = _trainers(MultiTurnDPO, MultiTurnDPOConfig, tok, 3, seed=0, pairs_per_batch=4, epochs=1, beta=0.5,
                     nll_coef=0.3, policy={"full_finetune": full, "learning_rate": 1e-3})
    grads = [_grads_at_flush(t.policy) for t in (a, b)]
    ma, mb = a.update(records()), b.update(records())
    _assert_same(*grads)
    assert mb["loss"] == pytest.approx(ma["loss"], abs=TOL) and ma["n_pairs"] == 4


@pytest.mark.parametrize("scope", ["action", "sequence"])
def test_preference_pairs_gradients_equal_one_forward(tok, scope):
    """SWEET-RL's policy DPO path (train_preference_pairs), its NLL over every token (``"sequence"``)
    or over the actions, one row per forward."""
    a, b = _trainers(MultiTurnDPO, MultiTurnDPOConfig, tok, 1, seed=0)
    pairs = a.pairs(records())
    grads = [_grads_at_flush(t.policy) for t in (a, b)]
    for t, rows in ((a, None), (b, 1)):
        t.policy.train()
        train_preference_pairs(t.policy, pairs, beta=0.2, nll_coef=0.5, pairs_per_batch=len(pairs), epochs=1,
                               batches=lambda items, n: [items], nll_scope=scope, rows_per_forward=rows)
    _assert_same(*grads)


def test_critic_bradley_terry_gradients_equal_one_forward(tok):
    model, critic = tiny_llama(tok, 0), tiny_llama(tok, 1)
    trainers = []
    for rows in (None, 2):
        torch.manual_seed(1)
        cfg = SweetRLConfig(seed=0, beta=1.0, train_policy=False, critic_pairs="all_ordered",
                            critic=CriticConfig(learning_rate=1e-3, pairs_per_batch=6, epochs=1, rows_per_forward=rows))
        trainers.append(SweetRL(cfg, model=copy.deepcopy(model), tokenizer=tok, critic=copy.deepcopy(critic),
                                formatter=context_formatter))
    grads = [_grads_at_flush(t.critic) for t in trainers]
    ma, mb = (t.update_critic(records()) for t in trainers)
    _assert_same(*grads)
    assert ma["n_critic_pairs"] == 6 and mb["critic_loss"] == pytest.approx(ma["critic_loss"], abs=TOL)


def test_ppo_gradients_equal_one_forward(tok):
    """Policy (LoRA) and value head: 6 trajectories x 4 turn sequences, 5 per forward."""
    a, b = _trainers(PPO, PPOConfig, tok, 5, seed=0, trajectories_per_batch=6, update_epochs=1, temperature=0.7)
    grads = [_grads_at_flush(t.policy, dict(t.value_head.named_parameters())) for t in (a, b)]
    ma, mb = a.update(records()), b.update(records())
    _assert_same(*grads)
    assert any(k.startswith("extra.") for k in grads[0][0])
    for k in ("pg_loss", "v_loss", "kl"):
        assert mb[k] == pytest.approx(ma[k], abs=TOL), k


def test_rows_per_forward_is_checked():
    for bad in (0, -1, 1.5, True):
        with pytest.raises(ConfigError, match="rows_per_forward"):
            MultiTurnDPOConfig(rows_per_forward=bad)
        with pytest.raises(ConfigError, match="rows_per_forward"):
            CriticConfig(rows_per_forward=bad)


def test_row_logps_without_grad_equal_one_forward(tok):
    trainer = MultiTurnDPO(MultiTurnDPOConfig(seed=0), model=tiny_llama(tok, 0), tokenizer=tok,
                           formatter=context_formatter)
    lm = trainer.policy
    seqs = [s for r in records() for s in trainer.trajectory_sequences(r)]
    with torch.no_grad():
        whole, batch, h = lm.row_logps(seqs, score_all=True, hidden_at=[(0, 3), (7, 5)])
        rows, batch2, h2 = lm.row_logps(seqs, score_all=True, hidden_at=[(0, 3), (7, 5)], rows_per_forward=4)
    assert torch.equal(batch["input_ids"], batch2["input_ids"]) and whole.shape == rows.shape
    torch.testing.assert_close(rows, whole, atol=TOL, rtol=0)
    torch.testing.assert_close(h2, h, atol=TOL, rtol=0)


def test_per_row_logits_equal_full_logits(tok):
    """The sharded path's projection (each row's own trained positions, a boolean ``logits_to_keep``),
    and its column fallback, against log-softmax of the full ``(B, L, vocab)`` logits, with the
    gradient of a weighted sum of them; the hidden states are the model's last ones."""
    trainer = MultiTurnDPO(MultiTurnDPOConfig(seed=0, policy={"full_finetune": True}), model=tiny_llama(tok, 0),
                           tokenizer=tok, formatter=context_formatter)
    lm = trainer.policy
    seqs = [s for r in records()[:3] for s in trainer.trajectory_sequences(r)]
    batch = lm.batch(seqs)
    net = lm.model
    out = net(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"], output_hidden_states=True)
    weights = torch.rand(batch["loss_mask"].shape, generator=torch.Generator().manual_seed(0))
    expected = token_logprobs(out.logits / 0.7, batch["input_ids"]) * batch["loss_mask"]
    expected_grad = torch.autograd.grad((expected * weights).sum(), net.lm_head.weight)[0]
    for per_row in (True, False):
        lm._per_row_logits = per_row
        got, hidden = lm._sharded_logps_and_hidden(net, batch, reference=False, temperature=0.7)
        torch.testing.assert_close(got, expected, atol=TOL, rtol=0)
        torch.testing.assert_close(hidden, out.hidden_states[-1], atol=TOL, rtol=0)
        grad = torch.autograd.grad((got * weights).sum(), net.lm_head.weight)[0]
        torch.testing.assert_close(grad, expected_grad, atol=TOL, rtol=TOL)
