"""A memory plan: the peak accelerator memory of each pipeline stage, per process, from arithmetic.

No model is loaded (nothing here imports torch): the estimate comes from the models' shapes
(:class:`ModelShape`: read from a model directory's ``config.json``, or :data:`KNOWN_MODEL_SHAPES`
for the hub ids the presets name), the precisions, the optimiser states, the sequence lengths and
the micro-batches of each method's resolved config, as this package's trainers run them. Two layouts:

* ``"paper"``: ``--paper`` as the reference trains it, N processes (8 x 80 GB) under DeepSpeed ZeRO-3
  in bf16 (``configs/accelerate/deepspeed_zero3.yaml``): every full fine-tune's weights, gradients and
  AdamW states partitioned over the processes -- DeepSpeed's own estimate
  (``deepspeed.runtime.zero.stage3.estimate_zero3_model_states_mem_needs``: 18 bytes per parameter
  over N, plus 4 bytes per parameter of the largest layer, gathered to run) -- and each frozen
  reference a bf16 copy partitioned the same way.
* ``"single-gpu"``: the design card's one-GPU variant, one process: a LoRA policy on a bf16 base
  (the reference is the base with the adapter disabled: no copy) and a 4-bit NF4 critic with LoRA
  (:data:`SINGLE_GPU_OVERRIDES` is that variant as ``--trainer-overrides``).

What each stage holds (bytes per process), as the code runs it:

* **model states** of every model alive in the stage: weights, gradients and AdamW's two moments
  (one process: torch's AdamW keeps them in the weights' dtype, and its ``foreach`` step makes one
  more weight-sized temporary; LoRA: 16 bytes per adapter parameter in float32), the frozen
  reference of a full fine-tune (in bf16 under bf16 mixed precision), a 4-bit base at 0.5 byte per
  quantised weight plus its constants (one float32 absmax per 64 weights, double-quantised) with its
  embeddings, head and norms unquantised. SWEET-RL builds its critic and its policy together, and
  both stay until its update ends.
* **activations** of one micro-batch under gradient checkpointing: each decoder layer's input
  (``layers x hidden`` values per token) plus one layer's saved tensors while it is recomputed
  (:data:`LAYER_SAVED`: ``10 x hidden + 4 x intermediate`` values per token: norms, q/k/v, attention
  output, residual, gate, up, SiLU, product), for every row of the micro-batch at the padded length;
  without checkpointing every layer's.
* **logits**: one process projects the trained positions onto the vocabulary 256 at a time
  (:attr:`colbench.agents.trainer_base.TrainableLM.logits_chunk`: a chunk's logits, their float32
  log-softmax temporaries and, in the backward, their gradient); a sharded model computes them
  itself, at each row's own trained positions only, all of one forward's at once: ``positions x
  vocab`` values in the model's dtype, a float32 copy, the log-softmax temporary and the gradients.
* **rows per forward**: a trainer with ``rows_per_forward`` (multi-turn DPO, PPO, SWEET-RL's critic
  and policy DPO; :meth:`colbench.agents.trainer_base.TrainableLM.row_logps`) holds the activations
  and logits of that many of a micro-batch's sequences at a time (its other passes are without
  grad and smaller).
* **generation** (SWEET-RL's local candidates, a local policy's collection or evaluation): the
  weights (under ZeRO-3 gathered whole, as generation needs them) and the KV cache of every
  sequence generated together (``2 x layers x kv_heads x head_dim`` values per token).

The sequence lengths are the worst case of the setting (:class:`SequenceLengths`): every agent turn
at ``max_new_tokens``, every human reply at its character cap; with the paper prompt the agent's
thought before ``OUTPUT:`` is not in the next context, so a trajectory's turns are separate
sequences (:func:`colbench.agents.tokenize.tokenize_trajectory`), each padded to the longest in a
forward, and each trains its own turn's action. ``tests/test_memory_plan.py`` compares the estimate with the measured CPU peaks of the
real trainers on a small random Llama (one process, float32: full fine-tune, LoRA) and the worst-case
lengths with a ten-turn trajectory tokenised by Llama-3.1's tokenizer.
"""
from __future__ import annotations

import json
import math
import os
from dataclasses import asdict, dataclass
from pathlib import Path

