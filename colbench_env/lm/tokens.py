"""Token-exact turns: the token ids a policy saw and produced, recorded with each agent turn.

A policy's generation is text, but what it saw and what it sampled were token ids. Re-tokenizing
the text afterwards (what a trainer does with a text-only record) need not give them back: a chat
template may render an earlier turn differently from how it was generated (Qwen3 drops earlier
``<think>`` blocks), a template appends tokens after the end-of-turn token that the policy never
sampled (ChatML's ``"\\n"`` after ``<|im_end|>``), and byte-level BPE does not always encode a
decoded text back into the ids that were sampled. So each agent turn can carry its ids
(:class:`TurnTokens`), and the trainers train on them when they were made with the trainer's own
tokenizer (:func:`tokenizer_fingerprint`).

Where the ids come from: a local transformers model (:class:`~colbench_env.lm.hf.HFBackend`) always
has them; an OpenAI-compatible server gives them when it can (vLLM >= 0.10.2 answers
``"return_token_ids": true`` with the prompt's ids at the top of the reply and each choice's
``token_ids``); a server that cannot (``transformers serve``, OpenAI's API) gives only its token
counts (``usage``), which are kept too, so a trainer can still tell that its re-tokenization is not
what the policy saw.

Record schema: an agent entry of ``dialogue_history`` gets a ``"tokens"`` object
(:func:`encode_turn_tokens`; every key optional)::

    {"fingerprint": "9f2c0a1be4d3c5e7",  # tokenizer_fingerprint of the policy's tokenizer
     "prompt_from": 812,                 # the prompt's first 812 ids are those of the previous
                                         # agent turn's prompt + completion (0: none are)
     "prompt_ids": [...],                # the prompt's other ids
     "completion_ids": [...],            # what the policy generated, its end-of-turn token included
                                         # when it sampled one (none for a generation cut at
                                         # max_new_tokens)
     "logprobs": [...],                  # when asked for: one per completion id
     "n_prompt": 32, "n_completion": 37} # a server's token counts, only when it gave no ids

``prompt_from`` keeps a record linear in its length: with a chat format whose every context extends
the previous one (the previous turn's completion, then the human's reply), each turn stores only its
new tokens. :func:`history_turn_tokens` rebuilds every turn's whole prompt.
"""
from __future__ import annotations

import hashlib
import json
import threading
from dataclasses import dataclass
from typing import Any, Sequence

__all__ = ["TurnTokens", "TokenRecordError", "tokenizer_fingerprint", "encode_turn_tokens", "history_turn_tokens",
           "TOKENS_FIELD"]

#: the agent entry's field holding its :class:`TurnTokens` (:func:`encode_turn_tokens`)
TOKENS_FIELD = "tokens"

#: hex digits of sha256 kept in a fingerprint (64 bits: tells tokenizers apart, 18 characters a turn)
_FINGERPRINT_HEX = 16


class TokenRecordError(ValueError):
    """A malformed ``tokens`` field of a dialogue entry; the message names the field."""


@dataclass
class TurnTokens:
    """What one agent turn's policy saw and produced, as token ids.

    Attributes:
        prompt_ids: the whole prompt (chat template applied, generation prompt included), or
            ``None`` when the backend gave none.
        completion_ids: the generated ids up to and including the one that ended the generation
            (an end-of-turn token, or the token completing a stop string); ``None`` when unknown.
        logprobs: the log-prob of each completion id as the backend reported it (a local model:
            under the model at temperature 1; vLLM: its ``logprobs`` mode, raw by default), or ``None``.
        fingerprint: :func:`tokenizer_fingerprint` of the tokenizer that made ``prompt_ids``, or
            ``None`` when the agent does not know its tokenizer.
        n_prompt, n_completion: token counts a server reported without the ids (its ``usage``).
    """

    prompt_ids: list[int] | None = None
    completion_ids: list[int] | None = None
    logprobs: list[float] | None = None
    fingerprint: str | None = None
    n_prompt: int | None = None
    n_completion: int | None = None

    @property
    def has_ids(self) -> bool:
        """Whether both the prompt's and the completion's ids are known."""
        return self.prompt_ids is not None and self.completion_ids is not None

    def full_ids(self) -> list[int] | None:
        """``prompt_ids + completion_ids`` (``None`` unless :attr:`has_ids`)."""
        return list(self.prompt_ids) + list(self.completion_ids) if self.has_ids else None


