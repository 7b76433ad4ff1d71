"""4-bit (NF4, bitsandbytes on CPU) LoRA gradients equal those of the dequantized fp32 twin.

bitsandbytes 0.50 repacks a ``Linear4bit`` weight for its CPU ``gemv_4bit`` kernel (bf16, no
backward) the first time the layer runs in eval mode on an input without grad; from then on every
call -- train mode included -- goes through that kernel and LoRA gradients are wrong. These tests
run exactly such a pass first and compare the gradients with an independent computation: the same
network with every NF4 weight dequantized to a plain fp32 ``nn.Linear`` and the same LoRA weights.

The 4-bit model is loaded from disk by the trainer itself (``critic_load_in_4bit``: transformers +
bitsandbytes quantize it, as for SmolLM2 or an 8B critic); it is a small random Llama (hidden 256)
so that the test stays fast on 2 shared cores -- the repacking does not depend on the size (with
SmolLM2-135M the same comparison gave cosine 0.17 / 0.13 before the fix, 1.0 and 0 error after).
"""
from __future__ import annotations

import pytest
import torch
from samples import short_formatter
from tiny_models import tiny_llama

from colbench.agents.sweet_rl import SweetRL, SweetRLConfig
from colbench.agents.tokenize import tokenize_trajectory

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def model_dir(tiny_model_dir):
    return tiny_model_dir(seed=3, hidden_size=256)




def rollout(task: dict, said: str, reward: float) -> dict:
    return {"task": task, "reward": reward, "dialogue_history": [
        {"role": "assistant", "content": "Which colour do you like?"},
        {"role": "user", "content": "Guess."},
        {"role": "assistant", "content": f"I WANT TO ANSWER: {said}"}]}


def data() -> list[dict]:
    out = []
    for i, (good, bad) in enumerate((("red", "blue"),)):
        task = {"task_id": f"c{i}", "problem_description": "Pick my favourite colour.", "ground_truth": good}
        out += [rollout(task, good, 1.0), rollout(task, bad, 0.0)]
    return out


def dequantized_twin(model_4bit, path: str):
    """The fp32 model at ``path`` with each ``Linear4bit`` weight of ``model_4bit`` replaced by its
    dequantization."""
    import bitsandbytes as bnb
    import bitsandbytes.functional as bnbf
    from transformers import AutoModelForCausalLM

    twin = AutoModelForCausalLM.from_pretrained(path, dtype=torch.float32)
    mods = dict(twin.named_modules())
    n = 0
    for name, m in model_4bit.get_base_model().named_modules():
        if isinstance(m, bnb.nn.Linear4bit):
            assert not getattr(m.weight.quant_state, "packing_format_for_cpu", False)
            w = bnbf.dequantize_4bit(m.weight.data, m.weight.quant_state).float()
            target = mods[name.removesuffix(".base_layer")]
            assert target.weight.shape == w.shape
            target.weight.data.copy_(w)
            n += 1
    assert n >= 14
    return twin


def randomise_lora(src, dst, seed: int = 0) -> None:
    """Give both models the same non-zero LoRA weights (B = 0 at init would zero A's gradient)."""
    g = torch.Generator().manual_seed(seed)
    dparams = dict(dst.named_parameters())
    for name, p in src.named_parameters():
        if "lora_" in name:
            with torch.no_grad():
                p.copy_(torch.randn(p.shape, generator=g) * 0.02)
                dparams[name].copy_(p)


def lora_grads(model) -> dict[str, torch.Tensor]:
    return {n: p.grad.detach().clone() for n, p in model.named_parameters() if "lora_" in n and p.grad is not None}


def compare(got: dict, want: dict) -> tuple[float, float, str]:
    """``(cosine of the flattened gradients, worst per-tensor relative error, its tensor)``."""
    assert set(got) == set(want) and len(want) >= 28
    a = torch.cat([got[k].flatten() for k in sorted(want)])
    b = torch.cat([want[k].flatten() for k in sorted(want)])
    cos = float(torch.nn.functional.cosine_similarity(a, b, dim=0))
    errs = {k: float((got[k] - want[k]).norm() / want[k].norm().clamp_min(1e-30)) for k in want}
    worst = max(errs, key=errs.get)
    return cos, errs[worst], worst


