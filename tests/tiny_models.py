"""Tiny randomly initialised Llama models with SmolLM2's tokenizer (or a tiny BPE one), shared by the trainer tests."""
from __future__ import annotations

from typing import Sequence

import torch


def smollm2_tokenizer():
    """The embedded SmolLM2-135M-Instruct tokenizer (converted once into the local cache)."""
    from transformers import AutoTokenizer

    from colbench_env.lm.smollm2 import smollm2_path

    return AutoTokenizer.from_pretrained(smollm2_path())


#: ChatML's special tokens, as :func:`tiny_bpe_tokenizer` uses them by default
CHATML_SPECIAL = {"unk_token": "<|endoftext|>", "bos_token": "<|im_start|>", "eos_token": "<|im_end|>",
                  "pad_token": "<|im_end|>"}
#: Llama-3.1's named special tokens (ids 128000-128010 in Meta's tokenizer; ``<|reserved_special_token_N|>``
#: fill its other 245 special ids)
LLAMA31_SPECIAL_TOKENS = ["<|begin_of_text|>", "<|end_of_text|>", "<|reserved_special_token_0|>",
                          "<|reserved_special_token_1|>", "<|finetune_right_pad_id|>", "<|step_id|>",
                          "<|start_header_id|>", "<|end_header_id|>", "<|eom_id|>", "<|eot_id|>", "<|python_tag|>"]
#: the roles Llama-3.1's tokenizer gives them (no unknown token: byte-level BPE spells any text)
LLAMA31_SPECIAL = {"bos_token": "<|begin_of_text|>", "eos_token": "<|eot_id|>", "pad_token": "<|finetune_right_pad_id|>"}


