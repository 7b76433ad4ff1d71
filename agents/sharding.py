"""Sharded training for :class:`~colbench.agents.trainer_base.TrainableLM`: FSDP and DeepSpeed ZeRO-3 under
``accelerate launch``, on GPUs and on CPU ranks (gloo), with checkpoints in the one-process format.

What accelerate (1.16) leaves to the training code, and this module does:

* **CPU ranks.** accelerate starts FSDP or DeepSpeed only from a GPU-like process group: on a machine
  without one, ``accelerate launch --config_file fsdp_cpu.yaml`` gives processes that each train
  alone (``DistributedType.NO``), and with ``ACCELERATE_USE_CPU=1`` plain DDP (``MULTI_CPU``, the FSDP
  plugin dropped). :func:`make_accelerator` makes the gloo process group and keeps the launch's
  sharding: FSDP (torch's FSDP runs over gloo) or DeepSpeed (its CPU accelerator).
* **Gradient clipping.** ``Accelerator.clip_grad_norm_`` uses FSDP's own norm only when given
  exactly ``model.parameters()``; a LoRA optimiser holds the trainable ones, and torch's clip then
  sees each rank's shard (a different norm per rank). :func:`global_grad_norm` all-reduces the
  shards' squares (and adds replicated parameters once), as one process computes it.
* **Checkpoints.** A sharded model's ``state_dict`` is per rank; :func:`full_weights` and
  :func:`full_optimizer_state` gather the trained weights and the optimiser state into exactly what
  one process saves (peft adapter weights; ``torch.optim`` state keyed by parameter index), and
  :func:`load_full_state` scatters such a checkpoint back -- so a checkpoint loads in one process or
  in N, FSDP or ZeRO-3, whatever wrote it.
* **DeepSpeed's engines.** The trainer owns batching, accumulation and clipping
  (:func:`configure_deepspeed`), and each model steps its own engine (accelerate's ``backward``
  drives the first one only: SWEET-RL has two).
* **Generation.** :func:`generation_model` gives a module whose forward needs no collective: FSDP's
  full parameters, or DeepSpeed's gathered ones (TRL's ``unwrap_model_for_generation``).
* **Loading a model in one process.** Once an accelerator of a ZeRO-3 launch exists, transformers
  partitions every model it loads over the processes (``zero.Init``: collectives on load) -- a
  model that one process loads alone (the pipeline's export of a trained policy on the main
  process) waits forever for the others. :func:`loaded_whole` loads it whole instead.

Measured on CPU with torch 2.13: ``StateDictOptions(full_state_dict=True, cpu_offload=True)`` of an
FSDP model on CPU ranks crashes rank 0 (SIGSEGV; offloading to the CPU a tensor already there), so
on CPU every rank gathers the full trainable state (LoRA: a few MB) instead.
"""
from __future__ import annotations

import contextlib
import os
from typing import Sequence

import torch

__all__ = ["make_accelerator", "process_state", "sharding_kind", "configure_deepspeed", "global_grad_norm",
           "clip_sharded", "full_weights", "full_optimizer_state", "load_full_state", "generation_model",
           "loaded_whole", "clean_name"]


def _flag(name: str) -> bool:
    return os.environ.get(name, "false").lower() in ("1", "true", "yes")