__all__ = ["ModelShape", "KNOWN_MODEL_SHAPES", "model_shape", "SequenceLengths", "sequence_lengths",
           "model_states", "activation_bytes", "logit_bytes", "generation_bytes", "training_step",
           "memory_plan", "memory_plan_table", "SINGLE_GPU_OVERRIDES", "LAYER_SAVED", "GIB"]

GIB = 2 ** 30
#: values one decoder layer saves per token for its backward, as ``(x hidden, x intermediate)``
LAYER_SAVED = (10, 4)
#: positions projected onto the vocabulary at a time by one process (TrainableLM.logits_chunk)
LOGITS_CHUNK = 256
_BYTES = {"float32": 4, "bfloat16": 2, "float16": 2}


@dataclass(frozen=True)
class ModelShape:
    """A decoder-only (Llama-like) transformer's shape: what its memory depends on."""

    hidden: int
    layers: int
    heads: int
    kv_heads: int
    intermediate: int
    vocab: int
    tied: bool = False

    @property
    def head_dim(self) -> int:
        return self.hidden // self.heads

    @property
    def layer_linear(self) -> int:
        """Parameters of one layer's linear projections (q, k, v, o; gate, up, down)."""
        kv = self.kv_heads * self.head_dim
        return 2 * self.hidden * self.hidden + 2 * self.hidden * kv + 3 * self.hidden * self.intermediate

    @property
    def linear(self) -> int:
        """Parameters of every layer's linear projections (what 4-bit quantises, what LoRA adapts)."""
        return self.layers * self.layer_linear

    @property
    def embeddings(self) -> int:
        """Input embeddings plus the output head (once when tied)."""
        return self.vocab * self.hidden * (1 if self.tied else 2)

    @property
    def params(self) -> int:
        norms = (2 * self.layers + 1) * self.hidden
        return self.linear + self.embeddings + norms

    def lora_params(self, r: int) -> int:
        """LoRA (rank ``r``) on every linear projection of every layer: ``r x (in + out)`` each."""
        kv = self.kv_heads * self.head_dim
        h, i = self.hidden, self.intermediate
        per_layer = (h + h) + (h + kv) * 2 + (h + h) + (h + i) * 2 + (i + h)
        return self.layers * r * per_layer

    @classmethod
    def from_config(cls, config: dict) -> "ModelShape":
        """From a transformers ``config.json`` (``text_config`` of a multimodal one)."""
        c = config.get("text_config") or config
        heads = c["num_attention_heads"]
        return cls(hidden=c["hidden_size"], layers=c["num_hidden_layers"], heads=heads,
                   kv_heads=c.get("num_key_value_heads") or heads, intermediate=c["intermediate_size"],
                   vocab=c["vocab_size"], tied=bool(c.get("tie_word_embeddings", False)))


#: the shapes of the models the presets name (their ``config.json`` on the Hugging Face hub):
#: Llama-3.1-8B 8,030,261,248 parameters, Llama-3.1-70B 70,553,706,496
KNOWN_MODEL_SHAPES: dict[str, ModelShape] = {
    "meta-llama/Llama-3.1-8B-Instruct": ModelShape(4096, 32, 32, 8, 14336, 128256),
    "meta-llama/Llama-3.1-70B-Instruct": ModelShape(8192, 80, 64, 8, 28672, 128256),
}


def model_shape(name_or_path: str | os.PathLike | None) -> ModelShape | None:
    """The shape of a model: a directory's ``config.json`` (a ``colbench train`` checkpoint's base
    too), a hub id of :data:`KNOWN_MODEL_SHAPES` or in the local Hugging Face cache; ``None`` when
    none of them knows it (nothing is downloaded)."""
    if name_or_path is None:
        return None
    path = Path(os.fspath(name_or_path)).expanduser()
    for candidate in (path / "config.json", path / "policy" / "config.json"):
        if candidate.is_file():
            return ModelShape.from_config(json.loads(candidate.read_text()))
    name = os.fspath(name_or_path)
    if name in KNOWN_MODEL_SHAPES:
        return KNOWN_MODEL_SHAPES[name]
    if name == "smollm2":
        try:
            from colbench_env.lm.smollm2 import smollm2_path

            return model_shape(smollm2_path())
        except Exception:  # noqa: BLE001  (not converted yet: unknown, not an error)
            return None
    try:
        from huggingface_hub import try_to_load_from_cache

        cached = try_to_load_from_cache(name, "config.json")
    except Exception:  # noqa: BLE001  (not a hub id)
        return None
    return ModelShape.from_config(json.loads(Path(cached).read_text())) if isinstance(cached, str) else None


