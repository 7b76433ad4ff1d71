"""What every trainer shares: a LoRA-adapted LM on accelerate, checkpoints, acting, collecting.

* :class:`TrainerConfig` -- the fields every algorithm config inherits (the policy's
  :class:`ModelConfig`: model, LoRA, 4-bit, learning rate; the optimiser, generation).
* :class:`TrainableLM` -- one trainable language model: a base model (full precision, or 4-bit NF4
  via bitsandbytes) with a peft LoRA adapter, its optimiser, and an accelerate
  :class:`~accelerate.Accelerator` that places it (CPU, one GPU, DDP, FSDP or DeepSpeed by the
  ``accelerate launch`` config -- no code change). The *reference* model is the same network with the
  adapter disabled (``with model.disable_adapter():``), so no second copy is held in memory.
* :class:`LMTrainer` -- the base of :class:`~colbench.agents.rft.RejectionFineTuning`,
  :class:`~colbench.agents.mt_dpo.MultiTurnDPO`, :class:`~colbench.agents.ppo.PPO`, :class:`~colbench.agents.grpo.GRPO` and
  :class:`~colbench.agents.sweet_rl.SweetRL`:
  ``collect(env, policy, n_episodes)``, ``update(trajectories) -> metrics``, ``act(observation) -> str``,
  ``save(dir)``, ``load(dir)`` (a classmethod; resuming continues the optimiser and update count).

Checkpoint layout (``save(dir)``)::

    dir/trainer.json          {"algorithm", "config": {..., "policy": {...}}, "updates": int, "history": [...]}
    dir/<name>/               peft adapter (adapter_config.json + adapter_model.safetensors)
    dir/<name>/optimizer.pt   optimiser state
    dir/rng.pt                torch RNG state

A sharded run (FSDP, ZeRO-3; :mod:`colbench.agents.sharding`) writes the same files, gathered from its
processes, and loads any of them: a checkpoint moves between one process and several.
"""
from __future__ import annotations

import abc
import contextlib
import json
import math
import os
import random
import sys
import warnings
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

import torch

from colbench_env.lm.base import GeneratedText
from colbench_env.lm.heap import limit_heap_retention
from colbench_env.lm.quantization import keep_4bit_differentiable, prepare_4bit_for_training
from colbench_env.lm.tokens import TurnTokens, tokenizer_fingerprint

from . import sharding
from .config import (CONTEXT_SETTINGS, ConfigError, ModelConfig, NoTrainingData,  # noqa: F401
                     TrainerConfig, canonical_config_dict, config_formatter, config_from_dict, context_conflicts,
                     merge_config_dicts, recorded_context)
from .losses import token_logprobs
from .tokenize import Formatter, TokenizedSequence, as_messages, collate, tokenize_trajectory

__all__ = ["TrainerConfig", "ModelConfig", "TrainableLM", "LMTrainer", "ConfigError", "load_trajectories",
           "config_from_dict", "merge_config_dicts", "canonical_config_dict", "epoch_plan", "plan_steps",
           "training_budget", "BUDGET_FIELDS", "RecordedLogprobs"]


_DTYPES = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}


def _rng_state(device: torch.device):
    """The random state a forward on ``device`` draws from (CPU, and the device's own)."""
    return torch.get_rng_state(), (torch.cuda.get_rng_state(device) if device.type == "cuda" else None)


def _set_rng_state(device: torch.device, state) -> None:
    torch.set_rng_state(state[0])
    if state[1] is not None:
        torch.cuda.set_rng_state(state[1], device)


def _seed_everything(seed: int) -> None:
    random.seed(seed)
    torch.manual_seed(seed)


