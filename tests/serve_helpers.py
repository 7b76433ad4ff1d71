"""Servers for the ``colbench serve`` tests: the command itself in a subprocess on 127.0.0.1 (a free
port, read from the line it prints when it listens), or its app in a thread of the test process
(uvicorn on a socket bound here) when a test needs to reach inside (live envs, a faulty evaluator)."""
from __future__ import annotations

import json
import os
import queue
import signal
import socket
import subprocess
import sys
import threading
import time


class ServeProcess:
    """``colbench serve ARGS --port 0`` in a subprocess; :attr:`url` once it listens."""

    def __init__(self, *args: str, startup_s: float = 120.0):
        self.proc = subprocess.Popen([sys.executable, "-m", "colbench", "serve", "--port", "0", *args],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                     env=dict(os.environ, PYTHONUNBUFFERED="1"))
        lines: queue.Queue = queue.Queue()
        threading.Thread(target=lambda: [lines.put(x) for x in self.proc.stdout], daemon=True).start()
        deadline = time.monotonic() + startup_s
        self.url = None
        while time.monotonic() < deadline:
            try:
                line = lines.get(timeout=0.5)
            except queue.Empty:
                if self.proc.poll() is not None:
                    raise RuntimeError(f"colbench serve exited {self.proc.returncode}: {self.proc.stderr.read()[-3000:]}")
                continue
            if "listening on " in line:
                self.url = line.split("listening on ", 1)[1].strip()
                break
        if self.url is None:
            self.stop()
            raise RuntimeError("colbench serve did not start listening")

    def stop(self, sig: int = signal.SIGTERM) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        return self.proc.returncode

    def __enter__(self) -> "ServeProcess":
        return self

    def __exit__(self, *exc) -> None:
        self.stop()


class ServeThread:
    """A FastAPI ``app`` served by uvicorn in a thread on 127.0.0.1 (a free port)."""

    def __init__(self, app):
        import uvicorn

        self.app = app
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(512)
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        self.server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.sock]}, daemon=True)

    def __enter__(self) -> "ServeThread":
        self.thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started:
            if time.monotonic() > deadline:
                raise RuntimeError("uvicorn did not start")
            time.sleep(0.05)
        return self

    def __exit__(self, *exc) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=30)
        self.sock.close()


def write_tasks(path, tasks) -> str:
    path.write_text("".join(json.dumps(t) + "\n" for t in tasks))
    return str(path)
