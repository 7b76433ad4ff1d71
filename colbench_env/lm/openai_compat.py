"""A backend for any OpenAI-compatible chat-completions server (vLLM, llama.cpp, TGI, OpenAI, ...).

Only the standard library is used (``urllib`` + a thread pool): no ``openai`` package needed.
"""
from __future__ import annotations

import base64
import http.client
import io
import json
import os
import socket
import threading
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Sequence

from .base import BackendError, Generation, LMBackend, SamplingParams

__all__ = ["OpenAICompatBackend", "image_to_data_url"]

#: HTTP statuses worth retrying (rate limit, server trouble).
RETRY_STATUSES = frozenset({408, 429, 500, 502, 503, 504})
_MAX_BACKOFF_S = 30.0


def image_to_data_url(image: Any, format: str = "PNG") -> str:
    """A ``data:`` URL holding ``image`` (a ``PIL.Image``), for ``image_url`` content parts::

        {"type": "image_url", "image_url": {"url": image_to_data_url(img)}}
    """
    if not hasattr(image, "save"):
        raise TypeError(f"image_to_data_url needs a PIL.Image, got {type(image).__name__}")
    fmt = format.upper()
    buf = io.BytesIO()
    img = image.convert("RGB") if fmt == "JPEG" and getattr(image, "mode", "RGB") != "RGB" else image
    img.save(buf, format=fmt)
    mime = {"JPG": "jpeg"}.get(fmt, fmt.lower())
    return f"data:image/{mime};base64,{base64.b64encode(buf.getvalue()).decode('ascii')}"


class _Retryable(Exception):
    """A transient failure: retried with backoff, reported when retries run out."""

    def __init__(self, message: str, retry_after: float | None = None):
        super().__init__(message)
        self.retry_after = retry_after


