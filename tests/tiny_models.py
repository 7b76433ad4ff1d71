"""Tiny randomly initialised Llama models with SmolLM2's tokenizer, shared by the trainer tests."""
from __future__ import annotations

import torch


def smollm2_tokenizer():
    """The embedded SmolLM2-135M-Instruct tokenizer (converted once into the local cache)."""
    from transformers import AutoTokenizer

    from colbench_env.lm.smollm2 import smollm2_path

    return AutoTokenizer.from_pretrained(smollm2_path())


def tiny_llama(tokenizer, seed: int = 0, hidden_size: int = 64, **config):
    """A 2-layer Llama over ``tokenizer``'s vocabulary, seeded (``config``: more LlamaConfig fields)."""
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(seed)
    cfg = LlamaConfig(hidden_size=hidden_size, intermediate_size=2 * hidden_size, num_hidden_layers=2,
                      num_attention_heads=4, num_key_value_heads=2, vocab_size=len(tokenizer), **config)
    return LlamaForCausalLM(cfg)


def tiny_chat_llama(tokenizer, seed: int = 0, initializer_range: float = 0.5):
    """A :func:`tiny_llama` for generation tests: tied embeddings, SmolLM2's special ids (bos 1,
    eos = pad 2), 512 positions, and a large ``initializer_range`` for peaked logits (greedy ties
    are unlikely)."""
    return tiny_llama(tokenizer, seed, max_position_embeddings=512, initializer_range=initializer_range,
                      tie_word_embeddings=True, bos_token_id=1, eos_token_id=2, pad_token_id=2)


def save_tiny_llama(directory, tokenizer, seed: int = 0, hidden_size: int = 64) -> str:
    """Save a :func:`tiny_llama` (with the tokenizer's special ids) and the tokenizer as a model
    directory that any transformers loader takes; returns its path."""
    model = tiny_llama(tokenizer, seed, hidden_size, max_position_embeddings=4096, bos_token_id=tokenizer.bos_token_id,
                       eos_token_id=tokenizer.eos_token_id, pad_token_id=tokenizer.pad_token_id)
    model.save_pretrained(directory)
    tokenizer.save_pretrained(directory)
    return str(directory)
