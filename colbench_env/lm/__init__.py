"""LM backends shared by the simulators and the agents.

* :class:`~colbench_env.lm.hf.HFBackend`: local transformers (default: the embedded
  SmolLM2-135M-Instruct, see :func:`~colbench_env.lm.smollm2.smollm2_path`);
* :class:`~colbench_env.lm.openai_compat.OpenAICompatBackend`: any OpenAI-compatible server.

Importing this package is light: torch and transformers load only when a local backend is built.
"""
from __future__ import annotations

import importlib
from typing import Any

from .base import BackendError, Generation, LMBackend, SamplingParams
from .quantization import quiet_cpu_kernel_warning

quiet_cpu_kernel_warning()  # before peft imports bitsandbytes (see quantization.py: noise here)

__all__ = ["BackendError", "Generation", "LMBackend", "SamplingParams", "HFBackend", "OpenAICompatBackend",
           "image_to_data_url", "smollm2_path", "smollm2_gguf_path", "make_backend", "BACKEND_NAMES"]

_LAZY = {
    "HFBackend": ".hf",
    "OpenAICompatBackend": ".openai_compat",
    "image_to_data_url": ".openai_compat",
    "smollm2_path": ".smollm2",
    "smollm2_gguf_path": ".smollm2",
}

#: Names accepted by :func:`make_backend`.
BACKEND_NAMES = ("hf", "smollm2", "openai")


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def make_backend(name_or_obj: Any = "smollm2", **kwargs: Any) -> LMBackend:
    """Build a backend from a name, or pass an existing one through.

    Args:
        name_or_obj: an :class:`LMBackend` (returned unchanged; ``kwargs`` must then be empty),
            ``"smollm2"`` (:class:`HFBackend` on the embedded model), ``"hf"`` (:class:`HFBackend`;
            ``model=`` a local path or hub id, default ``"smollm2"``) or ``"openai"``
            (:class:`OpenAICompatBackend`; ``base_url=`` and ``model=`` required).
        **kwargs: the chosen class's keyword arguments.

    Raises:
        ValueError: unknown name, or keyword arguments given with a backend object.
        TypeError: a missing or unexpected keyword argument for the chosen class.
    """
    if isinstance(name_or_obj, LMBackend):
        if kwargs:
            raise ValueError(f"make_backend got a backend object and keyword arguments {sorted(kwargs)}; pass one or the other")
        return name_or_obj
    if not isinstance(name_or_obj, str):
        raise TypeError(f"backend must be one of {BACKEND_NAMES} or an LMBackend, got {type(name_or_obj).__name__}")
    name = name_or_obj.lower()
    if name == "smollm2":
        if "model" in kwargs and kwargs["model"] != "smollm2":
            raise ValueError(f"backend 'smollm2' takes no model= (got {kwargs['model']!r}); use backend 'hf' for other models")
        from .hf import HFBackend

        return HFBackend(**{**kwargs, "model": "smollm2"})
    if name == "hf":
        from .hf import HFBackend

        return HFBackend(**kwargs)
    if name == "openai":
        missing = [k for k in ("base_url", "model") if k not in kwargs]
        if missing:
            raise TypeError(f"backend 'openai' needs {' and '.join(m + '=' for m in missing)} "
                            "(e.g. base_url='http://localhost:8000/v1', model='llama-3.1-70b')")
        from .openai_compat import OpenAICompatBackend

        return OpenAICompatBackend(**kwargs)
    raise ValueError(f"unknown backend {name_or_obj!r}; expected one of {BACKEND_NAMES} or an LMBackend object")