def make_accelerator(mixed_precision: str | None = None):
    """The :class:`accelerate.Accelerator` of the current launch, sharded as the launch config says.

    One process, or a machine with a GPU (or another torch accelerator): ``Accelerator()`` as
    accelerate makes it. Several processes (``WORLD_SIZE > 1``, set by ``accelerate launch``'s
    torchrun) on CPU ranks:

    * DeepSpeed (``ACCELERATE_USE_DEEPSPEED``): the process group on gloo (DeepSpeed's CPU
      accelerator uses it). ``ACCELERATE_USE_CPU=1`` is refused: accelerate would then drop DeepSpeed
      for plain DDP.
    * FSDP (``ACCELERATE_USE_FSDP``): gloo ranks (``cpu=True``), then the state's distributed type set
      to FSDP with the launch's plugin (accelerate keeps the FSDP plugin only for GPU-like types), and
      its device ``cpu``.
    * otherwise DDP over gloo, as ``ACCELERATE_USE_CPU=1`` gives.
    """
    from accelerate import Accelerator
    from accelerate.state import AcceleratorState, PartialState
    from accelerate.utils import DistributedType, FullyShardedDataParallelPlugin, InitProcessGroupKwargs

    kind = _cpu_launch()
    if kind is None:
        return Accelerator(mixed_precision=mixed_precision)
    if kind == "deepspeed":
        return Accelerator(mixed_precision=mixed_precision, kwargs_handlers=[InitProcessGroupKwargs(backend="gloo")])
    accelerator = Accelerator(mixed_precision=mixed_precision, cpu=True)
    if _flag("ACCELERATE_USE_FSDP") and accelerator.distributed_type == DistributedType.MULTI_CPU:
        plugin = FullyShardedDataParallelPlugin()  # from the launch's FSDP_* environment
        if accelerator.mixed_precision != "no":
            plugin.set_mixed_precision(accelerator.mixed_precision)
        accelerator.state.fsdp_plugin = plugin
        # as accelerate does for GPUs, in both shared states: every later AcceleratorState() (transformers
        # makes one to load a 4-bit model) copies PartialState's over its own. FSDP compares its
        # device_id with the parameters' device: "cpu:0" (a CPU rank's) is not "cpu".
        for state in (PartialState._shared_state, AcceleratorState._shared_state):
            state["distributed_type"] = DistributedType.FSDP
            state["device"] = torch.device("cpu")
    return accelerator


def _cpu_launch() -> str | None:
    """``None`` (one process, or ranks with a GPU-like device: accelerate's defaults), ``"deepspeed"``
    (DeepSpeed on CPU ranks: a gloo process group) or ``"cpu"`` (other CPU ranks: ``cpu=True``)."""
    launched = int(os.environ.get("WORLD_SIZE", "1")) > 1
    if not launched or torch.accelerator.is_available():
        return None
    if _flag("ACCELERATE_USE_DEEPSPEED"):
        if _flag("ACCELERATE_USE_CPU"):
            raise RuntimeError("DeepSpeed on CPU ranks: unset ACCELERATE_USE_CPU (with it accelerate silently runs "
                               "plain DDP instead of DeepSpeed); the process group is made on gloo without it")
        return "deepspeed"
    return "cpu"


def process_state():
    """The processes of the current launch (accelerate's ``PartialState``: ``process_index``,
    ``num_processes``, ``is_main_process``, ``wait_for_everyone``), the process group made as
    :func:`make_accelerator` makes it -- for work outside a trainer that is split over the processes
    (the pipeline's episode stages) before any trainer exists; the trainers' accelerators then share
    it. One process (no launch): a state of one process, no process group."""
    from accelerate.state import PartialState

    kind = _cpu_launch()
    if kind is None:
        return PartialState()
    return PartialState(backend="gloo") if kind == "deepspeed" else PartialState(cpu=True)


def sharding_kind(accelerator) -> str | None:
    """``"fsdp"`` (FSDP 1 or 2), ``"deepspeed"`` (ZeRO stage 3) or ``None`` (one process, DDP).

    Raises:
        NotImplementedError: DeepSpeed with a ZeRO stage other than 3 (not run here).
    """
    kind = str(getattr(accelerator, "distributed_type", ""))
    if kind.endswith("FSDP"):
        return "fsdp"
    if kind.endswith("DEEPSPEED"):
        stage = accelerator.state.deepspeed_plugin.zero_stage
        if stage != 3:
            raise NotImplementedError(f"DeepSpeed ZeRO stage {stage}: only stage 3 is supported "
                                      "(configs/accelerate/deepspeed_zero3*.yaml)")
        return "deepspeed"
    return None


