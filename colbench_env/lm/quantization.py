"""Keep bitsandbytes 4-bit layers differentiable on CPU.

bitsandbytes (0.50) on a CPU with AVX512-BF16 repacks a ``bnb.nn.Linear4bit`` weight into the
layout of its fused ``gemv_4bit`` kernel the first time the layer runs in eval mode on an input
that needs no grad (``Linear4bit.forward``). The repack is permanent: from then on every call, train
mode included, goes through ``gemv_4bit``, which computes in bf16 and has no backward (autograd
warns ``bitsandbytes::gemv_4bit: an autograd kernel was not registered``), so gradients through the
frozen 4-bit base -- hence every LoRA gradient below the last layer -- are silently wrong. Any
no-grad pass triggers it: a reference pass, scoring, rollout log-probs, generation.

:func:`keep_4bit_differentiable` turns the repack off per module (``support_avx512bf16_for_cpu``,
the switch ``Linear4bit`` reads) and undoes it where it already happened. Every place in colbench
that builds or receives a 4-bit model calls it (:class:`~colbench.agents.trainer_base.TrainableLM`,
:class:`~colbench_env.lm.hf.HFBackend`); 4-bit matmuls then dequantize to the compute dtype
and run a plain, differentiable matmul, in eval and train mode alike.
"""
from __future__ import annotations

from typing import Any

__all__ = ["keep_4bit_differentiable", "prepare_4bit_for_training", "quiet_cpu_kernel_warning"]

#: the logger of bitsandbytes' CPU kernels, and the start of its import-time warning
_BNB_CPU_LOGGER = "bitsandbytes.backends.cpu.ops"
_BNB_KERNEL_WARNING = "Failed to load CPU gemm_4bit_forward"


class _DropKernelWarning:
    """A logging filter dropping bitsandbytes' "Failed to load CPU gemm_4bit_forward ..." record."""

    def filter(self, record) -> bool:
        return not str(record.msg).startswith(_BNB_KERNEL_WARNING)


def quiet_cpu_kernel_warning() -> None:
    """Drop bitsandbytes' import-time warning "Failed to load CPU gemm_4bit_forward from
    kernels-community ... Please make sure you already `pip install kernels`" (idempotent).

    bitsandbytes (0.50) prints it on an AVX512-BF16 CPU whenever it is imported and the kernel
    repository is not trusted, and it is imported by peft's own import (``peft/helpers.py``), so every
    trainer -- 4-bit or not -- printed it. It is noise in colbench even with 4-bit weights: the kernel
    it failed to load serves only ``gemv_4bit`` on weights repacked for the CPU, the repack that
    :func:`keep_4bit_differentiable` turns off on every 4-bit model colbench builds or receives (4-bit
    matmuls then dequantize and run a plain matmul), so installing it would change nothing. Only that
    one record is dropped; the logger's other messages are kept."""
    import logging

    logger = logging.getLogger(_BNB_CPU_LOGGER)
    if not any(isinstance(f, _DropKernelWarning) for f in logger.filters):
        logger.addFilter(_DropKernelWarning())


def keep_4bit_differentiable(model: Any) -> int:
    """Disable (and undo) the CPU repacking of every ``bnb.nn.Linear4bit`` in ``model``, in place.

    Returns:
        The number of 4-bit layers found (0 when bitsandbytes is not installed, or not imported:
        then no layer of ``model`` can be one).
    """
    import sys

    # a model with 4-bit layers was loaded through bitsandbytes, so it is imported already; importing
    # it here for a full-precision model would only print its CPU kernel warning ("Failed to load
    # CPU gemm_4bit_forward from kernels-community ...") on every command that loads a model
    bnb = sys.modules.get("bitsandbytes")
    if bnb is None or not hasattr(bnb, "nn"):
        return 0
    n = 0
    for module in model.modules():
        if not isinstance(module, bnb.nn.Linear4bit):
            continue
        n += 1
        module.support_avx512bf16_for_cpu = False
        state = getattr(module.weight, "quant_state", None)
        if state is not None and getattr(state, "packing_format_for_cpu", False):
            # already repacked (the model ran a no-grad eval pass before it got here): unpack.
            # The inverse keeps the 4-bit codes exactly; the absmax scales come back from bf16.
            from bitsandbytes.functional import _convert_weight_packed_for_cpu_inverse

            module.weight.data, module.weight.quant_state = _convert_weight_packed_for_cpu_inverse(
                module.weight.data, state)
    return n


def prepare_4bit_for_training(model: Any, compute_dtype: Any, *, gradient_checkpointing: bool = False) -> Any:
    """Get a freshly loaded 4-bit model ready for LoRA training, in place; returns it.

    Every weight is frozen; the weights bitsandbytes did not quantise (embeddings, norms, an untied
    output head) are kept in ``compute_dtype`` -- float32 only when the compute dtype is float16,
    whose range is too narrow for norms. peft's ``prepare_model_for_kbit_training`` instead upcasts
    them all to float32, which for a bfloat16 critic doubles the largest weights that stay
    unquantised: an 8B Llama-3.1's embedding and head (2 x 128,256 x 4,096) are 2.1 GB in bfloat16
    and 4.2 GB in float32,
    a 1B's tied 49,152 x 2,048 embedding 0.2 GB vs 0.4 GB. They are frozen, so no optimiser
    precision is at stake; in bfloat16 the network computes exactly as the full-precision bfloat16
    model does. Gradient checkpointing, when asked for, is the non-reentrant kind (the one torch
    recommends; the reentrant one needs grad-requiring inputs and warns on every call).
    """
    import torch

    dtype = torch.float32 if compute_dtype in (torch.float16, "float16") else compute_dtype
    if isinstance(dtype, str):
        dtype = getattr(torch, dtype)
    model.requires_grad_(False)
    for param in model.parameters():
        if param.__class__.__name__ != "Params4bit" and param.is_floating_point() and param.dtype != dtype:
            param.data = param.data.to(dtype)
    if gradient_checkpointing:
        model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
        if hasattr(model, "enable_input_require_grads"):
            model.enable_input_require_grads()
    return model
