"""User agents and simulators from a spec string: ``module:Name``, ``path/to/file.py:Name`` or the
name of an installed plug-in.

* ``module:Name`` imports ``module`` (from ``sys.path``, e.g. the current directory with
  ``python -m`` or ``PYTHONPATH``) and takes its attribute ``Name`` (dots allowed: ``Outer.Inner``).
* ``path/to/file.py:Name`` loads that file as a module (its directory is not added to ``sys.path``).
* ``NAME`` alone: an entry point ``NAME`` of the group ``colbench.agents`` (agents) or
  ``colbench.simulators`` (simulators) of an installed distribution, e.g. in its ``pyproject.toml``::

      [project.entry-points."colbench.agents"]
      my-agent = "my_pkg.agents:MyAgent"

What the spec names is turned into the object by :func:`build`:

* a class is instantiated with the keyword arguments (``--agent-kwargs`` / ``--simulator-kwargs``);
* a function given keyword arguments, or with no required positional parameter, is a factory,
  called with them (they must cover its required parameters);
* a function with one required positional parameter and no keyword arguments is the agent itself
  (``observation -> str``);
* any other object (an :class:`colbench.agents.Agent` or :class:`~colbench_env.simulators.Simulator`
  instance) is used as is, and takes no keyword arguments either.

Classes and factories also receive ``kind`` (``"backend"``/``"frontend"``) and ``max_turns`` when
their signature names those parameters and the keyword arguments do not set them.
"""
from __future__ import annotations

import importlib
import importlib.util
import inspect
import os
import sys
from importlib.metadata import entry_points
from typing import Any

from .errors import UsageError

__all__ = ["AGENT_GROUP", "SIMULATOR_GROUP", "is_plugin_spec", "load_object", "build", "source_file", "source_hash"]

AGENT_GROUP = "colbench.agents"
SIMULATOR_GROUP = "colbench.simulators"


def _entry_point(group: str, name: str):
    for ep in entry_points(group=group):
        if ep.name == name:
            return ep
    return None


def is_plugin_spec(spec: str, group: str) -> bool:
    """Whether ``spec`` names a plug-in (``a:b`` or an installed entry point of ``group``)."""
    return ":" in spec or _entry_point(group, spec) is not None


def _load_file(path: str, option: str) -> Any:
    if not os.path.isfile(path):
        raise UsageError(f"{option}: no such file: {path}")
    mod_name = "colbench_plugin_" + "".join(c if c.isalnum() else "_" for c in os.path.abspath(path))
    if mod_name in sys.modules:
        return sys.modules[mod_name]
    spec = importlib.util.spec_from_file_location(mod_name, path)
    if spec is None or spec.loader is None:
        raise UsageError(f"{option}: {path} cannot be loaded as a Python module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[mod_name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as e:
        del sys.modules[mod_name]
        raise UsageError(f"{option}: {path}: importing it failed: {type(e).__name__}: {e}") from e
    return module


def load_object(spec: str, group: str, *, option: str = "--agent") -> Any:
    """The object a plug-in spec names (see the module docstring); :class:`UsageError` otherwise."""
    ep = _entry_point(group, spec)
    if ep is not None:
        try:
            return ep.load()
        except Exception as e:
            raise UsageError(f"{option} {spec}: loading the entry point {ep.value!r} ({group}) failed: "
                             f"{type(e).__name__}: {e}") from e
    if ":" not in spec:
        raise UsageError(f"{option} {spec}: not a built-in name, not 'module:Name' or 'file.py:Name', "
                         f"and no installed plug-in has the entry point {spec!r} in group {group!r}")
    where, _, attr = spec.rpartition(":")
    if not where or not attr:
        raise UsageError(f"{option} {spec}: expected 'module:Name' or 'path/to/file.py:Name'")
    if where.endswith(".py") or os.sep in where or "/" in where:
        module = _load_file(where, option)
    else:
        try:
            module = importlib.import_module(where)
        except ModuleNotFoundError as e:
            raise UsageError(f"{option} {spec}: no module named {e.name!r} "
                             "(is it installed, or on PYTHONPATH?)") from e
        except Exception as e:
            raise UsageError(f"{option} {spec}: importing {where} failed: {type(e).__name__}: {e}") from e
    obj: Any = module
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise UsageError(f"{option} {spec}: {where} has no attribute {attr!r}")
        obj = getattr(obj, part)
    return obj


def source_file(spec: str, group: str) -> str | None:
    """The Python file whose code a plug-in spec runs: ``path/to/file.py`` itself, the file of
    ``module`` in ``module:Name``, or that of an entry point's module; ``None`` for a built-in name or
    a module without a source file. Call it after :func:`load_object` succeeded (the module is then
    importable)."""
    ep = _entry_point(group, spec)
    if ep is not None:
        where = ep.value.partition(":")[0].strip()
    elif ":" in spec:
        where = spec.rpartition(":")[0]
    else:
        return None
    if where.endswith(".py") or os.sep in where or "/" in where:
        return os.path.abspath(where) if os.path.isfile(where) else None
    try:
        found = importlib.util.find_spec(where)
    except (ImportError, ValueError):
        return None
    origin = getattr(found, "origin", None)
    return origin if origin and origin.endswith(".py") and os.path.isfile(origin) else None


def source_hash(spec: str, group: str) -> str | None:
    """sha256 of the source of the file a plug-in spec runs (:func:`source_file`), so that a resumed
    run can tell the plug-in's code changed; ``None`` for a built-in name. Only that file is hashed:
    a helper it imports from another file is not covered."""
    path = source_file(spec, group)
    if path is None:
        return None
    import hashlib

    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def _required_positional(fn: Any) -> list[str] | None:
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return None
    return [p.name for p in sig.parameters.values()
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty]


def _accepts(fn: Any, name: str) -> bool:
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False
    p = params.get(name)
    return p is not None and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)


def build(obj: Any, kwargs: dict | None = None, *, context: dict | None = None, option: str = "--agent",
          kwargs_option: str = "--agent-kwargs") -> Any:
    """Turn what a spec names into the agent / simulator (see the module docstring)."""
    kwargs = dict(kwargs or {})
    context = context or {}
    if inspect.isclass(obj):
        factory = obj
    elif inspect.isfunction(obj) or inspect.ismethod(obj):
        required = [n for n in (_required_positional(obj) or []) if n not in kwargs]
        if len(required) == 1 and not kwargs:
            return obj  # the policy itself: observation -> str
        if required:
            raise UsageError(f"{kwargs_option}: {obj.__qualname__}{inspect.signature(obj)} needs "
                             f"{', '.join(required)}: a factory gets every required parameter from "
                             f"{kwargs_option}; a policy takes one (the observation) and no {kwargs_option}")
        factory = obj
    else:
        if kwargs:
            raise UsageError(f"{kwargs_option}: {option} names an object ({type(obj).__name__}), "
                             "not a class or factory: it takes no keyword arguments")
        return obj
    for name, value in context.items():
        if name not in kwargs and _accepts(factory, name):
            kwargs[name] = value
    try:
        return factory(**kwargs)
    except TypeError as e:
        raise UsageError(f"{kwargs_option}: {getattr(factory, '__qualname__', factory)}(**{kwargs}) failed: {e}") from e
