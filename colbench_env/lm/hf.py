"""A local transformers backend (default: the embedded SmolLM2-135M-Instruct)."""
from __future__ import annotations

import os
from typing import Any, Sequence

from .base import BackendError, Generation, LMBackend, SamplingParams

__all__ = ["HFBackend"]

_DTYPES = ("float32", "float16", "bfloat16")


def _resolve_device(device: str) -> str:
    import torch

    if device == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if not isinstance(device, str) or not (device == "cpu" or device.startswith("cuda")):
        raise ValueError(f"device must be 'cpu', 'cuda', 'cuda:N' or 'auto', got {device!r}")
    if device.startswith("cuda") and not torch.cuda.is_available():
        raise ValueError(f"device {device!r} requested but torch sees no CUDA device")
    return device


def _resolve_dtype(dtype: Any, device: str):
    import torch

    if dtype is None:
        if device.startswith("cuda"):
            return torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float16
        return torch.float32
    if isinstance(dtype, torch.dtype):
        return dtype
    if isinstance(dtype, str):
        name = dtype.removeprefix("torch.")
        if name == "auto":
            return "auto"
        if name in _DTYPES:
            return getattr(torch, name)
    raise ValueError(f"dtype must be None, 'auto', one of {_DTYPES} or a torch.dtype, got {dtype!r}")


def _text_only(conversation: Sequence[dict], index: int) -> list[dict]:
    """Messages with plain-string content (text parts joined); image parts are refused."""
    out = []
    for j, msg in enumerate(conversation):
        if not isinstance(msg, dict) or "role" not in msg or "content" not in msg:
            raise BackendError(f"conversation {index}, message {j}: expected a dict with 'role' and 'content', got {msg!r:.200}")
        content = msg["content"]
        if isinstance(content, list):
            texts = []
            for part in content:
                kind = part.get("type") if isinstance(part, dict) else None
                if kind == "text":
                    texts.append(part.get("text", ""))
                else:
                    raise BackendError(f"conversation {index}, message {j}: HFBackend is text-only and cannot take a "
                                       f"{kind!r} content part (use an OpenAI-compatible multimodal server)")
            content = "\n".join(texts)
        elif not isinstance(content, str):
            raise BackendError(f"conversation {index}, message {j}: 'content' must be a str or a list of parts, "
                               f"got {type(content).__name__}")
        out.append({"role": msg["role"], "content": content})
    return out


