"""Trainer configs: the shared fields, one model's settings, and the one path that builds a config
from a dict. Light: no torch, so that CLIs can validate before loading a model.

* :class:`ModelConfig` -- one trained model (path, LoRA, 4-bit, full fine-tune, learning rate), named
  after TRL's ``ModelConfig``: ``TrainerConfig.policy`` in every trainer, ``SweetRLConfig.critic``
  (a subclass with the critic's own epochs, batch and length).
* :class:`TrainerConfig` -- the fields every algorithm config inherits.
* :func:`config_from_dict` -- a config from a JSON object / checkpoint: nested dicts for the models,
  unknown keys an error naming them. ``colbench train --config-json``, the pipeline's
  ``--trainer-overrides`` and :meth:`colbench.agents.trainer_base.LMTrainer.load` all go through it (or
  :func:`merge_config_dicts`).
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, ClassVar

from colbench_env.protocol import MAX_TURNS

__all__ = ["ConfigError", "ModelConfig", "TrainerConfig", "config_from_dict",
           "merge_config_dicts", "canonical_config_dict", "NoTrainingData", "SAMPLED_ROLLOUTS_HINT", "config_fields",
           "CONTEXT_SETTINGS", "recorded_context", "context_conflicts"]


class ConfigError(ValueError):
    """An invalid trainer configuration; the message names the field."""


class NoTrainingData(ValueError):
    """The trajectories hold nothing an algorithm can learn from (no successful rollout, no two
    rollouts of one task with different rewards, no agent turn); the message says what data would
    give it something. ``colbench train`` prints it as its one-line error; the pipeline records the
    method as not trained, with this message."""


#: what data gives the pair- and group-based trainers something to learn (in their NoTrainingData)
SAMPLED_ROLLOUTS_HINT = ("sampled rollouts give them: several of each task, some successful and some not "
                         "(colbench run --rollouts-per-task K --temperature T, e.g. K = 4, T = 0.7; greedy "
                         "rollouts of a task are all alike)")


def _check(cond: bool, name: str, message: str) -> None:
    if not cond:
        raise ConfigError(f"field '{name}': {message}")


def _check_positive_ints(obj, *names: str) -> None:
    for name in names:
        v = getattr(obj, name)
        _check(isinstance(v, int) and not isinstance(v, bool) and v > 0, name, f"must be a positive int, got {v!r}")


def _check_max_pairs(obj) -> None:
    v = obj.max_pairs
    _check(v is None or (isinstance(v, int) and not isinstance(v, bool) and v > 0), "max_pairs",
           f"must be a positive int or None, got {v!r}")


def _check_rows_per_forward(obj) -> None:
    v = obj.rows_per_forward
    _check(v is None or (isinstance(v, int) and not isinstance(v, bool) and v > 0), "rows_per_forward",
           f"must be a positive int or None, got {v!r}")


def _nested_fields(cls: type) -> dict[str, type]:
    return dict(getattr(cls, "_nested", {}))


def canonical_config_dict(cls: type, data: dict, *, source: str | None = None) -> dict:
    """``data`` with the nested configs of ``cls`` (``policy``, ``critic``) as plain dicts (a config
    object given for one is turned into the dict of its fields). Keys that are not fields are left
    for the caller to reject."""
    out = dict(data)
    for name, sub in _nested_fields(cls).items():  # nested config objects -> dicts (merged below)
        if dataclasses.is_dataclass(out.get(name)) and not isinstance(out.get(name), type):
            out[name] = dataclasses.asdict(out[name])
        elif name in out and out[name] is not None and not isinstance(out[name], dict):
            raise ConfigError(f"{_where(source)}field '{name}': must be a {sub.__name__} or a JSON object, "
                              f"got {type(out[name]).__name__}")
        elif name in out:
            out[name] = dict(out[name] or {})
    return out


def _where(source: str | None) -> str:
    return f"{source}: " if source else ""


def merge_config_dicts(cls: type, base: dict, override: dict, *, source: str | None = None) -> dict:
    """``override`` over ``base``: nested configs are merged field by field,
    so ``{"critic": {"learning_rate": 1e-4}}`` changes the critic's learning rate only."""
    a = canonical_config_dict(cls, base, source=source)
    b = canonical_config_dict(cls, override, source=source)
    out = dict(a)
    for k, v in b.items():
        if k in _nested_fields(cls) and isinstance(v, dict) and isinstance(a.get(k), dict):
            out[k] = {**a[k], **v}
        else:
            out[k] = v
    return out