def tokenizer_fingerprint(tokenizer: Any) -> str:
    """A short hash (16 hex digits of sha256) of what decides how ``tokenizer`` turns a chat into ids.

    It covers the tokenization pipeline -- for a fast tokenizer its whole serialized state
    (vocabulary, merges, added and special tokens with their flags, normalizer, pre-tokenizer,
    post-processor, decoder), otherwise its class and vocabulary (added tokens included) --, the chat
    template, and the special tokens a template writes (``bos_token``, ``eos_token``, ``unk_token``).
    Left out, because they do not change the ids of one chat: padding and truncation settings, the
    pad token (set at run time by :class:`~colbench_env.lm.hf.HFBackend` and the trainers), the
    padding side, ``model_max_length``. The same tokenizer files give the same fingerprint in any
    process; a changed chat template or vocabulary gives another.

    Computed as: sha256 of the JSON (sorted keys, ``ensure_ascii=False``) of ``{"tokenizer": the
    serialized state without its ``padding`` and ``truncation``, "chat_template": ...,
    "special": {name: str(token)}}``. A fast tokenizer's value is remembered per process under the
    sha256 of its current serialization (``backend_tokenizer.to_str()``), chat template and special
    tokens -- everything the value is computed from, read afresh on every call --, so an unchanged
    tokenizer (the same object again, or the same files loaded again) costs one serialization (a
    few hundredths of a second for a 49k-token BPE) instead of re-encoding its whole state as sorted
    JSON, and any change to it (an added token, another template or normalizer) is another key.
    """
    backend = getattr(tokenizer, "backend_tokenizer", None)
    template = getattr(tokenizer, "chat_template", None)
    special = {k: str(getattr(tokenizer, k, None)) for k in ("bos_token", "eos_token", "unk_token")}
    if backend is None or not hasattr(backend, "to_str"):
        pipeline = {"class": type(tokenizer).__name__, "vocab": sorted(tokenizer.get_vocab().items())}
        return _fingerprint_of(pipeline, template, special)
    raw = backend.to_str()
    key = hashlib.sha256(raw.encode("utf-8"))
    key.update(b"\0" + json.dumps([template, special], sort_keys=True, ensure_ascii=False, default=str).encode("utf-8"))
    key = key.hexdigest()
    fp = _FINGERPRINTS.get(key)
    if fp is None:
        state = json.loads(raw)
        state.pop("padding", None)
        state.pop("truncation", None)
        fp = _fingerprint_of(state, template, special)
        with _FINGERPRINTS_LOCK:
            _FINGERPRINTS[key] = fp
            while len(_FINGERPRINTS) > _FINGERPRINTS_KEPT:
                _FINGERPRINTS.pop(next(iter(_FINGERPRINTS)))
    return fp