def configure_deepspeed(accelerator) -> None:
    """Settle the DeepSpeed config's fields that the trainer owns, before ``accelerator.prepare``.

    The trainer feeds micro-batches itself (no DataLoader), accumulates gradients and clips them
    (:meth:`TrainableLM.backward`, :meth:`TrainableLM.flush`): DeepSpeed gets
    ``train_micro_batch_size_per_gpu`` 1 when ``"auto"`` (it only names the unit of its own
    logging), ``gradient_accumulation_steps`` 1 (every ``engine.step()`` the trainer calls is an
    optimiser step) and ``gradient_clipping`` 0 (the trainer's ``max_grad_norm`` clips the norm of
    all trained parameters, those outside the model included, :func:`global_grad_norm`)."""
    plugin = accelerator.state.deepspeed_plugin
    conf = plugin.deepspeed_config
    if plugin.is_auto("train_micro_batch_size_per_gpu"):
        conf["train_micro_batch_size_per_gpu"] = 1
    conf["gradient_accumulation_steps"] = 1
    conf["train_batch_size"] = conf["train_micro_batch_size_per_gpu"] * accelerator.num_processes
    conf["gradient_clipping"] = 0.0


# --- gradient norm ------------------------------------------------------------------------------
def _local(t: torch.Tensor) -> torch.Tensor:
    """This rank's part of a (possibly DTensor, FSDP2) tensor."""
    return t.to_local() if hasattr(t, "to_local") else t


def global_grad_norm(kind: str, sharded: Sequence[torch.nn.Parameter], replicated: Sequence[torch.nn.Parameter],
                     accelerator) -> tuple[torch.Tensor, list[torch.Tensor]]:
    """The 2-norm of all gradients, as one process computes it, and the local gradient tensors.

    ``sharded``: parameters of the sharded model, each rank holding a disjoint part of every one
    (FSDP: the local shard of ``p.grad``; DeepSpeed: ``safe_get_local_grad``); their squares are
    summed over the ranks. ``replicated``: parameters every rank holds whole (already averaged), counted
    once."""
    grads: list[torch.Tensor] = []
    for p in sharded:
        if kind == "deepspeed":
            from deepspeed.utils import safe_get_local_grad

            g = safe_get_local_grad(p)
        else:
            g = None if p.grad is None else _local(p.grad)
        if g is not None:
            grads.append(g)
    device = accelerator.device
    local = torch.zeros((), dtype=torch.float32, device=device)
    for g in grads:
        local = local + g.detach().float().pow(2).sum()
    total = accelerator.reduce(local, reduction="sum")
    for p in replicated:
        if p.grad is not None:
            total = total + p.grad.detach().float().pow(2).sum()
    return total.sqrt(), grads


def clip_sharded(kind: str, sharded, replicated, max_norm: float, accelerator) -> torch.Tensor:
    """Scale every gradient by ``min(1, max_norm / (norm + 1e-6))`` -- ``torch.nn.utils.clip_grad_norm_``'s
    rule -- with the global norm of :func:`global_grad_norm`; returns the norm."""
    norm, local = global_grad_norm(kind, sharded, replicated, accelerator)
    coef = torch.clamp(max_norm / (norm + 1e-6), max=1.0)
    if kind == "deepspeed":
        from deepspeed.utils import safe_get_local_grad, safe_set_local_grad

        for p in sharded:
            g = safe_get_local_grad(p)
            if g is not None:
                safe_set_local_grad(p, g * coef.to(g.dtype))
    else:
        for g in local:
            g.mul_(coef.to(g.dtype))
    for p in replicated:
        if p.grad is not None:
            p.grad.mul_(coef.to(p.grad.dtype))
    return norm


# --- checkpoints ----------------------------------------------------------------------------------
def _keeps_whole(accelerator) -> bool:
    """Whether this process keeps gathered state: on CPU every process (as torch's state-dict API
    there), on GPUs the main process only (the others' host memory would hold N copies)."""
    return accelerator.device.type == "cpu" or accelerator.is_main_process


def _dcp_options(accelerator, **kw):
    from torch.distributed.checkpoint.state_dict import StateDictOptions

    # offloading to the CPU tensors already there crashes torch 2.13's FSDP (module docstring)
    return StateDictOptions(full_state_dict=True, cpu_offload=accelerator.device.type != "cpu", **kw)