def _unknown_fields(cls: type, data: dict, prefix: str = "") -> list[str]:
    names = {f.name for f in dataclasses.fields(cls)}
    out = [prefix + k for k in data if k not in names]
    for name, sub in _nested_fields(cls).items():
        if isinstance(data.get(name), dict):
            out += _unknown_fields(sub, data[name], f"{prefix}{name}.")
    return sorted(out)


def _known_fields(cls: type) -> list[str]:
    nested = _nested_fields(cls)
    out = [f.name for f in dataclasses.fields(cls) if f.name not in nested]
    for name, sub in nested.items():
        out += [f"{name}.{f.name}" for f in dataclasses.fields(sub)]
    return out


def config_from_dict(cls: type, data: dict, *, source: str = "<config>"):
    """Build config ``cls`` from a dict (a JSON object, a checkpoint's ``trainer.json`` config).

    Nested configs are dicts (``{"critic": {"learning_rate": 1e-4}}``). Unknown fields raise
    :class:`ConfigError` naming them."""
    if not isinstance(data, dict):
        raise ConfigError(f"{source}: a config must be a JSON object, got {type(data).__name__}")
    data = canonical_config_dict(cls, data, source=source)
    unknown = _unknown_fields(cls, data)
    if unknown:
        raise ConfigError(f"{source}: unknown field(s) {unknown} for {cls.__name__} (known: {_known_fields(cls)})")
    try:
        return cls(**data)
    except ConfigError as e:
        raise ConfigError(f"{source}: {e}") from None


def _nested_config(cls: type, value: Any, name: str):
    """``value`` (a ``cls``, a dict of its fields or ``None``) as a validated ``cls``; errors name
    the field as ``name.field``."""
    if isinstance(value, cls):
        return value
    if value is None:
        value = {}
    _check(isinstance(value, dict), name, f"must be a {cls.__name__} or a JSON object, got {type(value).__name__}")
    unknown = _unknown_fields(cls, value)
    _check(not unknown, name, f"unknown field(s) {unknown} (known: {_known_fields(cls)})")
    try:
        return cls(**value)
    except ConfigError as e:
        raise ConfigError(str(e).replace("field '", f"field '{name}.", 1)) from None