@dataclass(frozen=True)
class SequenceLengths:
    """The worst-case token counts of one episode (:func:`sequence_lengths`).

    Attributes:
        prompt: the system instructions and the problem, with the chat template's headers.
        turn: one agent turn (``max_new_tokens``) with its message headers.
        reply: one human reply at its character cap, with its headers.
        turns: agent turns per episode.
        per_turn: the turns are separate sequences (each context shows earlier turns as the
            messages the human saw, not as what the policy generated: the paper prompt's thought
            before ``OUTPUT:``), else one packed sequence.
    """

    prompt: int
    turn: int
    reply: int
    turns: int
    per_turn: bool

    @property
    def trajectory(self) -> int:
        """The longest sequence: the last turn's context and action (per turn), or the packed
        trajectory -- the same count."""
        return self.prompt + self.turns * self.turn + (self.turns - 1) * self.reply

    @property
    def rows(self) -> int:
        """Sequences of one trajectory."""
        return self.turns if self.per_turn else 1

    @property
    def trained(self) -> int:
        """Trained positions of one trajectory (every action)."""
        return self.turns * self.turn


#: tokens of the chat template around one message (Llama-3.1: ``<|start_header_id|>role<|end_header_id|>\n\n``
#: and ``<|eot_id|>``: 5)
_HEADER_TOKENS = 8
#: the prompt's bound: the paper instructions (~330 Llama-3.1 tokens), the longest problem and the
#: template's system preamble, measured at <= 1,000 tokens for every embedded task
#: (tests/test_memory_plan.py); a longer official problem raises it.
PROMPT_TOKENS = 1536
#: characters per token that the bound on a human reply assumes (Llama-3.1 tokenizes English prose
#: at ~4.5 and Python at ~3.5 characters a token; tests/test_memory_plan.py measures the worst
#: embedded task's)
REPLY_CHARS_PER_TOKEN = 2.5


def sequence_lengths(cfg) -> SequenceLengths:
    """The worst case of ``cfg`` (a :class:`~colbench.pipeline.config.PipelineConfig`): every agent
    turn at ``max_new_tokens``, every human reply at the env's character cap
    (:data:`colbench_env.simulators.BACKEND_REPLY_LIMIT` / ``FRONTEND_REPLY_LIMIT``) at
    :data:`REPLY_CHARS_PER_TOKEN`, the prompt at :data:`PROMPT_TOKENS`; the paper prompt style's
    turns are separate sequences."""
    from colbench_env.simulators import BACKEND_REPLY_LIMIT, FRONTEND_REPLY_LIMIT

    limit = BACKEND_REPLY_LIMIT if cfg.kind == "backend" else FRONTEND_REPLY_LIMIT
    return SequenceLengths(prompt=PROMPT_TOKENS, turn=cfg.max_new_tokens + _HEADER_TOKENS,
                           reply=math.ceil(limit / REPLY_CHARS_PER_TOKEN) + _HEADER_TOKENS, turns=cfg.max_turns,
                           per_turn=cfg.prompt_style == "paper")


# ------------------------------------------------------------------------------------ components
def _quantised_bytes(shape: ModelShape, compute: int) -> float:
    """A 4-bit NF4 base with double quantisation: 0.5 byte per linear weight, one 8-bit absmax per
    64 weights and one float32 second-level constant per 256 of those; the rest in the compute dtype."""
    per_weight = 0.5 + 1 / 64 + 4 / (64 * 256)
    return shape.linear * per_weight + (shape.params - shape.linear) * compute


