"""Waits that are not this process's own work, marked for the rollout runner.

:func:`colbench_env.rollout.run_episodes` runs each episode in flight in a thread of its own and
gathers the calls of a local model (a policy or simulator that batches) into one batched call. To
send a batch neither too early (an episode that is about to ask would miss it) nor too late (an
episode that is waiting for a server or a scoring pool holds nobody), it must know which episode
threads are *waiting*: blocked on something outside this process's Python work. Code that blocks
so -- an HTTP request (:class:`~colbench_env.lm.openai_compat.OpenAICompatBackend`), a sandboxed
scoring job, a Chromium render (:mod:`colbench_env.scoring`) -- wraps the wait in :func:`waiting`.

Outside a runner's episode thread :func:`waiting` does nothing; nested waits count once.
"""
from __future__ import annotations

import threading
from contextlib import contextmanager
from typing import Any, Iterator, Protocol

__all__ = ["waiting", "WaitListener", "bind", "unbind"]

_local = threading.local()


class WaitListener(Protocol):
    """What a runner gives :func:`bind`: told when its thread starts and stops waiting."""

    def wait_begin(self) -> None: ...

    def wait_end(self) -> None: ...


def bind(listener: WaitListener) -> None:
    """Report this thread's :func:`waiting` blocks to ``listener`` (until :func:`unbind`)."""
    _local.listener = listener
    _local.depth = 0


def unbind() -> None:
    """Stop reporting this thread's waits."""
    _local.listener = None
    _local.depth = 0


@contextmanager
def waiting() -> Iterator[None]:
    """Mark the block as a wait on something outside this process's Python work (a server, a
    worker pool, a browser)."""
    listener: Any = getattr(_local, "listener", None)
    if listener is None or _local.depth:
        if listener is not None:
            _local.depth += 1
        try:
            yield
        finally:
            if listener is not None:
                _local.depth -= 1
        return
    _local.depth = 1
    listener.wait_begin()
    try:
        yield
    finally:
        _local.depth = 0
        listener.wait_end()
