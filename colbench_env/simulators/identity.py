"""Who played the human: the identity every trajectory record carries (``"human"``) and every
report names, so that scores made with different humans are not compared unawares.

An identity is a JSON object (:meth:`Simulator.identity <colbench_env.simulators.Simulator.identity>`)::

    {"kind": "scripted" | "served" | "local" | "replay" | "plugin",
     "class": str,                    # the simulator's class
     "model": str | None,             # served: the model id the server reported (the ``model`` field of
                                      #   its replies; None before its first reply); local: the model loaded
     "model_requested": str | None,   # served: the model name sent in the requests
     "prompt_sha256": str | None,     # an LM human: sha256 of its prompt templates (prompts.prompt_sha256)
     "temperature": float | None,     # an LM human's sampling temperature
     "max_tokens": int | None,        # an LM human's token budget per reply
     "version": int | str | None,     # the offline (scripted) human's reply version; an LM human's prompt version
     "of": {...}}                     # replay only: the identity of the human whose replies were recorded

Records written before identities existed have no ``"human"``: reports say "unknown".

A simulator may add its own settings (the scripted backend human's ``volunteer`` and ``max_facts``).
Two identities are the *same human* (:func:`same_human`) when every field but ``model_requested``
agrees (what a server reports decides, not the alias asked for); a replay stands for the human it
replays (its replies are that human's, a miss is an error), so a replay of a served human and the
live one are the same human.
"""
from __future__ import annotations

from typing import Any, Iterable

__all__ = ["IDENTITY_FIELDS", "NOT_IDENTIFYING", "human_identity", "identity_from_config", "same_human", "describe_human",
           "describe_humans", "run_humans", "humans_warning"]

#: the fields every identity has (see the module docstring)
IDENTITY_FIELDS = ("kind", "class", "model", "model_requested", "prompt_sha256", "temperature", "max_tokens", "version")
#: fields that do not decide whether two humans are the same
NOT_IDENTIFYING = ("model_requested",)


def human_identity(simulator: Any) -> dict:
    """The identity of ``simulator`` (its :meth:`~colbench_env.simulators.Simulator.identity`)."""
    ident = simulator.identity()
    if not isinstance(ident, dict) or "kind" not in ident:
        raise TypeError(f"{type(simulator).__name__}.identity() must return a dict with 'kind', got {ident!r}")
    return ident


def identity_from_config(config: dict) -> dict:
    """The identity a simulator's :meth:`~colbench_env.simulators.Simulator.config` implies (a
    record/replay store written before stores kept identities): the scripted humans' class and
    version; an LM human's backend model (as requested: what a server reported was not kept),
    temperature, token budget and prompt version (its prompt hash is unknown: ``None``)."""
    cls = str(config.get("class", "?"))
    base = {"class": cls, "model": None, "model_requested": None, "prompt_sha256": None, "temperature": None,
            "max_tokens": None, "version": config.get("version")}
    if cls.startswith("Scripted"):
        return {**base, "kind": "scripted"}
    backend = config.get("backend")
    if cls == "LLMSimulator" and isinstance(backend, dict):
        served = backend.get("class") == "OpenAICompatBackend"
        return {**base, "kind": "served" if served else "local",
                "model": None if served else backend.get("model"),
                "model_requested": backend.get("model") if served else None,
                "temperature": config.get("temperature"), "max_tokens": config.get("max_new_tokens"),
                "version": config.get("prompt_version")}
    return {**base, "kind": "plugin"}


def _key(ident: dict | None) -> tuple | None:
    if not isinstance(ident, dict):
        return None
    if ident.get("kind") == "replay" and isinstance(ident.get("of"), dict):
        return _key(ident["of"])
    return tuple(sorted((f, repr(_plain(v))) for f, v in ident.items() if f not in NOT_IDENTIFYING and v is not None))


def _plain(v: Any) -> Any:
    """Numbers as floats (``0`` and ``0.0`` are one temperature)."""
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else v