class TrainableLM:
    """A causal LM with a LoRA adapter, its AdamW optimiser, prepared by an accelerator.

    Args:
        accelerator: the shared :class:`accelerate.Accelerator`.
        model: a path/hub id, or a ``PreTrainedModel`` (a ``PeftModel`` is used as is).
        tokenizer: a tokenizer, or ``None`` to load it from the model path.
        lora_r, lora_alpha, lora_dropout, lora_target_modules: the adapter.
        load_in_4bit: QLoRA base (only when ``model`` is a path).
        compute_dtype: the dtype the base's weights are loaded in (only when ``model`` is a path;
            whatever the checkpoint holds), and with 4-bit the matmuls' dtype.
        learning_rate, weight_decay, max_grad_norm, gradient_accumulation_steps: optimisation.
        gradient_checkpointing: enable it on the base.
        full_finetune: train every weight (no adapter); the reference is a frozen copy of the base.
        adam_betas: AdamW betas.
        lr_scheduler, warmup_ratio, min_lr_ratio: the schedule :meth:`start_schedule` sets up
            (see :class:`TrainerConfig`).
    """

    def __init__(self, accelerator, model, tokenizer=None, *, lora_r=16, lora_alpha=32, lora_dropout=0.0,
                 lora_target_modules="all-linear", load_in_4bit=False, compute_dtype="float32",
                 learning_rate=2e-5, weight_decay=0.0, max_grad_norm=1.0, gradient_accumulation_steps=1,
                 gradient_checkpointing=False, full_finetune=False, adam_betas=(0.9, 0.999),
                 lr_scheduler="constant", warmup_ratio=0.0, min_lr_ratio=0.1):
        import copy

        import peft

        self.accelerator = accelerator
        #: ``"fsdp"``, ``"deepspeed"`` (ZeRO-3) or ``None`` (one process, DDP): :mod:`colbench.agents.sharding`
        self.sharding = sharding.sharding_kind(accelerator)
        if self.sharding == "deepspeed":  # before any engine (a full fine-tune's reference is one)
            sharding.configure_deepspeed(accelerator)
        if accelerator.device.type == "cpu":  # freed activations go back to the OS (colbench_env.lm.heap)
            limit_heap_retention()
        self.max_grad_norm = max_grad_norm
        self.accumulation = gradient_accumulation_steps
        self._pending = 0
        #: optimiser steps taken so far (counted where :meth:`flush` steps the optimiser) and
        #: micro-batches back-propagated (:meth:`backward` calls): what a trainer's budget reports
        self.optimizer_steps = 0
        self.micro_batches = 0
        self._sliced_logits = True
        #: pending pass 2 of row_logps (its leaves and groups), run by backward
        self._replays: list[dict] = []
        self._per_row_logits = True  # a sharded forward takes a boolean logits_to_keep (_sharded_logps_and_hidden)
        self.full_finetune = bool(full_finetune)
        self._schedule_kind, self._warmup_ratio, self._min_lr_ratio = lr_scheduler, warmup_ratio, min_lr_ratio
        self.scheduler = None
        self._frozen_reference = None
        self._alone = None  # the module called inside alone()
        self._unwrapped = None  # (module, accelerator.unwrap_model(module)): _unwrap
        #: trained parameters outside the prepared model (e.g. PPO's value head, :meth:`add_parameters`)
        #: whose gradients :meth:`flush` averages over processes itself (DDP only averages the model's own)
        self.sync_params: list[torch.nn.Parameter] = []
        #: their AdamW (:meth:`add_parameters`), stepped with the model's
        self.extra_optimizer: torch.optim.Optimizer | None = None
        self._extra_scheduler = None
        if isinstance(model, (str, os.PathLike)):
            from colbench_env.lm.models import load_causal_lm, load_tokenizer, resolve_model

            # "smollm2", a directory, a colbench train checkpoint (its base with the trained policy merged:
            # training goes on from it), a hub id in the cache: checked before transformers is called
            source = resolve_model(model, option="model")
            if tokenizer is None:
                tokenizer = load_tokenizer(source)
            kwargs: dict[str, Any] = {}
            if load_in_4bit:
                from transformers import BitsAndBytesConfig

                kwargs["quantization_config"] = BitsAndBytesConfig(
                    load_in_4bit=True, bnb_4bit_quant_type="nf4", bnb_4bit_use_double_quant=True,
                    bnb_4bit_compute_dtype=_DTYPES[compute_dtype],
                    # FSDP and ZeRO-3 shard a 4-bit base only when its storage dtype is the compute dtype
                    # (flat parameters of one dtype)
                    bnb_4bit_quant_storage=_DTYPES[compute_dtype] if self.sharding else torch.uint8)
                if self.sharding != "deepspeed":  # transformers refuses a device_map under ZeRO-3
                    kwargs["device_map"] = {"": accelerator.device}
            # the weights in compute_dtype, whatever the checkpoint holds: transformers v5 loads a
            # checkpoint's own dtype by default (bf16 for Llama-3.1), so "float32" would otherwise give
            # bf16 weights -- and AdamW steps on bf16 weights round updates below ~0.4 % of a weight away
            kwargs["dtype"] = _DTYPES[compute_dtype]
            if load_in_4bit and source.adapter is not None:
                raise ValueError(f"TrainableLM: {os.fspath(model)} is a trained checkpoint (base + adapter), which "
                                 "cannot be merged into 4-bit weights; export it first (colbench export) and "
                                 "train on the exported model")
            base = load_causal_lm(source, **kwargs)
            if load_in_4bit:  # frozen, unquantised weights in the compute dtype (not peft's float32)
                base = prepare_4bit_for_training(base, _DTYPES[compute_dtype],
                                                 gradient_checkpointing=gradient_checkpointing)
        else:
            base = model
            if tokenizer is None:
                raise ValueError("TrainableLM: a tokenizer is required when the model is an object, not a path")
        if load_in_4bit is False and gradient_checkpointing:
            base.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
            if hasattr(base, "enable_input_require_grads"):
                base.enable_input_require_grads()
        if tokenizer.pad_token_id is None:
            tokenizer.pad_token = tokenizer.eos_token
        if full_finetune:
            if isinstance(base, peft.PeftModel):
                raise ValueError("TrainableLM: full_finetune needs a plain model, got a PeftModel")
            dtypes = {p.dtype for p in base.parameters()}
            low = dtypes & {torch.bfloat16, torch.float16}
            if low and not str(getattr(accelerator, "distributed_type", "")).endswith("DEEPSPEED"):
                warnings.warn(f"TrainableLM: full fine-tuning {low.pop()} weights without DeepSpeed: AdamW updates "
                              "them in place with no float32 master copy, so steps smaller than the weights' "
                              "rounding (learning rates ~1e-7, as the reference's) are lost; use "
                              "compute_dtype='float32' with mixed_precision='bf16', or DeepSpeed", stacklevel=2)
            base.requires_grad_(True)
            # the frozen reference: a copy of the starting weights, never prepared for training; under
            # bf16/fp16 mixed precision (the policy's forwards autocast to it) the copy is kept in that
            # precision: half the memory of a float32 copy, 16 rather than 32 GB for an 8B model, as
            # the reference implementation's bf16 reference model. Sharded, the copy is sharded too
            # (TRL's prepare_fsdp / prepare_deepspeed); under ZeRO-3 it is loaded again from the path,
            # since transformers partitions a model as it loads it there (a copy of one is empty).
            if self.sharding == "deepspeed":
                if not isinstance(model, (str, os.PathLike)):
                    raise ValueError("TrainableLM: full_finetune under DeepSpeed ZeRO-3 needs the model as a path "
                                     "(the frozen reference is loaded from it)")
                ref = load_causal_lm(source, **kwargs)
            else:
                ref = copy.deepcopy(base)
            ref = ref.requires_grad_(False).eval()
            low_precision = {"bf16": torch.bfloat16, "fp16": torch.float16}.get(str(getattr(accelerator, "mixed_precision", "no")))
            if low_precision is not None and dtypes == {torch.float32}:
                ref = ref.to(low_precision)
            if self.sharding == "fsdp":
                from trl.models.utils import prepare_fsdp

                ref = prepare_fsdp(ref, accelerator)
            elif self.sharding == "deepspeed":
                from trl.models.utils import prepare_deepspeed

                ref = prepare_deepspeed(ref, accelerator)
            else:
                ref = ref.to(accelerator.device)
            self._frozen_reference = ref
            net = base
        elif isinstance(base, peft.PeftModel):
            net = base
        else:
            lcfg = peft.LoraConfig(r=lora_r, lora_alpha=lora_alpha, lora_dropout=lora_dropout,
                                   target_modules=lora_target_modules, task_type="CAUSAL_LM", bias="none")
            net = peft.get_peft_model(base, lcfg)
        # a 4-bit base (loaded here or given) must never switch to bitsandbytes' CPU inference
        # kernel, which has no backward (colbench_env.lm.quantization)
        keep_4bit_differentiable(net)
        self.tokenizer = tokenizer
        params = [p for p in net.parameters() if p.requires_grad]
        if not params:
            raise ValueError("TrainableLM: the model has no trainable parameters (check lora_target_modules)")
        optimizer = torch.optim.AdamW(params, lr=learning_rate, weight_decay=weight_decay, betas=tuple(adam_betas))
        self._model_groups = len(optimizer.param_groups)  # in optimizer.pt, before add_parameters' group
        #: parameter count of the whole model (a sharded process holds about 1/N of it)
        self.n_parameters = sum(getattr(p, "ds_numel", p.numel()) for p in net.parameters())  # ZeRO-3 partitions at load
        self.model, self.optimizer = accelerator.prepare(net, optimizer)
        self._adam_betas = tuple(adam_betas)

    def add_parameters(self, params: Sequence[torch.nn.Parameter], *, lr: float, weight_decay: float = 0.0) -> None:
        """Train ``params``, which live outside the prepared model (PPO's value head), with this model.

        They get their own AdamW (the model's betas), stepped with the model's optimiser in
        :meth:`flush` and scheduled with it; clipping sees the norm of both together; with several
        processes their gradients are averaged by :meth:`flush` (every process holds them whole). In
        ``optimizer.pt`` they follow the model's parameter groups as one more group, the layout of
        one optimiser holding both."""
        params = list(params)
        if self.extra_optimizer is None:
            self.extra_optimizer = torch.optim.AdamW(params, lr=lr, weight_decay=weight_decay, betas=self._adam_betas)
        else:
            self.extra_optimizer.add_param_group({"params": params, "lr": lr, "weight_decay": weight_decay})
        self.sync_params += params

    # --- model views -------------------------------------------------------------------------
    @property
    def peft_model(self):
        """The unwrapped ``PeftModel`` (the plain model when ``full_finetune``)."""
        return self._unwrap(self.model)

    def _unwrap(self, net):
        """``accelerator.unwrap_model(net)``, remembered for the module last unwrapped (accelerate asks
        on every call which libraries are installed and walks every submodule for compiled regions:
        ~10 ms, paid by every forward otherwise). :meth:`release` forgets it."""
        seen = self._unwrapped
        if seen is None or seen[0] is not net:
            seen = self._unwrapped = (net, self.accelerator.unwrap_model(net))
        return seen[1]

    def merged_model(self):
        """The trained network as a plain transformers model (LoRA merged into the base; with
        ``full_finetune`` the model itself). In one process: a sharded model's weights are split over
        the processes (load its checkpoint with :meth:`LMTrainer.load` in one process)."""
        if self.sharding:
            raise RuntimeError(f"merged_model: the model is sharded ({self.sharding}); load its checkpoint in one "
                               "process (LMTrainer.load) and merge there")
        net = self.peft_model
        return net if self.full_finetune else net.merge_and_unload()

    @property
    def device(self) -> torch.device:
        return self.accelerator.device

    def reference(self):
        """Context manager: inside it the network is the frozen base (adapter disabled). With
        ``full_finetune`` the reference is a separate frozen copy: use :meth:`forward_logits` /
        :meth:`generate` with ``reference=True``, which pick it."""
        if self.full_finetune:
            return contextlib.nullcontext()
        return self.peft_model.disable_adapter()

    def _net(self, reference: bool):
        """The module to call: the prepared model, or the frozen copy for a full fine-tune's reference
        (inside :meth:`alone`: the local module)."""
        if reference and self.full_finetune:
            if self._alone is not None and self.sharding:
                raise RuntimeError("TrainableLM.alone: a sharded full fine-tune's frozen reference is not gathered; "
                                   "call it outside alone()")
            return self._frozen_reference
        return self.model if self._alone is None else self._alone

    @contextlib.contextmanager
    def alone(self):
        """Inside, this process calls the model on its own: :meth:`generate`, :meth:`token_logps` and
        :meth:`forward_logits` make no collective call, so the processes of a launch may make
        different numbers of calls (work split unevenly over them: SWEET-RL's candidate stage).

        * One process: nothing changes.
        * DDP: the unwrapped module (DDP's forward broadcasts buffers: a collective per call).
        * FSDP / ZeRO-3: the parameters gathered whole once, for the duration
          (:func:`colbench.agents.sharding.generation_model`): a collective on entry and on exit, which every
          process makes; each process then holds a whole copy of the model (its weights in their
          stored dtype) beside its shard. A full fine-tune's frozen reference is not gathered
          (``reference=True`` raises inside).

        Only forward passes (no training) belong inside. Not reentrant."""
        if self._alone is not None:
            raise RuntimeError("TrainableLM.alone() is already active")
        if self.accelerator.num_processes == 1 and not self.sharding:
            yield self
            return
        whole = (sharding.generation_model(self.sharding, self.model, self.accelerator) if self.sharding
                 else contextlib.nullcontext(self.peft_model))
        with whole as net:
            self._alone = net
            try:
                yield self
            finally:
                self._alone = None

    def release(self) -> None:
        """Free the model, its optimiser and its frozen reference now (GPU and CPU memory): taken out
        of the accelerator's lists, DeepSpeed's engines destroyed, the garbage collected, CUDA's
        cache emptied and the freed heap handed back to the OS
        (:func:`colbench_env.lm.heap.release_memory`). The object is unusable afterwards (its tokenizer
        stays). Every process of a launch calls it."""
        from colbench_env.lm.heap import release_memory

        acc = self.accelerator
        gone = [self.model, self.optimizer, self._frozen_reference]
        for name in ("_models", "_optimizers"):
            held = getattr(acc, name, None)
            if isinstance(held, list):
                held[:] = [x for x in held if not any(x is g for g in gone if g is not None)]
        wrapped = getattr(acc, "deepspeed_engine_wrapped", None)
        if wrapped is not None and any(getattr(wrapped, "engine", None) is g for g in gone):
            acc.deepspeed_engine_wrapped = None
        for engine in (self.model, self._frozen_reference):
            if hasattr(engine, "destroy"):  # a DeepSpeed engine: its hooks and partitions
                engine.destroy()
        self.model = self.optimizer = self._frozen_reference = self.scheduler = None
        self._unwrapped = None
        self.extra_optimizer, self._extra_scheduler, self.sync_params = None, None, []
        del gone
        release_memory()
        if torch.cuda.is_available():
            torch.cuda.empty_cache()

    def trainable_parameters(self) -> dict[str, torch.Tensor]:
        """Detached copies of the trainable parameters (for before/after comparisons), whole and named
        as in one process also when the model is sharded (then a collective: every process calls it)."""
        if self.sharding:
            return sharding.full_weights(self.sharding, self)
        return {n: p.detach().clone() for n, p in self.peft_model.named_parameters() if p.requires_grad}

    # --- log-probs ---------------------------------------------------------------------------
    def batch(self, sequences: Sequence[TokenizedSequence]) -> dict[str, torch.Tensor]:
        """Collate and move to the device."""
        b = collate(sequences, self.tokenizer.pad_token_id)
        return {k: v.to(self.device) for k, v in b.items()}

    def forward_logits(self, batch: dict[str, torch.Tensor], *, reference: bool = False,
                       positions: torch.Tensor | None = None) -> torch.Tensor:
        """Logits ``(B, L, V)``, or ``(B, len(positions), V)`` at ``positions`` only (``logits_to_keep``)."""
        ctx = self.reference() if reference else contextlib.nullcontext()
        kwargs = {} if positions is None else {"logits_to_keep": positions}
        with ctx:
            out = self._net(reference)(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"],
                                       use_cache=False, **kwargs)
        return out.logits

    def token_logps(self, batch: dict[str, torch.Tensor], *, reference: bool = False) -> torch.Tensor:
        """``(B, L-1)`` per-token log-probs, aligned with ``batch["loss_mask"]`` (zero outside it: the
        vocabulary projection is only computed at trained positions, see :meth:`logps_and_hidden`).
        Grad flows unless ``reference`` (the reference runs under ``no_grad``)."""
        if reference:
            with torch.no_grad():
                return self.logps_and_hidden(batch, reference=True)[0]
        return self.logps_and_hidden(batch, reference=False)[0]

    def row_groups(self, n: int, rows_per_forward: int | None) -> list[list[int] | None]:
        """The rows ``0..n-1`` of one micro-batch cut into forwards of at most ``rows_per_forward``
        rows (one forward of all of them when ``None``), in order. With several processes the list is
        padded with ``None`` entries (a forward whose result no loss uses) to the largest count of any
        process, so that every process of a launch runs the same number of forwards and backwards
        (ZeRO-3 and FSDP gather the weights in each, DDP averages the gradients in each backward);
        this is a collective: every process calls it (not inside :meth:`alone`, where each process
        runs on its own)."""
        k = n if rows_per_forward is None else max(1, int(rows_per_forward))
        groups: list[list[int] | None] = [list(range(s, min(s + k, n))) for s in range(0, n, k)]
        if self.accelerator.num_processes > 1 and self._alone is None:
            most = int(self.accelerator.gather(torch.tensor([len(groups)], device=self.device)).max())
            groups += [None] * (most - len(groups))
        return groups

    def row_logps(self, sequences: Sequence[TokenizedSequence], *, rows_per_forward: int | None = None,
                  reference: bool = False, temperature: float = 1.0, score_all: bool = False,
                  hidden_at: Sequence[tuple[int, int]] | None = None):
        """Per-token log-probs of ``sequences`` as one collated batch, computed ``rows_per_forward`` rows
        (sequences) per forward: ``(logps (B, L-1), batch, hidden)``.

        ``logps`` is zero outside the scored positions: the batch's ``loss_mask`` (the actions), or
        with ``score_all`` every real token (``attention_mask[:, 1:]``); ``batch`` is
        :meth:`batch` of all the sequences; ``hidden`` the last hidden states at ``hidden_at``
        (``[(row, position)]``, ``(K, H)``; ``None`` without). ``reference``: the frozen reference,
        without grad; ``temperature`` as :meth:`logps_and_hidden`.

        ``rows_per_forward=None``: one forward of every row (:meth:`logps_and_hidden`), grad flowing
        when it is enabled. A number: one forward per group of rows (:meth:`row_groups`), each padded
        to its own longest row (right padding: the values equal the one-forward ones). Without grad
        that is all. With grad (training), the gradient is taken in two passes so that one forward
        with grad holds only ``rows_per_forward`` rows' activations and logits:

        1. now, a forward of each group *without* grad (the random state before each kept); the
           log-probs and hidden states returned are leaves that require grad;
        2. in :meth:`backward`, the loss (any function of them) is back-propagated to those leaves,
           giving ``g = dloss/dlogps`` (and ``dloss/dhidden``); then each group runs again with grad,
           under its kept random state, and back-propagates ``sum(logps_group * g_group)`` (+ the
           hidden term) -- the chain rule, so the parameters' gradients equal the one-forward ones
           (``tests/test_rows_per_forward.py`` checks it to 1e-5 in float32), for one extra forward
           per row.
        """
        batch = self.batch(sequences)
        groups = self.row_groups(len(sequences), rows_per_forward) if rows_per_forward is not None else None
        if groups is None or len(groups) == 1:  # one forward (on every process): the plain path
            b = self._scored(batch, score_all)
            if reference:
                with torch.no_grad():
                    logps, last = self.logps_and_hidden(b, reference=True, temperature=temperature)
            else:
                logps, last = self.logps_and_hidden(b, reference=False, temperature=temperature)
            return logps, batch, self._hidden_at(last, hidden_at)
        L = batch["input_ids"].shape[1]
        logps = torch.zeros(len(sequences), L - 1, device=self.device, dtype=torch.float32)
        wanted = list(hidden_at or [])
        hidden = None
        states = []
        train = torch.is_grad_enabled() and not reference
        with torch.no_grad():
            for g in groups:
                states.append(_rng_state(self.device))
                lp, last, sub = self._group_logps(sequences, g, reference=reference, temperature=temperature,
                                                  score_all=score_all)
                if g is None:
                    continue
                logps[g, :lp.shape[1]] = lp
                if wanted:
                    if hidden is None:
                        hidden = last.new_zeros(len(wanted), last.shape[-1])
                    for k, (r, c) in enumerate(wanted):
                        if r in g:
                            hidden[k] = last[g.index(r), c]
        if not train:
            return logps, batch, hidden
        logps.requires_grad_(True)
        if hidden is not None:
            hidden.requires_grad_(True)
        self._replays.append({"sequences": list(sequences), "groups": groups, "states": states, "logps": logps,
                              "hidden": hidden, "hidden_at": wanted, "temperature": temperature,
                              "score_all": score_all})
        return logps, batch, hidden

    def _scored(self, batch: dict[str, torch.Tensor], score_all: bool) -> dict[str, torch.Tensor]:
        """``batch`` with every real token scored (``score_all``), or as it is."""
        if not score_all:
            return batch
        return dict(batch, loss_mask=batch["attention_mask"][:, 1:].to(batch["loss_mask"].dtype))

    @staticmethod
    def _hidden_at(last: torch.Tensor, at: Sequence[tuple[int, int]] | None) -> torch.Tensor | None:
        if not at:
            return None
        rows = torch.tensor([r for r, _ in at], device=last.device)
        cols = torch.tensor([c for _, c in at], device=last.device)
        return last[rows, cols]

    def _group_logps(self, sequences, group: list[int] | None, *, reference: bool, temperature: float,
                     score_all: bool):
        """One forward of the rows ``group`` (``None``: of row 0, a forward whose result is unused)."""
        rows = group if group is not None else [0]
        sub = self.batch([sequences[i] for i in rows])
        lp, last = self.logps_and_hidden(self._scored(sub, score_all), reference=reference, temperature=temperature)
        return lp, last, sub

    def _replay(self, replay: dict) -> None:
        """Pass 2 of :meth:`row_logps`: each group again with grad, back-propagating its share of the
        gradient that :meth:`backward` left on the leaves."""
        g_logps = replay["logps"].grad
        g_hidden = replay["hidden"].grad if replay["hidden"] is not None else None
        at = replay["hidden_at"]
        for group, state in zip(replay["groups"], replay["states"]):
            now = _rng_state(self.device)
            _set_rng_state(self.device, state)
            lp, last, _ = self._group_logps(replay["sequences"], group, reference=False,
                                            temperature=replay["temperature"], score_all=replay["score_all"])
            if group is None or g_logps is None:
                part = lp.sum() * 0.0
            else:
                part = (lp * g_logps[group, :lp.shape[1]]).sum()
            if group is not None and g_hidden is not None:
                for k, (r, c) in enumerate(at):
                    if r in group:
                        part = part + (last[group.index(r), c] * g_hidden[k].to(last.dtype)).sum()
            elif g_hidden is not None:
                part = part + last.sum() * 0.0
            self._backward_raw(part)
            _set_rng_state(self.device, now)

    def _backward_raw(self, loss: torch.Tensor) -> None:
        if self.sharding == "deepspeed":  # this model's engine (accelerate's backward drives the first one only)
            self.model.backward(loss)
        else:
            self.accelerator.backward(loss)

    #: trained positions per chunk of the vocabulary projection (chunk x vocab fp32 logits at a time)
    logits_chunk: int = 256

    def logps_and_hidden(self, batch: dict[str, torch.Tensor], *, reference: bool = False, temperature: float = 1.0):
        """Per-token log-probs ``(B, L-1)`` (zero outside ``loss_mask``) and the last hidden states ``(B, L, H)``.

        ``temperature``: log-probs of ``softmax(logits / temperature)`` (PPO's sampling distribution,
        :attr:`colbench.agents.ppo.PPOConfig.rollout_temperature`). ``reference``: the frozen reference (the
        adapter disabled; the frozen copy with ``full_finetune``).

        Memory: the full ``(B, L, vocab)`` logits are never built. The network runs to its last
        hidden states (``logits_to_keep=1``; only the last layer's are kept, :meth:`_last_hidden`),
        and the output projection + log-softmax are applied to the trained positions only,
        :attr:`logits_chunk` positions at a time, each chunk under activation checkpointing when
        grad flows -- so at most one chunk's fp32 logits (and their
        gradient) live at once (SmolLM2: 256 x 49152 x 4 B = 50 MB, instead of 470 MB per 4 x 600
        tokens for the logits alone). Models whose logits are not ``output_embeddings(hidden)``
        (soft-capping, logit scales) take the plain full-logits path.

        Sharded (FSDP, ZeRO-3), the output projection's weights exist whole only inside the wrapped
        forward, so the model computes the logits itself, at each row's own trained positions only
        (:meth:`_sharded_logps_and_hidden`): ``(trained positions of all rows, vocab)`` fp32, not
        chunked; :meth:`row_logps` bounds how many rows one forward holds.
        """
        import torch.utils.checkpoint as ckpt

        ids, mask = batch["input_ids"], batch["loss_mask"]
        net = self._net(reference)
        if self.sharding and self._alone is None:  # the model, or a full fine-tune's frozen reference, sharded
            return self._sharded_logps_and_hidden(net, batch, reference=reference, temperature=temperature)
        unwrapped = self._unwrap(net) if net is self.model else net
        cfg = unwrapped.config.get_text_config() if hasattr(unwrapped.config, "get_text_config") else unwrapped.config
        plain_head = not any(getattr(cfg, k, None) for k in ("final_logit_softcapping", "logit_scale", "logits_scaling"))
        ctx = self.reference() if reference else contextlib.nullcontext()
        with ctx:
            if self._sliced_logits and plain_head:
                try:
                    out, hidden = self._last_hidden(net, unwrapped, ids, batch["attention_mask"])
                except TypeError:  # a model without ``logits_to_keep``: full logits from now on
                    self._sliced_logits = False
                else:
                    head = unwrapped.get_output_embeddings()
                    rows, cols = mask.bool().nonzero(as_tuple=True)
                    h, targets = hidden[rows, cols], ids[rows, cols + 1]

                    def chunk_lp(hc: torch.Tensor, tc: torch.Tensor) -> torch.Tensor:
                        logits = head(hc).float()
                        if temperature != 1.0:
                            logits = logits / temperature
                        return logits.gather(1, tc.unsqueeze(1)).squeeze(1) - torch.logsumexp(logits, -1)

                    parts = []
                    for s in range(0, h.shape[0], self.logits_chunk):
                        hc, tc = h[s:s + self.logits_chunk], targets[s:s + self.logits_chunk]
                        if torch.is_grad_enabled() and hc.requires_grad:
                            parts.append(ckpt.checkpoint(chunk_lp, hc, tc, use_reentrant=False))
                        else:
                            parts.append(chunk_lp(hc, tc))
                    lp = torch.cat(parts) if parts else hidden.new_zeros(0, dtype=torch.float32)
                    full = torch.zeros(ids.shape[0], ids.shape[1] - 1, device=lp.device, dtype=lp.dtype)
                    return full.index_put((rows, cols), lp), hidden
            out = net(input_ids=ids, attention_mask=batch["attention_mask"], use_cache=False, output_hidden_states=True)
        logits = out.logits.float() if temperature == 1.0 else out.logits.float() / temperature
        return token_logprobs(logits, ids) * mask, out.hidden_states[-1]

    def _sharded_logps_and_hidden(self, net, batch: dict[str, torch.Tensor], *, reference: bool, temperature: float):
        """:meth:`logps_and_hidden` of a sharded model: one forward of the wrapped model, which projects
        onto the vocabulary each row's own trained positions only (``logits_to_keep`` given the loss
        mask as a boolean ``(B, L)`` tensor: transformers flattens the kept hidden states to
        ``(trained positions, hidden)``), so the logits are ``(sum of the rows' trained positions,
        vocab)``, never ``(rows, positions some row trains, vocab)``. The last hidden states come from
        the decoder's output (:meth:`_decoder_output`). A model whose forward does not
        take a boolean mask falls back to the positions some row trains (``logits_to_keep`` columns)."""
        ids, mask = batch["input_ids"], batch["loss_mask"]
        keep = torch.zeros(ids.shape, dtype=torch.bool, device=ids.device)
        keep[:, :-1] = mask.bool()
        rows, cols = keep.nonzero(as_tuple=True)
        ctx = self.reference() if reference else contextlib.nullcontext()
        unwrapped = self._unwrap(net)
        with self._decoder_output(unwrapped) as seen, ctx:
            kwargs = dict(input_ids=ids, attention_mask=batch["attention_mask"], use_cache=False,
                          output_hidden_states=seen is None)
            try:
                out = net(**kwargs, logits_to_keep=keep if self._per_row_logits else keep.any(0).nonzero().squeeze(1))
            except (IndexError, RuntimeError, TypeError):
                if not self._per_row_logits:
                    raise
                self._per_row_logits = False  # no boolean logits_to_keep: the columns some row trains
                if seen is not None:
                    seen.clear()
                out = net(**kwargs, logits_to_keep=keep.any(0).nonzero().squeeze(1))
        hidden = seen[-1] if seen is not None else out.hidden_states[-1]
        logits = out.logits.float()
        if temperature != 1.0:
            logits = logits / temperature
        full = torch.zeros(ids.shape[0], ids.shape[1] - 1, device=logits.device, dtype=logits.dtype)
        if self._per_row_logits and logits.dim() == 2 and logits.shape[0] == rows.numel():
            targets = ids[rows, cols + 1]
            lp = logits.gather(-1, targets.unsqueeze(-1)).squeeze(-1) - torch.logsumexp(logits, -1)
            return full.index_put((rows, cols), lp), hidden
        if self._per_row_logits:  # the model kept whole rows (no boolean logits_to_keep): columns from now on
            self._per_row_logits = False
            return self._sharded_logps_and_hidden(net, batch, reference=reference, temperature=temperature)
        union = keep.any(0).nonzero().squeeze(1)
        lp = logits.gather(-1, ids[:, union + 1].unsqueeze(-1)).squeeze(-1) - torch.logsumexp(logits, -1)
        return full.index_copy(1, union, lp) * mask, hidden

    @staticmethod
    @contextlib.contextmanager
    def _decoder_output(unwrapped):
        """Within the block, a list that a forward hook appends the decoder's output (the last hidden
        states) to, so that the per-layer hidden states (``output_hidden_states=True``: ``layers + 1``
        tensors of ``(B, L, H)``, 2.2 GB for an 8B model's no-grad pass over 8,192 tokens) need not be
        collected; ``None`` for a model without a separate decoder (``get_decoder``): ask for
        ``output_hidden_states`` then."""
        base = unwrapped.get_base_model() if hasattr(unwrapped, "get_base_model") else unwrapped
        try:
            decoder = base.get_decoder()
        except (AttributeError, NotImplementedError, TypeError, ValueError):  # no get_decoder, or none to give
            decoder = None
        if not isinstance(decoder, torch.nn.Module) or decoder is base:
            yield None
            return
        seen: list[torch.Tensor] = []

        def grab(_module, _args, output):
            seen.append(output[0] if isinstance(output, tuple) else output.last_hidden_state)

        handle = decoder.register_forward_hook(grab)
        try:
            yield seen
        finally:
            handle.remove()

    @staticmethod
    def _last_hidden(net, unwrapped, ids: torch.Tensor, attention_mask: torch.Tensor):
        """``(output, last hidden states)`` of one forward with ``logits_to_keep=1``, the hidden states
        from the decoder's output (:meth:`_decoder_output`)."""
        with TrainableLM._decoder_output(unwrapped) as seen:
            out = net(input_ids=ids, attention_mask=attention_mask, use_cache=False, output_hidden_states=seen is None,
                      logits_to_keep=1)
        return out, (seen[-1] if seen is not None else out.hidden_states[-1])

    # --- optimisation ------------------------------------------------------------------------
    def train(self) -> None:
        self.model.train()

    def eval(self) -> None:
        self.model.eval()

    def backward(self, loss: torch.Tensor) -> None:
        """Accumulate ``loss`` (scaled by 1/accumulation); steps the optimiser every ``accumulation`` calls.
        A loss of log-probs that :meth:`row_logps` computed row group by row group is back-propagated
        through them group by group (its pass 2)."""
        if self._replays:  # rows computed by row_logps: the loss onto them, then each group with grad
            replays, self._replays = self._replays, []
            torch.autograd.backward(loss / self.accumulation)
            for r in replays:
                self._replay(r)
        else:
            self._backward_raw(loss / self.accumulation)
        self._pending += 1
        self.micro_batches += 1
        if self._pending >= self.accumulation:
            self.flush()

    def _model_parameters(self) -> list[torch.nn.Parameter]:
        """The trained parameters of the prepared model (sharded ones as the optimiser holds them)."""
        if self.sharding == "deepspeed":
            return [p for p in self.model.module.parameters() if p.requires_grad]
        return [p for g in self.optimizer.param_groups for p in g["params"]]

    def flush(self) -> None:
        """Apply pending gradients: average those outside the model over processes, clip the norm of
        all (:attr:`max_grad_norm`; sharded: the global norm, :func:`colbench.agents.sharding.clip_sharded`),
        step both optimisers and their schedules, zero."""
        if self._pending == 0:
            return
        if self.accelerator.num_processes > 1:
            for p in self.sync_params:
                if p.grad is not None:
                    p.grad.copy_(self.accelerator.reduce(p.grad, reduction="mean"))
        if self.max_grad_norm:
            if self.sharding:
                sharding.clip_sharded(self.sharding, self._model_parameters(), self.sync_params, self.max_grad_norm,
                                      self.accelerator)
            else:
                self.accelerator.clip_grad_norm_(self._model_parameters() + self.sync_params, self.max_grad_norm)
        if self.sharding == "deepspeed":
            self.model.step()  # DeepSpeed's step: optimiser step, gradients zeroed
        else:
            self.optimizer.step()
            self.optimizer.zero_grad(set_to_none=True)
        self.optimizer_steps += 1
        if self.extra_optimizer is not None:
            self.extra_optimizer.step()
            self.extra_optimizer.zero_grad(set_to_none=True)
        for scheduler in (self.scheduler, self._extra_scheduler):
            if scheduler is not None:
                scheduler.step()
        self._pending = 0

    @property
    def learning_rate(self) -> float:
        """The configured learning rate of the model's optimiser (the schedule's peak: its
        ``initial_lr`` once a schedule has started), read from the optimiser itself."""
        group = sharding.torch_optimizer(self.optimizer).param_groups[0]
        return float(group.get("initial_lr", group["lr"]))

    def start_schedule(self, micro_batches_per_epoch: int, epochs: int, *, steps: int | None = None) -> None:
        """Set up the learning-rate schedule for one ``update`` of ``epochs`` x
        ``micro_batches_per_epoch`` micro-batches (pending gradients are flushed at each epoch's
        end, so an epoch is ``ceil(micro_batches / accumulation)`` optimiser steps), or of exactly
        ``steps`` optimiser steps when given (:func:`epoch_plan`'s). A no-op for ``"constant"``.
        Every ``update`` restarts the schedule from the configured learning rate, as each reference
        training run does."""
        if self._schedule_kind == "constant":
            return
        import math

        from transformers import get_scheduler

        total = max(1, steps if steps is not None else epochs * math.ceil(micro_batches_per_epoch / self.accumulation))

        def schedule(opt):
            for g in opt.param_groups:  # restart from the configured rates
                g["lr"] = g.setdefault("initial_lr", g["lr"])
            return get_scheduler("cosine_with_min_lr", opt, num_warmup_steps=math.ceil(total * self._warmup_ratio),
                                 num_training_steps=total, scheduler_specific_kwargs={"min_lr_rate": self._min_lr_ratio})

        # the torch optimizer under accelerate's wrapper (DeepSpeed's: the one stepping its fp32 partitions)
        self.scheduler = schedule(sharding.torch_optimizer(self.optimizer))
        if self.extra_optimizer is not None:
            self._extra_scheduler = schedule(self.extra_optimizer)

    # --- generation --------------------------------------------------------------------------
    @torch.no_grad()
    def generate(self, messages: Sequence[dict], *, n: int = 1, max_new_tokens: int = 512,
                 temperature: float = 1.0, reference: bool = False) -> list[str]:
        """``n`` completions of a chat context (sampling at ``temperature``; greedy at 0), each a
        :class:`~colbench_env.lm.base.GeneratedText` saying whether it ended with an end token
        (``"stop"``) or was cut at ``max_new_tokens`` (``"length"``), and carrying its token ids
        (``tokens``: the prompt's, the generated ones up to and including the end token, this
        tokenizer's fingerprint), which an environment records for training on them.

        Sharded, every process must call it alike (each generates the same completions: the same
        weights, prompt and random state): the model runs with its parameters gathered
        (:func:`colbench.agents.sharding.generation_model`) -- except inside :meth:`alone`, where each
        process calls it on its own."""
        tok = self.tokenizer
        ids = tok.apply_chat_template(list(messages), add_generation_prompt=True, tokenize=True, return_dict=True,
                                      return_tensors="pt")
        input_ids = ids["input_ids"].to(self.device)
        kwargs: dict[str, Any] = dict(max_new_tokens=max_new_tokens, pad_token_id=tok.pad_token_id,
                                      attention_mask=ids["attention_mask"].to(self.device))
        if self.sharding:  # the parameters are whole here: no process waits for another's tokens
            kwargs["synced_gpus"] = False
        if temperature > 0:
            kwargs.update(do_sample=True, temperature=temperature, top_p=1.0, top_k=0, num_return_sequences=n)
        else:
            kwargs.update(do_sample=False)
        wrapped = self._net(reference)
        if self._alone is not None:
            whole = contextlib.nullcontext(wrapped)
        elif self.sharding:
            whole = sharding.generation_model(self.sharding, wrapped, self.accelerator)
        else:
            whole = contextlib.nullcontext(self.peft_model if wrapped is self.model else wrapped)
        with whole as net:
            was_training = net.training
            net.eval()
            with self.reference() if reference else contextlib.nullcontext():
                out = net.generate(input_ids=input_ids, **kwargs)
            if was_training:
                net.train()
            eos = getattr(getattr(net, "generation_config", None), "eos_token_id", None)
        generated = out[:, input_ids.shape[1]:]
        eos = tok.eos_token_id if eos is None else eos
        eos = {eos} if isinstance(eos, int) else set(eos or [])
        reasons = ["stop" if any(int(t) in eos for t in row) else "length" for row in generated]
        if getattr(self, "_token_fingerprint", None) is None:
            self._token_fingerprint = tokenizer_fingerprint(tok)
        prompt = input_ids[0].tolist()
        tokens = [TurnTokens(prompt_ids=prompt, completion_ids=_until_end(row.tolist(), eos),
                             fingerprint=self._token_fingerprint) for row in generated]
        texts = [GeneratedText(t, r, k) for t, r, k in
                 zip(tok.batch_decode(generated, skip_special_tokens=True), reasons, tokens)]
        if temperature <= 0 and n > 1:
            texts = texts * n
        return texts

    # --- checkpoints -------------------------------------------------------------------------
    def save(self, directory: str | os.PathLike) -> None:
        """Write the peft adapter (the whole model with ``full_finetune``) and ``optimizer.pt`` (the
        model's AdamW state, then that of :meth:`add_parameters` as one more group); the main process
        writes. Sharded, the weights and the optimiser state are first gathered whole (a collective:
        every process calls it), so the files are the ones one process writes."""
        d = Path(directory)
        d.mkdir(parents=True, exist_ok=True)
        self.accelerator.wait_for_everyone()
        if self.sharding:
            weights = sharding.full_weights(self.sharding, self)
            optim = sharding.full_optimizer_state(self.sharding, self)
        else:
            weights, optim = None, self.optimizer.state_dict()
        if self.accelerator.is_main_process:
            if weights is None or self.full_finetune:
                self.peft_model.save_pretrained(str(d), **({} if weights is None else {"state_dict": weights}))
            else:
                self._save_adapter(d, weights)
            torch.save(_join_optimizer_states(optim, self.extra_optimizer), d / "optimizer.pt")

    def _adapter_keys(self) -> dict[str, str]:
        """Name of each trained weight in the unwrapped model -> its key in ``adapter_model.safetensors``,
        as peft's saving maps them (``....lora_A.default.weight`` -> ``....lora_A.weight``). peft finds the
        adapter's weights by module names, which FSDP's wrappers change: it is given the wrapped names,
        and the wrappers are taken out of both sides."""
        import peft

        live = {n: p for n, p in self.peft_model.named_parameters() if p.requires_grad}
        name_of = {id(p): sharding.clean_name(n) for n, p in live.items()}
        saved = peft.get_peft_model_state_dict(self.peft_model, state_dict=live)
        return {name_of[id(v)]: sharding.clean_name(k) for k, v in saved.items()}

    def _save_adapter(self, d: Path, weights: dict[str, torch.Tensor]) -> None:
        """What ``PeftModel.save_pretrained`` writes (adapter config in inference mode, weights), from
        gathered ``weights`` named as in the unwrapped model."""
        import copy

        from safetensors.torch import save_file

        keys = self._adapter_keys()
        save_file({keys[n]: w.detach().cpu().contiguous() for n, w in weights.items() if n in keys},
                  str(d / "adapter_model.safetensors"), metadata={"format": "pt"})
        config = copy.deepcopy(self.peft_model.peft_config["default"])
        config.inference_mode = True
        config.save_pretrained(str(d))

    def load_state(self, directory: str | os.PathLike) -> None:
        """Load adapter weights (full weights with ``full_finetune``) and optimiser state written by
        :meth:`save` (in one process or in several, sharded or not: the files are the same)."""
        d = Path(directory)
        opt = d / "optimizer.pt"
        optim = torch.load(opt, map_location=self._load_device(), weights_only=False) if opt.exists() else None
        own, extra = _split_optimizer_state(optim, self._model_groups) if optim is not None else (None, None)
        if self.sharding:
            weights = self._read_full(d) if self.full_finetune else self._read_adapter(d)
            sharding.load_full_state(self.sharding, self, weights, own)
        else:
            if self.full_finetune:
                self._load_full(d)
            else:
                self._load_adapter(d)
            if own is not None:
                self.optimizer.load_state_dict(own)
        if extra is not None and self.extra_optimizer is not None:
            self.extra_optimizer.load_state_dict(extra)

    def _load_device(self) -> str:
        """The device name safetensors and ``torch.load`` accept: ``"cpu"``, not ``"cpu:0"`` (a CPU DDP
        rank's device, which both reject)."""
        return "cpu" if self.device.type == "cpu" else str(self.device)

    def _read_full(self, d: Path) -> dict[str, torch.Tensor]:
        from safetensors.torch import load_file

        files = sorted(d.glob("model*.safetensors"))
        if not files:
            raise FileNotFoundError(f"no model weights (model*.safetensors) in {d}")
        state: dict[str, torch.Tensor] = {}
        for f in files:
            state.update(load_file(str(f), device=self._load_device()))
        return state

    def _read_adapter(self, d: Path) -> dict[str, torch.Tensor]:
        """The adapter file's weights by their names in the unwrapped model (:meth:`_adapter_keys`)."""
        from safetensors.torch import load_file

        weights = d / "adapter_model.safetensors"
        if not weights.exists():
            raise FileNotFoundError(f"no adapter weights at {weights}")
        file_names = {key: name for name, key in self._adapter_keys().items()}
        state = load_file(str(weights), device=self._load_device())
        unknown = sorted(set(state) - set(file_names))
        missing = sorted(set(file_names) - set(state))
        if unknown or missing:
            raise ValueError(f"{weights}: adapter keys do not match the model: unknown {unknown[:3]}, missing {missing[:3]}")
        return {file_names[k]: v for k, v in state.items()}

    def _load_full(self, d: Path) -> None:
        state = self._read_full(d)
        net = self.peft_model
        result = net.load_state_dict(state, strict=False)
        tied = set(getattr(net, "_tied_weights_keys", None) or [])
        missing = [k for k in result.missing_keys if k not in tied and not k.endswith("lm_head.weight")]
        if missing or result.unexpected_keys:
            raise ValueError(f"{d}: weights do not match the model: missing {missing[:3]}, "
                             f"unexpected {result.unexpected_keys[:3]}")

    def _load_adapter(self, d: Path) -> None:
        import peft
        from safetensors.torch import load_file

        weights = d / "adapter_model.safetensors"
        if not weights.exists():
            raise FileNotFoundError(f"no adapter weights at {weights}")
        state = load_file(str(weights), device=self._load_device())
        result = peft.set_peft_model_state_dict(self.peft_model, state)
        missing_lora = [k for k in getattr(result, "unexpected_keys", []) if "lora" in k]
        if missing_lora:
            raise ValueError(f"{weights}: adapter keys do not match the model: {missing_lora[:3]}")


