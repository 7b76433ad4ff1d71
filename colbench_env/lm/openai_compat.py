"""A backend for any OpenAI-compatible chat-completions server (vLLM, llama.cpp, TGI, OpenAI, ...).

Only the standard library is used (``urllib`` + a thread pool): no ``openai`` package needed.
"""
from __future__ import annotations

import base64
import contextlib
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

from ..waits import waiting
from .base import BackendError, Generation, LMBackend, SamplingParams

__all__ = ["OpenAICompatBackend", "image_to_data_url", "split_base_urls", "FAILED_SERVER_PAUSE_S"]

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


def split_base_urls(base_url: Any) -> list[str]:
    """The server URLs of a ``base_url`` setting: one URL, several separated by commas, or a list
    of those (the command line's ``--...-base-url`` may be repeated or comma-separated).

    Raises:
        ValueError: no URL, or one that is not an ``http(s)://`` URL.
    """
    items = [base_url] if isinstance(base_url, str) else list(base_url) if isinstance(base_url, (list, tuple)) else None
    if items is None or not all(isinstance(u, str) for u in items):
        raise ValueError(f"base_url must be an http(s) URL such as 'http://localhost:8000/v1' (or several: a list or "
                         f"comma-separated), got {base_url!r}")
    urls = [u.strip().rstrip("/") for item in items for u in item.split(",") if u.strip()]
    bad = [u for u in urls if not u.startswith(("http://", "https://"))]
    if not urls or bad:
        raise ValueError(f"base_url must be an http(s) URL such as 'http://localhost:8000/v1' (or several: a list or "
                         f"comma-separated), got {(bad[0] if bad else base_url)!r}")
    if len(set(urls)) != len(urls):
        raise ValueError(f"base_url names a server twice: {', '.join(urls)}")
    return urls


class _Server:
    """One server's routing state (guarded by the backend's lock)."""

    __slots__ = ("url", "in_flight", "failed_at", "refused")

    def __init__(self, base_url: str):
        self.url = base_url + "/chat/completions"
        self.in_flight = 0
        self.failed_at: float | None = None
        #: optional request fields this server refused (:data:`OPTIONAL_FIELDS`): never sent to it again
        self.refused: set[str] = set()


#: request fields a server may refuse (HTTP 400/422 naming them): the request is then made again without
OPTIONAL_FIELDS = ("return_token_ids",)


class _Refused(Exception):
    """The server refused an optional request field (:data:`OPTIONAL_FIELDS`)."""

    def __init__(self, name: str):
        super().__init__(name)
        self.name = name


#: a server whose request failed (refused, timed out, 5xx/429) gets new requests only when every
#: other server also failed in the last this many seconds
FAILED_SERVER_PAUSE_S = 10.0


