"""The memory plan (:mod:`colbench.pipeline.memory`): its arithmetic against independent counts
(published parameter counts, DeepSpeed's own ZeRO-3 estimator, peft's adapter size, bitsandbytes'
4-bit footprint) and its estimate against the measured CPU peak of real trainers (within 25 %)."""
from __future__ import annotations

import pytest

from colbench.pipeline import PipelineConfig
from colbench.pipeline.config import preset_settings
from colbench.pipeline.memory import (GIB, KNOWN_MODEL_SHAPES, ModelShape, _quantised_bytes, memory_plan,
                                      model_shape, model_states)

LLAMA_8B = KNOWN_MODEL_SHAPES["meta-llama/Llama-3.1-8B-Instruct"]


def test_known_shapes_have_the_published_parameter_counts():
    assert LLAMA_8B.params == 8_030_261_248
    assert KNOWN_MODEL_SHAPES["meta-llama/Llama-3.1-70B-Instruct"].params == 70_553_706_496


def test_zero3_states_are_deepspeeds_own_estimate():
    """A full fine-tune's states under ZeRO-3 (weights, moments, the largest layer gathered) equal
    DeepSpeed's ``estimate_zero3_model_states_mem_needs`` without offload; the frozen reference adds
    its bf16 partition."""
    from deepspeed.runtime.zero.stage3 import estimate_zero3_model_states_mem_needs

    s = model_states(LLAMA_8B, trained="full", weights="float32", mixed_precision="bf16", processes=8, zero3=True)
    _cpu, gpu, _largest = estimate_zero3_model_states_mem_needs(
        LLAMA_8B.params, LLAMA_8B.vocab * LLAMA_8B.hidden, num_gpus_per_node=8, cpu_offload=False)
    assert s["weights"] + s["gradients"] + s["optimizer"] + s["gathered"] == pytest.approx(gpu, rel=1e-9)
    assert s["reference"] == 2 * LLAMA_8B.params / 8


def _tiny(tmp_path):
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    cfg = LlamaConfig(hidden_size=128, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
                      intermediate_size=384, vocab_size=1024, tie_word_embeddings=False)
    torch.manual_seed(0)
    LlamaForCausalLM(cfg).save_pretrained(tmp_path)
    return cfg, ModelShape.from_config(cfg.to_dict())


def test_shape_counts_match_the_model_peft_and_bitsandbytes(tmp_path):
    """Parameters as transformers builds them, LoRA's as peft adds them, a 4-bit base's bytes as
    bitsandbytes stores them (NF4, double quantisation, float32 compute)."""
    import peft
    import torch
    from transformers import AutoModelForCausalLM, BitsAndBytesConfig

    cfg, shape = _tiny(tmp_path)
    assert model_shape(tmp_path) == shape
    model = AutoModelForCausalLM.from_pretrained(tmp_path, dtype=torch.float32)
    assert shape.params == sum(p.numel() for p in model.parameters())
    lora = peft.get_peft_model(model, peft.LoraConfig(r=8, target_modules="all-linear", task_type="CAUSAL_LM"))
    trainable, _ = lora.get_nb_trainable_parameters()
    assert shape.lora_params(8) == trainable
    q = AutoModelForCausalLM.from_pretrained(tmp_path, dtype=torch.float32, quantization_config=BitsAndBytesConfig(
        load_in_4bit=True, bnb_4bit_quant_type="nf4", bnb_4bit_use_double_quant=True,
        bnb_4bit_compute_dtype=torch.float32))
    stored = sum(p.numel() * p.element_size() for p in q.parameters())
    stored += sum(b.numel() * b.element_size() for b in q.buffers())
    for m in q.modules():  # the quantisation constants live in each 4-bit weight's quant_state
        state = getattr(getattr(m, "weight", None), "quant_state", None)
        if state is not None:
            stored += state.absmax.numel() * state.absmax.element_size()
            if state.state2 is not None:
                stored += state.state2.absmax.numel() * state.state2.absmax.element_size()
    assert _quantised_bytes(shape, 4) == pytest.approx(stored, rel=0.05)


def test_paper_plan_by_hand():
    """``--paper`` on 8 x 80 GB: RFT's states are DeepSpeed's 18 bytes per parameter over 8 plus its
    bf16 reference; SWEET-RL's critic stage holds the policy too and its policy stage no critic
    (freed with stage files); the one-GPU variant's critic is 4-bit; a served policy costs the
    collection nothing here."""
    cfg = PipelineConfig(**preset_settings("paper"))
    plan = memory_plan(cfg)
    p = LLAMA_8B.params
    rft = plan["stages"]["rft/train"]["parts_gib"]
    assert rft["optimizer"] == round(16 * p / 8 / GIB, 1) and rft["reference"] == round(2 * p / 8 / GIB, 1)
    assert plan["lengths"]["trajectory"] == 1536 + 10 * 1032 + 9 * 168
    assert "policy (held)" in plan["stages"]["sweet-rl/critic"]["parts_gib"]
    assert "critic (held)" not in plan["stages"]["sweet-rl/policy"]["parts_gib"]
    one = memory_plan(cfg, layout="single-gpu")
    assert one["processes"] == 1
    assert one["stages"]["sweet-rl/scoring"]["parts_gib"]["models (held)"] < 15.4 + 7  # a 4-bit 8B critic + LoRA
    served = memory_plan(PipelineConfig(**preset_settings("paper"), policy_base_url="http://127.0.0.1:9/v1"))
    assert served["stages"]["collect"]["peak_gib"] == 0.0 and served["stages"]["collect"]["fits"]
    unknown = memory_plan(PipelineConfig(policy="no/such-model"))
    assert unknown["stages"]["rft/train"]["peak_gib"] is None and unknown["stages"]["rft/train"]["fits"] is None


