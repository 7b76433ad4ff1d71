"""Simulated humans: scripted (offline, deterministic), LLM (local transformers or any
OpenAI-compatible server), and a record/replay cache around any of them."""
from __future__ import annotations

from typing import Any

from .base import BACKEND_REPLY_LIMIT, FRONTEND_REPLY_LIMIT, Simulator, SimulatorError

__all__ = ["Simulator", "SimulatorError", "BACKEND_REPLY_LIMIT", "FRONTEND_REPLY_LIMIT", "make_simulator",
           "SIMULATOR_NAMES"]

SIMULATOR_NAMES = ("scripted", "hf", "smollm2", "openai", "record", "replay")


def make_simulator(spec: Any = "scripted", *, kind: str = "backend", **kwargs: Any) -> Simulator:
    """Build a simulator from a name (or return a :class:`Simulator` unchanged).

    Args:
        spec: ``"scripted"`` (offline default), ``"hf"`` / ``"smollm2"`` (LLM simulator on the local
            transformers backend; ``model=`` picks the model, SmolLM2 by default), ``"openai"``
            (LLM simulator on an OpenAI-compatible server: ``base_url=``, ``model=``, ``api_key=``),
            ``"record"`` / ``"replay"`` (``path=`` the cache file; ``inner=`` a simulator spec or
            object for ``record``, with its own ``inner_kwargs=``).
        kind: ``"backend"`` or ``"frontend"``.
        kwargs: passed to the simulator or its backend.
    """
    if isinstance(spec, Simulator):
        return spec
    if not isinstance(spec, str):
        raise TypeError(f"simulator must be a name or a Simulator, got {type(spec).__name__}")
    if spec == "scripted":
        if kind == "backend":
            from .scripted_backend import ScriptedBackendSimulator

            return ScriptedBackendSimulator(**kwargs)
        from .scripted_frontend import ScriptedFrontendSimulator

        return ScriptedFrontendSimulator(**kwargs)
    if spec in ("hf", "smollm2", "openai"):
        from .llm import LLMSimulator

        sim_keys = {"temperature", "max_new_tokens"}
        sim_kwargs = {k: kwargs.pop(k) for k in list(kwargs) if k in sim_keys}
        if spec == "openai":
            from ..lm.openai_compat import OpenAICompatBackend

            backend = OpenAICompatBackend(**kwargs)
        else:
            from ..lm.hf import HFBackend

            kwargs.setdefault("model", "smollm2")
            backend = HFBackend(**kwargs)
        return LLMSimulator(backend, kind=kind, **sim_kwargs)
    if spec in ("record", "replay"):
        from .replay import RecordReplaySimulator

        inner = kwargs.pop("inner", None)
        inner_kwargs = kwargs.pop("inner_kwargs", {}) or {}
        if spec == "record":
            inner = make_simulator(inner or "scripted", kind=kind, **inner_kwargs)
        elif inner is not None:
            inner = make_simulator(inner, kind=kind, **inner_kwargs)
        return RecordReplaySimulator(inner, mode=spec, **kwargs)
    raise ValueError(f"unknown simulator {spec!r}; expected one of {', '.join(SIMULATOR_NAMES)} or a Simulator")