@dataclass
class ModelConfig:
    """One trained model and its optimiser step: the policy of every trainer
    (:attr:`TrainerConfig.policy`) and SWEET-RL's critic (a :class:`~colbench.agents.sweet_rl.CriticConfig`).
    Names follow TRL's ``ModelConfig`` (``model_name_or_path``, ``lora_*``, ``load_in_4bit``).

    Attributes:
        model_name_or_path: path (or hub id) of the base model; may be ``None`` when a model object
            is given to the trainer directly (then :meth:`LMTrainer.load` needs the model again).
        lora_r: LoRA rank.
        lora_alpha: LoRA scaling numerator (scale = alpha / r).
        lora_dropout: dropout on the LoRA branch.
        lora_target_modules: module names to adapt, or ``"all-linear"``.
        load_in_4bit: load the base in 4-bit NF4 (bitsandbytes), train LoRA on top (QLoRA).
        compute_dtype: the dtype the base's weights are loaded in, whatever the checkpoint holds
            (``"float32"``, ``"bfloat16"``, ``"float16"``); with 4-bit also the dtype of the 4-bit
            matmuls. ``"float32"`` with ``mixed_precision="bf16"`` is mixed precision with float32
            master weights; ``"bfloat16"`` halves the base's memory (fine for a frozen LoRA base;
            a full fine-tune then updates bf16 weights in place, which loses small steps unless
            DeepSpeed keeps float32 copies).
        full_finetune: train every weight of the base instead of a LoRA adapter (the reference
            trains full models); the reference model is then a frozen copy of the base (twice the
            weights in memory). Not with ``load_in_4bit``.
        learning_rate: AdamW learning rate.
    """

    model_name_or_path: str | None = None
    lora_r: int = 16
    lora_alpha: int = 32
    lora_dropout: float = 0.0
    lora_target_modules: Any = "all-linear"
    load_in_4bit: bool = False
    compute_dtype: str = "float32"
    full_finetune: bool = False
    learning_rate: float = 2e-5

    def __post_init__(self) -> None:
        _check(self.model_name_or_path is None or isinstance(self.model_name_or_path, str), "model_name_or_path",
               "must be a path/hub id string or None")
        _check_positive_ints(self, "lora_r")
        _check(self.lora_alpha > 0, "lora_alpha", f"must be > 0, got {self.lora_alpha!r}")
        _check(0.0 <= self.lora_dropout < 1.0, "lora_dropout", f"must be in [0, 1), got {self.lora_dropout!r}")
        _check(self.compute_dtype in ("float32", "bfloat16", "float16"), "compute_dtype",
               f"must be 'float32', 'bfloat16' or 'float16', got {self.compute_dtype!r}")
        _check(isinstance(self.load_in_4bit, bool), "load_in_4bit", f"must be true or false, got {self.load_in_4bit!r}")
        _check(isinstance(self.full_finetune, bool), "full_finetune",
               f"must be true or false, got {self.full_finetune!r}")
        _check(not (self.full_finetune and self.load_in_4bit), "full_finetune",
               "cannot fully fine-tune a 4-bit base (use LoRA with load_in_4bit)")
        _check(self.learning_rate > 0, "learning_rate", f"must be > 0, got {self.learning_rate!r}")