def same_human(a: dict | None, b: dict | None) -> bool | None:
    """Whether identities ``a`` and ``b`` are the same human (module docstring); ``None`` when
    either is unknown."""
    ka, kb = _key(a), _key(b)
    if ka is None or kb is None:
        return None
    return ka == kb


def describe_human(ident: dict | None) -> str:
    """One phrase: ``scripted (version 3)``, ``served meta-llama/Llama-3.1-70B-Instruct (prompt
    1a2b3c4d5e6f, temperature 0, max tokens 128)``, ``replay of ...``, ``unknown``."""
    if not isinstance(ident, dict):
        return "unknown"
    kind = ident.get("kind", "?")
    if kind == "replay":
        return "replay of " + describe_human(ident.get("of"))
    if kind == "scripted":
        v = ident.get("version")
        off = ", volunteer off" if ident.get("volunteer") is False else ""
        return f"scripted (version {v if v is not None else 'unknown'}{off})"
    model = ident.get("model")
    if model is None and ident.get("model_requested"):
        model = f"{ident['model_requested']} (requested; no reply reported a model id)"
    details = []
    if ident.get("prompt_sha256"):
        details.append(f"prompt {str(ident['prompt_sha256'])[:12]}")
    elif ident.get("version") is not None:
        details.append(f"prompt {ident['version']}")
    if ident.get("temperature") is not None:
        details.append(f"temperature {ident['temperature']:g}")
    if ident.get("max_tokens") is not None:
        details.append(f"max tokens {ident['max_tokens']}")
    head = f"{kind} {model}" if model else f"{kind} {ident.get('class', '')}".strip()
    return head + (f" ({', '.join(details)})" if details else "")


def run_humans(records: Iterable[dict]) -> list:
    """The distinct identities of the records' humans (their ``"human"``), in order of first
    appearance; ``None`` stands for records without one (unknown)."""
    seen: list = []
    keys: list = []
    for rec in records:
        ident = rec.get("human") if isinstance(rec.get("human"), dict) else None
        k = _key(ident) if ident is not None else None
        full = None if ident is None else repr(sorted((f, repr(v)) for f, v in ident.items()))
        if (k, full) not in keys:
            keys.append((k, full))
            seen.append(ident)
    return seen


def describe_humans(humans: list) -> str:
    """The humans of a run (:func:`run_humans`) in one line: one phrase, or ``mixed: a; b``."""
    if not humans:
        return "unknown"
    phrases = list(dict.fromkeys(describe_human(h) for h in humans))
    return phrases[0] if len(phrases) == 1 else "mixed: " + "; ".join(phrases)


def humans_warning(runs: dict[str, list]) -> str | None:
    """One line when the runs (``{label: run_humans(...)}``) did not all have the same human:
    ``warning: the runs compared had different humans: A: ...; B: ...``; or, when a run's human is
    unknown (records without one), ``note: ...`` saying it cannot be checked; ``None`` when every
    run had one and the same human."""
    labels = list(runs)
    keys = {lb: {_key(h) for h in hs} or {None} for lb, hs in runs.items()}
    unknown = [lb for lb in labels if None in keys[lb]]
    known = [lb for lb in labels if lb not in unknown]
    distinct = {k for lb in known for k in keys[lb]}
    if len(distinct) > 1 or any(len(keys[lb]) > 1 for lb in known):
        return ("warning: the runs compared had different humans: "
                + "; ".join(f"{lb}: {describe_humans(runs[lb])}" for lb in labels))
    if unknown and len(labels) > 1:
        if not known:
            return (f"note: the humans of {', '.join(unknown)} are unknown (records without 'human'), so whether "
                    "the runs compared had the same human cannot be checked")
        return (f"note: the human of {', '.join(unknown)} is unknown (records without 'human'), so whether the "
                "runs compared had the same human cannot be checked; "
                + "; ".join(f"{lb}: {describe_humans(runs[lb])}" for lb in labels))
    return None