def model_states(shape: ModelShape, *, trained: str, weights: str = "float32", mixed_precision: str = "no",
                 processes: int = 1, zero3: bool = False, lora_r: int = 16, load_in_4bit: bool = False) -> dict:
    """Bytes per process of one model's states: ``{"weights", "gradients", "optimizer", "reference",
    "step_temporary", "gathered"}``.

    Args:
        trained: ``"full"`` (every weight, with a frozen reference copy), ``"lora"`` (an adapter;
            the reference is the base with it disabled) or ``"frozen"`` (no training).
        weights: the dtype the weights are loaded in (:attr:`ModelConfig.compute_dtype`).
        mixed_precision: the trainer's ``mixed_precision`` (``"bf16"``: a full fine-tune's frozen
            copy in bf16; under ZeRO-3 DeepSpeed trains in bf16 with float32 master weights).
        processes / zero3: DeepSpeed ZeRO-3 partitions everything over the processes.
        load_in_4bit: a 4-bit NF4 base (LoRA only).
    """
    w = _BYTES[weights]
    p = shape.params
    out = dict.fromkeys(("weights", "gradients", "optimizer", "reference", "step_temporary", "gathered"), 0.0)
    largest = max(shape.vocab * shape.hidden, shape.layer_linear)
    if zero3:
        # DeepSpeed's estimate without offload: 18 bytes per parameter over the processes (bf16
        # weights 2, the rest gradients and float32 master weights and moments) + 4 per parameter
        # of the largest layer; a frozen model: its bf16 weights partitioned, the largest gathered
        out["gathered"] = 4.0 * largest if trained == "full" else 2.0 * largest
        if trained == "full":
            out["weights"], out["optimizer"] = 2 * p / processes, 16 * p / processes
            out["reference"] = 2 * p / processes
            return out
        if trained == "frozen":
            out["weights"] = 2 * p / processes
            return out
    base = _quantised_bytes(shape, w) if load_in_4bit else w * p
    if trained == "full":
        out["weights"] = out["gradients"] = w * p
        out["optimizer"] = 2 * w * p           # AdamW's two moments, in the weights' dtype
        out["step_temporary"] = w * p          # the foreach step's sqrt of the second moment
        ref_bytes = 2 if mixed_precision in ("bf16", "fp16") and w == 4 else w
        out["reference"] = ref_bytes * p
    elif trained == "lora":
        n = shape.lora_params(lora_r)
        out["weights"] = base + 4 * n
        out["gradients"], out["optimizer"], out["step_temporary"] = 4 * n, 8 * n, 4 * n
    else:
        out["weights"] = base
    if zero3:  # a LoRA model under ZeRO-3: the base partitioned too
        out = {k: v / processes for k, v in out.items()}
        out["gathered"] = 2.0 * largest
    return out


def activation_bytes(shape: ModelShape, *, rows: int, length: int, dtype: str = "bfloat16",
                     gradient_checkpointing: bool = True) -> float:
    """Saved activations of one forward with grad over ``rows`` sequences padded to ``length``:
    each layer's input (checkpointing) plus one layer's :data:`LAYER_SAVED` tensors, or every
    layer's without checkpointing."""
    a = _BYTES[dtype]
    layer = LAYER_SAVED[0] * shape.hidden + LAYER_SAVED[1] * shape.intermediate
    per_token = (shape.layers * shape.hidden + layer) if gradient_checkpointing else shape.layers * layer
    return float(rows * length * per_token * a)


def logit_bytes(shape: ModelShape, *, positions: int, dtype: str = "bfloat16", sharded: bool = False,
                grad: bool = True) -> float:
    """The vocabulary projection's peak for one forward that trains ``positions`` positions (all its
    rows' together): one process, chunk by chunk (``min(positions, 256)`` positions: logits, their
    float32 copy, the log-softmax temporary and in the backward their gradient); sharded, all
    ``positions`` at once (each row's own, :meth:`~colbench.agents.trainer_base.TrainableLM.logps_and_hidden`)."""
    a = _BYTES[dtype]
    per_value = a + (4 if a != 4 else 0) + 4 + ((4 + a) if grad else 0)
    n = positions if sharded else min(positions, LOGITS_CHUNK)
    return float(n * shape.vocab * per_value)


def generation_bytes(shape: ModelShape, *, sequences: int, tokens: int, dtype: str = "bfloat16",
                     gathered_weights: bool = False) -> float:
    """Generating ``sequences`` together up to ``tokens`` each: their KV cache, the last position's
    logits, and (``gathered_weights``: ZeRO-3) the whole model gathered in ``dtype``."""
    a = _BYTES[dtype]
    kv = 2 * shape.layers * shape.kv_heads * shape.head_dim * a
    return float(sequences * tokens * kv + sequences * shape.vocab * 4
                 + (shape.params * a if gathered_weights else 0))