def _trainable_named(module) -> list[tuple[str, torch.nn.Parameter]]:
    return [(n, p) for n, p in module.named_parameters() if p.requires_grad]


def full_weights(kind: str, lm) -> dict[str, torch.Tensor]:
    """The trained weights of a sharded :class:`TrainableLM`, whole, by the names of the unwrapped
    model (what its ``state_dict`` holds in one process). A collective: every rank calls it; on CPU
    every rank gets them, on GPUs the main process."""
    if kind == "deepspeed":  # its fp32 master weights (the model's own are bf16 under bf16 mixed precision)
        from deepspeed.utils import safe_get_full_fp32_param

        out = {}
        for n, p in _deepspeed_params(lm):  # gathered one at a time, kept where _keeps_whole says
            full = safe_get_full_fp32_param(p)
            if _keeps_whole(lm.accelerator):
                out[n] = full.detach().reshape(p.ds_shape).clone().cpu()
        return out
    from torch.distributed.checkpoint.state_dict import get_model_state_dict

    return get_model_state_dict(lm.model, options=_dcp_options(lm.accelerator, ignore_frozen_params=True))


def full_optimizer_state(kind: str, lm) -> dict:
    """The optimiser state of a sharded :class:`TrainableLM` as ``torch.optim.Optimizer.state_dict()``
    gives it in one process (state keyed by the parameter's index in the groups). A collective, as
    :func:`full_weights`."""
    if kind == "deepspeed":
        return _deepspeed_optimizer_state(lm)
    from torch.distributed.checkpoint.state_dict import get_optimizer_state_dict

    by_name = get_optimizer_state_dict(lm.model, torch_optimizer(lm.optimizer), options=_dcp_options(lm.accelerator))
    order = [name for g in by_name["param_groups"] for name in g["params"]]
    index = {name: i for i, name in enumerate(order)}
    return {"state": {index[name]: st for name, st in by_name["state"].items()},
            "param_groups": [dict(g, params=[index[name] for name in g["params"]]) for g in by_name["param_groups"]]}


def load_full_state(kind: str, lm, weights: dict[str, torch.Tensor], optim: dict | None) -> None:
    """Put one-process weights (names of the unwrapped model; the trainable ones) and optimiser state
    into a sharded :class:`TrainableLM`. A collective: every rank calls it with the whole state."""
    if kind == "deepspeed":
        return _deepspeed_load_full_state(lm, weights, optim)
    from torch.distributed.checkpoint.state_dict import (StateDictOptions, get_optimizer_state_dict,
                                                         set_model_state_dict, set_optimizer_state_dict)

    set_model_state_dict(lm.model, weights, options=StateDictOptions(full_state_dict=True, strict=False))
    if optim is None:
        return
    torch_opt = torch_optimizer(lm.optimizer)
    live = get_optimizer_state_dict(lm.model, torch_opt, options=_dcp_options(lm.accelerator))
    order = [name for g in live["param_groups"] for name in g["params"]]
    by_name = {"state": {order[i]: st for i, st in optim["state"].items()},
               "param_groups": [dict(g, params=[order[i] for i in g["params"]]) for g in optim["param_groups"]]}
    set_optimizer_state_dict(lm.model, torch_opt, by_name, options=StateDictOptions(full_state_dict=True))


def torch_optimizer(optimizer):
    """The ``torch.optim.Optimizer`` inside accelerate's (and DeepSpeed's) wrappers."""
    while hasattr(optimizer, "optimizer"):  # accelerate's AcceleratedOptimizer (and DeepSpeed's) wrap it
        optimizer = optimizer.optimizer
    return optimizer


def _deepspeed_params(lm) -> list[tuple[str, torch.nn.Parameter]]:
    return _trainable_named(lm.model.module)


def _deepspeed_inner(lm):
    """DeepSpeed's ZeRO-3 optimiser and the torch optimiser it steps on its fp32 partitions."""
    zero = lm.model.optimizer
    return zero, zero.optimizer