@dataclass
class TrainerConfig:
    """Fields shared by every trainer. Subclasses add the algorithm's own (among them what one
    micro-batch counts: ``sequences_per_batch``, ``pairs_per_batch`` or ``trajectories_per_batch``).

    Attributes:
        policy: the policy's model, adapter and learning rate (:class:`ModelConfig`; a dict of its
            fields is accepted).
        gradient_checkpointing: trade compute for activation memory.
        weight_decay: AdamW weight decay.
        max_grad_norm: gradient clipping norm (``None``/0: no clipping).
        gradient_accumulation_steps: micro-batches per optimiser step.
        max_length: longest tokenised policy sequence; longer contexts are cut from the left.
        seed: seeds python/torch at construction (data order, LoRA init, sampling).
        max_new_tokens: generation length in ``act``.
        temperature: sampling temperature in ``act`` (0: greedy).
        mixed_precision: accelerate's ``"no"``, ``"fp16"``, ``"bf16"``.
        show_progress: tqdm bars in ``update``.
        max_turns: the turn budget told to the agent in its instructions -- must be the one the
            trajectories were collected with, so that training contexts are the policy's contexts.
        prompt_style: the agent prompt's style (``"paper"`` / ``"compact"``, as ``LMAgent``'s),
            used by the default formatter and ``act``.
        adam_betas: AdamW ``(beta1, beta2)`` (torch's default ``(0.9, 0.999)``; the reference's
            OpenRLHF fork uses ``(0.9, 0.95)``).
        lr_scheduler: ``"constant"``, or ``"cosine"``: linear warm-up over ``warmup_ratio`` of the
            optimiser steps of each ``update``, then cosine decay to ``min_lr_ratio`` x the learning
            rate (transformers' ``cosine_with_min_lr``, as the reference's ``train_dpo.py``).
        warmup_ratio: warm-up fraction of the steps (``"cosine"`` only; reference 0.03).
        min_lr_ratio: final learning rate / learning rate (``"cosine"`` only; reference 0.1).
        optimizer_steps: train exactly this many optimiser steps per ``update`` (``None``: the
            algorithm's passes over its data decide, ``epochs`` or ``update_epochs``). Set, the passes
            go on over the data until that many steps are taken, the last pass cut short
            (:func:`colbench.agents.trainer_base.epoch_plan`): how ``colbench pipeline --matched-budget``
            gives every method the same number of steps. Every trainer's metrics record the steps
            it took (``optimizer_steps``), counted at the optimiser.
        recorded_tokens: train the policy on the token ids it recorded while collecting a trajectory
            (each agent entry's ``tokens``), when every agent turn of the record has them from this
            policy's tokenizer (same :func:`~colbench_env.lm.tokens.tokenizer_fingerprint`);
            ``False``: always re-tokenize the text (:mod:`colbench.agents.tokenize`).
    """

    _nested: ClassVar[dict[str, type]] = {"policy": ModelConfig}

    policy: ModelConfig = field(default_factory=ModelConfig)
    gradient_checkpointing: bool = False
    weight_decay: float = 0.0
    max_grad_norm: float | None = 1.0
    gradient_accumulation_steps: int = 1
    max_length: int = 4096
    seed: int = 0
    max_new_tokens: int = 512
    temperature: float = 1.0
    mixed_precision: str = "no"
    show_progress: bool = False
    max_turns: int = MAX_TURNS
    prompt_style: str = "paper"
    adam_betas: tuple = (0.9, 0.999)
    lr_scheduler: str = "constant"
    warmup_ratio: float = 0.0
    min_lr_ratio: float = 0.1
    optimizer_steps: int | None = None
    recorded_tokens: bool = True

    def __post_init__(self) -> None:
        self.policy = _nested_config(ModelConfig, self.policy, "policy")
        _check(self.weight_decay >= 0, "weight_decay", f"must be >= 0, got {self.weight_decay!r}")
        _check(self.max_grad_norm is None or self.max_grad_norm >= 0, "max_grad_norm", "must be >= 0 or None")
        from colbench_env.prompting import PROMPT_STYLES

        _check(self.prompt_style in PROMPT_STYLES, "prompt_style",
               f"must be one of {PROMPT_STYLES}, got {self.prompt_style!r}")
        _check_positive_ints(self, "gradient_accumulation_steps", "max_length", "max_new_tokens", "max_turns")
        _check(self.temperature >= 0, "temperature", f"must be >= 0, got {self.temperature!r}")
        _check(self.mixed_precision in ("no", "fp16", "bf16"), "mixed_precision",
               f"must be 'no', 'fp16' or 'bf16', got {self.mixed_precision!r}")
        _check(isinstance(self.adam_betas, (list, tuple)) and len(self.adam_betas) == 2
               and all(isinstance(b, (int, float)) and 0.0 <= b < 1.0 for b in self.adam_betas), "adam_betas",
               f"must be two numbers in [0, 1), got {self.adam_betas!r}")
        self.adam_betas = tuple(float(b) for b in self.adam_betas)
        _check(self.lr_scheduler in ("constant", "cosine"), "lr_scheduler",
               f"must be 'constant' or 'cosine', got {self.lr_scheduler!r}")
        _check(0.0 <= self.warmup_ratio < 1.0, "warmup_ratio", f"must be in [0, 1), got {self.warmup_ratio!r}")
        _check(0.0 <= self.min_lr_ratio <= 1.0, "min_lr_ratio", f"must be in [0, 1], got {self.min_lr_ratio!r}")
        _check(self.optimizer_steps is None or (isinstance(self.optimizer_steps, int)
                                                and not isinstance(self.optimizer_steps, bool) and self.optimizer_steps > 0),
               "optimizer_steps", f"must be a positive int or None, got {self.optimizer_steps!r}")

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)


