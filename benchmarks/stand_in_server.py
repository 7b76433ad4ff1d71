"""A stand-in OpenAI-compatible server for the serving benchmark (``colbench.benchmarks.bench_rollout``), on
127.0.0.1, in a process of its own.

Each reply takes a lognormal time -- ``min(cap, median * exp(sigma * z))``, ``z`` a standard normal
drawn from a seed that is the hash of the request's messages, so a request always takes as long --
as LLM replies do (their lengths vary from a few tokens to the whole budget). What it says depends
on the ``model`` asked for:

* ``agent``: a ColBench agent turn; it asks ``1 + crc32(problem) % 4`` questions (one per turn),
  then answers with a function of the requested signature that returns 0;
* ``sampler``: a sampled agent turn (:func:`sampled_reply`): choice ``k`` of a request is drawn
  from a generator seeded by the request's ``seed``, ``k`` and its messages, as a server samples
  ``n`` choices from a seeded request (vLLM): the same request always gets the same choices, another
  seed other ones (SWEET-RL's served candidates, :mod:`colbench.benchmarks.bench_candidates`);
* anything else (the human): ``"I don't know about that."``.

A request gets ``n`` choices (default 1), all ready after the one reply time.

``GET /stats`` answers ``{"requests": n, "reply_s": total time the replies took}``; ``POST
/stats`` resets both. Run it with ``python -m colbench.benchmarks.stand_in_server [--port N] [--median-s S]
[--sigma X] [--cap-s S]`` (prints its URL), or use :class:`StandInServer` from Python.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import math
import random
import subprocess
import sys
import threading
import time
import urllib.request
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

__all__ = ["StandInServer", "reply_time", "agent_reply", "sampled_reply", "timing_arguments", "main"]


def reply_time(messages: list, *, median_s: float, sigma: float, cap_s: float) -> float:
    """How long the reply to ``messages`` takes (a function of the messages only)."""
    seed = int.from_bytes(hashlib.sha256(json.dumps(messages, sort_keys=True).encode()).digest()[:8], "big")
    return min(cap_s, median_s * math.exp(sigma * random.Random(seed).gauss(0.0, 1.0)))


def agent_reply(messages: list) -> str:
    """The stand-in agent's turn for its chat ``messages`` (system, problem, then the dialogue)."""
    problem = next((m["content"] for m in messages if m.get("role") == "user"), "")
    turn = sum(1 for m in messages if m.get("role") == "assistant")
    if turn < 1 + zlib.crc32(problem.encode()) % 4:
        return f"I need one more detail. OUTPUT: What should happen in case {turn + 1}?"
    signature = problem.rsplit("def ", 1)[-1].strip().rstrip(".")
    return f"I know enough. OUTPUT: I WANT TO ANSWER: ```python\ndef {signature}:\n    return 0\n```"


def sampled_reply(messages: list, seed: int | None, k: int) -> str:
    """Choice ``k`` of a ``sampler`` request with ``seed`` (``None``: unseeded, drawn from the
    messages alone): a question or an answer, its words drawn from the seeded generator."""
    digest = hashlib.sha256(json.dumps([messages, seed, k], sort_keys=True).encode()).digest()
    rng = random.Random(int.from_bytes(digest[:8], "big"))
    words = ["rate", "hours", "total", "minimum", "discount", "weekend", "tax", "round", "cap", "bonus"]
    picked = " ".join(rng.choice(words) for _ in range(rng.randint(2, 6)))
    if rng.random() < 0.5:
        return f"I need a detail. OUTPUT: Does the {picked} matter?"
    return f"OUTPUT: I WANT TO ANSWER: def f(x):\n    return x * {rng.randint(0, 9)}  # {picked}"


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: "_Server"

    def log_message(self, format, *args):
        pass

    def _send(self, payload: dict) -> None:
        data = json.dumps(payload).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:  # noqa: N802
        with self.server.lock:
            self._send({"requests": self.server.requests, "reply_s": self.server.reply_s})

    def do_POST(self) -> None:  # noqa: N802
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if self.path.rstrip("/") == "/stats":
            with self.server.lock:
                self.server.requests, self.server.reply_s = 0, 0.0
            self._send({})
            return
        req = json.loads(body)
        messages = req.get("messages", [])
        t = reply_time(messages, **self.server.timing)
        time.sleep(t)
        with self.server.lock:
            self.server.requests += 1
            self.server.reply_s += t
        model, n = req.get("model"), int(req.get("n") or 1)
        if model == "sampler":
            texts = [sampled_reply(messages, req.get("seed"), k) for k in range(n)]
        else:
            texts = [agent_reply(messages) if model == "agent" else "I don't know about that."] * n
        self._send({"id": "x", "object": "chat.completion", "model": model,
                    "choices": [{"index": k, "message": {"role": "assistant", "content": text},
                                 "finish_reason": "stop"} for k, text in enumerate(texts)]})


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 256  # the default 5 refuses connections under a few dozen clients