def _until_end(ids: list[int], end: set[int]) -> list[int]:
    """``ids`` up to and including the first of ``end`` (all of them when none is there)."""
    for i, t in enumerate(ids):
        if t in end:
            return ids[:i + 1]
    return ids


def _join_optimizer_states(own: dict, extra: torch.optim.Optimizer | None) -> dict:
    """One ``state_dict`` of two optimisers: ``extra``'s groups after ``own``'s, its parameter indices
    shifted past ``own``'s (what a single optimiser holding both would give)."""
    if extra is None:
        return own
    n = sum(len(g["params"]) for g in own["param_groups"])
    ex = extra.state_dict()
    return {"state": {**own["state"], **{i + n: st for i, st in ex["state"].items()}},
            "param_groups": own["param_groups"] + [dict(g, params=[i + n for i in g["params"]]) for g in ex["param_groups"]]}


def _split_optimizer_state(sd: dict, n_groups: int) -> tuple[dict, dict | None]:
    """The inverse of :func:`_join_optimizer_states`: the first ``n_groups`` groups, and the rest
    (``None`` when there is none) with indices from 0."""
    groups = sd["param_groups"]
    n = sum(len(g["params"]) for g in groups[:n_groups])
    own = {"state": {i: st for i, st in sd["state"].items() if i < n}, "param_groups": groups[:n_groups]}
    if len(groups) == n_groups:
        return own, None
    return own, {"state": {i - n: st for i, st in sd["state"].items() if i >= n},
                 "param_groups": [dict(g, params=[i - n for i in g["params"]]) for g in groups[n_groups:]]}


