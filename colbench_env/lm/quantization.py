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
that builds or receives a 4-bit model calls it (:class:`~agents.trainer_base.TrainableLM`,
:class:`~colbench_env.lm.hf.HFBackend`); 4-bit matmuls then dequantize to the compute dtype
and run a plain, differentiable matmul, in eval and train mode alike.
"""
from __future__ import annotations

from typing import Any

__all__ = ["keep_4bit_differentiable"]


def keep_4bit_differentiable(model: Any) -> int:
    """Disable (and undo) the CPU repacking of every ``bnb.nn.Linear4bit`` in ``model``, in place.

    Returns:
        The number of 4-bit layers found (0 when bitsandbytes is not installed or none is used).
    """
    try:
        import bitsandbytes as bnb
    except ImportError:
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
