"""The LM backend interface, shared by simulators and agents.

A backend turns chat conversations (lists of ``{"role", "content"}`` messages; ``content`` may be
a list of OpenAI-style parts ``{"type": "text"|"image_url", ...}`` for multimodal backends) into
generations.
"""
from __future__ import annotations

import threading
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, Sequence

__all__ = ["Generation", "GeneratedText", "FINISH_REASONS", "finish_reason_of", "SamplingParams", "LMBackend", "BackendError"]


#: guards every backend's token count (counts are rare, short updates)
_COUNT_LOCK = threading.Lock()


class BackendError(RuntimeError):
    """The backend could not generate (unreachable server, garbage answer, ...). Never silent."""


def derived_seed(seed: int, *keys: int) -> int:
    """A seed in ``[0, 2**31)`` for ``keys`` (e.g. a call counter) under ``seed``: deterministic, and
    statistically independent of the seeds for other keys (numpy's ``SeedSequence`` hash), so
    streams drawn from ``derived_seed(s, 0)``, ``derived_seed(s, 1)``, ... do not overlap or repeat."""
    import numpy as np

    return int(np.random.SeedSequence([int(seed), *map(int, keys)]).generate_state(1)[0] & 0x7FFFFFFF)


@dataclass
class SamplingParams:
    """Generation settings.

    Attributes:
        max_new_tokens: most tokens generated per conversation.
        temperature: 0 means greedy.
        top_p: nucleus sampling mass.
        n: generations per conversation (returned consecutively).
        seed: seed for sampling (reproducible where the backend allows it). It fixes one call:
            :class:`~colbench.agents.base.LMAgent` derives a fresh one per call (:func:`derived_seed`), so
            successive turns do not reuse the same random numbers.
        stop: strings that end a generation (not included in the text).
        return_logprobs: also return the generated token ids and their log-probs (a backend that
            cannot is an error).
        return_token_ids: also return the prompt's and the generation's token ids where the backend
            can give them (``Generation.prompt_token_ids`` / ``token_ids``; a server that gives none
            is no error: its token counts are returned instead, see
            :class:`~colbench_env.lm.openai_compat.OpenAICompatBackend`).
    """

    max_new_tokens: int = 256
    temperature: float = 0.0
    top_p: float = 1.0
    n: int = 1
    seed: int | None = None
    stop: Sequence[str] = ()
    return_logprobs: bool = False
    return_token_ids: bool = False

    def __post_init__(self) -> None:
        if self.max_new_tokens < 1:
            raise ValueError(f"max_new_tokens must be >= 1, got {self.max_new_tokens}")
        if self.temperature < 0:
            raise ValueError(f"temperature must be >= 0, got {self.temperature}")
        if not 0 < self.top_p <= 1:
            raise ValueError(f"top_p must be in (0, 1], got {self.top_p}")
        if self.n < 1:
            raise ValueError(f"n must be >= 1, got {self.n}")


#: why a generation ended: an end token or stop string (``"stop"``), or ``max_new_tokens`` (``"length"``)
FINISH_REASONS = ("stop", "length")


class GeneratedText(str):
    """A generation's text that remembers why it ended (``finish_reason``: ``"stop"``, ``"length"``
    or ``None`` when unknown) and, when known, the token ids its policy saw and produced (``tokens``,
    a :class:`~colbench_env.lm.tokens.TurnTokens`). It is a ``str`` everywhere (Gymnasium ``Text``
    actions, JSON, ``==``); the environment records both on the dialogue entry (``"finish_reason"``,
    ``"tokens"``), and the trainers use them: an action cut at ``max_new_tokens`` has no end-of-turn
    token from the policy, so the one the chat template appends is context, not trained
    (:func:`colbench.agents.tokenize.tokenize_turn`); recorded ids are trained as they are
    (:mod:`colbench.agents.tokenize`).
    """

    finish_reason: str | None
    tokens: Any

    def __new__(cls, text: str, finish_reason: str | None = None, tokens: Any = None) -> "GeneratedText":
        obj = super().__new__(cls, text)
        obj.finish_reason = finish_reason
        obj.tokens = tokens
        return obj

    def __reduce__(self):  # pickles (multiprocessing, checkpoints) with its reason and tokens
        return (GeneratedText, (str(self), self.finish_reason, self.tokens))


def finish_reason_of(action) -> str | None:
    """The ``finish_reason`` an action carries (:class:`GeneratedText`), else ``None``."""
    reason = getattr(action, "finish_reason", None)
    return reason if reason in FINISH_REASONS else None


@dataclass
class Generation:
    """One generated reply.

    Attributes:
        text: the generated text (stop string excluded).
        token_ids: generated token ids (when requested and available).
        logprobs: log-prob of each generated token under the sampling distribution's model.
        finish_reason: ``"stop"`` or ``"length"``.
        meta: backend-specific extras (a server's ``usage`` counts: ``meta["usage"]``).
        prompt_token_ids: the prompt's token ids, chat template applied (when requested and available).
    """

    text: str
    token_ids: list[int] | None = None
    logprobs: list[float] | None = None
    finish_reason: str | None = None
    meta: dict = field(default_factory=dict)
    prompt_token_ids: list[int] | None = None


class LMBackend(ABC):
    """Generates chat replies. Implementations: :class:`~colbench_env.lm.hf.HFBackend` (local
    transformers, default SmolLM2-135M-Instruct) and
    :class:`~colbench_env.lm.openai_compat.OpenAICompatBackend` (vLLM or any
    OpenAI-compatible server).

    ``batched``: whether one :meth:`generate` call for many conversations is much faster than one
    call each (a local model: true, the default) -- then a rollout runner gathers its callers'
    conversations into batches made from one thread; or whether :meth:`generate` may be called
    from many threads at once, one conversation each (an HTTP client: false). See
    :mod:`colbench_env.rollout`.

    ``generated_tokens``: the tokens generated since the backend was made (each returned
    generation's, up to and including the token that ended it; a server's own ``usage`` count), read
    by progress displays (tokens per second); ``None`` while the backend cannot count them (a server
    that reports no ``usage``)."""

    batched: bool = True
    generated_tokens: int | None = None

    def _count_tokens(self, n: int) -> None:
        """Add ``n`` generated tokens to :attr:`generated_tokens` (thread-safe)."""
        with _COUNT_LOCK:
            self.generated_tokens = (self.generated_tokens or 0) + n

    @abstractmethod
    def generate(self, conversations: Sequence[Sequence[dict]], params: SamplingParams | None = None) -> list[Generation]:
        """Generate for each conversation; returns ``len(conversations) * params.n`` generations,
        the ``n`` of conversation ``i`` at ``[i*n:(i+1)*n]``."""

    def generate_one(self, conversation: Sequence[dict], params: SamplingParams | None = None) -> str:
        return self.generate([conversation], params)[0].text

    def config(self) -> dict:
        """JSON-serialisable identity (for caches and logs)."""
        return {"class": type(self).__name__}

    def close(self) -> None:
        """Release resources."""
