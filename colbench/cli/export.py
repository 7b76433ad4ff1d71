"""``colbench export CHECKPOINT --out DIR``: a trained policy as a plain transformers model.

``CHECKPOINT`` is a ``colbench train`` checkpoint directory (or a peft adapter directory); ``DIR``
gets its base model with the trained LoRA adapter merged into the weights (the whole model after a
full fine-tune), in the dtype the policy was trained in, and the base's tokenizer with its chat
template: what ``transformers``, ``vllm serve DIR`` or ``colbench run --agent hf --agent-model DIR``
load. ``colbench train ... --export DIR`` does the same right after training. The checkpoint itself
runs too (``--agent-model CHECKPOINT``), with the same greedy texts.

Python: :func:`colbench_env.lm.models.export_model`.
"""
from __future__ import annotations

import argparse
from pathlib import Path

from colbench_env.errors import UsageError

__all__ = ["add_arguments", "main"]


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("checkpoint", help="a colbench train checkpoint directory (or a peft adapter directory)")
    p.add_argument("--out", required=True, help="directory to write the merged model and its tokenizer to")


def main(args: argparse.Namespace) -> int:
    from colbench_env.lm.models import export_model, resolve_model

    source = resolve_model(args.checkpoint, option="checkpoint")
    if source.kind not in ("checkpoint", "adapter"):
        raise UsageError(f"checkpoint {args.checkpoint}: not a colbench train checkpoint (no trainer.json) nor an "
                         "adapter directory; it is a model already")
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise UsageError(f"--out {args.out}: exists and is not a directory")
    export_model(args.checkpoint, out, option="checkpoint")
    print(f"exported {args.checkpoint} -> {out}")
    return 0