def tiny_bpe_tokenizer(chat_template: str, vocab_size: int = 400, corpus=None, special: dict | None = None,
                       special_tokens=None):
    """A byte-level BPE tokenizer of ``vocab_size`` ids, trained here (in well under a second) on
    ``corpus`` (default: the agent instructions of both prompt styles), with ``chat_template`` and
    the special tokens ``special_tokens`` (the first ids), ``special`` naming their roles (default
    ChatML's, :data:`CHATML_SPECIAL`: ``<|endoftext|>`` unk, ``<|im_start|>`` bos, ``<|im_end|>`` eos
    and pad)."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    from colbench_env.prompting import BACKEND_AGENT_INSTRUCTIONS, COMPACT_BACKEND_AGENT_INSTRUCTIONS

    special = special or CHATML_SPECIAL
    special_tokens = list(special_tokens or dict.fromkeys(special[k] for k in ("unk_token", "bos_token", "eos_token")
                                                          if k in special))
    backend = Tokenizer(models.BPE())
    backend.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    backend.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=special_tokens,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False)
    backend.train_from_iterator(list(corpus or [BACKEND_AGENT_INSTRUCTIONS, COMPACT_BACKEND_AGENT_INSTRUCTIONS]), trainer)
    tok = PreTrainedTokenizerFast(tokenizer_object=backend, **special)
    tok.chat_template = chat_template
    return tok


def small_vocab_tokenizer(chat_template: str):
    """A :func:`tiny_bpe_tokenizer` of under 1,000 ids (every merge its corpus has) with ``chat_template``
    (the critic tests: SmolLM2's), trained on what the critic tests feed a model: the agent
    instructions of both kinds and prompt styles, the critic's header of training-time information,
    the sample trajectories of :mod:`samples` and the favourite-colour tasks
    (:func:`colbench.critics.analysis.colour_data`). Their texts take about as many of its ids as of
    SmolLM2's 49,152 (a word such as " red" is one id in both), so a tiny model over it sees contexts
    as long as over SmolLM2's, at about 1/50 of the cost of the vocabulary projection."""
    import json

    from samples import BAD, GOOD, MID

    from colbench.agents.sweet_rl import INFO_HEADER
    from colbench.critics.analysis import colour_data
    from colbench_env import prompting

    corpus = [prompting.BACKEND_AGENT_INSTRUCTIONS, prompting.COMPACT_BACKEND_AGENT_INSTRUCTIONS,
              prompting.FRONTEND_AGENT_INSTRUCTIONS, prompting.COMPACT_FRONTEND_AGENT_INSTRUCTIONS, INFO_HEADER,
              *(json.dumps(r) for r in (GOOD, BAD, MID)),
              *(json.dumps(r) for group in colour_data(range(18), 0) for r in group)]
    return tiny_bpe_tokenizer(chat_template, vocab_size=1000, corpus=corpus)


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


def llama31_template_tokenizer(vocab_size: int = 2048):
    """A small stand-in for Llama-3.1's tokenizer (:func:`llama31_tokenizer`, 128,256 ids) where its
    vocabulary does not matter: byte-level BPE of ``vocab_size`` ids (:func:`tiny_bpe_tokenizer`)
    trained on the agent instructions of every kind and prompt style, with Llama-3.1's named special
    tokens in their roles (:data:`LLAMA31_SPECIAL`) and the Llama-3.1 chat template TRL ships
    (``trl.chat_template_utils.llama3_1_chat_template``), so that every chat renders in Llama-3.1's
    format. Loads in milliseconds (Meta's: ~1.3 s, and ~1.5 s to fingerprint)."""
    from trl.chat_template_utils import llama3_1_chat_template

    from colbench_env import prompting

    corpus = [prompting.agent_instructions(kind, style) for kind in ("backend", "frontend")
              for style in prompting.PROMPT_STYLES]
    corpus.append("Cutting Knowledge Date: December 2023\nToday Date: 26 Jul 2024\n\n")
    return tiny_bpe_tokenizer(llama3_1_chat_template, vocab_size, corpus, special=LLAMA31_SPECIAL,
                              special_tokens=LLAMA31_SPECIAL_TOKENS)


def tiny_gguf(path, chat_template: str, hidden_size: int = 32, seed: int = 0) -> str:
    """A GGUF file (``gguf.GGUFWriter``) of a 1-layer Llama over :func:`tiny_bpe_tokenizer`'s 400 ids,
    float32 random weights, as llama.cpp's converter lays one out: the ``llama.*`` shape keys, the
    tokenizer as ``tokenizer.ggml.*`` (byte-level BPE: tokens, types, merges, special ids) and
    ``chat_template``. transformers reads it with ``from_pretrained(folder, gguf_file=name)`` in a
    fraction of a second (the embedded SmolLM2's 49,152-token GGUF takes ~25 s); returns ``path``."""
    import json

    import gguf
    import numpy as np

    tok = tiny_bpe_tokenizer(chat_template)
    model = json.loads(tok.backend_tokenizer.to_str())["model"]
    tokens = [t for t, _ in sorted(model["vocab"].items(), key=lambda kv: kv[1])]
    heads, kv_heads, ffn = 4, 2, 2 * hidden_size
    w = gguf.GGUFWriter(str(path), "llama")
    w.add_block_count(1)
    w.add_context_length(512)
    w.add_embedding_length(hidden_size)
    w.add_feed_forward_length(ffn)
    w.add_head_count(heads)
    w.add_head_count_kv(kv_heads)
    w.add_rope_freq_base(10000.0)
    w.add_layer_norm_rms_eps(1e-5)
    w.add_vocab_size(len(tokens))
    w.add_rope_dimension_count(hidden_size // heads)
    w.add_tokenizer_model("gpt2")
    w.add_token_list(tokens)
    w.add_token_types([3 if t in tok.all_special_tokens else 1 for t in tokens])  # 3: control, 1: normal
    w.add_token_merges([m if isinstance(m, str) else " ".join(m) for m in model["merges"]])
    w.add_bos_token_id(tok.bos_token_id)
    w.add_eos_token_id(tok.eos_token_id)
    w.add_unk_token_id(tok.unk_token_id)
    w.add_pad_token_id(tok.pad_token_id)
    w.add_add_bos_token(False)
    w.add_chat_template(chat_template)
    rng = np.random.default_rng(seed)
    kv_width = kv_heads * hidden_size // heads
    shapes = {"token_embd.weight": (len(tokens), hidden_size), "output_norm.weight": (hidden_size,),
              "blk.0.attn_norm.weight": (hidden_size,), "blk.0.ffn_norm.weight": (hidden_size,),
              "blk.0.attn_q.weight": (hidden_size, hidden_size), "blk.0.attn_k.weight": (kv_width, hidden_size),
              "blk.0.attn_v.weight": (kv_width, hidden_size), "blk.0.attn_output.weight": (hidden_size, hidden_size),
              "blk.0.ffn_gate.weight": (ffn, hidden_size), "blk.0.ffn_up.weight": (ffn, hidden_size),
              "blk.0.ffn_down.weight": (hidden_size, ffn)}
    for name, shape in shapes.items():
        w.add_tensor(name, (rng.standard_normal(shape) * 0.02).astype(np.float32))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return str(path)


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