class HFBackend(LMBackend):
    """Chat generation with a local ``transformers`` causal LM.

    Args:
        model: ``"smollm2"`` (the embedded SmolLM2-135M-Instruct, see
            :func:`~colbench_env.lm.smollm2.smollm2_path`), a local directory, a ``colbench train``
            checkpoint directory or a peft adapter (the base with the trained adapter merged; the
            tokenizer is the base's), a hub id (cached, or downloaded by users with network access;
            :func:`~colbench_env.lm.models.resolve_model`), or an already-loaded ``PreTrainedModel``
            (e.g. a peft model a trainer is updating; ``tokenizer`` is then required).
        tokenizer: a tokenizer or its path; default: loaded from ``model``'s path.
        device: ``"cpu"``, ``"cuda"``, ``"cuda:N"`` or ``"auto"`` (ignored for a loaded model).
        dtype: ``None`` (float32 on CPU, bfloat16/float16 on CUDA), ``"auto"``, ``"float32"``,
            ``"bfloat16"``, ``"float16"`` or a ``torch.dtype``.
        load_in_4bit: load with bitsandbytes NF4 4-bit weights (works on CPU with bitsandbytes >= 0.48).
        max_batch_size: most sequences (conversations x ``n``) generated in one forward batch.

    Generation semantics (:meth:`generate`):

    * prompts are built with the tokenizer's chat template (``add_generation_prompt=True``) and
      left-padded into batches, with the padding-aware attention mask, so batched greedy
      generation equals one-at-a-time greedy generation;
    * ``temperature == 0``: greedy decoding; ``n > 1`` copies of the same text are returned;
    * only :class:`SamplingParams` decide the decoding: the model's own ``generation_config``
      defaults (a hub model's ``top_k``, ``repetition_penalty``, ...) are not applied;
    * ``temperature > 0``: sampling with ``temperature`` and ``top_p`` (no top-k); with ``seed``
      the call is reproducible (same conversations, same ``max_batch_size``); the seed is applied
      inside a forked RNG, so the global torch RNG is left untouched;
    * generation ends at the tokenizer's end-of-sequence / end-of-turn token or at a ``stop``
      string; the text excludes both (it is cut before the stop string's first occurrence);
    * ``return_logprobs``: ``token_ids`` are the generated tokens up to and including the one
      that ended the generation (end-of-turn token, or the token completing a stop string), and
      ``logprobs[i]`` is ``log softmax(raw model logits)[token_ids[i]]``: the log-probability
      under the model itself at temperature 1 without top-p, which is what a trainer recomputes
      with a forward pass (not the log-probability under the warped sampling distribution). It
      keeps every step's logits during the generation (``max_new_tokens x vocabulary`` floats a
      sequence);
    * ``return_token_ids`` (or ``return_logprobs``): ``token_ids`` as above (no logits kept) and
      ``prompt_token_ids``, the prompt's ids without padding (the chat template's text tokenized
      without special tokens added, as ``apply_chat_template(..., tokenize=True)`` gives them).

    Attributes:
        model: the ``PreTrainedModel`` (trainers may update it in place).
        tokenizer: its tokenizer (``padding_side`` left for generation).
    """

    def __init__(
        self,
        model: Any = "smollm2",
        *,
        tokenizer: Any = None,
        device: str = "cpu",
        dtype: Any = None,
        load_in_4bit: bool = False,
        max_batch_size: int = 8,
        trust_remote_code: bool = False,
    ) -> None:
        import torch

        if not isinstance(max_batch_size, int) or max_batch_size < 1:
            raise ValueError(f"max_batch_size must be a positive int, got {max_batch_size!r}")
        self.max_batch_size = max_batch_size
        self.load_in_4bit = bool(load_in_4bit)

        if isinstance(model, torch.nn.Module):
            if tokenizer is None:
                raise ValueError("HFBackend(model=<loaded model>) needs tokenizer= as well")
            self.model = model
            self.model_name = str(getattr(getattr(model, "config", None), "name_or_path", "") or type(model).__name__)
            self.device = str(next(model.parameters()).device)
        else:
            if not isinstance(model, (str, os.PathLike)):
                raise TypeError(f"model must be 'smollm2', a path, a hub id or a loaded model, got {type(model).__name__}")
            self.model_name = os.fspath(model)
            from .models import load_causal_lm, resolve_model

            source = resolve_model(self.model_name, option="model")  # a name, a directory, a checkpoint, a hub id
            path = source.path
            self.device = _resolve_device(device)
            torch_dtype = _resolve_dtype(dtype, self.device)
            kwargs: dict[str, Any] = {"dtype": torch_dtype, "trust_remote_code": trust_remote_code}
            if self.load_in_4bit:
                from transformers import BitsAndBytesConfig

                compute = torch_dtype if isinstance(torch_dtype, torch.dtype) else torch.float32
                kwargs["quantization_config"] = BitsAndBytesConfig(
                    load_in_4bit=True, bnb_4bit_quant_type="nf4", bnb_4bit_compute_dtype=compute)
                kwargs["device_map"] = {"": self.device}
            try:  # a trained adapter is merged into the weights, except into 4-bit ones (kept as a peft model)
                self.model = load_causal_lm(source, merge=not self.load_in_4bit, **kwargs)
            except OSError as e:
                raise BackendError(f"could not load model {self.model_name!r} (resolved to {path!r}): {e}") from e
            if not self.load_in_4bit:
                self.model.to(self.device)
            if tokenizer is None:
                tokenizer = source.tokenizer  # a checkpoint's or adapter's: its base's
        if isinstance(tokenizer, (str, os.PathLike)):
            from .models import tokenizer_from_pretrained

            tokenizer = tokenizer_from_pretrained(os.fspath(tokenizer), trust_remote_code=trust_remote_code)
        self.tokenizer = tokenizer
        if not getattr(self.tokenizer, "chat_template", None):
            raise ValueError(f"the tokenizer of {self.model_name!r} has no chat template; HFBackend needs a chat model")
        self.tokenizer.padding_side = "left"
        if self.tokenizer.pad_token is None:
            self.tokenizer.pad_token = self.tokenizer.eos_token
        # 4-bit layers keep the differentiable matmul: a trainer may be updating this very model
        from .quantization import keep_4bit_differentiable

        keep_4bit_differentiable(self.model)
        self.dtype = str(getattr(self.model, "dtype", ""))
        self._eos_ids = self._end_token_ids()
        self.model.eval()

    # ------------------------------------------------------------------ helpers
    def _end_token_ids(self) -> list[int]:
        ids: set[int] = set()
        cand = [self.tokenizer.eos_token_id, getattr(self.model.generation_config, "eos_token_id", None)]
        for c in cand:
            for i in (c if isinstance(c, (list, tuple)) else [c]):
                if isinstance(i, int) and i >= 0:
                    ids.add(i)
        for tok in ("<|im_end|>", "<|eot_id|>", "<|end|>"):
            i = self.tokenizer.convert_tokens_to_ids(tok)
            if isinstance(i, int) and i >= 0 and i != self.tokenizer.unk_token_id:
                ids.add(i)
        if not ids:
            raise ValueError(f"the tokenizer of {self.model_name!r} defines no end-of-sequence token")
        return sorted(ids)

    def prompt_texts(self, conversations: Sequence[Sequence[dict]]) -> list[str]:
        """The chat-templated prompt strings (generation prompt appended) for ``conversations``."""
        return [self.tokenizer.apply_chat_template(_text_only(c, i), add_generation_prompt=True, tokenize=False)
                for i, c in enumerate(conversations)]

    def _finish(self, tokens: list[int], logprobs: list[float] | None, stop: Sequence[str], want_ids: bool) -> Generation:
        """Cut a raw generated row at the end token / stop string and build the Generation."""
        end, reason = len(tokens), "length"
        eos = set(self._eos_ids)
        for i, t in enumerate(tokens):
            if t in eos:
                end, reason = i + 1, "stop"
                break
        decode = lambda ids: self.tokenizer.decode([t for t in ids if t not in eos], skip_special_tokens=True)
        text = decode(tokens[:end])
        hits = [text.find(s) for s in stop if s and s in text]
        if hits:
            text = text[: min(hits)]
            # the shortest prefix of tokens whose text contains a stop string
            for k in range(1, end + 1):
                if any(s and s in decode(tokens[:k]) for s in stop):
                    end, reason = k, "stop"
                    break
        gen = Generation(text=text, finish_reason=reason)
        self._count_tokens(end)
        if want_ids:
            gen.token_ids = list(tokens[:end])
            gen.logprobs = list(logprobs[:end]) if logprobs is not None else None
        return gen

    # ------------------------------------------------------------------ generation
    def generate(self, conversations: Sequence[Sequence[dict]], params: SamplingParams | None = None) -> list[Generation]:
        """See :class:`LMBackend.generate` and the class docstring for the semantics."""
        import torch

        params = params or SamplingParams()
        if isinstance(conversations, (str, dict)):
            raise TypeError("generate takes a list of conversations (each a list of message dicts)")
        conversations = list(conversations)
        if not conversations:
            return []
        texts = self.prompt_texts(conversations)
        prompt_ids = [list(self.tokenizer(t, add_special_tokens=False)["input_ids"]) for t in texts]
        lengths = [len(ids) for ids in prompt_ids]
        order = sorted(range(len(texts)), key=lambda i: -lengths[i])  # similar lengths share a batch
        sample = params.temperature > 0
        per_batch = max(1, self.max_batch_size // params.n) if sample else self.max_batch_size
        results: dict[int, list[Generation]] = {}

        was_training = self.model.training
        self.model.eval()
        try:
            with torch.random.fork_rng(devices=self._rng_devices(), enabled=sample and params.seed is not None):
                if sample and params.seed is not None:
                    torch.manual_seed(params.seed)
                for start in range(0, len(order), per_batch):
                    idx = order[start:start + per_batch]
                    gens = self._generate_batch([texts[i] for i in idx], params)
                    reps = params.n if sample else 1
                    for j, i in enumerate(idx):
                        chunk = gens[j * reps:(j + 1) * reps]
                        results[i] = chunk if sample else [chunk[0]] + [_copy(chunk[0]) for _ in range(params.n - 1)]
        finally:
            self.model.train(was_training)
        if params.return_token_ids or params.return_logprobs:
            for i, gens in results.items():
                for g in gens:
                    g.prompt_token_ids = list(prompt_ids[i])
        return [g for i in range(len(texts)) for g in results[i]]

    def _rng_devices(self) -> list:
        return [self.model.device] if str(self.device).startswith("cuda") else []

    def _generate_batch(self, texts: list[str], params: SamplingParams) -> list[Generation]:
        import torch
        from transformers import GenerationConfig

        enc = self.tokenizer(texts, return_tensors="pt", padding=True, add_special_tokens=False)
        enc = {k: v.to(self.model.device) for k, v in enc.items()}
        sample = params.temperature > 0
        cfg = GenerationConfig(
            max_new_tokens=params.max_new_tokens,
            do_sample=sample,
            temperature=params.temperature if sample else None,
            top_p=params.top_p if sample else None,
            top_k=0 if sample else None,
            num_return_sequences=params.n if sample else 1,
            eos_token_id=self._eos_ids,
            pad_token_id=self.tokenizer.pad_token_id,
            stop_strings=list(params.stop) or None,
            return_dict_in_generate=True,
            output_logits=params.return_logprobs,
        )
        # generate() fills every unset field of `cfg` from model.generation_config (a hub model's
        # top_k, repetition_penalty, ...): swap in a neutral one so SamplingParams alone decide.
        # (a peft model generates through its base model, whose config is the one that counts)
        holder = self.model.get_base_model() if hasattr(self.model, "get_base_model") else self.model
        saved = holder.generation_config
        holder.generation_config = GenerationConfig(eos_token_id=self._eos_ids, pad_token_id=self.tokenizer.pad_token_id)
        try:
            with torch.inference_mode():
                out = self.model.generate(**enc, generation_config=cfg,
                                          tokenizer=self.tokenizer if params.stop else None)
        except (RuntimeError, ValueError) as e:
            raise BackendError(f"generation with {self.model_name!r} failed: {e}") from e
        finally:
            holder.generation_config = saved
        new = out.sequences[:, enc["input_ids"].shape[1]:]
        lps = None
        if params.return_logprobs:
            steps = [torch.log_softmax(step.float(), dim=-1).gather(1, new[:, t:t + 1]).squeeze(1)
                     for t, step in enumerate(out.logits)]
            lps = torch.stack(steps, dim=1).tolist()
        rows = new.tolist()
        want_ids = params.return_logprobs or params.return_token_ids
        return [self._finish(row, lps[r] if lps is not None else None, params.stop, want_ids)
                for r, row in enumerate(rows)]

    def config(self) -> dict:
        return {"class": type(self).__name__, "model": self.model_name, "dtype": self.dtype,
                "load_in_4bit": self.load_in_4bit}

    def close(self) -> None:
        """Drop the model reference (frees memory once no one else holds it)."""
        self.model = None


def _copy(g: Generation) -> Generation:
    return Generation(text=g.text, token_ids=list(g.token_ids) if g.token_ids is not None else None,
                      logprobs=list(g.logprobs) if g.logprobs is not None else None,
                      finish_reason=g.finish_reason, meta=dict(g.meta),
                      prompt_token_ids=list(g.prompt_token_ids) if g.prompt_token_ids is not None else None)
