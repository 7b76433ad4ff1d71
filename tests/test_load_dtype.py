"""``compute_dtype`` decides the dtype of a trainer's weights, whatever the checkpoint holds:
transformers v5 loads a checkpoint in its own dtype by default, so a bf16 checkpoint (Llama-3.1's)
used to train in bf16 under the default ``compute_dtype="float32"`` -- and AdamW steps on bf16 weights
lose every update below the weights' rounding (the reference's learning rate is 2e-7)."""
from __future__ import annotations

import warnings

import pytest
import torch
from safetensors.torch import load_file


@pytest.fixture(scope="module")
def bf16_checkpoint(tmp_path_factory, tiny_model_dir, tok):
    from transformers import AutoModelForCausalLM

    d = tmp_path_factory.mktemp("bf16")
    model = AutoModelForCausalLM.from_pretrained(tiny_model_dir()).to(torch.bfloat16)
    model.save_pretrained(d / "bf16")
    tok.save_pretrained(d / "bf16")
    return str(d / "bf16")


def lm(path, **kw):
    from accelerate import Accelerator

    from colbench.agents.trainer_base import TrainableLM

    return TrainableLM(Accelerator(cpu=True), path, lora_r=4, lora_alpha=8, **kw)


@pytest.mark.parametrize("full_finetune", [False, True])
def test_float32_compute_dtype_loads_a_bf16_checkpoint_in_float32(bf16_checkpoint, full_finetune):
    stored = load_file(f"{bf16_checkpoint}/model.safetensors")  # read here, not through transformers
    assert {t.dtype for t in stored.values()} == {torch.bfloat16}
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)  # no precision warning for float32 weights
        m = lm(bf16_checkpoint, compute_dtype="float32", full_finetune=full_finetune)
    base = m.model.get_base_model() if hasattr(m.model, "get_base_model") else m.model
    assert {p.dtype for p in base.parameters()} == {torch.float32}  # LoRA's too
    weights = {n.replace(".base_layer", ""): p for n, p in base.named_parameters() if "lora_" not in n}
    for name, t in stored.items():  # the same values, upcast exactly
        if name in weights:
            assert torch.equal(weights[name].detach(), t.float()), name
    assert sum(name in weights for name in stored) >= len(stored) - 1  # lm_head tied to the embeddings


def test_bf16_full_finetune_without_deepspeed_warns(bf16_checkpoint):
    with pytest.warns(UserWarning, match="no float32 master copy"):
        m = lm(bf16_checkpoint, compute_dtype="bfloat16", full_finetune=True)
    assert {p.dtype for p in m.model.parameters()} == {torch.bfloat16}
    # what the warning is about, independently of the trainer: a 2e-7 step on a bf16 weight is lost
    w = torch.tensor([0.02], dtype=torch.bfloat16)
    assert torch.equal(w - 2e-7, w) and not torch.equal(w.float() - 2e-7, w.float())


def test_full_finetune_under_bf16_mixed_precision_keeps_float32_weights_and_a_bf16_reference(bf16_checkpoint):
    """float32 weights (AdamW's steps are not rounded away) and the frozen reference in bf16 (the
    policy's forwards autocast to bf16; half the memory), whose log-probs match a float32 forward
    within bf16 rounding."""
    from accelerate import Accelerator
    from accelerate.state import AcceleratorState
    from transformers import AutoModelForCausalLM

    from colbench.agents.tokenize import tokenize_turn
    from colbench.agents.trainer_base import TrainableLM

    AcceleratorState._reset_state(reset_partial_state=True)  # the process-wide state: another precision
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", UserWarning)
            m = TrainableLM(Accelerator(cpu=True, mixed_precision="bf16"), bf16_checkpoint, compute_dtype="float32",
                            full_finetune=True)
        assert {p.dtype for p in m.model.parameters()} == {torch.float32}
        assert {p.dtype for p in m._frozen_reference.parameters()} == {torch.bfloat16}
        seq = tokenize_turn(m.tokenizer, [{"role": "user", "content": "Which number do you add?"}], "Seven, I add seven.")
        batch = m.batch([seq])
        ref = m.token_logps(batch, reference=True)
    finally:
        AcceleratorState._reset_state(reset_partial_state=True)
    with torch.no_grad():  # independent: the checkpoint in float32, a plain float32 forward
        ids = batch["input_ids"]
        plain = AutoModelForCausalLM.from_pretrained(bf16_checkpoint, dtype=torch.float32)
        logits = plain(input_ids=ids).logits[0, :-1]
    want = torch.log_softmax(logits, -1).gather(1, ids[0, 1:, None])[:, 0]
    mask = torch.tensor(seq.mask[1:], dtype=torch.bool)
    assert torch.allclose(ref[0][mask].float(), want[mask], atol=0.05)
