"""What a model name leads to, checked before transformers is called.

Every place that names a base model -- ``colbench train --model``, ``colbench run --agent hf
--agent-model``, ``colbench table hf:...``, ``colbench pipeline --policy``, a trainer config's
``model_name_or_path``, :class:`~colbench_env.lm.hf.HFBackend` -- goes through :func:`resolve_model`,
which accepts, in this order:

* a local model name: ``smollm2`` (the embedded SmolLM2-135M-Instruct, :data:`LOCAL_MODELS`; the
  names ``colbench run --agent`` accepts for a local model);
* a ``colbench train`` checkpoint directory (it holds ``trainer.json``): the base model its
  ``policy.model_name_or_path`` names (resolved the same way) with the trained policy on top -- the
  LoRA adapter in ``CKPT/policy`` (or, for a full fine-tune, the whole model there); the tokenizer
  is the base's;
* a peft adapter directory (``adapter_config.json``): its ``base_model_name_or_path`` plus the adapter;
* any other directory (a transformers model: ``config.json``);
* a hub id found in the local Hugging Face cache (the cached snapshot's directory: nothing is fetched);
* a hub id not cached: the hub is asked once whether it exists (unless ``HF_HUB_OFFLINE`` is set),
  then transformers downloads it as usual.

Anything else is a :class:`ModelNotFoundError` (a :class:`~colbench_env.errors.UsageError`: the
command prints one line saying what was tried, exit 2), raised at once: no hub retries.
:func:`load_causal_lm` and :func:`load_tokenizer` load what :func:`resolve_model` found.
"""
from __future__ import annotations

import json
import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from colbench_env.errors import UsageError

__all__ = ["LOCAL_MODELS", "ModelNotFoundError", "ModelSource", "resolve_model", "load_causal_lm", "load_tokenizer",
           "tokenizer_from_pretrained", "export_model"]


def _smollm2() -> str:
    from .smollm2 import smollm2_path

    try:
        return smollm2_path()
    except FileNotFoundError as e:
        raise ModelNotFoundError(str(e)) from None


#: local model names -> a function giving their directory (what ``--agent NAME`` runs locally)
LOCAL_MODELS: dict[str, Callable[[], str]] = {"smollm2": _smollm2}


class ModelNotFoundError(UsageError):
    """A model name that leads to no local model (and, online, to none on the hub); the message says
    what was tried."""


@dataclass(frozen=True)
class ModelSource:
    """A resolved model.

    Attributes:
        name: what was given.
        path: the directory (or, for a hub id to download, the id) ``from_pretrained`` loads: the base
            model, for a checkpoint or adapter.
        tokenizer: where the tokenizer comes from (the base's directory or id).
        adapter: a peft adapter directory applied on top of ``path``, or ``None``.
        kind: ``"local"`` (a local name), ``"directory"``, ``"checkpoint"`` (``colbench train``),
            ``"adapter"``, ``"cached"`` (hub cache) or ``"hub"`` (to be downloaded).
        dtype: a checkpoint's ``compute_dtype`` (the dtype its policy was trained in), loaded so
            unless the caller says otherwise; ``None``: the stored weights' own.
    """

    name: str
    path: str
    tokenizer: str
    adapter: str | None = None
    kind: str = "directory"
    dtype: str | None = None


def _hub_cache() -> str:
    try:
        from huggingface_hub import constants

        return str(constants.HF_HUB_CACHE)
    except Exception:  # pragma: no cover - huggingface_hub is installed with transformers
        return "~/.cache/huggingface/hub"


def _looks_like_path(name: str) -> bool:
    """A name that can only be a filesystem path (a hub id is ``name`` or ``owner/name``)."""
    return (name.startswith(("/", ".", "~")) or name.count("/") > 1 or os.sep != "/" and os.sep in name
            or name.endswith("/"))