def _fingerprint_of(pipeline: Any, template: Any, special: dict) -> str:
    """:func:`tokenizer_fingerprint`'s hash of a tokenization pipeline, chat template and special tokens."""
    blob = json.dumps({"tokenizer": pipeline, "chat_template": template, "special": special},
                      sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()[:_FINGERPRINT_HEX]


#: :func:`tokenizer_fingerprint`'s remembered values: sha256 of (serialization, template, special
#: tokens) -> fingerprint, the oldest dropped beyond :data:`_FINGERPRINTS_KEPT`
_FINGERPRINTS: dict[str, str] = {}
_FINGERPRINTS_KEPT = 64
_FINGERPRINTS_LOCK = threading.Lock()


def _common_prefix(a: Sequence[int], b: Sequence[int]) -> int:
    n = min(len(a), len(b))
    for i in range(n):
        if a[i] != b[i]:
            return i
    return n


def encode_turn_tokens(tokens: TurnTokens, previous: TurnTokens | None = None) -> dict:
    """The record field of ``tokens`` (module docstring): the prompt as its ids after the longest
    prefix it shares with ``previous`` (the previous agent turn's, when it had ids from the same
    tokenizer) and that prefix's length ``prompt_from``."""
    out: dict[str, Any] = {}
    if tokens.fingerprint is not None:
        out["fingerprint"] = tokens.fingerprint
    if tokens.prompt_ids is not None:
        before = previous.full_ids() if previous is not None and previous.fingerprint == tokens.fingerprint else None
        shared = _common_prefix(before, tokens.prompt_ids) if before is not None else 0
        out["prompt_from"] = shared
        out["prompt_ids"] = [int(i) for i in tokens.prompt_ids[shared:]]
    if tokens.completion_ids is not None:
        out["completion_ids"] = [int(i) for i in tokens.completion_ids]
    if tokens.logprobs is not None:
        out["logprobs"] = [float(x) for x in tokens.logprobs]
    if tokens.n_prompt is not None and tokens.prompt_ids is None:
        out["n_prompt"] = int(tokens.n_prompt)
    if tokens.n_completion is not None and tokens.completion_ids is None:
        out["n_completion"] = int(tokens.n_completion)
    return out


def _ints(value: Any, where: str) -> list[int]:
    if not isinstance(value, list) or not all(isinstance(i, int) and not isinstance(i, bool) and i >= 0 for i in value):
        raise TokenRecordError(f"field '{where}' must be a list of token ids (ints >= 0)")
    return value


def _count(value: Any, where: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise TokenRecordError(f"field '{where}' must be an int >= 0, got {value!r}")
    return value


def history_turn_tokens(history: Sequence[dict]) -> list[TurnTokens | None]:
    """The :class:`TurnTokens` of each assistant entry of ``history`` (in order; ``None`` for an entry
    without a ``tokens`` field), every prompt rebuilt whole from ``prompt_from``.

    Raises:
        TokenRecordError: a malformed field, named as ``dialogue_history[i].tokens.<key>``.
    """
    out: list[TurnTokens | None] = []
    previous: TurnTokens | None = None
    for i, entry in enumerate(history):
        if not isinstance(entry, dict) or entry.get("role") != "assistant":
            continue
        raw = entry.get(TOKENS_FIELD)
        if raw is None:
            out.append(None)
            previous = None
            continue
        where = f"dialogue_history[{i}].{TOKENS_FIELD}"
        if not isinstance(raw, dict):
            raise TokenRecordError(f"field '{where}' must be an object")
        t = TurnTokens()
        fp = raw.get("fingerprint")
        if fp is not None and not isinstance(fp, str):
            raise TokenRecordError(f"field '{where}.fingerprint' must be a string")
        t.fingerprint = fp
        if "prompt_ids" in raw:
            rest = _ints(raw["prompt_ids"], f"{where}.prompt_ids")
            shared = _count(raw.get("prompt_from", 0), f"{where}.prompt_from")
            before = previous.full_ids() if previous is not None else None
            if shared and (before is None or len(before) < shared or previous.fingerprint != fp):
                raise TokenRecordError(f"field '{where}.prompt_from' is {shared}, but the previous agent turn has no "
                                       f"{shared} token ids of the same tokenizer to share")
            t.prompt_ids = (before[:shared] if shared else []) + list(rest)
        if "completion_ids" in raw:
            t.completion_ids = list(_ints(raw["completion_ids"], f"{where}.completion_ids"))
        if "logprobs" in raw:
            lps = raw["logprobs"]
            if not isinstance(lps, list) or not all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in lps):
                raise TokenRecordError(f"field '{where}.logprobs' must be a list of numbers")
            if t.completion_ids is not None and len(lps) != len(t.completion_ids):
                raise TokenRecordError(f"field '{where}.logprobs' has {len(lps)} values for "
                                       f"{len(t.completion_ids)} completion ids")
            t.logprobs = [float(x) for x in lps]
        for key in ("n_prompt", "n_completion"):
            if key in raw:
                setattr(t, key, _count(raw[key], f"{where}.{key}"))
        out.append(t)
        previous = t
    return out