def training_step(shape: ModelShape, *, states: dict, rows: int, length: int, positions: int,
                  dtype: str = "bfloat16", gradient_checkpointing: bool = True, sharded: bool = False,
                  reference_pass: bool = True) -> dict:
    """The peak of one training forward (``rows`` sequences padded to ``length``, ``positions``
    trained positions of them all) and its optimiser step on top of a model's ``states``
    (:func:`model_states`): ``{"parts": {...}, "peak": bytes}``. The backward holds the weights,
    moments, reference, gradients, activations and logits; the step the weights, gradients,
    moments and the step's temporary."""
    act = activation_bytes(shape, rows=rows, length=length, dtype=dtype, gradient_checkpointing=gradient_checkpointing)
    logits = logit_bytes(shape, positions=positions, dtype=dtype, sharded=sharded)
    if reference_pass and not sharded:  # a no-grad pass: one layer's activations, a chunk's logits
        act = max(act, rows * length * (LAYER_SAVED[0] * shape.hidden + LAYER_SAVED[1] * shape.intermediate)
                  * _BYTES[dtype])
    held = states["weights"] + states["optimizer"] + states["reference"] + states["gathered"]
    backward = held + states["gradients"] + act + logits
    step = held + states["gradients"] + states["step_temporary"]
    return {"parts": {**{k: v for k, v in states.items()}, "activations": act, "logits": logits},
            "peak": max(backward, step)}


# ------------------------------------------------------------------------------------------ plan
#: The design card's single-GPU variant as ``--trainer-overrides``: every policy a LoRA adapter on a
#: bf16 base, SWEET-RL's critic a LoRA adapter on a 4-bit NF4 base.
SINGLE_GPU_OVERRIDES: dict[str, dict] = {
    **{m: {"policy": {"full_finetune": False, "compute_dtype": "bfloat16"}} for m in ("rft", "mt-dpo", "ppo", "grpo")},
    "sweet-rl": {"policy": {"full_finetune": False, "compute_dtype": "bfloat16"},
                 "critic": {"full_finetune": False, "load_in_4bit": True, "compute_dtype": "bfloat16"}},
}


def _model(setting, layout: str, processes: int) -> dict:
    """``model_states`` keyword arguments of a :class:`ModelConfig` in ``layout``."""
    zero3 = layout == "paper" and processes > 1
    trained = "full" if setting.full_finetune else "lora"
    return {"trained": trained, "weights": setting.compute_dtype, "processes": processes, "zero3": zero3,
            "lora_r": setting.lora_r, "load_in_4bit": setting.load_in_4bit}


def _gib(x: float) -> float:
    return round(x / GIB, 1)