def _deepspeed_optimizer_state(lm) -> dict:
    from deepspeed.utils import safe_get_full_optimizer_state

    named = _deepspeed_params(lm)
    zero, inner = _deepspeed_inner(lm)
    steps = [st["step"] for st in inner.state.values() if "step" in st]
    step = steps[0].clone() if steps else None
    state: dict[int, dict] = {}
    if step is not None and float(step) > 0:
        for i, (_, p) in enumerate(named):
            st = {"step": step.clone().cpu()}
            for key in ("exp_avg", "exp_avg_sq"):
                full = safe_get_full_optimizer_state(p, key)  # a collective: every process gathers
                if _keeps_whole(lm.accelerator):
                    st[key] = full.detach().reshape(p.ds_shape).clone().cpu()
            if _keeps_whole(lm.accelerator):
                state[i] = st
    group = {k: v for k, v in zero.param_groups[0].items() if k != "params"}
    return {"state": state, "param_groups": [dict(group, params=list(range(len(named))))]}


def _deepspeed_load_full_state(lm, weights: dict[str, torch.Tensor], optim: dict | None) -> None:
    import deepspeed
    from deepspeed.utils import safe_set_full_fp32_param, safe_set_full_optimizer_state

    named = _deepspeed_params(lm)
    missing = [n for n, _ in named if n not in weights]
    if missing:
        raise ValueError(f"checkpoint lacks trained weights {missing[:3]}")
    params = [p for _, p in named]
    with deepspeed.zero.GatheredParameters(params, modifier_rank=0):
        for n, p in named:
            p.data.copy_(weights[n].to(p.dtype))
    for n, p in named:  # DeepSpeed's fp32 master partitions, which its optimiser steps
        safe_set_full_fp32_param(p, weights[n].to(torch.float32))
    if not optim or not optim.get("state"):
        return
    zero, inner = _deepspeed_inner(lm)
    template = next(iter(optim["state"].values()))
    # AdamW makes its state at its first step: a fresh engine's fp32 partitions (which ZeRO-3 puts in
    # the optimiser's groups only while it steps) get it here, then it is filled
    for flat in zero.fp32_partitioned_groups_flat:
        st = inner.state[flat]
        st["step"] = template["step"].detach().clone().to(torch.float32)
        for key in ("exp_avg", "exp_avg_sq"):
            st.setdefault(key, torch.zeros_like(flat))
    for i, (_, p) in enumerate(named):
        st = optim["state"].get(i)
        if st is not None:
            for key in ("exp_avg", "exp_avg_sq"):
                safe_set_full_optimizer_state(p, st[key].to(torch.float32).reshape(-1), key)
    saved = optim["param_groups"][0]
    for g in zero.param_groups:
        g.update({k: v for k, v in saved.items() if k != "params"})


@contextlib.contextmanager
def _without_step_reset(engine):
    """ZeRO-3's start-of-forward hook taken off ``engine``'s module for the duration (put back first in
    line on exit). TRL's ``unwrap_model_for_generation`` removes the parameter hooks but not this one,
    which resets the parameter coordinator's step at every forward -- and, until the coordinator has
    traced a whole step, checks the module order against the other processes (a collective): a
    process that calls the gathered model on its own then waits forever for the others (SWEET-RL's
    candidate stage on a policy not yet trained, split unevenly over the processes)."""
    optimizer = getattr(engine, "optimizer", None)  # ZeRO-3's optimizer, or its offload itself without one
    offload = next((o for o in (getattr(optimizer, "parameter_offload", None), optimizer)
                    if hasattr(o, "fwd_pre_hook")), None)
    handle = getattr(offload, "fwd_pre_hook", None)
    hooks = handle.hooks_dict_ref() if handle is not None else None
    if hooks is None or handle.id not in hooks:
        yield
        return
    hook = hooks[handle.id]
    handle.remove()
    try:
        yield
    finally:
        offload.fwd_pre_hook = offload.module.register_forward_pre_hook(hook, prepend=True)


