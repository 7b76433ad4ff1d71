"""Servers for the ``colbench serve`` tests: the command itself in a subprocess on 127.0.0.1 (a free
port, read from the line it prints when it listens), or its app in a thread of the test process
(uvicorn on a socket bound here) when a test needs to reach inside (live envs, a faulty evaluator)."""
from __future__ import annotations

import json
import socket
import threading
import time

from colbench.integrations.openenv import ServeProcess

__all__ = ["ServeProcess", "ServeThread", "write_tasks"]


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