@pytest.fixture(scope="module")
def critics(tok, model_dir):
    """Two SWEET-RL trainers whose critics differ only in the base: NF4 4-bit vs its fp32 dequantization
    (same LoRA weights). The 4-bit one is loaded by the trainer itself (``critic.load_in_4bit``)."""
    critic = {"lora_r": 4, "lora_alpha": 8, "pairs_per_batch": 8, "epochs": 1, "learning_rate": 2e-3}
    common = dict(beta=1.0, policy={"lora_r": 4, "lora_alpha": 8}, train_policy=False, seed=0, max_grad_norm=None)
    q = SweetRL(SweetRLConfig(critic={**critic, "load_in_4bit": True}, **common), model=tiny_llama(tok), tokenizer=tok,
                critic=model_dir, formatter=short_formatter)
    assert sum(isinstance(m, __import__("bitsandbytes").nn.Linear4bit) for m in q.critic.peft_model.modules()) >= 14
    f = SweetRL(SweetRLConfig(critic=critic, **common), model=tiny_llama(tok), tokenizer=tok,
                critic=dequantized_twin(q.critic.peft_model, model_dir), critic_tokenizer=tok, formatter=short_formatter)
    return q, f


def test_4bit_lora_gradients_after_an_eval_no_grad_pass(tok, critics):
    grads = {}
    randomise_lora(critics[0].critic.peft_model, critics[1].critic.peft_model)
    seqs = [s for r in data() for s in tokenize_trajectory(tok, r, formatter=short_formatter)]
    for name, trainer in zip(("4bit", "fp32"), critics):
        lm = trainer.critic
        batch = lm.batch(seqs)
        lm.eval()  # what every reference pass, score_actions and generate do first
        with torch.no_grad():
            lm.token_logps(batch, reference=True)
            lm.token_logps(batch)
        lm.train()
        loss = -(lm.token_logps(batch) * batch["loss_mask"]).sum() / batch["loss_mask"].sum()
        loss.backward()
        grads[name] = lora_grads(lm.peft_model)
        lm.optimizer.zero_grad(set_to_none=True)
    cos, err, worst = compare(grads["4bit"], grads["fp32"])
    print(f"4-bit vs dequantized fp32 LoRA gradients: cosine {cos:.6f}, max per-tensor rel err {err:.2e} ({worst})")
    assert cos > 0.999
    assert err < 1e-3, worst


def test_4bit_critic_update_gradients_match_the_fp32_twin(critics):
    """End to end through ``SweetRL.update_critic`` (its eval-mode reference pass comes first): the
    gradients the optimiser steps on are the dequantized twin's."""
    randomise_lora(critics[0].critic.peft_model, critics[1].critic.peft_model, seed=1)
    grads = {}
    for name, trainer in zip(("4bit", "fp32"), critics):
        seen = []
        opt = trainer.critic.optimizer
        opt = getattr(opt, "optimizer", opt)  # accelerate's wrapper -> torch.optim.AdamW
        handle = opt.register_step_pre_hook(lambda *_a, m=trainer.critic.peft_model: seen.append(lora_grads(m)))
        trainer.update_critic(data())
        handle.remove()
        assert len(seen) == 1
        grads[name] = seen[0]
    cos, err, worst = compare(grads["4bit"], grads["fp32"])
    print(f"update_critic, 4-bit vs dequantized fp32: cosine {cos:.6f}, max per-tensor rel err {err:.2e} ({worst})")
    assert cos > 0.999
    assert err < 1e-3, worst


def test_4bit_critic_trains_as_its_fp32_twin(critics):
    """Training, not one step: three ``update_critic`` rounds of the 4-bit critic and of its
    dequantized fp32 twin from the same LoRA weights. The 4-bit critic's Bradley-Terry loss goes
    down and its LoRA weights move, and each round's loss is the twin's: what it learns is what the
    fp32 network with the same weights learns (a 4-bit critic on the real SmolLM2-135M showed the same
    decrease, at 40 times the cost)."""
    q, f = critics
    randomise_lora(q.critic.peft_model, f.critic.peft_model, seed=2)
    losses = {}
    for name, trainer in (("4bit", q), ("fp32", f)):
        before = trainer.critic.trainable_parameters()
        losses[name] = [trainer.update_critic(data())["critic_loss"] for _ in range(3)]
        after = trainer.critic.trainable_parameters()
        assert any(not torch.equal(before[k], after[k]) for k in before), name
    print("Bradley-Terry loss by round, 4-bit and fp32 twin:", losses)
    assert losses["4bit"][-1] < losses["4bit"][0] - 0.01, losses
    assert losses["4bit"] == pytest.approx(losses["fp32"], rel=1e-3, abs=1e-5)