def _cached_snapshot(repo_id: str) -> str | None:
    """The local snapshot directory of a hub model in the Hugging Face cache, or ``None``."""
    try:
        from huggingface_hub import try_to_load_from_cache
    except ImportError:  # pragma: no cover
        return None
    try:
        found = try_to_load_from_cache(repo_id, "config.json")
    except Exception:  # an invalid repo id
        return None
    return os.path.dirname(found) if isinstance(found, str) else None


def _offline() -> bool:
    value = os.environ.get("HF_HUB_OFFLINE", "") or os.environ.get("TRANSFORMERS_OFFLINE", "")
    return value.strip().upper() in ("1", "ON", "YES", "TRUE")


def _not_found(name: str, option: str, why: str) -> ModelNotFoundError:
    local = ", ".join(LOCAL_MODELS)
    return ModelNotFoundError(f"{option} {name}: {why}; tried: a local model name ({local}), a directory, a "
                              f"colbench train checkpoint, the Hugging Face cache ({_hub_cache()})")


def resolve_model(name: str | os.PathLike, *, option: str = "--model", _seen: tuple = ()) -> ModelSource:
    """Where ``name`` leads (module docstring); :class:`ModelNotFoundError` when nowhere.

    Args:
        name: a local model name, a directory (model, ``colbench train`` checkpoint or peft adapter) or
            a hub id.
        option: how the message names the setting (``--model``, ``--agent-model``, ...).
    """
    name = os.fspath(name)
    if not isinstance(name, str) or not name:
        raise ModelNotFoundError(f"{option}: no model given")
    if name in LOCAL_MODELS:
        path = LOCAL_MODELS[name]()
        return ModelSource(name, path, path, kind="local")
    p = Path(name).expanduser()
    if p.is_dir():
        if (p / "trainer.json").is_file():
            return _checkpoint(name, p, option, _seen)
        if (p / "adapter_config.json").is_file() and not (p / "config.json").is_file():
            return _adapter(name, p, p, option, _seen)
        if not (p / "config.json").is_file():
            raise ModelNotFoundError(f"{option} {name}: a directory without a model (no config.json, no "
                                     "adapter_config.json, no trainer.json of a colbench train checkpoint)")
        return ModelSource(name, str(p), str(p), kind="directory")
    if p.exists():
        raise ModelNotFoundError(f"{option} {name}: a file, not a model directory")
    if _looks_like_path(name):
        raise _not_found(name, option, "no such directory")
    snapshot = _cached_snapshot(name)
    if snapshot is not None:
        return ModelSource(name, snapshot, snapshot, kind="cached")
    if _offline():
        raise _not_found(name, option, "not found locally, and HF_HUB_OFFLINE is set, so the hub was not asked "
                                       "(download it where there is network: hf download " + name + ")")
    why = _ask_hub(name)
    if why is not None:
        raise _not_found(name, option, f"not found locally, and the hub {why} (offline: download it where there "
                                       f"is network, hf download {name}, or pass a local path; set "
                                       "HF_HUB_OFFLINE=1 to never ask the hub)")
    return ModelSource(name, name, name, kind="hub")


def _ask_hub(repo_id: str) -> str | None:
    """``None`` when the hub has model ``repo_id``; else why not (one request, no retries)."""
    try:
        from huggingface_hub import model_info
        from huggingface_hub.errors import GatedRepoError, RepositoryNotFoundError
    except ImportError:  # pragma: no cover
        return "client (huggingface_hub) is not installed"
    try:
        model_info(repo_id, timeout=10)
    except GatedRepoError:
        return None  # it exists; transformers says how to get access
    except RepositoryNotFoundError:
        return f"has no model {repo_id!r} (or it is private: log in with hf auth login)"
    except Exception as e:  # no network: a connection error, a timeout
        msg = str(e).strip().splitlines()[0] if str(e).strip() else ""
        return f"cannot be reached ({type(e).__name__}{': ' + msg[:120] if msg else ''})"
    return None