class OpenAICompatBackend(LMBackend):
    """Chat generation through ``POST {base_url}/chat/completions``.

    Args:
        base_url: the API root, e.g. ``"http://localhost:8000/v1"``.
        model: the model name the server expects.
        api_key: bearer token; default ``$OPENAI_API_KEY`` (none sent when unset).
        timeout_s: per-request socket timeout.
        max_retries: retries after the first attempt, for timeouts, connection errors (refused,
            reset, closed without reply), HTTP 408/429/5xx. Other HTTP errors fail at once.
        backoff_s: the first retry waits ``backoff_s``, then doubling (a 429's ``Retry-After`` is
            honoured when longer), capped at 30 s.
        max_concurrency: most requests in flight at once when generating for many conversations.
        extra_body: extra JSON fields sent with every request (e.g. vLLM's ``{"top_k": 20}``).

    Request body: ``model``, ``messages`` (passed through unchanged, so multimodal content parts
    with ``image_url`` data URLs work), ``max_tokens``, ``temperature``, ``top_p``, ``n``, ``stop``
    (when set), ``seed`` (when set), ``logprobs: true`` (when ``return_logprobs``).

    A server answering fewer than ``n`` choices (some ignore ``n``) is asked again for the rest
    (with ``seed + i * n + k`` for conversation ``i`` of the call when a seed is set). ``Generation.logprobs`` come from the response's
    ``choices[i].logprobs.content[*].logprob`` (the server's sampling log-probs; token strings in
    ``meta["tokens"]``; no token ids in the OpenAI format).

    Raises (from :meth:`generate`):
        BackendError: naming the URL, when the server is unreachable after the retries, answers a
            non-retryable HTTP error, or answers garbage (non-JSON, no ``choices``, empty content,
            missing log-probs when requested). An empty reply is never returned silently.
    """

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key: str | None = None,
        timeout_s: float = 60.0,
        max_retries: int = 4,
        backoff_s: float = 0.5,
        max_concurrency: int = 8,
        extra_body: dict | None = None,
    ) -> None:
        if not isinstance(base_url, str) or not base_url.startswith(("http://", "https://")):
            raise ValueError(f"base_url must be an http(s) URL such as 'http://localhost:8000/v1', got {base_url!r}")
        if not isinstance(model, str) or not model:
            raise ValueError(f"model must be a non-empty string, got {model!r}")
        if not timeout_s > 0:
            raise ValueError(f"timeout_s must be > 0, got {timeout_s!r}")
        if not isinstance(max_retries, int) or max_retries < 0:
            raise ValueError(f"max_retries must be an int >= 0, got {max_retries!r}")
        if backoff_s < 0:
            raise ValueError(f"backoff_s must be >= 0, got {backoff_s!r}")
        if not isinstance(max_concurrency, int) or max_concurrency < 1:
            raise ValueError(f"max_concurrency must be an int >= 1, got {max_concurrency!r}")
        self.base_url = base_url.rstrip("/")
        self.url = self.base_url + "/chat/completions"
        self.model = model
        self.api_key = api_key if api_key is not None else os.environ.get("OPENAI_API_KEY")
        self.timeout_s = float(timeout_s)
        self.max_retries = max_retries
        self.backoff_s = float(backoff_s)
        self.max_concurrency = max_concurrency
        self.extra_body = dict(extra_body or {})
        self._pool: ThreadPoolExecutor | None = None
        self._lock = threading.Lock()

    # ------------------------------------------------------------------ HTTP
    def _post_once(self, body: dict) -> dict:
        data = json.dumps(body).encode("utf-8")
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        req = urllib.request.Request(self.url, data=data, headers=headers, method="POST")
        try:
            with urllib.request.urlopen(req, timeout=self.timeout_s) as resp:
                raw = resp.read()
        except urllib.error.HTTPError as e:
            detail = e.read()[:300].decode("utf-8", "replace") if e.fp is not None else ""
            if e.code in RETRY_STATUSES:
                retry_after = None
                try:
                    retry_after = float(e.headers.get("Retry-After")) if e.headers.get("Retry-After") else None
                except ValueError:
                    pass
                raise _Retryable(f"HTTP {e.code} {detail!r}", retry_after) from None
            raise BackendError(f"{self.url} answered HTTP {e.code}: {detail}") from None
        except urllib.error.URLError as e:
            raise _Retryable(f"connection failed ({e.reason})") from None
        except (socket.timeout, TimeoutError) as e:
            raise _Retryable(f"timed out after {self.timeout_s:g} s ({e})") from None
        except (http.client.HTTPException, ConnectionError, OSError) as e:
            raise _Retryable(f"connection error ({type(e).__name__}: {e})") from None
        try:
            return json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError):
            raise BackendError(f"{self.url} answered a body that is not JSON: {raw[:200]!r}") from None

    def _post(self, body: dict) -> dict:
        attempt = 0
        while True:
            try:
                return self._post_once(body)
            except _Retryable as e:
                if attempt >= self.max_retries:
                    raise BackendError(f"{self.url} failed after {attempt + 1} attempt(s): {e}") from None
                wait = min(self.backoff_s * (2 ** attempt), _MAX_BACKOFF_S)
                if e.retry_after is not None:
                    wait = min(max(wait, e.retry_after), _MAX_BACKOFF_S)
                time.sleep(wait)
                attempt += 1

    # ------------------------------------------------------------------ parsing
    def _parse_choice(self, choice: Any, params: SamplingParams, k: int) -> Generation:
        where = f"{self.url}: choice {k}"
        if not isinstance(choice, dict) or not isinstance(choice.get("message"), dict):
            raise BackendError(f"{where} has no 'message' object: {json.dumps(choice)[:200]}")
        content = choice["message"].get("content")
        if isinstance(content, list):  # some servers answer content parts
            content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
        if not isinstance(content, str) or not content.strip():
            raise BackendError(f"{where} has empty content (finish_reason={choice.get('finish_reason')!r})")
        text = content
        for s in params.stop:
            if s and s in text:
                text = text[: text.index(s)]
        finish = choice.get("finish_reason")
        gen = Generation(text=text, finish_reason="length" if finish == "length" else "stop")
        if params.return_logprobs:
            lp = choice.get("logprobs")
            items = lp.get("content") if isinstance(lp, dict) else None
            if not isinstance(items, list) or not all(isinstance(i, dict) and "logprob" in i for i in items):
                raise BackendError(f"{where}: log-probs were requested but the answer has no "
                                   f"'logprobs.content[*].logprob' (does the server support logprobs?)")
            gen.logprobs = [float(i["logprob"]) for i in items]
            gen.meta["tokens"] = [i.get("token") for i in items]
        return gen

    def _complete(self, conversation: Sequence[dict], params: SamplingParams, index: int = 0) -> list[Generation]:
        gens: list[Generation] = []
        asks = 0
        while len(gens) < params.n:
            body: dict[str, Any] = {
                "model": self.model,
                "messages": list(conversation),
                "max_tokens": params.max_new_tokens,
                "temperature": params.temperature,
                "top_p": params.top_p,
                "n": params.n - len(gens),
            }
            if params.stop:
                body["stop"] = list(params.stop)
            if params.seed is not None:
                # conversation ``index`` of the call owns seeds seed + index*n .. + n-1: two identical
                # conversations in one call (k rollouts of a task) must not get identical samples
                body["seed"] = params.seed + index * params.n + asks
            if params.return_logprobs:
                body["logprobs"] = True
            body.update(self.extra_body)
            reply = self._post(body)
            choices = reply.get("choices") if isinstance(reply, dict) else None
            if not isinstance(choices, list) or not choices:
                raise BackendError(f"{self.url} answered JSON without 'choices': {json.dumps(reply)[:200]}")
            gens.extend(self._parse_choice(c, params, len(gens) + i) for i, c in enumerate(choices))
            asks += 1
        return gens[: params.n]

    # ------------------------------------------------------------------ API
    def generate(self, conversations: Sequence[Sequence[dict]], params: SamplingParams | None = None) -> list[Generation]:
        """One request per conversation (``n`` choices each), at most ``max_concurrency`` in flight."""
        params = params or SamplingParams()
        if isinstance(conversations, (str, dict)):
            raise TypeError("generate takes a list of conversations (each a list of message dicts)")
        conversations = list(conversations)
        for i, conv in enumerate(conversations):
            if not isinstance(conv, (list, tuple)) or not all(isinstance(m, dict) and "role" in m for m in conv):
                raise BackendError(f"conversation {i}: expected a list of message dicts with 'role' and 'content'")
        if len(conversations) <= 1:
            return [g for i, c in enumerate(conversations) for g in self._complete(c, params, i)]
        with self._lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(max_workers=self.max_concurrency, thread_name_prefix="colbench-openai")
            pool = self._pool
        futures = [pool.submit(self._complete, c, params, i) for i, c in enumerate(conversations)]
        return [g for f in futures for g in f.result()]

    def config(self) -> dict:
        return {"class": type(self).__name__, "base_url": self.base_url, "model": self.model,
                "extra_body": self.extra_body}

    def close(self) -> None:
        with self._lock:
            if self._pool is not None:
                self._pool.shutdown(wait=True)
                self._pool = None
