"""A small, real OpenAI-compatible HTTP server for the tests (``POST /v1/chat/completions``).

Replies are deterministic: choice ``i`` of a request is ``"ECHO[i] " + <last user message text>``
(plus ``" [K images]"`` when the last user message carries K ``image_url`` parts), cut before the
first ``stop`` string. Behaviour is selected by the request's ``model`` name:

* ``echo`` (or anything not listed): answer at once;
* ``slow:S``: sleep S seconds, then answer;
* ``jitter:S``: sleep between 0 and S seconds, a function of the request's messages only (the
  same request always waits as long), then answer;
* ``failon:WORD``: answer HTTP 400 (not retried) when WORD is in the request's messages;
* ``fail500:K`` / ``fail429:K`` / ``drop:K``: the first K requests of that model get HTTP 500 /
  HTTP 429 / a closed socket without any reply; later ones are answered;
* ``garbage``: answer 200 with a body that is not JSON;
* ``nochoices``: answer JSON without ``choices``; ``empty``: answer a choice with empty content;
* ``onechoice``: answer one choice whatever ``n`` is (as servers that ignore ``n`` do);
* ``strict``: refuse a request field outside OpenAI's chat-completions schema (vLLM's
  ``return_token_ids``, say) with HTTP 400 naming it, as OpenAI's API does
  (``"Unrecognized request argument supplied: NAME"``).

``OpenAITestServer(backend=...)`` generates with a local :class:`~colbench_env.lm.base.LMBackend`
(e.g. an :class:`~colbench_env.lm.hf.HFBackend` on a tiny model) instead of echoing, and answers as
vLLM (>= 0.10.2) does: ``usage`` counts, with ``"return_token_ids": true`` the prompt's ids at the top
of the reply (``prompt_token_ids``) and each choice's generated ids (``token_ids``, the end token
included), with ``"logprobs": true`` each generated token's log-prob in ``logprobs.content``.

``POST /v1/load_lora_adapter`` (vLLM's runtime LoRA loading) is recorded and answered as vLLM
answers: 200, or HTTP 400 "The lora adapter 'NAME' has already been loaded." for a name loaded
before; ``GET /v1/models`` lists the loaded adapters as vLLM does (``{"id": name, "root": path}``).

``OpenAITestServer(mode=...)`` gives every request that behaviour whatever its model (two servers of
one model that behave differently). ``OpenAITestServer(served_model=ID)`` reports ``ID`` as the
``model`` of its replies whatever name was requested (as vLLM does for a ``--served-model-name``
alias, or a proxy routing a name to a model); by default a reply reports the requested name.
``OpenAITestServer(answer=FN)`` answers each chat request with ``FN(body)`` as the content of every
choice when it returns a string (a test's scripted reviewer), else as above. The server counts requests per model, records every request body
and its headers, and tracks the most requests in flight at once; it accepts 128 pending connections
(a threaded server's default backlog of 5 refuses connections under a few dozen concurrent clients). Run it alone with ``python tests/openai_test_server.py [--port N]``.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class _Handler(BaseHTTPRequestHandler):
    server: "_Server"
    protocol_version = "HTTP/1.1"

    def log_message(self, format, *args):  # keep test output quiet
        pass

    def _send(self, status: int, payload: bytes, ctype: str = "application/json", headers: dict | None = None) -> None:
        self._done()  # before the client can have the answer (and send its next request)
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(payload)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(payload)

    def do_GET(self) -> None:  # noqa: N802
        if self.path.rstrip("/") != "/v1/models":
            self._send(404, b'{"error": "not found"}')
            return
        with self.server.state.lock:
            data = [{"id": k, "object": "model", "root": v} for k, v in self.server.state.adapters.items()]
        self._send(200, json.dumps({"object": "list", "data": data}).encode())

    def do_POST(self) -> None:  # noqa: N802 (http.server naming)
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        if self.path.rstrip("/") == "/v1/load_lora_adapter":  # vLLM's runtime LoRA loading: recorded
            req = json.loads(raw)
            with self.server.state.lock:
                self.server.state.requests.append(req)
                known = req.get("lora_name") in self.server.state.adapters
                if not known:
                    self.server.state.adapters[req.get("lora_name")] = req.get("lora_path")
            if known:
                self._send(400, json.dumps({"object": "error", "type": "InvalidUserInput", "code": 400, "message":
                                            f"The lora adapter '{req.get('lora_name')}' has already been loaded."}).encode())
            else:
                self._send(200, b"Success: LoRA adapter loaded.", ctype="text/plain")
            return
        if self.path.rstrip("/") != "/v1/chat/completions":
            self._send(404, b'{"error": "not found"}')
            return
        try:
            body = json.loads(raw)
        except json.JSONDecodeError:
            self._send(400, b'{"error": "bad json"}')
            return
        state = self.server.state
        model = str(body.get("model", "echo"))
        mode, _, arg = (self.server.mode or model).partition(":")
        with state.lock:
            state.counts[model] = state.counts.get(model, 0) + 1
            nth = state.counts[model]
            state.requests.append(body)
            state.headers.append(dict(self.headers))
            state.in_flight += 1
            state.max_in_flight = max(state.max_in_flight, state.in_flight)
        self._counted = True
        try:
            self._answer(body, mode, arg, nth)
        finally:
            self._done()

    def _done(self) -> None:
        """The request is no longer in flight (counted once)."""
        if getattr(self, "_counted", False):
            self._counted = False
            with self.server.state.lock:
                self.server.state.in_flight -= 1

    def _answer(self, body: dict, mode: str, arg: str, nth: int) -> None:
        if mode == "slow":
            time.sleep(float(arg or 1.0))
        elif mode == "jitter":
            digest = hashlib.sha256(json.dumps(body.get("messages"), sort_keys=True).encode()).digest()
            time.sleep(float(arg or 0.05) * int.from_bytes(digest[:4], "big") / 2 ** 32)
        elif mode == "failon" and arg in json.dumps(body.get("messages"), ensure_ascii=False):
            self._send(400, json.dumps({"error": f"refusing a request that mentions {arg!r}"}).encode())
            return
        elif mode in ("fail500", "fail429", "drop") and nth <= int(arg or 1):
            if mode == "drop":
                self.close_connection = True
                self.connection.shutdown(socket.SHUT_RDWR)
                return
            status = 500 if mode == "fail500" else 429
            self._send(status, b'{"error": "try again"}', headers={"Retry-After": "0"} if status == 429 else None)
            return
        elif mode == "garbage":
            self._send(200, b"<html>this is not json</html>", ctype="text/html")
            return
        elif mode == "nochoices":
            self._send(200, json.dumps({"id": "x", "object": "chat.completion"}).encode())
            return
        if mode == "strict":
            unknown = sorted(set(body) - OPENAI_FIELDS)
            if unknown:
                self._send(400, json.dumps({"error": {"message": f"Unrecognized request argument supplied: "
                                                                  f"{unknown[0]}", "type": "invalid_request_error",
                                                      "param": None, "code": None}}).encode())
                return
        if self.server.backend is not None:
            self._send(200, json.dumps(self._generated(body, nth)).encode())
            return
        n = 1 if mode == "onechoice" else int(body.get("n", 1))
        text = _last_user_text(body.get("messages", []))
        scripted = self.server.answer(body) if self.server.answer is not None else None
        choices = []
        for i in range(n):
            content = "" if mode == "empty" else scripted if scripted is not None else f"ECHO[{i}] {text}"
            for s in body.get("stop") or []:
                if s and s in content:
                    content = content[: content.index(s)]
            choice = {"index": i, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}
            if body.get("logprobs"):
                words = content.split(" ")
                choice["logprobs"] = {"content": [{"token": w, "logprob": -0.5 * (k + 1), "bytes": None,
                                                   "top_logprobs": []} for k, w in enumerate(words)]}
            choices.append(choice)
        payload = {"id": f"cmpl-{nth}", "object": "chat.completion", "created": 0,
                   "model": self.server.served_model or body.get("model"),
                   "choices": choices, "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}}
        self._send(200, json.dumps(payload).encode())


    def _generated(self, body: dict, nth: int) -> dict:
        """A reply of the server's backend, in vLLM's shape (module docstring)."""
        from colbench_env.lm.base import SamplingParams

        params = SamplingParams(max_new_tokens=int(body.get("max_tokens") or 16),
                                temperature=float(body.get("temperature", 1.0)), top_p=float(body.get("top_p", 1.0)),
                                n=int(body.get("n", 1)), seed=body.get("seed"), stop=tuple(body.get("stop") or ()),
                                return_logprobs=bool(body.get("logprobs")), return_token_ids=True)
        with self.server.backend_lock:  # a local model generates one request at a time
            gens = self.server.backend.generate([body["messages"]], params)
        tokenizer = getattr(self.server.backend, "tokenizer", None)
        choices = []
        for i, g in enumerate(gens):
            choice = {"index": i, "message": {"role": "assistant", "content": g.text}, "finish_reason": g.finish_reason}
            if body.get("return_token_ids"):
                choice["token_ids"] = g.token_ids
            if body.get("logprobs"):
                choice["logprobs"] = {"content": [{"token": tokenizer.decode([t]) if tokenizer is not None else str(t),
                                                   "logprob": lp, "bytes": None, "top_logprobs": []}
                                                  for t, lp in zip(g.token_ids, g.logprobs)]}
            choices.append(choice)
        reply = {"id": f"cmpl-{nth}", "object": "chat.completion", "created": 0,
                 "model": self.server.served_model or body.get("model"),
                 "choices": choices, "usage": {"prompt_tokens": len(gens[0].prompt_token_ids),
                                               "completion_tokens": sum(len(g.token_ids) for g in gens),
                                               "total_tokens": len(gens[0].prompt_token_ids)
                                               + sum(len(g.token_ids) for g in gens)}}
        if body.get("return_token_ids"):
            reply["prompt_token_ids"] = gens[0].prompt_token_ids
        return reply


#: the request fields of OpenAI's chat-completions API (mode ``strict`` refuses any other)
OPENAI_FIELDS = frozenset({"model", "messages", "max_tokens", "max_completion_tokens", "temperature", "top_p", "n",
                           "stop", "seed", "logprobs", "top_logprobs", "stream", "stream_options", "presence_penalty",
                           "frequency_penalty", "logit_bias", "user", "response_format", "tools", "tool_choice"})


def _last_user_text(messages: list) -> str:
    for msg in reversed(messages):
        if msg.get("role") != "user":
            continue
        content = msg.get("content")
        if isinstance(content, str):
            return content
        texts = [p.get("text", "") for p in content if p.get("type") == "text"]
        images = sum(1 for p in content if p.get("type") == "image_url")
        return " ".join(texts) + (f" [{images} images]" if images else "")
    return ""


class _State:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.counts: dict[str, int] = {}
        self.requests: list[dict] = []
        self.adapters: dict[str, str] = {}  # LoRA adapters loaded: name -> path
        self.headers: list[dict] = []
        self.in_flight = 0
        self.max_in_flight = 0


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128
    state: _State
    mode: str | None = None
    served_model: str | None = None
    answer = None
    backend = None
    backend_lock: threading.Lock

    def handle_error(self, request, client_address) -> None:
        """A client that hung up before its answer (a timeout test) is expected: no traceback."""
        if isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError)):
            return
        super().handle_error(request, client_address)


class OpenAITestServer:
    """The server on ``127.0.0.1`` (a free port), served from a background thread.

    Use as a context manager; :attr:`url` is the API root (``http://127.0.0.1:PORT/v1``).
    """

    def __init__(self, port: int = 0, *, mode: str | None = None, served_model: str | None = None,
                 answer=None, backend=None) -> None:
        self._httpd = _Server(("127.0.0.1", port), _Handler)
        self._httpd.state = _State()
        self._httpd.mode = mode
        self._httpd.served_model = served_model
        self._httpd.answer = answer
        self._httpd.backend = backend
        self._httpd.backend_lock = threading.Lock()
        self._thread: threading.Thread | None = None

    @property
    def state(self) -> _State:
        return self._httpd.state

    @property
    def port(self) -> int:
        return self._httpd.server_address[1]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> "OpenAITestServer":
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> "OpenAITestServer":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args()
    server = OpenAITestServer(args.port)
    print(server.url, flush=True)
    try:
        server._httpd.serve_forever(poll_interval=0.05)
    except KeyboardInterrupt:
        pass
    finally:
        server._httpd.server_close()


if __name__ == "__main__":
    main()