def _checkpoint(name: str, p: Path, option: str, seen: tuple) -> ModelSource:
    """A ``colbench train`` checkpoint: its base (``trainer.json``'s policy) + ``policy/``."""
    meta_path = p / "trainer.json"
    try:
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
        config = meta["config"]
        policy = config.get("policy") or {}
        base = policy.get("model_name_or_path") if isinstance(policy, dict) else None
        full = bool(policy.get("full_finetune", False))
        dtype = policy.get("compute_dtype")
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as e:
        raise ModelNotFoundError(f"{option} {name}: {meta_path} is not a colbench train checkpoint's "
                                 f"trainer.json ({type(e).__name__}: {e})") from None
    trained = p / "policy"
    if not trained.is_dir():
        raise ModelNotFoundError(f"{option} {name}: the checkpoint has no trained policy ({trained} is missing)")
    if not base:
        raise ModelNotFoundError(f"{option} {name}: {meta_path} names no base model (policy.model_name_or_path)")
    if str(p.resolve()) in seen:
        raise ModelNotFoundError(f"{option} {name}: the checkpoint's base model leads back to itself")
    src = resolve_model(base, option=f"{option} {name}: its base model (trainer.json policy.model_name_or_path)",
                        _seen=seen + (str(p.resolve()),))
    if src.adapter is not None:
        raise ModelNotFoundError(f"{option} {name}: its base {base} is itself a trained checkpoint; export that "
                                 "one first (colbench export) and train on the exported model")
    dtype = dtype if dtype in ("float32", "bfloat16", "float16") else None
    if full:  # the whole trained model is in policy/, the tokenizer is the base's
        return ModelSource(name, str(trained), src.tokenizer, kind="checkpoint", dtype=dtype)
    return ModelSource(name, src.path, src.tokenizer, adapter=str(trained), kind="checkpoint", dtype=dtype)


def _adapter(name: str, p: Path, adapter: Path, option: str, seen: tuple) -> ModelSource:
    try:
        base = json.loads((adapter / "adapter_config.json").read_text(encoding="utf-8")).get("base_model_name_or_path")
    except (OSError, ValueError, AttributeError) as e:
        raise ModelNotFoundError(f"{option} {name}: unreadable adapter_config.json ({e})") from None
    if not base:
        raise ModelNotFoundError(f"{option} {name}: adapter_config.json names no base_model_name_or_path")
    src = resolve_model(base, option=f"{option} {name}: its base model", _seen=seen + (str(p.resolve()),))
    if src.adapter is not None:
        raise ModelNotFoundError(f"{option} {name}: its base {base} is itself an adapter")
    return ModelSource(name, src.path, src.tokenizer, adapter=str(adapter), kind="adapter")


def load_tokenizer(source: ModelSource, **kwargs: Any):
    """The tokenizer of a resolved model (the base's, for a checkpoint or adapter):
    :func:`tokenizer_from_pretrained` of its directory."""
    return tokenizer_from_pretrained(source.tokenizer, **kwargs)


#: endings of the files a tokenizer load never reads (weights, optimiser state), left out of the
#: files :func:`tokenizer_from_pretrained` compares
_NOT_TOKENIZER_FILES = (".safetensors", ".bin", ".pt", ".pth", ".gguf", ".h5", ".msgpack", ".ckpt", ".onnx", ".npz",
                        ".pkl")
#: a directory whose other files are more (or larger) than this is loaded every time
_TOKENIZER_DIR_LIMITS = (256, 256 << 20)  # files, bytes
_TOKENIZERS: dict[tuple, Any] = {}  # key -> the loaded tokenizer (None: loaded once, not kept yet)
_TOKENIZERS_KEPT = 8
_TOKENIZERS_LOCK = threading.Lock()