def load_trajectories(source: str | os.PathLike | Iterable[dict]) -> list[dict]:
    """A trajectory jsonl path or an iterable of records -> validated records."""
    from colbench_env.trajectories import read_trajectories, validate_trajectory

    if isinstance(source, (str, os.PathLike)):
        return read_trajectories(source)
    return [validate_trajectory(r, source="<trajectories>", line=i) for i, r in enumerate(source, 1)]


def trajectory_reward(rec: dict) -> float:
    """``rec["reward"]``, else ``1.0``/``0.0`` from ``rec["success"]``; error when neither is set."""
    if rec.get("reward") is not None:
        return float(rec["reward"])
    if rec.get("success") is not None:
        return 1.0 if rec["success"] else 0.0
    raise ValueError("trajectory has neither 'reward' nor 'success' (score it with 'colbench evaluate' first)")


def task_key(task: dict) -> str:
    """Group key of a task record: its ``task_id``, else its problem description."""
    return str(task.get("task_id") or task.get("problem_description"))


def epoch_plan(micro_batches: int, epochs: int, accumulation: int = 1,
               optimizer_steps: int | None = None) -> list[int]:
    """How many micro-batches each pass over the data trains: ``[micro_batches] * epochs``, or --
    with ``optimizer_steps`` -- as many whole passes as fit in that many optimiser steps and one last
    pass cut short, so that the update takes exactly ``optimizer_steps`` steps. A pass of ``m``
    micro-batches is ``ceil(m / accumulation)`` steps (pending gradients are applied at a pass's end).

    >>> epoch_plan(5, 2)
    [5, 5]
    >>> epoch_plan(5, 2, optimizer_steps=12)   # 2 whole passes of 5 steps, then 2 steps
    [5, 5, 2]
    >>> epoch_plan(5, 1, accumulation=2, optimizer_steps=4)   # a pass is 3 steps (2 + 2 + 1 micro-batches)
    [5, 2]
    """
    if micro_batches < 1:
        raise ValueError(f"epoch_plan: a pass needs at least one micro-batch, got {micro_batches}")
    if optimizer_steps is None:
        return [micro_batches] * epochs
    per_pass = -(-micro_batches // accumulation)
    whole, rest = divmod(optimizer_steps, per_pass)
    return [micro_batches] * whole + ([rest * accumulation] if rest else [])


def plan_steps(plan: Sequence[int], accumulation: int = 1) -> int:
    """Optimiser steps of an :func:`epoch_plan` (each pass ``ceil(m / accumulation)``)."""
    return sum(-(-m // accumulation) for m in plan)


#: the budget fields every trainer's ``update`` metrics carry (:meth:`LMTrainer._budget`)
BUDGET_FIELDS = ("optimizer_steps", "examples", "learning_rate", "nll_coef", "epochs")


class RecordedLogprobs:
    """The "old" log-probabilities of an importance ratio (PPO, GRPO) from what the behaviour policy
    recorded while it sampled, where they are the trained tokens' and the ratio's distribution's.

    A turn's recorded log-probs (its ``tokens.logprobs``; :class:`~colbench.agents.tokenize.TokenizedSequence`
    ``.logprobs``) replace the recomputed old log-probs of its span when

    * its sequence is made of the recorded ids (the tokenizer fingerprint matched: re-tokenized text
      has other tokens than the ones the log-probs belong to),
    * there is one log-prob per trained token of the span (a completion cut to ``max_length`` has
      fewer: ``length_mismatch``), and
    * the ratio is taken at temperature 1: a local model records ``log softmax`` of its raw logits
      and vLLM its raw log-probs by default (:class:`~colbench_env.lm.tokens.TurnTokens`), the
      distribution at temperature 1; a trainer whose ratio is at the sampling temperature ``T != 1``
      cannot convert them (``temperature_mismatch``).

    Every other turn's old log-probs are recomputed with a no-grad forward pass of the policy at the
    start of the update, which is all that happens without recorded log-probs: then the first
    step's ratio is exactly 1, while with recorded ones it is ``pi_theta / pi_behaviour``, correcting
    for the difference between the model that sampled (another engine, precision or batch) and the
    one that trains.

    Attributes:
        temperature: the temperature of the trainer's log-probs.
        counts: turns ``{"recorded": used, "recomputed": not used, "length_mismatch": of those, cut
            or of another length, "temperature_mismatch": of those, recorded but the ratio is not
            at temperature 1}``.
    """

    def __init__(self, temperature: float):
        self.temperature = float(temperature)
        self.counts = {"recorded": 0, "recomputed": 0, "length_mismatch": 0, "temperature_mismatch": 0}

    def _usable(self, seq: TokenizedSequence, count: bool) -> list[list[float] | None]:
        out = []
        for k, (start, end) in enumerate(seq.turn_spans):
            lp = seq.logprobs[k] if seq.logprobs is not None else None
            why = None if lp is not None else "none"
            if why is None and len(lp) != end - start:
                why = "length_mismatch"
            elif why is None and self.temperature != 1.0:
                why = "temperature_mismatch"
            out.append(lp if why is None else None)
            if count:
                self.counts["recorded" if why is None else "recomputed"] += 1
                if why in self.counts:
                    self.counts[why] += 1
        return out

    def covers(self, seq: TokenizedSequence) -> bool:
        """Whether every span of ``seq`` has usable recorded log-probs (no forward pass needed)."""
        return all(lp is not None for lp in self._usable(seq, count=False))

    def fill(self, sequences: Sequence[TokenizedSequence], logps: torch.Tensor) -> torch.Tensor:
        """``logps`` (``(B, L - 1)``, row ``b`` sequence ``b``, entry ``i`` label token ``i + 1``) with
        each span's recorded log-probs in place where usable (counted in :attr:`counts`)."""
        out = logps.clone()
        for b, seq in enumerate(sequences):
            for (start, end), lp in zip(seq.turn_spans, self._usable(seq, count=True)):
                if lp is not None:
                    out[b, start - 1:end - 1] = torch.tensor(lp, dtype=out.dtype, device=out.device)
        return out


def training_budget(lm: "TrainableLM", start: tuple[int, int], *, examples: int, micro_batches_per_pass: int,
                    nll_coef: float) -> dict:
    """What one update of ``lm`` really did, since ``start`` = ``(lm.optimizer_steps,
    lm.micro_batches)`` read before it: ``optimizer_steps`` (counted where the optimiser steps),
    ``examples`` (the pairs, sequences or trajectories it trained on), ``learning_rate`` (read from
    the optimiser), ``nll_coef`` (the weight of an NLL term on the chosen / kept text: 1 for RFT,
    whose loss is the NLL, 0 where there is none) and ``epochs``: the micro-batches back-propagated
    over the micro-batches of one pass (a pass cut short counts its fraction; with several
    processes, this process's share of each)."""
    steps, micro = lm.optimizer_steps - start[0], lm.micro_batches - start[1]
    return {"optimizer_steps": steps, "examples": int(examples), "learning_rate": lm.learning_rate,
            "nll_coef": float(nll_coef), "epochs": micro / max(micro_batches_per_pass, 1)}


class LMTrainer(abc.ABC):
    """Base of the trainers. Subclasses set ``config_class`` and ``algorithm`` and implement ``update``.

    Args:
        config: the algorithm's config (a :class:`TrainerConfig` subclass) or a dict of its fields.
        model: overrides ``config.policy.model_name_or_path`` with a model object (or path).
        tokenizer: tokenizer to use (loaded from the model path when ``None``).
        formatter: ``(task_record, dialogue_history) -> chat messages`` (default:
            :func:`colbench_env.prompting.record_messages` with the config's ``max_turns`` and
            ``prompt_style``).
        prompt: ``observation -> chat messages`` used by ``act`` (default:
            :func:`colbench_env.prompting.observation_to_messages`, likewise).
        accelerator: an :class:`accelerate.Accelerator` (one is created from the config otherwise).
    """

    config_class: type = TrainerConfig
    algorithm: str = "base"

    def __init__(self, config=None, *, model=None, tokenizer=None, formatter: Formatter | None = None,
                 prompt: Callable[[Any], list] | None = None, accelerator=None):
        if config is None:
            config = self.config_class()
        elif isinstance(config, dict):
            config = config_from_dict(self.config_class, config)
        if not isinstance(config, self.config_class):
            raise TypeError(f"{type(self).__name__} needs a {self.config_class.__name__}, got {type(config).__name__}")
        self.config = config
        _seed_everything(config.seed)
        self.accelerator = accelerator or sharding.make_accelerator(config.mixed_precision)
        #: whether the contexts are this package's prompt built from the config's ``prompt_style`` and
        #: ``max_turns`` (then trajectories recorded with other settings are refused: :meth:`check_context`)
        self.default_formatter = formatter is None
        if formatter is None or prompt is None:
            import functools

            from colbench_env.prompting import observation_to_messages

            formatter = formatter or config_formatter(config)
            prompt = prompt or functools.partial(observation_to_messages, max_turns=config.max_turns,
                                                 style=config.prompt_style)
        self.formatter = formatter
        self.prompt = prompt
        self.updates = 0
        self.history: list[dict] = []
        source = model if model is not None else config.policy.model_name_or_path
        if source is None:
            raise ConfigError("field 'policy.model_name_or_path': no model given (set it to a path or pass model=...)")
        self.policy = self._make_lm(source, tokenizer, config.policy)
        self.tokenizer = self.policy.tokenizer
        #: the tokenizer fingerprint recorded ids must carry to be trained on as they are (``None`` when
        #: ``config.recorded_tokens`` is off: every trajectory is re-tokenized); :meth:`trajectory_sequences`
        self.token_fingerprint = tokenizer_fingerprint(self.tokenizer) if config.recorded_tokens else None
        self._build()

    def _make_lm(self, source, tokenizer, settings: ModelConfig) -> TrainableLM:
        """A :class:`TrainableLM` of ``source`` with the model's own ``settings`` (the policy's or the
        critic's) and the trainer's shared optimiser settings."""
        c = self.config
        return TrainableLM(
            self.accelerator, source, tokenizer, lora_r=settings.lora_r, lora_alpha=settings.lora_alpha,
            lora_dropout=settings.lora_dropout, lora_target_modules=settings.lora_target_modules,
            load_in_4bit=settings.load_in_4bit, compute_dtype=settings.compute_dtype,
            learning_rate=settings.learning_rate, weight_decay=c.weight_decay, max_grad_norm=c.max_grad_norm,
            gradient_accumulation_steps=c.gradient_accumulation_steps,
            gradient_checkpointing=c.gradient_checkpointing, full_finetune=settings.full_finetune,
            adam_betas=c.adam_betas, lr_scheduler=c.lr_scheduler, warmup_ratio=c.warmup_ratio,
            min_lr_ratio=c.min_lr_ratio)

    def _build(self) -> None:
        """Hook for subclasses: build extra models (critic, value head)."""

    # --- the shared verbs --------------------------------------------------------------------
    def trajectory_sequences(self, record: dict, *, source: str = "<trajectory>") -> list[TokenizedSequence]:
        """The policy's training sequences of one trajectory: its recorded token ids when it has them
        from this policy's tokenizer (:attr:`token_fingerprint`), else its text re-tokenized with
        :attr:`formatter` (:func:`colbench.agents.tokenize.tokenize_trajectory`), cut to ``config.max_length``."""
        return tokenize_trajectory(self.tokenizer, record, formatter=self.formatter, max_length=self.config.max_length,
                                   source=source, token_fingerprint=self.token_fingerprint)

    def _models(self) -> dict[str, TrainableLM]:
        return {"policy": self.policy}

    @abc.abstractmethod
    def update(self, trajectories) -> dict:
        """One training round on scored trajectories (official format); returns metrics."""

    def training_records(self, trajectories) -> list[dict]:
        """The records of ``trajectories`` that :meth:`update` trains on, checked: their contexts were
        made with this config's settings (:meth:`check_context`), and they give this algorithm something
        to learn (:meth:`check_data`)."""
        records = load_trajectories(trajectories)
        self.check_context(records)
        self.check_data(records, self.config)
        return records

    def check_context(self, records: list[dict]) -> None:
        """Refuse trajectories whose agent turns were made with other prompt settings than this
        config's (their ``agent_prompt`` field; :func:`colbench.agents.config.recorded_context`): the policy
        would be trained on contexts it never saw. Trajectories that record no settings, and trainers
        given their own ``formatter``, are not checked."""
        if not self.default_formatter:
            return
        from colbench_env.errors import UsageError

        settings = recorded_context(records)
        conflicts = context_conflicts(settings, {k: getattr(self.config, k) for k in CONTEXT_SETTINGS})
        if conflicts:
            was = ", ".join(f"{k} {v!r}" for k, v, _ in conflicts)
            now = ", ".join(f"{k} {c!r}" for k, _, c in conflicts)
            raise UsageError(f"{self.algorithm}: the trajectories' agent turns were made with {was}, this trainer's "
                             f"config has {now}: it would train the policy on contexts it never saw; give the "
                             "config the trajectories' settings (colbench train takes them by default)")

    @classmethod
    def check_data(cls, records: list[dict], config) -> None:
        """Raise :class:`~colbench.agents.config.NoTrainingData` when ``records`` give this algorithm nothing to
        learn from (needs no model: ``colbench train`` calls it before loading one). Here: no agent
        turn at all; pair- and group-based trainers also need their pairs."""
        if not any(isinstance(m, dict) and m.get("role") == "assistant"
                   for r in records for m in r.get("dialogue_history") or []):
            raise NoTrainingData(f"{cls.algorithm}: none of the {len(records)} trajectories has an agent turn")

    def _record(self, metrics: dict) -> dict:
        """Count the update and keep its metrics (numbers as floats) in :attr:`history`. A metric that
        is not a finite number (a NaN loss) is kept as ``None`` and said on stderr: the history is
        written as JSON, which has no NaN."""
        self.updates += 1
        clean = {k: (float(v) if isinstance(v, (int, float, torch.Tensor)) else v) for k, v in metrics.items()}
        for k, v in clean.items():
            if isinstance(v, float) and not math.isfinite(v):
                print(f"{self.algorithm} update {self.updates}: {k} is {v} (kept as null)", file=sys.stderr)
                clean[k] = None
        clean["update"] = self.updates
        self.history.append(clean)
        return clean

    def act(self, observation) -> str:
        """One agent turn for an observation (the env's observation, or chat messages / a string)."""
        messages = self._observation_messages(observation)
        return self.policy.generate(messages, n=1, max_new_tokens=self.config.max_new_tokens,
                                    temperature=self.config.temperature)[0]

    def __call__(self, observation) -> str:
        return self.act(observation)

    def _observation_messages(self, observation) -> list[dict]:
        if isinstance(observation, str) or (isinstance(observation, list) and all(isinstance(m, dict) for m in observation)):
            return as_messages(observation)
        return list(self.prompt(observation))

    def collect(self, env, policy=None, n_episodes: int = 1) -> list[dict]:
        """Run ``n_episodes`` episodes and return their trajectory records.

        Args:
            env: a Gymnasium ColBench env, or a zero-argument factory returning one.
            policy: ``observation -> action text`` (an :class:`~colbench.agents.base.Agent`, or any callable);
                default: this trainer's current policy (:meth:`act`).
        """
        from colbench_env.rollout import run_episodes

        policy = policy or self.act
        factory = env if callable(env) and not hasattr(env, "step") else (lambda: env)
        return list(run_episodes(factory, policy, n_episodes))

    # --- checkpoints -------------------------------------------------------------------------
    def save(self, directory: str | os.PathLike) -> str:
        """Write a checkpoint (module docstring) and return its path."""
        d = Path(directory)
        d.mkdir(parents=True, exist_ok=True)
        for name, lm in self._models().items():
            lm.save(d / name)
        self._save_extra(d)
        if self.accelerator.is_main_process:
            torch.save({"torch": torch.get_rng_state(), "python": random.getstate()}, d / "rng.pt")
            meta = {"algorithm": self.algorithm, "config": self.config.to_dict(), "updates": self.updates,
                    "history": self.history}
            tmp = d / "trainer.json.tmp"
            tmp.write_text(json.dumps(meta, indent=2, default=str, allow_nan=False), encoding="utf-8")
            os.replace(tmp, d / "trainer.json")
        return str(d)

    def _save_extra(self, d: Path) -> None:
        """Hook: subclasses save extra state (e.g. a value head)."""

    def _load_extra(self, d: Path) -> None:
        """Hook: the counterpart of :meth:`_save_extra`."""

    @classmethod
    def load(cls, directory: str | os.PathLike, *, model=None, tokenizer=None, overrides: dict | None = None, **kwargs):
        """Rebuild a trainer from :meth:`save`'s directory and resume (adapters, optimisers, counters).

        Args:
            model: base model object or path when the saved config has no ``model`` path.
            overrides: config fields to change on resume (e.g. ``{"policy": {"learning_rate": 1e-5}}``;
                merged into the nested configs field by field).
        """
        d = Path(directory)
        meta_path = d / "trainer.json"
        if not meta_path.exists():
            raise FileNotFoundError(f"not a trainer checkpoint (no trainer.json): {d}")
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
        if meta.get("algorithm") != cls.algorithm:
            raise ValueError(f"{meta_path}: checkpoint of algorithm {meta.get('algorithm')!r}, not {cls.algorithm!r}")
        data = merge_config_dicts(cls.config_class, meta["config"], overrides or {}, source=str(meta_path))
        config = config_from_dict(cls.config_class, data, source=str(meta_path))
        trainer = cls(config, model=model, tokenizer=tokenizer, **kwargs)
        for name, lm in trainer._models().items():
            lm.load_state(d / name)
        trainer._load_extra(d)
        trainer.updates = int(meta.get("updates", 0))
        trainer.history = list(meta.get("history", []))
        rng = d / "rng.pt"
        if rng.exists():
            st = torch.load(rng, weights_only=False)
            torch.set_rng_state(st["torch"])
            random.setstate(st["python"])
        return trainer

    # --- helpers -----------------------------------------------------------------------------
    def _progress(self, iterable, desc: str, total: int | None = None):
        from tqdm.auto import tqdm

        return tqdm(iterable, desc=desc, total=total, disable=not self.config.show_progress
                    or not self.accelerator.is_local_main_process)

    def _batches(self, items: list, size: int, *, shuffle: bool = True, shard: bool = True) -> list[list]:
        """This process's micro-batches of ``items``: ``size`` per process.

        Shuffled calls draw a fresh order each time -- every epoch of an update gets its own --
        seeded by ``(seed, updates, k)`` with ``k`` the shuffled call's number within the current
        update, so a resumed run repeats the same orders (``shuffle=False``: data order).

        With N processes (``accelerate launch``) the global micro-batch is ``size x N``: every
        process draws the same order (the same call counter), cuts it into global batches and takes
        its own ``size`` slice of each (``shard=False``: every process gets all of them). DDP then
        averages the gradients, so N processes with ``size`` equal one process with ``size x N`` (for
        losses that are means over examples; token- and turn-level means are reweighted by
        :meth:`LMTrainer._global_share`). A last global batch that is short is filled by cycling
        through the order from its start, as accelerate's ``even_batches`` does, so that no process
        is left without work (a process with nothing to do would stall the others' all-reduce).
        """
        order = list(range(len(items)))
        if shuffle:
            update, k = getattr(self, "_shuffle_calls", (self.updates, 0))
            if update != self.updates:
                k = 0
            self._shuffle_calls = (self.updates, k + 1)
            g = torch.Generator().manual_seed(self.config.seed + self.updates + 1_000_003 * k)
            order = torch.randperm(len(items), generator=g).tolist()
        n_proc = self.accelerator.num_processes if shard else 1
        if n_proc == 1:
            return [[items[i] for i in order[s:s + size]] for s in range(0, len(order), size)]
        rank, width = self.accelerator.process_index, size * n_proc
        out = []
        for s in range(0, len(order), width):
            chunk = order[s:s + width]
            chunk += [order[j % len(order)] for j in range(width - len(chunk))]
            out.append([items[i] for i in chunk[rank * size:(rank + 1) * size]])
        return out

    def _n_batches(self, n_items: int, size: int) -> int:
        """How many micro-batches :meth:`_batches` gives this process for ``n_items`` (without
        drawing an order: for the learning-rate schedule)."""
        return -(-n_items // (size * self.accelerator.num_processes))

    def _global_share(self, count: torch.Tensor | float) -> torch.Tensor:
        """``N x count / (sum of count over the N processes)``: multiply a loss that is a mean over
        this process's ``count`` tokens (or turns) by it, and DDP's gradient average becomes the
        gradient of the mean over all processes' tokens -- what one process computes on the whole
        global batch. ``1`` with one process."""
        c = torch.as_tensor(count, dtype=torch.float32, device=self.accelerator.device)
        if self.accelerator.num_processes == 1:
            return torch.ones((), device=c.device)
        total = self.accelerator.reduce(c.clone(), reduction="sum")
        return self.accelerator.num_processes * c / total.clamp(min=1e-12)

