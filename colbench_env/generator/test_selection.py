"""Choosing the ten tests of a generated task (guarantees in :mod:`colbench_env.generator`)."""
from __future__ import annotations

import builtins
import math
import random
import types
from typing import Callable

from .machinery import NUM_TESTS, Template

__all__ = ["choose_tests"]


class _OnBoundary(Exception):
    """A rounding call got an argument within 1e-6 of a tie: the test input is fragile."""


def _checked_round(x, ndigits=None):
    if isinstance(x, float):
        scaled = x * 10 ** (ndigits or 0)
        if abs(scaled - math.floor(scaled) - 0.5) < 1e-6:
            raise _OnBoundary(f"round({x!r}, {ndigits})")
    return round(x) if ndigits is None else round(x, ndigits)


def _checked_integer_step(fn):
    def wrapped(x):
        if isinstance(x, float) and abs(x - round(x)) < 1e-6:
            raise _OnBoundary(f"{fn.__name__}({x!r})")
        return fn(x)
    return wrapped


_CHECKED_MATH = types.SimpleNamespace(ceil=_checked_integer_step(math.ceil), floor=_checked_integer_step(math.floor))


def _checked_import(name, *args, **kwargs):
    if name == "math":
        return _CHECKED_MATH
    return builtins.__import__(name, *args, **kwargs)


def _compile(source: str, func: str, *, checked: bool) -> Callable:
    env_builtins = dict(vars(builtins))
    if checked:
        env_builtins.update(round=_checked_round, __import__=_checked_import)
    namespace: dict = {"__builtins__": env_builtins}
    exec(compile(source, f"<generated {func}>", "exec"), namespace)
    return namespace[func]


_FAILED = object()


def _outcome(fn: Callable, args: tuple):
    try:
        return fn(*_copy_args(args))
    except Exception:
        return _FAILED


def _copy_args(args: tuple) -> tuple:
    return tuple(list(a) if isinstance(a, list) else a for a in args)


def choose_tests(template: Template, values: dict, active: list, rng: random.Random, *, rounds: int = 20) -> list:
    """Ten argument tuples (see the module docstring for the guarantees).

    Candidate pools are drawn from ``rng`` until every requirement is met (at most ``rounds`` pools).
    """
    gt = _compile(template.solution(values), template.func, checked=True)
    generic = _compile(template.solution(), template.func, checked=False)
    ablated = {f.name: _compile(template.solution({**values, f.name: f.default}), template.func, checked=False)
               for f in active}
    needs = ["<generic>"] + [f.name for f in active]
    names = frozenset(f.name for f in active)
    rows: list = []
    seen: set = set()
    for _ in range(rounds):
        pool = template.candidates(rng, values, names)
        rng.shuffle(pool)
        for args in pool:
            key = repr(args)
            if key in seen:
                continue
            seen.add(key)
            try:
                out = gt(*_copy_args(args))
            except _OnBoundary:
                continue
            if out is None:
                raise RuntimeError(f"template {template.name!r}: ground truth returned None for {template.call(args)}")
            beaten = {name for name, fn in ablated.items() if not _outcome(fn, args) == out}
            if not _outcome(generic, args) == out:
                beaten.add("<generic>")
            rows.append((args, beaten))
        chosen: list[int] = []
        for need in needs:
            if any(need in rows[i][1] for i in chosen):
                continue
            hit = next((i for i, (_, beaten) in enumerate(rows) if need in beaten and i not in chosen), None)
            if hit is None:
                break
            chosen.append(hit)
        else:
            chosen += [i for i in range(len(rows)) if i not in chosen][: NUM_TESTS - len(chosen)]
            if len(chosen) == NUM_TESTS:
                return [rows[i][0] for i in sorted(chosen)]
    missing = [need for need in needs if not any(need in beaten for _, beaten in rows)]
    raise RuntimeError(f"template {template.name!r}: after {rounds} candidate pools, "
                       + (f"no test input distinguishes {missing}" if missing else f"only {len(rows)} usable inputs")
                       + f" (values {values})")
