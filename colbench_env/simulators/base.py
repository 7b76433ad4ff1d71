"""The simulated-human interface.

A simulator plays the ``"human"`` agent of a ColBench environment. It sees the task (hidden
information included), the dialogue so far, and, for frontend tasks, the renders of the agent's
page and of the target page.

``dialogue`` is a list of ``{"role": "assistant" | "user", "content": str}`` messages in order:
``"assistant"`` is the LLM agent, ``"user"`` the simulated human (the official trajectory
format's roles). The last message is the agent's.
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, Sequence

__all__ = ["Simulator", "SimulatorError", "BACKEND_REPLY_LIMIT", "FRONTEND_REPLY_LIMIT", "reply_limit"]

#: Simulator replies are cut to this many characters (as in the paper's reference).
BACKEND_REPLY_LIMIT = 400
FRONTEND_REPLY_LIMIT = 1000


def reply_limit(kind: str) -> int:
    """Human replies in a ``kind`` (``"backend"`` / ``"frontend"``) episode are cut to this many characters."""
    if kind not in ("backend", "frontend"):
        raise ValueError(f"kind must be 'backend' or 'frontend', got {kind!r}")
    return FRONTEND_REPLY_LIMIT if kind == "frontend" else BACKEND_REPLY_LIMIT


class SimulatorError(RuntimeError):
    """The simulator could not produce a reply (server down, cache miss in replay mode, ...)."""


class Simulator(ABC):
    """Plays the human. Subclasses implement :meth:`reply`; :meth:`reply_batch` may be overridden
    to answer many live episodes at once (batched generation, concurrent HTTP requests).

    ``batched`` tells the rollout runner (:mod:`colbench_env.rollout`) how to call it: true (the
    default) -- gather the pending requests of many episodes into one :meth:`reply_batch` call,
    made from one thread (a local model; also the safe choice for a simulator that is not
    thread-safe); false -- call :meth:`reply` from each episode's own thread, concurrently (a
    thread-safe simulator: an HTTP client, the scripted human)."""

    #: ``"backend"``, ``"frontend"`` or ``"any"``.
    kind: str = "any"
    batched: bool = True

    @abstractmethod
    def reply(self, task: Any, dialogue: Sequence[dict], renders: Any = None) -> str:
        """The human's next message.

        Args:
            task: a :class:`~colbench_env.tasks.BackendTask` or :class:`~colbench_env.tasks.FrontendTask`.
            dialogue: the messages so far (see the module docstring); the last one is the agent's.
            renders: frontend only: ``{"agent": PIL.Image | None, "target": PIL.Image}``.

        Returns:
            The reply, already cut to the reply limit.

        Raises:
            SimulatorError: when no reply can be produced.
        """

    def reply_batch(self, items: Sequence[tuple]) -> list[str]:
        """Replies for many ``(task, dialogue, renders)`` triples, in order."""
        return [self.reply(*item) for item in items]

    def config(self) -> dict:
        """A JSON-serialisable description identifying this simulator (record/replay cache key)."""
        return {"class": type(self).__name__}

    def identity(self) -> dict:
        """Who this human is, for the records and reports (see
        :mod:`colbench_env.simulators.identity`): here ``{"kind": "plugin", "class": ...}`` with the
        other fields unknown (``None``); the built-in simulators say more. Unlike :meth:`config` it may
        change once the simulator has answered (a server reports its model id in its replies)."""
        return {"kind": "plugin", "class": type(self).__name__, "model": None, "model_requested": None,
                "prompt_sha256": None, "temperature": None, "max_tokens": None, "version": None}

    def close(self) -> None:
        """Release resources (HTTP sessions, models)."""