class OpenAICompatBackend(LMBackend):
    """Chat generation through ``POST {base_url}/chat/completions``, on one server or several.

    Args:
        base_url: the API root, e.g. ``"http://localhost:8000/v1"``; several servers of the same
            model: a list, or the URLs separated by commas (:func:`split_base_urls`).
        model: the model name the servers expect.
        api_key: bearer token; default ``$OPENAI_API_KEY`` (none sent when unset).
        timeout_s: per-request socket timeout.
        max_retries: retries after the first attempt, for timeouts, connection errors (refused,
            reset, closed without reply), HTTP 408/429/5xx. Other HTTP errors fail at once.
        backoff_s: once every server has failed the request, the next retry waits ``backoff_s``,
            then doubling (a 429's ``Retry-After`` is honoured when longer), capped at 30 s.
        max_concurrency: most requests in flight at once over all callers of this backend;
            ``None`` (the default): no limit of its own -- the callers set it:
            :func:`colbench_env.rollout.run_episodes` sends at most one request per episode in
            flight, and one :meth:`generate` call for many conversations sends them all at once.
        extra_body: extra JSON fields sent with every request (e.g. vLLM's ``{"top_k": 20}``).

    Several servers: each request goes to the server with the fewest requests of this backend in
    flight (the first listed on a tie), passing over one that failed in the last
    :data:`FAILED_SERVER_PAUSE_S` seconds while another has not. A request that fails there
    (refused, timed out, HTTP 408/429/5xx) is retried at once on the least busy server it has not
    tried yet, and after backoff once it has tried them all; when the retries run out the error
    names every server tried and why each failed.

    The model id each server reports (the ``model`` field of its replies: the served model, which
    may differ from the name requested, e.g. vLLM's ``--served-model-name`` alias or a proxy's
    routing) is kept in :attr:`reported_models`.

    Request body: ``model``, ``messages`` (passed through unchanged, so multimodal content parts
    with ``image_url`` data URLs work), ``max_tokens``, ``temperature``, ``top_p``, ``n``, ``stop``
    (when set), ``seed`` (when set), ``logprobs: true`` (when ``return_logprobs``),
    ``return_token_ids: true`` (when ``return_token_ids``; vLLM's field, >= 0.10.2).

    A server answering fewer than ``n`` choices (some ignore ``n``) is asked again for the rest
    (with ``seed + i * n + k`` for conversation ``i`` of the call when a seed is set). ``Generation.logprobs`` come from the response's
    ``choices[i].logprobs.content[*].logprob`` (the server's sampling log-probs; token strings in
    ``meta["tokens"]``; no token ids in the OpenAI format).

    Token ids (``return_token_ids``), as vLLM answers them: ``Generation.prompt_token_ids`` from the
    reply's top-level ``prompt_token_ids``, ``Generation.token_ids`` from each choice's
    ``token_ids``; a reply without them leaves them ``None``. A server that refuses
    the field (HTTP 400 or 422 naming ``return_token_ids``: ``transformers serve``, OpenAI's API) is
    asked again without it, and is not sent it again. Whenever a reply has one choice its ``usage``
    counts are kept in ``Generation.meta["usage"]`` (``prompt_tokens``, ``completion_tokens``).

    The backend is thread-safe (``batched`` is false: rollout episodes each send their own
    requests); the wait for a reply is marked with :func:`colbench_env.waits.waiting`.

    Raises (from :meth:`generate`):
        BackendError: naming the URL(s), when the servers are unreachable after the retries, answer
            a non-retryable HTTP error, or answer garbage (non-JSON, no ``choices``, empty content,
            missing log-probs when requested). An empty reply is never returned silently.
    """

    batched = False

    def __init__(
        self,
        base_url: str | Sequence[str],
        model: str,
        *,
        api_key: str | None = None,
        timeout_s: float = 60.0,
        max_retries: int = 4,
        backoff_s: float = 0.5,
        max_concurrency: int | None = None,
        extra_body: dict | None = None,
    ) -> None:
        urls = split_base_urls(base_url)
        if not isinstance(model, str) or not model:
            raise ValueError(f"model must be a non-empty string, got {model!r}")
        if not timeout_s > 0:
            raise ValueError(f"timeout_s must be > 0, got {timeout_s!r}")
        if not isinstance(max_retries, int) or max_retries < 0:
            raise ValueError(f"max_retries must be an int >= 0, got {max_retries!r}")
        if backoff_s < 0:
            raise ValueError(f"backoff_s must be >= 0, got {backoff_s!r}")
        if max_concurrency is not None and (not isinstance(max_concurrency, int) or max_concurrency < 1):
            raise ValueError(f"max_concurrency must be None or an int >= 1, got {max_concurrency!r}")
        self.base_urls = urls
        self.base_url = urls[0]
        self.url = self.base_url + "/chat/completions"
        self.model = model
        self.api_key = api_key if api_key is not None else os.environ.get("OPENAI_API_KEY")
        self.timeout_s = float(timeout_s)
        self.max_retries = max_retries
        self.backoff_s = float(backoff_s)
        self.max_concurrency = max_concurrency
        self.extra_body = dict(extra_body or {})
        self._servers = [_Server(u) for u in urls]
        self._slots = threading.BoundedSemaphore(max_concurrency) if max_concurrency else None
        self._pool: ThreadPoolExecutor | None = None
        self._lock = threading.Lock()
        self._reported: list[str] = []

    # ------------------------------------------------------------------ HTTP
    def _post_once(self, url: str, body: dict) -> dict:
        data = json.dumps(body).encode("utf-8")
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        req = urllib.request.Request(url, data=data, headers=headers, method="POST")
        try:
            with urllib.request.urlopen(req, timeout=self.timeout_s) as resp:
                raw = resp.read()
        except urllib.error.HTTPError as e:
            detail = e.read()[:300].decode("utf-8", "replace") if e.fp is not None else ""
            if e.code in (400, 422):
                for name in OPTIONAL_FIELDS:
                    if name in body and name in detail:
                        raise _Refused(name) from None
            if e.code in RETRY_STATUSES:
                retry_after = None
                try:
                    retry_after = float(e.headers.get("Retry-After")) if e.headers.get("Retry-After") else None
                except ValueError:
                    pass
                raise _Retryable(f"HTTP {e.code} {detail!r}", retry_after) from None
            raise BackendError(f"{url} answered HTTP {e.code}: {detail}") from None
        except urllib.error.URLError as e:
            raise _Retryable(f"connection failed ({e.reason})") from None
        except (socket.timeout, TimeoutError) as e:
            raise _Retryable(f"timed out after {self.timeout_s:g} s ({e})") from None
        except (http.client.HTTPException, ConnectionError, OSError) as e:
            raise _Retryable(f"connection error ({type(e).__name__}: {e})") from None
        try:
            return json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError):
            raise BackendError(f"{url} answered a body that is not JSON: {raw[:200]!r}") from None

    def _acquire(self, tried: dict) -> _Server:
        """The server for the next attempt (fewest in flight; see the class docstring), now counted
        as having one more request in flight."""
        now = time.monotonic()
        with self._lock:
            fresh = [s for s in self._servers if s.url not in tried] or self._servers
            server = min(fresh, key=lambda s: (s.failed_at is not None and now - s.failed_at < FAILED_SERVER_PAUSE_S,
                                               s.in_flight))  # min() keeps the first listed on a tie
            server.in_flight += 1
        return server

    def _release(self, server: _Server, *, failed: bool) -> None:
        with self._lock:
            server.in_flight -= 1
            server.failed_at = time.monotonic() if failed else None

    def _post(self, body: dict) -> tuple[dict, str]:
        """The parsed reply and the URL that gave it, after failover and retries."""
        tried: dict[str, _Retryable] = {}  # URL -> its last failure, in the order last tried
        sleeps = 0
        with waiting(), (self._slots or contextlib.nullcontext()):
            for attempt in range(self.max_retries + 1):
                server = self._acquire(tried)
                try:
                    reply = self._post_refusing(server, body)
                except _Retryable as e:
                    self._release(server, failed=True)
                    tried.pop(server.url, None)
                    tried[server.url] = e
                    if attempt == self.max_retries:
                        break
                    if len(tried) == len(self._servers):  # every server failed this request: back off
                        wait = min(self.backoff_s * (2 ** sleeps), _MAX_BACKOFF_S)
                        if e.retry_after is not None:
                            wait = min(max(wait, e.retry_after), _MAX_BACKOFF_S)
                        time.sleep(wait)
                        sleeps += 1
                    continue
                except BaseException:
                    self._release(server, failed=False)
                    raise
                self._release(server, failed=False)
                return reply, server.url
        attempts = self.max_retries + 1
        if len(tried) == 1:
            url, e = next(iter(tried.items()))
            raise BackendError(f"{url} failed after {attempts} attempt(s): {e}")
        raise BackendError(f"every server tried failed ({attempts} attempts): "
                           + "; ".join(f"{url}: {e}" for url, e in tried.items()))

    def _post_refusing(self, server: _Server, body: dict) -> dict:
        """:meth:`_post_once` without the optional fields ``server`` refused; a field it refuses now
        is remembered and the request made again without it."""
        while True:
            with self._lock:
                refused = set(server.refused)
            sent = {k: v for k, v in body.items() if k not in refused}
            try:
                return self._post_once(server.url, sent)
            except _Refused as e:
                with self._lock:
                    server.refused.add(e.name)

    # ------------------------------------------------------------------ parsing
    def _parse_choice(self, choice: Any, params: SamplingParams, k: int, url: str) -> Generation:
        where = f"{url}: choice {k}"
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
        if params.return_token_ids or params.return_logprobs:
            gen.token_ids = _token_ids(choice.get("token_ids"))
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
            if params.return_token_ids:
                body["return_token_ids"] = True
            body.update(self.extra_body)
            reply, url = self._post(body)
            usage = reply.get("usage") if isinstance(reply, dict) else None
            if isinstance(usage, dict) and isinstance(usage.get("completion_tokens"), int):
                self._count_tokens(usage["completion_tokens"])  # the server's count, for tokens per second
            self._note_reported(reply)
            choices = reply.get("choices") if isinstance(reply, dict) else None
            if not isinstance(choices, list) or not choices:
                raise BackendError(f"{url} answered JSON without 'choices': {json.dumps(reply)[:200]}")
            new = [self._parse_choice(c, params, len(gens) + i, url) for i, c in enumerate(choices)]
            if params.return_token_ids or params.return_logprobs:
                prompt_ids = _token_ids(reply.get("prompt_token_ids"))
                usage = _usage(reply.get("usage")) if len(choices) == 1 else None
                for g in new:
                    g.prompt_token_ids = list(prompt_ids) if prompt_ids is not None else None
                    if usage is not None:
                        g.meta["usage"] = usage
            gens.extend(new)
            asks += 1
        return gens[: params.n]

    def _note_reported(self, reply: Any) -> None:
        served = reply.get("model") if isinstance(reply, dict) else None
        if isinstance(served, str) and served:
            with self._lock:
                if served not in self._reported:
                    self._reported.append(served)

    @property
    def reported_models(self) -> list[str]:
        """The model ids the servers reported in their replies (``model`` of the JSON), in the order
        first seen; empty before the first reply (or when a server reports none)."""
        with self._lock:
            return list(self._reported)

    # ------------------------------------------------------------------ API
    def generate(self, conversations: Sequence[Sequence[dict]], params: SamplingParams | None = None) -> list[Generation]:
        """One request per conversation (``n`` choices each), all at once (at most ``max_concurrency``
        in flight when it is set); one conversation is sent from the calling thread."""
        params = params or SamplingParams()
        if isinstance(conversations, (str, dict)):
            raise TypeError("generate takes a list of conversations (each a list of message dicts)")
        conversations = list(conversations)
        for i, conv in enumerate(conversations):
            if not isinstance(conv, (list, tuple)) or not all(isinstance(m, dict) and "role" in m for m in conv):
                raise BackendError(f"conversation {i}: expected a list of message dicts with 'role' and 'content'")
        if len(conversations) <= 1:
            return [g for i, c in enumerate(conversations) for g in self._complete(c, params, i)]
        if self.max_concurrency is None:  # no limit of its own: every conversation at once
            with ThreadPoolExecutor(max_workers=len(conversations), thread_name_prefix="colbench-openai") as pool:
                return self._gather(pool, conversations, params)
        with self._lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(max_workers=self.max_concurrency, thread_name_prefix="colbench-openai")
            pool = self._pool
        return self._gather(pool, conversations, params)

    def _gather(self, pool: ThreadPoolExecutor, conversations: list, params: SamplingParams) -> list[Generation]:
        futures = [pool.submit(self._complete, c, params, i) for i, c in enumerate(conversations)]
        with waiting():
            return [g for f in futures for g in f.result()]

    def config(self) -> dict:
        # one server: its URL (as recorded before several were possible); several: the list
        return {"class": type(self).__name__, "base_url": self.base_url if len(self.base_urls) == 1 else self.base_urls,
                "model": self.model, "extra_body": self.extra_body}

    def close(self) -> None:
        with self._lock:
            if self._pool is not None:
                self._pool.shutdown(wait=True)
                self._pool = None


def _token_ids(value: Any) -> list[int] | None:
    """A reply's list of token ids, or ``None`` when it has none (absent, null, not a list of ints)."""
    if isinstance(value, list) and all(isinstance(i, int) and not isinstance(i, bool) and i >= 0 for i in value):
        return list(value)
    return None


def _usage(value: Any) -> dict | None:
    """``{"prompt_tokens", "completion_tokens"}`` of a reply's ``usage``, when both are counts."""
    if not isinstance(value, dict):
        return None
    out = {k: value.get(k) for k in ("prompt_tokens", "completion_tokens")}
    if all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in out.values()):
        return out
    return None
