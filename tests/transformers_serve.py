"""`transformers serve` (a real third-party OpenAI-compatible server: FastAPI + uvicorn) for the
tests: on 127.0.0.1, offline, CPU, float32, stopped when the ``with`` block ends.

    with TransformersServe(cwd=run_dir) as server:   # loads each model on its first request, by path
        LMAgent("openai", base_url=server.url, model="models/sft")
    with TransformersServe(model_dir) as server:      # only that model (requests must name it)
        ...

Needs the ``serve`` test extra (fastapi, uvicorn, openai); :func:`available` says whether it is there.
"""
from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

__all__ = ["TransformersServe", "available"]


def available() -> bool:
    try:
        from transformers.utils.import_utils import is_serve_available
    except ImportError:
        return False
    return is_serve_available()


class TransformersServe:
    """The server process. :attr:`url` is its API root, :attr:`log` its output file."""

    def __init__(self, model: str | os.PathLike | None = None, *, cwd: str | os.PathLike | None = None,
                 start_timeout_s: float = 300.0):
        self.model = os.fspath(model) if model is not None else None
        self.cwd = os.fspath(cwd) if cwd is not None else None
        self.start_timeout_s = start_timeout_s
        self.proc: subprocess.Popen | None = None
        self.url = ""
        self.log: Path | None = None

    def __enter__(self) -> "TransformersServe":
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        exe = Path(sys.executable).with_name("transformers")
        cmd = [str(exe), "serve", *([self.model] if self.model else []), "--host", "127.0.0.1", "--port", str(port),
               "--device", "cpu", "--dtype", "float32", "--log-level", "warning"]
        env = dict(os.environ, HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", OMP_NUM_THREADS="1")
        self.log = Path(self.cwd or ".").resolve() / f"transformers-serve-{port}.log"
        with open(self.log, "wb") as out:
            self.proc = subprocess.Popen(cmd, cwd=self.cwd, env=env, stdout=out, stderr=subprocess.STDOUT)
        self.url = f"http://127.0.0.1:{port}/v1"
        deadline = time.time() + self.start_timeout_s
        while True:
            if self.proc.poll() is not None:
                raise RuntimeError(f"transformers serve exited ({self.proc.returncode}): "
                                   f"{self.log.read_text()[-2000:]}")
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=2) as r:
                    if r.status == 200:
                        return self
            except OSError:
                pass
            if time.time() > deadline:
                self.__exit__()
                raise RuntimeError(f"transformers serve did not answer within {self.start_timeout_s:g} s")
            time.sleep(0.5)

    def __exit__(self, *exc) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=30)
        self.proc = None
