"""Simulated humans: scripted (offline, deterministic), LLM (local transformers or any
OpenAI-compatible server), and a record/replay cache around any of them."""
from __future__ import annotations

from typing import Any

from .base import BACKEND_REPLY_LIMIT, FRONTEND_REPLY_LIMIT, Simulator, SimulatorError

__all__ = ["Simulator", "SimulatorError", "BACKEND_REPLY_LIMIT", "FRONTEND_REPLY_LIMIT", "make_simulator",
           "SIMULATOR_NAMES", "check_simulator_kwargs"]

SIMULATOR_NAMES = ("scripted", "hf", "smollm2", "openai", "record", "replay")


_LLM_SIMULATOR_KEYS = ("temperature", "max_new_tokens")


def _init_names(cls: type, skip: tuple = ()) -> set[str] | None:
    """The keyword names ``cls`` takes; ``None`` when its constructor takes ``**kwargs`` (any name)."""
    import inspect

    params = inspect.signature(cls.__init__).parameters
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
        return None
    return {n for n, p in params.items() if n != "self" and n not in skip
            and p.kind is not inspect.Parameter.VAR_POSITIONAL}


def _with(known: set[str] | None, extra: tuple) -> set[str] | None:
    return None if known is None else known | set(extra)


def _inner_spec(spec: str, inner: Any) -> Any:
    """The simulator a ``record`` / ``replay`` human wraps: ``record`` records from the scripted
    human unless told otherwise; ``replay`` needs none."""
    return (inner or "scripted") if spec == "record" else inner


def check_simulator_kwargs(spec: Any, kind: str = "backend", kwargs: dict | None = None) -> None:
    """Raise ``ValueError`` naming the keyword arguments that :func:`make_simulator` ``(spec, kind)``
    would not take (``model`` for the scripted human, say), before anything is built or written; for
    ``record`` / ``replay`` also the ``inner_kwargs`` their inner simulator (a name) would not take.
    A :class:`Simulator` object, a name :func:`make_simulator` does not know, or a constructor that
    takes ``**kwargs`` is not checked here."""
    if not isinstance(spec, str) or spec not in SIMULATOR_NAMES:
        return
    kwargs = kwargs or {}
    if spec == "scripted":
        if kind == "backend":
            from .scripted_backend import ScriptedBackendSimulator as cls
        else:
            from .scripted_frontend import ScriptedFrontendSimulator as cls
        known = _init_names(cls)
    elif spec == "openai":
        from ..lm.openai_compat import OpenAICompatBackend

        known = _with(_init_names(OpenAICompatBackend), _LLM_SIMULATOR_KEYS)
    elif spec in ("hf", "smollm2"):
        from ..lm.hf import HFBackend

        known = _with(_init_names(HFBackend), _LLM_SIMULATOR_KEYS)
    else:
        from .replay import RecordReplaySimulator

        known = _with(_init_names(RecordReplaySimulator, skip=("inner", "mode")), ("inner", "inner_kwargs"))
        inner, inner_kwargs = kwargs.get("inner"), kwargs.get("inner_kwargs") or {}
        if not isinstance(inner_kwargs, dict):
            raise ValueError(f"simulator {spec!r} ({kind}): inner_kwargs must be a JSON object, "
                             f"got {type(inner_kwargs).__name__}")
        inner = _inner_spec(spec, inner)
        if isinstance(inner, str):
            if inner not in SIMULATOR_NAMES:
                raise ValueError(f"simulator {spec!r} ({kind}): unknown inner simulator {inner!r}; "
                                 f"expected one of {', '.join(SIMULATOR_NAMES)}")
            try:
                check_simulator_kwargs(inner, kind, inner_kwargs)
            except ValueError as e:
                raise ValueError(f"simulator {spec!r} ({kind}), its inner_kwargs: {e}") from None
    if known is None:
        return
    unknown = sorted(set(kwargs) - known)
    if unknown:
        raise ValueError(f"simulator {spec!r} ({kind}) takes no {', '.join(map(repr, unknown))}; "
                         f"its options: {', '.join(sorted(known))}")


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
    check_simulator_kwargs(spec, kind, kwargs)
    if spec == "scripted":
        if kind == "backend":
            from .scripted_backend import ScriptedBackendSimulator

            return ScriptedBackendSimulator(**kwargs)
        from .scripted_frontend import ScriptedFrontendSimulator

        return ScriptedFrontendSimulator(**kwargs)
    if spec in ("hf", "smollm2", "openai"):
        from .llm import LLMSimulator

        sim_kwargs = {k: kwargs.pop(k) for k in list(kwargs) if k in _LLM_SIMULATOR_KEYS}
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

        inner = _inner_spec(spec, kwargs.pop("inner", None))
        inner_kwargs = kwargs.pop("inner_kwargs", {}) or {}
        if inner is not None:
            inner = make_simulator(inner, kind=kind, **inner_kwargs)
        return RecordReplaySimulator(inner, mode=spec, **kwargs)
    raise ValueError(f"unknown simulator {spec!r}; expected one of {', '.join(SIMULATOR_NAMES)} or a Simulator")