def _trajectory_trainer_parts(rows: int, positions: int) -> dict:
    """One forward with grad of Llama-3.1-8B under ZeRO-3 in bf16, by hand: ``rows`` sequences of the
    worst-case 13,368 tokens under gradient checkpointing (every layer's input, 32 x 4096 values a
    token, and one layer's saved tensors, 10 x 4096 + 4 x 14336), and ``positions`` x 128,256 logits
    (bf16, their float32 copy, the log-softmax temporary, the gradient in float32 and bf16: 16 B)."""
    length = 1536 + 10 * 1032 + 9 * 168
    per_token = 32 * 4096 + 10 * 4096 + 4 * 14336
    return {"activations": rows * length * per_token * 2 / GIB, "logits": positions * 128256 * 16 / GIB}


def test_paper_trajectory_trainers_fit_one_sequence_per_forward():
    """``--paper`` sets ``rows_per_forward=1`` for multi-turn DPO, PPO and SWEET-RL: one forward holds
    one turn's sequence and projects its own action's 1,032 positions onto the vocabulary; every
    training stage fits 80 GB. All rows in one forward (``rows_per_forward=None``), a pair is 20
    sequences and 20 x 1,032 projected positions: over 80 GB."""
    cfg = PipelineConfig(**preset_settings("paper"))
    plan = memory_plan(cfg)
    for stage in ("mt-dpo/train", "ppo/train"):
        parts = plan["stages"][stage]["parts_gib"]
        want = _trajectory_trainer_parts(1, 1032)
        assert parts["activations"] == round(want["activations"], 1) and parts["logits"] == round(want["logits"], 1)
    assert all(s["fits"] for name, s in plan["stages"].items() if "/" in name), plan["stages"]
    overrides = {m: dict(v) for m, v in cfg.trainer_overrides.items()}
    overrides["mt-dpo"]["rows_per_forward"] = None
    whole = memory_plan(PipelineConfig(**{**preset_settings("paper"), "trainer_overrides": overrides}))
    parts = whole["stages"]["mt-dpo/train"]["parts_gib"]
    want = _trajectory_trainer_parts(20, 20 * 1032)
    assert parts["activations"] == round(want["activations"], 1) and parts["logits"] == round(want["logits"], 1)
    assert not whole["stages"]["mt-dpo/train"]["fits"]


def test_peak_meter_reads_rssanon_and_sees_a_transient_allocation():
    """The benchmarks' meter (:mod:`colbench.benchmarks.bench_critic_memory`): its anonymous memory
    is ``RssAnon`` of ``/proc/self/status`` (read from ``statm``), and its millisecond polls see a
    64 MiB block that lives 50 ms."""
    import time

    import numpy as np

    from colbench.benchmarks.bench_critic_memory import _PeakRSS, _anon_bytes

    def status_anon() -> int:
        with open("/proc/self/status") as f:
            return next(int(line.split()[1]) * 1024 for line in f if line.startswith("RssAnon:"))

    assert abs(_anon_bytes() - status_anon()) <= 2 * 2**20  # the same counter (other threads may allocate)
    before = _anon_bytes()
    with _PeakRSS() as meter:
        block = np.ones(16 * 2**20, dtype=np.float32)  # 64 MiB, every page written
        time.sleep(0.05)
        del block
        time.sleep(0.05)
    assert meter.peak - before >= 60 * 2**20, (meter.peak, before)
    assert meter.peak_rss >= meter.peak


@pytest.mark.slow
def test_estimate_is_within_25_percent_of_measured_cpu_peaks():
    """Real trainers on a 29M-parameter random Llama, one process, float32, each in a process of its
    own (:mod:`colbench.benchmarks.bench_memory_plan`): a full fine-tune's multi-turn DPO, a LoRA RFT, and
    a LoRA multi-turn DPO with its four sequences in one forward and one per forward (the two-pass
    gradient of ``rows_per_forward``)."""
    from colbench.benchmarks.bench_memory_plan import run

    r = run()
    for name, row in r["memory_plan"].items():
        assert abs(row["ratio"] - 1) <= 0.25, (name, row["measured_bytes"], row["estimate_bytes"], row["estimate_parts"])
    full = r["memory_plan"]["mt-dpo-full"]
    assert full["estimate_parts"]["reference"] > 0 and full["measured_bytes"] > 2 * r["memory_plan"]["rft-lora"]["measured_bytes"] * 0.9
    assert r["memory_plan"]["mt-dpo-lora"]["batch"]["rows"] == 4 and r["memory_plan"]["mt-dpo-lora-rows"]["batch"]["rows"] == 1