def serve(port: int, median_s: float, sigma: float, cap_s: float) -> _Server:
    httpd = _Server(("127.0.0.1", port), _Handler)
    httpd.lock = threading.Lock()
    httpd.requests, httpd.reply_s = 0, 0.0
    httpd.timing = {"median_s": median_s, "sigma": sigma, "cap_s": cap_s}
    return httpd


class StandInServer:
    """The server in a subprocess (its own interpreter: its threads do not share the measured
    process's GIL). A context manager; :attr:`url` is the API root."""

    def __init__(self, *, median_s: float = 0.05, sigma: float = 1.0, cap_s: float = 1.5, port: int = 0):
        self.args = ["--median-s", str(median_s), "--sigma", str(sigma), "--cap-s", str(cap_s), "--port", str(port)]
        self.proc: subprocess.Popen | None = None
        self.url = ""

    def __enter__(self) -> "StandInServer":
        self.proc = subprocess.Popen([sys.executable, "-m", "colbench.benchmarks.stand_in_server", *self.args],
                                     stdout=subprocess.PIPE, text=True)
        self.url = self.proc.stdout.readline().strip()
        if not self.url.startswith("http://127.0.0.1:"):
            self.__exit__()
            raise RuntimeError("the stand-in server did not start")
        return self

    def stats(self, reset: bool = False) -> dict:
        root = self.url.rsplit("/v1", 1)[0] + "/stats"
        req = urllib.request.Request(root, data=b"{}" if reset else None, method="POST" if reset else "GET")
        with urllib.request.urlopen(req, timeout=10) as r:
            return json.loads(r.read())

    def kill(self) -> None:
        """Kill the server at once (SIGKILL: a server that dies; requests in flight get no answer)."""
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait(timeout=10)
            self.proc = None

    def __exit__(self, *exc) -> None:
        if self.proc is not None:
            self.proc.terminate()
            self.proc.wait(timeout=10)
            self.proc = None


def timing_arguments(p: argparse.ArgumentParser, *, median_s: float = 0.05, sigma: float = 1.0,
                     cap_s: float = 1.5) -> None:
    """The reply-time options ``--median-s``, ``--sigma``, ``--cap-s`` (:func:`reply_time`) on ``p``."""
    p.add_argument("--median-s", type=float, default=median_s, help="median reply time (s)")
    p.add_argument("--sigma", type=float, default=sigma, help="lognormal sigma of the reply time")
    p.add_argument("--cap-s", type=float, default=cap_s, help="longest reply time (s)")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--port", type=int, default=0)
    timing_arguments(p)
    a = p.parse_args(argv)
    httpd = serve(a.port, a.median_s, a.sigma, a.cap_s)
    print(f"http://127.0.0.1:{httpd.server_address[1]}/v1", flush=True)
    try:
        httpd.serve_forever(poll_interval=0.05)
    except KeyboardInterrupt:
        pass
    finally:
        httpd.server_close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
