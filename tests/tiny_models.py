"""Tiny randomly initialised Llama models with SmolLM2's tokenizer (or a tiny BPE one), shared by the trainer tests."""
from __future__ import annotations

from typing import Sequence

import torch


def smollm2_tokenizer():
    """The embedded SmolLM2-135M-Instruct tokenizer (converted once into the local cache)."""
    from transformers import AutoTokenizer

    from colbench_env.lm.smollm2 import smollm2_path

    return AutoTokenizer.from_pretrained(smollm2_path())


def tiny_bpe_tokenizer(chat_template: str, vocab_size: int = 400, corpus=None):
    """A byte-level BPE tokenizer of ``vocab_size`` ids, trained here (in well under a second) on
    ``corpus`` (default: the agent instructions of both prompt styles), with ChatML's special tokens
    (``<|endoftext|>`` unk, ``<|im_start|>`` bos, ``<|im_end|>`` eos and pad) and ``chat_template``."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    from colbench_env.prompting import BACKEND_AGENT_INSTRUCTIONS, COMPACT_BACKEND_AGENT_INSTRUCTIONS

    backend = Tokenizer(models.BPE())
    backend.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    backend.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=["<|endoftext|>", "<|im_start|>", "<|im_end|>"],
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False)
    backend.train_from_iterator(list(corpus or [BACKEND_AGENT_INSTRUCTIONS, COMPACT_BACKEND_AGENT_INSTRUCTIONS]), trainer)
    tok = PreTrainedTokenizerFast(tokenizer_object=backend, bos_token="<|im_start|>", eos_token="<|im_end|>",
                                  unk_token="<|endoftext|>", pad_token="<|im_end|>")
    tok.chat_template = chat_template
    return tok


#: ChatML (SmolLM2's and Qwen's turn format, without SmolLM2's default system prompt)
CHATML = ("{% for m in messages %}{{ '<|im_start|>' + m['role'] + '\\n' + m['content'] + '<|im_end|>\\n' }}{% endfor %}"
          "{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}")


def small_tokenizer(vocab_size: int = 2048, chat_template: str = CHATML, extra: Sequence[str] = ()):
    """A :func:`tiny_bpe_tokenizer` of ``vocab_size`` ids (ChatML's special tokens, ``chat_template``)
    trained on the texts the tests' policies see -- the agent instructions of both kinds and prompt
    styles, generated backend and frontend tasks (requests, code, pages), :mod:`samples`'s
    dialogues, and ``extra`` -- so it splits them into about as many tokens as SmolLM2's 49,152-id
    tokenizer does, while a tiny model over it computes ~25x smaller logits (the bulk of a tiny
    model's cost). For tests whose property does not depend on SmolLM2's own tokenizer.
    Deterministic; ~0.1 s."""
    import json

    import samples
    from colbench_env.generator import generate_tasks
    from colbench_env.generator.frontend import generate_frontend_tasks
    from colbench_env.prompting import (BACKEND_AGENT_INSTRUCTIONS, COMPACT_BACKEND_AGENT_INSTRUCTIONS,
                                        COMPACT_FRONTEND_AGENT_INSTRUCTIONS, FRONTEND_AGENT_INSTRUCTIONS)

    corpus = [BACKEND_AGENT_INSTRUCTIONS, COMPACT_BACKEND_AGENT_INSTRUCTIONS, FRONTEND_AGENT_INSTRUCTIONS,
              COMPACT_FRONTEND_AGENT_INSTRUCTIONS]
    for t in generate_tasks(24, 1) + generate_tasks(12, 2):
        corpus += [t.problem_description, t.ground_truth, json.dumps(t.extra.get("generator", {}))]
    for t in generate_frontend_tasks(6, 1, family="mini") + generate_frontend_tasks(4, 1):
        corpus += [t.problem_description, t.ground_truth, t.extra["generic_solution"]]
    corpus += [json.dumps(v) for k, v in vars(samples).items() if k.isupper() and isinstance(v, (dict, list))]
    corpus += list(extra)
    return tiny_bpe_tokenizer(chat_template, vocab_size=vocab_size, corpus=corpus)


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


def chat_tokens(tokenizer, messages, tools=None) -> tuple[list[int], list[int]]:
    """``(token ids, trained)`` of a chat rendered by ``tokenizer``'s template (with ``tools``):
    each assistant message -- what its template writes for it, end-of-turn included -- is trained
    (1), the rest is context (0). Each piece is tokenized on its own, as a policy generates it."""
    ids: list[int] = []
    trained: list[int] = []
    done = ""
    for i, m in enumerate(messages):
        if m["role"] != "assistant":
            continue
        before = tokenizer.apply_chat_template(messages[:i], tools=tools, tokenize=False, add_generation_prompt=True)
        upto = tokenizer.apply_chat_template(messages[:i + 1], tools=tools, tokenize=False)
        assert before.startswith(done) and upto.startswith(before), "the chat template is not prefix-preserving"
        for text, flag in ((before[len(done):], 0), (upto[len(before):], 1)):
            piece = tokenizer(text, add_special_tokens=False)["input_ids"]
            ids += piece
            trained += [flag] * len(piece)
        done = upto
    return ids, trained


def fit_chats(model, tokenizer, chats, tools=None, steps: int = 150, lr: float = 5e-3, negatives: int = 4096,
              seed: int = 0) -> float:
    """Teach ``model`` (a :func:`tiny_llama`) the assistant turns of ``chats`` (a warm start, so that a
    tiny random model behaves like a policy that follows a protocol). Adam with a one-cycle schedule
    on everything but the input embeddings; the softmax is sampled (the demonstrations' tokens plus
    ``negatives`` other tokens drawn afresh each step, weighted to stand for the whole vocabulary),
    which costs a fraction of the full one and still pushes the untrained tokens down (a vocabulary
    with no more than ``negatives`` other tokens: the whole softmax). Returns the final
    full-vocabulary cross-entropy per trained token."""
    import math

    data = [chat_tokens(tokenizer, c, tools) for c in chats]
    length = max(len(i) for i, _ in data)
    pad = tokenizer.pad_token_id
    ids = torch.tensor([i + [pad] * (length - len(i)) for i, _ in data])
    mask = torch.tensor([[1] * len(i) + [0] * (length - len(i)) for i, _ in data])
    trained = torch.tensor([t + [0] * (length - len(t)) for _, t in data])
    at = trained[:, 1:].nonzero(as_tuple=True)          # position t predicts token t + 1
    targets = ids[:, 1:][at]
    vocab = torch.unique(targets)
    local = torch.searchsorted(vocab, targets)
    rest = torch.ones(model.lm_head.weight.shape[0], dtype=torch.bool)
    rest[vocab] = False
    rest = rest.nonzero().squeeze(1)
    exact = len(rest) <= negatives
    weight = 0.0 if exact else math.log(len(rest) / negatives)
    gen = torch.Generator().manual_seed(seed)
    params = [p for n, p in model.named_parameters() if "embed_tokens" not in n]
    opt = torch.optim.Adam(params, lr=lr)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=steps, pct_start=0.1)
    model.train()
    for _ in range(steps):
        neg = rest if exact else rest[torch.randint(len(rest), (negatives,), generator=gen)]
        h = model.model(input_ids=ids, attention_mask=mask).last_hidden_state[:, :-1][at]
        w = model.lm_head.weight
        logits = torch.cat([h @ w[vocab].T, h @ w[neg].T + weight], dim=1)
        loss = torch.nn.functional.cross_entropy(logits, local)
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
    model.eval()
    with torch.no_grad():
        h = model.model(input_ids=ids, attention_mask=mask).last_hidden_state[:, :-1][at]
        return torch.nn.functional.cross_entropy(model.lm_head(h), targets).item()


def llama31_tokenizer():
    """Llama-3.1's tokenizer with its chat template, built offline: the BPE ranks Meta ships in the
    ``llama-models`` package (``llama_models/llama3/tokenizer.model``, tiktoken format; Llama 3 and
    3.1 share it: 128,000 tokens + 256 special ones) converted by transformers' ``TikTokenConverter``,
    and the Llama-3.1 chat template TRL ships (``trl.chat_template_utils.llama3_1_chat_template``).
    Converted once into ``~/.cache/colbench/llama-3.1-tokenizer`` (about 15 s). Needs the ``dev``
    extra (llama-models)."""
    import os
    import shutil
    import tempfile
    from importlib.resources import files
    from pathlib import Path

    from transformers import AutoTokenizer

    cache = Path(os.environ.get("COLBENCH_CACHE", Path.home() / ".cache" / "colbench")) / "llama-3.1-tokenizer"
    if not (cache / "tokenizer.json").exists():
        from transformers import PreTrainedTokenizerFast
        from transformers.convert_slow_tokenizer import TikTokenConverter
        from trl.chat_template_utils import llama3_1_chat_template

        named = ["<|begin_of_text|>", "<|end_of_text|>", "<|reserved_special_token_0|>", "<|reserved_special_token_1|>",
                 "<|finetune_right_pad_id|>", "<|step_id|>", "<|start_header_id|>", "<|end_header_id|>", "<|eom_id|>",
                 "<|eot_id|>", "<|python_tag|>"]
        special = named + [f"<|reserved_special_token_{2 + i}|>" for i in range(256 - len(named))]
        ranks = files("llama_models") / "llama3" / "tokenizer.model"
        backend = TikTokenConverter(vocab_file=str(ranks), extra_special_tokens=special).converted()
        tok = PreTrainedTokenizerFast(tokenizer_object=backend, bos_token="<|begin_of_text|>", eos_token="<|eot_id|>",
                                      pad_token="<|finetune_right_pad_id|>")
        tok.chat_template = llama3_1_chat_template
        cache.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(dir=cache.parent))
        tok.save_pretrained(tmp)
        try:
            tmp.rename(cache)
        except OSError:  # another process made it meanwhile
            shutil.rmtree(tmp, ignore_errors=True)
    return AutoTokenizer.from_pretrained(cache)