def memory_plan(cfg, *, layout: str = "paper", processes: int | None = None, gpu_gib: float = 80.0,
                lengths: SequenceLengths | None = None) -> dict:
    """Peak accelerator memory per process of each stage of ``cfg`` (a
    :class:`~colbench.pipeline.config.PipelineConfig`), in GiB, with its parts.

    Args:
        layout: ``"paper"`` (``processes`` x ``gpu_gib`` under ZeRO-3, bf16; default 8 processes)
            or ``"single-gpu"`` (one process, the trainer configs with :data:`SINGLE_GPU_OVERRIDES`).
        lengths: the sequence lengths (default :func:`sequence_lengths` of ``cfg``, the worst case).

    Returns:
        ``{"layout", "processes", "gpu_gib", "lengths", "models", "stages": {stage: {"peak_gib",
        "fits", "parts_gib", "note"}}}``; a stage whose model's shape is unknown
        (:func:`model_shape`) has ``peak_gib`` ``None``.
    """
    from .config import merge_config_dicts, trainer_config
    from colbench.agents.registry import config_class
    from colbench.agents.config import config_from_dict

    if layout not in ("paper", "single-gpu"):
        raise ValueError(f"layout must be 'paper' or 'single-gpu', got {layout!r}")
    n = processes or (8 if layout == "paper" else 1)
    lengths = lengths or sequence_lengths(cfg)
    dtype = "bfloat16"
    trainers = {}
    for m in cfg.methods:
        conf = trainer_config(cfg, m, cfg.policy)
        if layout == "single-gpu":
            cls = config_class(m)
            conf = config_from_dict(cls, merge_config_dicts(cls, asdict(conf), SINGLE_GPU_OVERRIDES.get(m, {})))
        trainers[m] = conf
    policy = model_shape(cfg.policy)
    shapes = {"policy": policy}
    if "sweet-rl" in trainers:
        shapes["critic"] = model_shape(trainers["sweet-rl"].critic.model_name_or_path or cfg.policy)
    stages: dict[str, dict] = {}

    def add(name: str, parts: dict | None, peak: float | None, note: str) -> None:
        fits = None if peak is None else peak <= gpu_gib * GIB
        stages[name] = {"peak_gib": None if peak is None else _gib(peak), "fits": fits,
                        "parts_gib": {k: _gib(v) for k, v in (parts or {}).items() if v}, "note": note}

    sharded = layout == "paper" and n > 1
    L, rows_traj = lengths.trajectory, lengths.rows

    def episodes(stage: str) -> None:
        if cfg.policy_base_url:
            add(stage, None, 0.0, "the policy is served (--policy-base-url): this process holds none of it")
        elif policy is None:
            add(stage, None, None, f"unknown shape of {cfg.policy!r}")
        else:
            w = model_states(policy, trained="frozen", weights=dtype, processes=1)["weights"]
            kv = generation_bytes(policy, sequences=cfg.episodes_in_flight, tokens=L, dtype=dtype)
            add(stage, {"weights": w, "generation": kv}, w + kv,
                f"local generate: {cfg.episodes_in_flight} episodes in flight, each up to {L} tokens")

    episodes("collect")
    for m, conf in trainers.items():
        if policy is None:
            add(f"{m}/train", None, None, f"unknown shape of {cfg.policy!r}")
            continue
        pol = model_states(policy, mixed_precision=conf.mixed_precision, **_model(conf.policy, layout, n))
        if m == "sweet-rl":
            _sweet_rl_stages(cfg, conf, shapes, lengths, layout, n, pol, add, dtype, sharded)
            continue
        length = min(L, conf.max_length)
        # trained positions of one sequence: one turn's action per turn sequence, or every action packed
        own = lengths.turn if lengths.per_turn else lengths.trained
        if m == "rft" or m == "grpo":
            rows, note = conf.sequences_per_batch, f"{conf.sequences_per_batch} sequence(s) of {length} tokens"
            positions = rows * own
        else:
            what, n_rows = ((f"{conf.pairs_per_batch} pair(s)", 2 * conf.pairs_per_batch * rows_traj) if m == "mt-dpo"
                            else (f"{conf.trajectories_per_batch} trajectory(ies)", conf.trajectories_per_batch * rows_traj))
            rows, note = _per_forward(n_rows, conf.rows_per_forward, length, what, lengths.per_turn)
            positions = rows * own
        step = training_step(policy, states=pol, rows=rows, length=length, positions=positions,
                             dtype=dtype, gradient_checkpointing=conf.gradient_checkpointing, sharded=sharded)
        add(f"{m}/train", step["parts"], step["peak"], note)
    episodes("evaluate")
    return {"layout": layout, "processes": n, "gpu_gib": gpu_gib,
            "lengths": {**asdict(lengths), "trajectory": lengths.trajectory},
            "models": {k: (None if s is None else {**asdict(s), "params": s.params}) for k, s in shapes.items()},
            "stages": stages}


