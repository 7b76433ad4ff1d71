"""What a pipeline run would do, before it does anything: ``colbench pipeline --dry-run``.

:func:`resolved_settings` gathers the run's resolved configuration -- the pipeline's fields, every
method's trainer config as :func:`~colbench.pipeline.config.trainer_config` builds it, and the memory
plan of both layouts (:func:`~colbench.pipeline.memory.memory_plan`) -- as one JSON-ready dict. No
model is loaded and nothing is read but configs (the base policy's name is used as given, not
resolved to a path), so a user sees what ``--paper`` will run before spending GPU hours.
"""
from __future__ import annotations

import dataclasses

from .config import PipelineConfig, trainer_config
from .memory import memory_plan

__all__ = ["resolved_settings"]


def _jsonable(x):
    if isinstance(x, tuple):
        return [_jsonable(v) for v in x]
    if isinstance(x, dict):
        return {k: _jsonable(v) for k, v in x.items()}
    if isinstance(x, list):
        return [_jsonable(v) for v in x]
    return x


def resolved_settings(cfg: PipelineConfig, *, preset: str = "custom") -> dict:
    """``{"preset", "env", "pipeline": PipelineConfig fields, "methods": {method: trainer config},
    "memory_plan": {"paper": ..., "single-gpu": ...}}`` of ``cfg`` (tuples as lists: what the JSON
    holds). ``memory_plan["paper"]`` is the 8-process ZeRO-3 layout, ``["single-gpu"]`` the one-GPU
    variant (:data:`colbench.pipeline.memory.SINGLE_GPU_OVERRIDES`)."""
    methods = {m: trainer_config(cfg, m, cfg.policy).to_dict() for m in cfg.methods}
    return _jsonable({"preset": preset, "env": cfg.env, "pipeline": dataclasses.asdict(cfg), "methods": methods,
                      "memory_plan": {layout: memory_plan(cfg, layout=layout) for layout in ("paper", "single-gpu")}})