# ------------------------------------------------------------------------------ documented fields
def _attribute_docs(cls: type) -> dict[str, str]:
    """``{field: text}`` from the ``Attributes:`` sections of ``cls``'s docstring and its bases'
    (a subclass's entry wins); an entry ``a / b: text`` or ``a, b: text`` documents both names."""
    import inspect
    import re

    docs: dict[str, str] = {}
    for klass in reversed(cls.__mro__):
        doc = inspect.cleandoc(klass.__doc__ or "") if "__doc__" in vars(klass) else ""
        inside, current = False, []
        for line in doc.splitlines():
            if line.strip() == "Attributes:":
                inside = True
                continue
            if not inside:
                continue
            indent = len(line) - len(line.lstrip())
            if line.strip() and indent == 0:  # the section ended
                inside, current = False, []
                continue
            m = re.match(r"^ {4}([A-Za-z_][\w ,/]*?):(\s.*|)$", line)
            if m:
                current = [n.strip() for n in re.split(r"[,/]", m.group(1)) if n.strip()]
                for name in current:
                    docs[name] = m.group(2).strip()
            elif line.strip() and current:
                for name in current:
                    docs[name] += " " + line.strip()
    return docs


def config_fields(cls: type, prefix: str = "") -> list[tuple[str, Any, str]]:
    """``(name, default, documentation)`` of every field of config ``cls``, nested configs' fields as
    ``policy.lora_r`` (what ``colbench train ALG --help`` lists)."""
    docs = _attribute_docs(cls)
    nested = _nested_fields(cls)
    out = []
    for f in dataclasses.fields(cls):
        if f.name in nested:
            out += config_fields(nested[f.name], prefix=f"{prefix}{f.name}.")
            continue
        default = f.default if f.default is not dataclasses.MISSING else (
            f.default_factory() if f.default_factory is not dataclasses.MISSING else None)
        out.append((prefix + f.name, default, docs.get(f.name, "")))
    return out


# ------------------------------------------------------------------------- the contexts' settings
#: the trainer config fields that shape the agent's contexts, as trajectories record them
#: (``agent_prompt``: :data:`colbench_env.prompting.AGENT_PROMPT_FIELD`)
CONTEXT_SETTINGS = ("prompt_style", "max_turns")


def config_formatter(config: TrainerConfig):
    """The contexts a trainer with ``config`` builds by default, ``(task_record, dialogue_history) ->
    chat messages``: :func:`colbench_env.prompting.record_messages` with its ``max_turns`` and
    ``prompt_style``."""
    import functools

    from colbench_env.prompting import record_messages

    return functools.partial(record_messages, max_turns=config.max_turns, style=config.prompt_style)


def recorded_context(records: list[dict], *, source: str = "<trajectories>") -> dict:
    """The settings that shaped the contexts of ``records``' agent turns, from their ``agent_prompt``
    field (``{"kind", "max_turns", "prompt_style"}``, written by ``colbench run`` and the pipeline for
    an LM agent): ``{}`` when no record carries it. Records that disagree (two runs concatenated) are
    a :class:`ConfigError` naming the first line of each setting."""
    from colbench_env.prompting import AGENT_PROMPT_FIELD

    found: dict[tuple, int] = {}
    for i, rec in enumerate(records, 1):
        value = rec.get(AGENT_PROMPT_FIELD) if isinstance(rec, dict) else None
        if isinstance(value, dict):
            found.setdefault(tuple(sorted((k, value.get(k)) for k in ("kind", *CONTEXT_SETTINGS))), i)
    if len(found) > 1:
        (a, i), (b, j) = list(found.items())[:2]
        raise ConfigError(f"{source}: the trajectories were collected with different prompt settings "
                          f"(line {i}: {dict(a)}; line {j}: {dict(b)}): one policy cannot have seen both; "
                          "train on the trajectories of one setting")
    return dict(next(iter(found))) if found else {}


def context_conflicts(settings: dict, config: dict) -> list[tuple[str, Any, Any]]:
    """``(field, trajectories' value, config's value)`` for each :data:`CONTEXT_SETTINGS` field that
    both give and that differ."""
    return [(k, settings[k], config[k]) for k in CONTEXT_SETTINGS
            if k in settings and k in config and settings[k] != config[k]]