def _sweet_rl_stages(cfg, conf, shapes, lengths, layout, n, pol, add, dtype, sharded) -> None:
    """SWEET-RL's stages (critic, candidates, scoring, policy DPO) into ``add``; both models alive."""
    policy, critic = shapes["policy"], shapes.get("critic")
    if critic is None:
        add("sweet-rl/critic", None, None, "unknown critic shape")
        return
    cri = model_states(critic, mixed_precision=conf.mixed_precision, **_model(conf.critic, layout, n))
    held_policy = pol["weights"] + pol["optimizer"] + pol["reference"]
    held_critic = cri["weights"] + cri["optimizer"] + cri["reference"]
    # critic training: 2 x pairs sides, each trajectory's turns as sequences cut at critic.max_length
    c_len = min(lengths.trajectory, conf.critic.max_length or conf.max_length)
    rows, note = _per_forward(2 * conf.critic.pairs_per_batch * lengths.rows, conf.critic.rows_per_forward, c_len,
                              f"{conf.critic.pairs_per_batch} pair(s)", lengths.per_turn)
    own = lengths.turn if lengths.per_turn else lengths.trained
    step = training_step(critic, states=cri, rows=rows, length=c_len, positions=rows * own,
                         dtype=dtype, gradient_checkpointing=conf.gradient_checkpointing, sharded=sharded)
    add("sweet-rl/critic", {**step["parts"], "policy (held)": held_policy}, step["peak"] + held_policy,
        f"{note}; the policy is built too")
    # candidates: n_candidates continuations of the longest context
    new = conf.candidate_max_new_tokens or conf.max_new_tokens
    context = lengths.trajectory - lengths.turn
    if cfg.policy_base_url:
        add("sweet-rl/candidates", {"models (held)": held_policy + held_critic}, held_policy + held_critic,
            "served by --policy-base-url; the models stay built")
    else:
        k = conf.candidate_batch or conf.n_candidates
        gen = generation_bytes(policy, sequences=k, tokens=context + new, dtype=dtype, gathered_weights=sharded)
        add("sweet-rl/candidates", {"generation": gen, "models (held)": held_policy + held_critic},
            gen + held_policy + held_critic, f"{k} candidates at once after a {context}-token context")
    # scoring: no-grad critic (with its reference) and policy passes over pairs_per_batch candidates
    rows = conf.pairs_per_batch
    scoring = activation_bytes(critic, rows=rows, length=c_len, dtype=dtype, gradient_checkpointing=True) \
        + logit_bytes(critic, positions=rows * new, dtype=dtype, sharded=sharded, grad=False) \
        + cri["gathered"]
    add("sweet-rl/scoring", {"forward": scoring, "models (held)": held_policy + held_critic},
        scoring + held_policy + held_critic, f"{rows} candidate(s) per forward, critic then policy")
    # policy DPO on step-level pairs: context + action; the chosen side scored at every token. With
    # stage files (the pipeline's) the critic is freed before this stage (SweetRL.release_critic).
    p_len = min(lengths.trajectory, conf.max_length)
    rows, note = _per_forward(2 * conf.pairs_per_batch, conf.rows_per_forward, p_len,
                              f"{conf.pairs_per_batch} step pair(s)", False)
    own = p_len if conf.nll_scope == "sequence" and conf.nll_coef > 0 else new
    step = training_step(policy, states=pol, rows=rows, length=p_len, positions=rows * own, dtype=dtype,
                         gradient_checkpointing=conf.gradient_checkpointing, sharded=sharded)
    add("sweet-rl/policy", step["parts"], step["peak"],
        f"{note}; the critic freed before this stage (its trained state in the stage files)")


def _per_forward(n_rows: int, rows_per_forward: int | None, length: int, what: str, per_turn: bool) -> tuple[int, str]:
    """Rows of one forward with grad, and the stage's note: ``what`` is ``n_rows`` sequences of up
    to ``length`` tokens, ``rows_per_forward`` of them per forward (all when ``None``)."""
    rows = n_rows if rows_per_forward is None else min(n_rows, rows_per_forward)
    kind = " (one per agent turn)" if per_turn else ""
    if rows == n_rows:
        return rows, f"{what}: {n_rows} sequence(s){kind} padded to {length} tokens, in one forward"
    return rows, f"{what}: {n_rows} sequences{kind} of <= {length} tokens, {rows} per forward"


def memory_plan_table(plan: dict) -> str:
    """The plan as a Markdown table: ``stage | peak per process (GiB) | fits | main parts | note``."""
    lines = [f"| stage | peak per process (GiB) | fits {plan['gpu_gib']:g} GiB | largest parts (GiB) | note |",
             "|---|---|---|---|---|"]
    for name, s in plan["stages"].items():
        parts = ", ".join(f"{k} {v:g}" for k, v in sorted(s["parts_gib"].items(), key=lambda kv: -kv[1])[:4])
        peak = "unknown" if s["peak_gib"] is None else f"{s['peak_gib']:g}"
        fits = "-" if s["fits"] is None else ("yes" if s["fits"] else "**no**")
        lines.append(f"| {name} | {peak} | {fits} | {parts} | {s['note']} |")
    return "\n".join(lines) + "\n"