def tokenizer_from_pretrained(path: str | os.PathLike, **kwargs: Any):
    """``AutoTokenizer.from_pretrained(path, **kwargs)``: a new tokenizer object on every call (the
    caller may change it: pad token, padding side, added tokens, template).

    A local directory loaded a second time in a process with the same options is kept, and every
    later call gets a copy of it (:func:`copy.deepcopy`, about half the CPU of a load, which reads
    and converts the files again), as long as the directory's files are the same: their names and
    contents (sha256) are compared on every call, every file but weights and optimiser state
    (:data:`_NOT_TOKENIZER_FILES`), subfolders included. Loaded afresh every time: a hub id, a
    directory with more than 256 such files or 256 MiB, ``trust_remote_code`` or ``subfolder``
    loads, options other than plain values, a tokenizer that cannot be copied."""
    import copy

    from transformers import AutoTokenizer

    key = _tokenizer_key(path, kwargs)
    if key is None:
        return AutoTokenizer.from_pretrained(path, **kwargs)
    with _TOKENIZERS_LOCK:
        seen = key in _TOKENIZERS
        kept = _TOKENIZERS.pop(key, None)
        if seen:
            _TOKENIZERS[key] = kept  # the most recent last
    if kept is not None:
        return copy.deepcopy(kept)
    tokenizer = AutoTokenizer.from_pretrained(path, **kwargs)
    if seen:  # the second load: keep a copy for the next ones
        try:
            kept = copy.deepcopy(tokenizer)
        except Exception:  # noqa: BLE001 -- a tokenizer that cannot be copied is loaded each time
            return tokenizer
    with _TOKENIZERS_LOCK:
        _TOKENIZERS[key] = kept
        while len(_TOKENIZERS) > _TOKENIZERS_KEPT:
            _TOKENIZERS.pop(next(iter(_TOKENIZERS)))
    return tokenizer


def _tokenizer_key(path: str | os.PathLike, kwargs: dict) -> tuple | None:
    """What a load of ``path`` with ``kwargs`` depends on (:func:`tokenizer_from_pretrained`), or
    ``None`` when it is not a local directory kept."""
    import hashlib

    if kwargs.get("trust_remote_code") or "subfolder" in kwargs or \
            not all(isinstance(v, (str, int, float, bool, type(None))) for v in kwargs.values()):
        return None
    root = Path(path)
    if not root.is_dir():
        return None
    files = sorted(p for p in root.rglob("*") if p.is_file() and not p.name.endswith(_NOT_TOKENIZER_FILES))
    if len(files) > _TOKENIZER_DIR_LIMITS[0] or sum(p.stat().st_size for p in files) > _TOKENIZER_DIR_LIMITS[1]:
        return None
    digests = tuple((str(p.relative_to(root)), hashlib.sha256(p.read_bytes()).hexdigest()) for p in files)
    return str(root.resolve()), tuple(sorted(kwargs.items())), digests


def load_causal_lm(source: ModelSource, *, merge: bool = True, **kwargs: Any):
    """``AutoModelForCausalLM.from_pretrained(source.path, **kwargs)``, with the source's adapter applied:
    merged into the weights (``merge``; a plain transformers model, what ``colbench export`` saves), or
    kept as a ``peft.PeftModel`` (for a 4-bit base, whose weights cannot take a merge exactly)."""
    from transformers import AutoModelForCausalLM

    if "dtype" not in kwargs and source.dtype is not None:
        import torch

        kwargs["dtype"] = getattr(torch, source.dtype)
    model = AutoModelForCausalLM.from_pretrained(source.path, **kwargs)
    if source.adapter is None:
        return model
    from peft import PeftModel

    model = PeftModel.from_pretrained(model, source.adapter)
    return model.merge_and_unload() if merge else model


def export_model(name: str | os.PathLike, out_dir: str | os.PathLike, *, option: str = "checkpoint") -> str:
    """Write the model ``name`` leads to (:func:`resolve_model`; typically a ``colbench train``
    checkpoint) to ``out_dir`` as a plain transformers model: the adapter merged into the base's
    weights, in the dtype the policy was trained in, with the base's tokenizer (and chat template) --
    what any transformers or vLLM server loads, and what ``colbench run --agent-model`` runs the same
    as the checkpoint itself (the same merge). Returns ``out_dir``."""
    source = resolve_model(name, option=option)
    model = load_causal_lm(source, merge=True)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(out)
    load_tokenizer(source).save_pretrained(out)
    return str(out)