# --- generation -----------------------------------------------------------------------------------
@contextlib.contextmanager
def generation_model(kind: str, wrapped, accelerator):
    """The unwrapped model of ``wrapped`` (a prepared model, or a full fine-tune's sharded frozen
    reference) with its full parameters, for ``generate`` and forward passes with no collective
    per forward (a collective on entry and exit only): FSDP 1's ``summon_full_params`` (its units
    not resharded after each forward meanwhile), FSDP 2's units unsharded (and not resharded after
    each forward) for the duration, DeepSpeed's gathered parameters (TRL's
    ``unwrap_model_for_generation``, which takes ZeRO-3's hooks off meanwhile)."""
    if kind == "deepspeed":
        from trl.models.utils import unwrap_model_for_generation

        with unwrap_model_for_generation(wrapped, accelerator) as net, _without_step_reset(wrapped):
            yield net
        return
    from torch.distributed.fsdp import FSDPModule, FullyShardedDataParallel as FSDP

    if isinstance(wrapped, FSDP):
        # FSDP 1 reshards a FULL_SHARD unit after each forward (all-gathered again at the next one):
        # its handles act as SHARD_GRAD_OP meanwhile (what stays unsharded stays so), so that after
        # summon_full_params' one gather no forward inside is a collective
        from torch.distributed.fsdp._flat_param import RESHARD_AFTER_FORWARD_HANDLE_STRATEGIES, HandleShardingStrategy

        handles = [h for h in (m._handle for m in FSDP.fsdp_modules(wrapped)) if h is not None]
        kept = [h._sharding_strategy for h in handles]
        try:
            for h in handles:
                if h._sharding_strategy in RESHARD_AFTER_FORWARD_HANDLE_STRATEGIES:
                    h._sharding_strategy = HandleShardingStrategy.SHARD_GRAD_OP
            with FSDP.summon_full_params(wrapped, writeback=False):
                yield accelerator.unwrap_model(wrapped)
        finally:
            for h, strategy in zip(handles, kept):
                h._sharding_strategy = strategy
        return
    # FSDP 2: generate() calls the causal LM inside the root module, whose pre-forward unshard
    # then never runs; every unit is unsharded up front and kept so until the end (the root's lazy
    # initialisation first, which its first forward would do: without it the inner units would each
    # initialise as a root of their own, and the root's next forward fail)
    wrapped._get_fsdp_state()._lazy_init()
    units = [m for m in wrapped.modules() if isinstance(m, FSDPModule)]
    for m in units:
        m.set_reshard_after_forward(False, recurse=False)
        m.unshard()
    try:
        yield accelerator.unwrap_model(wrapped)
    finally:
        for m in units:
            m.reshard()
            m.set_reshard_after_forward(accelerator.state.fsdp_plugin.reshard_after_forward, recurse=False)


@contextlib.contextmanager
def loaded_whole():
    """Models that transformers loads inside this block are loaded whole in this process, not
    partitioned over a ZeRO-3 launch's processes: what one process loads alone (an export, an
    agent of its own). Outside a ZeRO-3 launch (no DeepSpeed config registered with transformers)
    it changes nothing.

    transformers partitions a model as it loads it (``deepspeed.zero.Init``, a collective in every
    layer's constructor) while a ZeRO-3 DeepSpeed config is registered with it, which accelerate does
    for the launch's whole life as soon as an ``Accelerator`` exists; the block unregisters it
    (``unset_hf_deepspeed_config``) and registers the same config again on exit."""
    from transformers.integrations import deepspeed as hf_deepspeed

    ref = hf_deepspeed._hf_deepspeed_config_weak_ref  # the registered config (transformers keeps a weakref)
    held = ref() if ref is not None else None
    if held is None:
        yield
        return
    hf_deepspeed.unset_hf_deepspeed_config()
    try:
        yield
    finally:
        hf_deepspeed.set_hf_deepspeed_config(held)


def clean_name(name: str) -> str:
    """A parameter name of a wrapped model as the unwrapped model names it (FSDP 1 and activation
    checkpointing insert wrapper modules)."""
    for wrapper in ("_fsdp_wrapped_module.", "_checkpoint_wrapped_module."):
        name = name.replace(wrapper, "")
    return name
