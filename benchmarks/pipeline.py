"""``colbench pipeline``: the SWEET-RL pipeline end to end, with its baselines, in one table and plot.

Stages (each resumable: a finished stage leaves its output and is skipped when rerun; rollout and
evaluation files are appended episode by episode and resume mid-stage):

1. **collect** -- ``k`` sampled rollouts per training task with the base policy (zero-shot) ->
   ``rollouts.jsonl``.
2. **train** -- from those rollouts: rejection fine-tuning (``rft``), multi-turn DPO (``mt-dpo``),
   PPO (``ppo``), GRPO (``grpo``: group-relative advantages over each task's ``k`` rollouts), SWEET-RL (``sweet-rl``: critic with training-time information -> step-level pairs
   from ``N`` candidate actions -> policy DPO) -> ``ckpt/<method>/`` (trainer checkpoint) and
   ``models/<method>/`` (the policy with its LoRA merged, loadable by any transformers/vLLM server).
3. **evaluate** -- zero-shot and every trained policy on the held-out split (greedy with ``--small``) ->
   ``eval/<method>.jsonl``; with ``--eval-samples k`` also ``eval/<method>.sampled.jsonl`` (``k``
   episodes per task at ``--eval-samples-temperature``), its settings recorded in
   ``eval/<method>.sampled.json``: resuming an out-dir with another temperature or ``k`` is refused
   (exit 2) rather than reporting one temperature's episodes as another's.
4. **report** -- ``results.md`` / ``results.csv`` / ``results.png`` and ``results.json``.

Presets:

* ``--small``: the embedded SmolLM2-135M-Instruct as policy (and critic), the offline scripted
  simulator, generated tasks of the ``"rate"`` family at difficulty 1 (the argument times one hidden
  number: the one kind of task this 135M policy solves sometimes -- about a third zero-shot with the
  ``"compact"`` prompt, so a change is measurable), short episodes (``max_turns`` 3, 96 tokens),
  rollouts sampled at temperature 0.1, LoRA on CPU. Sized for 2 CPU cores in <= 45 minutes.
* ``--paper``: the reference implementation's setting, for GPUs (every value and its source file in
  :data:`PAPER_SETTINGS`, rendered in the README by :func:`paper_settings_table`):
  Llama-3.1-8B-Instruct policy and critic, both fully fine-tuned (lr 2e-7, AdamW betas (0.9, 0.95),
  cosine to 0.1x with 3 % warm-up, 8 pairs per step), Llama-3.1-70B simulator behind an
  OpenAI-compatible server (``--simulator-base-url``), 5000 train tasks x k = 3 rollouts (15k
  trajectories; the embedded tasks, or an official file via ``--tasks``), 10 turns of 1024 tokens,
  N = 16 candidates at temperature 1.0, evaluation sampled at temperature 1.0 on 1000 tasks. Run the
  training stages under ``accelerate launch`` with ``configs/accelerate/deepspeed_zero3.yaml``.
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Sequence

from agents.config import _AliasedConfig, merge_config_dicts
from colbench_env.errors import UsageError
from colbench_env.prompting import PROMPT_STYLES
from colbench_env.lm.heap import limit_heap_retention

__all__ = ["PipelineConfig", "PRESETS", "PAPER_SETTINGS", "add_arguments", "main", "paper_settings_table",
           "run_pipeline", "trainer_config"]

from agents.registry import TRAINERS

METHODS = tuple(TRAINERS)


@dataclass
class PipelineConfig(metaclass=_AliasedConfig):
    """One pipeline run.

    Attributes:
        out_dir: where every stage writes (and resumes from).
        policy: base policy model: ``"smollm2"`` or a local path / hub id.
        tasks: task spec for training and test tasks (see :func:`colbench_env.tasks.load_tasks`);
            ``"generated"`` uses ``difficulty``, ``family`` and the two counts below.
        difficulty: generated tasks' difficulty (hidden facts that matter).
        family: generated tasks' template family (:data:`colbench_env.generator.FAMILIES`).
        prompt_style: the agent prompt (``"paper"`` / ``"compact"``), for collection, training
            and evaluation alike.
        n_train_tasks / n_test_tasks: how many tasks of each split (``None``: all of the split).
        rollouts_per_task: ``k`` sampled rollouts per training task.
        max_turns: agent turns per episode.
        max_new_tokens: tokens per agent turn.
        rollout_temperature: sampling temperature of the collection policy.
        episodes_in_flight: episodes run side by side, one batched generation per turn (old name:
            ``batch_size``, accepted as an alias).
        simulator / simulator_kwargs: the human (``"scripted"`` offline; ``"openai"`` for vLLM).
        methods: which trainers to run.
        trainer_overrides: per-method config fields (e.g. ``{"sweet-rl": {"n_candidates": 4,
            "critic": {"learning_rate": 1e-4}}}``), checked by ``config_from_dict`` (old keys
            accepted, and stored under their new names).
        seed: seeds collection and training (and the sampling of every episode).
        seeds: several seeds: one whole run (collection, training, evaluation) per seed in
            ``out_dir/seed-<s>/``, then ``stats.*`` in ``out_dir`` over tasks and seeds
            (:mod:`benchmarks.pipeline_stats`); empty: one run with ``seed`` in ``out_dir``.
        eval_temperature: temperature of the evaluation episodes (``eval/<method>.jsonl``, one per
            held-out task): 0, greedy (``--small``); the reference's
            ``scripts/simulate_interactions.py`` samples at 1.0 (``--paper``).
        eval_samples: ``k`` more episodes per held-out task at ``eval_samples_temperature`` for
            every policy (``eval/<method>.sampled.jsonl``); 0: none.
        eval_samples_temperature: sampling temperature of those ``k`` episodes (> 0).
        bootstrap_resamples: bootstrap replicates of the intervals in ``stats.*``.
        semantics: backend scoring semantics (``"reference"``: comparable with published numbers;
            ``"python"``: plain Python modules), see :mod:`colbench_env.evaluation.backend`.
    """

    _aliases: ClassVar[dict[str, Any]] = {"batch_size": "episodes_in_flight"}

    out_dir: str = "benchmarks/results/pipeline_small"
    policy: str = "smollm2"
    tasks: str = "generated"
    difficulty: int = 1
    family: str = "rate"
    prompt_style: str = "compact"
    n_train_tasks: int | None = 16
    n_test_tasks: int | None = 16
    rollouts_per_task: int = 4
    max_turns: int = 3
    max_new_tokens: int = 96
    # 0.1, not 0.3: this 135M policy's successes hang on ~35 low-margin tokens each; at 0.3 it solved
    # 0/16 held-out tasks vs 5/16 greedy and 7/16 at 0.1 (benchmarks/results/sampling_anomaly/)
    rollout_temperature: float = 0.1
    eval_temperature: float = 0.0
    episodes_in_flight: int = 8
    simulator: str = "scripted"
    simulator_kwargs: dict = field(default_factory=dict)
    methods: tuple = METHODS
    trainer_overrides: dict = field(default_factory=dict)
    seed: int = 0
    seeds: tuple = ()
    eval_samples: int = 0
    eval_samples_temperature: float = 1.0
    bootstrap_resamples: int = 10000
    semantics: str = "reference"

    def __post_init__(self) -> None:
        if self.semantics not in ("reference", "python"):
            raise ValueError(f"semantics must be 'reference' or 'python', got {self.semantics!r}")
        bad = [m for m in self.methods if m not in METHODS]
        if bad:
            raise ValueError(f"methods: unknown {bad}; choose from {METHODS}")
        for name in ("rollouts_per_task", "max_turns", "max_new_tokens", "episodes_in_flight"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be >= 1, got {getattr(self, name)}")
        for name in ("rollout_temperature", "eval_temperature"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} must be >= 0, got {getattr(self, name)}")
        from colbench_env.tasks import generated_spec

        generated_spec(1, self.difficulty, self.family)  # the generator's checks of difficulty and family
        if self.prompt_style not in PROMPT_STYLES:
            raise ValueError(f"prompt_style must be one of {PROMPT_STYLES}, got {self.prompt_style!r}")
        self.methods = tuple(self.methods)
        from agents.config import canonical_config_dict, config_from_dict

        checked = {}
        for method, overrides in self.trainer_overrides.items():  # the same validation as `colbench train`
            if method not in METHODS:
                raise ValueError(f"trainer_overrides: unknown method {method!r}; choose from {METHODS}")
            cls, source = _trainer_class(method).config_class, f"trainer_overrides[{method!r}]"
            config_from_dict(cls, dict(overrides), source=source)
            checked[method] = canonical_config_dict(cls, dict(overrides), source=source)  # old keys renamed
        self.trainer_overrides = checked
        self.seeds = tuple(self.seeds)
        if any(isinstance(x, bool) or not isinstance(x, int) or x < 0 for x in self.seeds) \
                or len(set(self.seeds)) != len(self.seeds):
            raise ValueError(f"seeds must be distinct non-negative integers, got {list(self.seeds)}")
        if isinstance(self.eval_samples, bool) or not isinstance(self.eval_samples, int) or self.eval_samples < 0:
            raise ValueError(f"eval_samples must be an integer >= 0, got {self.eval_samples!r}")
        if not self.eval_samples_temperature > 0:
            raise ValueError(f"eval_samples_temperature must be > 0, got {self.eval_samples_temperature!r}")
        if self.bootstrap_resamples < 1:
            raise ValueError(f"bootstrap_resamples must be >= 1, got {self.bootstrap_resamples!r}")
        from colbench_env.simulators import check_simulator_kwargs

        try:  # before anything is written: the human is built only when the first episode runs
            check_simulator_kwargs(self.simulator, "backend", self.simulator_kwargs)
        except ValueError as e:
            raise ValueError(f"simulator_kwargs: {e}") from None


# Gradient checkpointing bounds the activations: without it one PPO minibatch (4 x ~600 tokens)
# held > 3 GB of SmolLM2 activations (measured: benchmarks/results/pipeline_small/README.md).
_SMALL_TRAINING = {"policy": {"learning_rate": 1e-4}, "max_length": 2048, "gradient_checkpointing": True}
# Sized to the 45-minute budget on 2 cores (measured: PPO's second update epoch cost 3.7 min and
# SWEET-RL's 4 pairs per state 13 min of DPO): one PPO update epoch, 2 pairs per SWEET-RL state.
PRESETS: dict[str, dict] = {
    "small": {"trainer_overrides": {
        "rft": dict(_SMALL_TRAINING, epochs=2), "mt-dpo": dict(_SMALL_TRAINING, epochs=2),
        "ppo": dict(_SMALL_TRAINING, update_epochs=1),  # PPO's and GRPO's passes are update_epochs
        "grpo": dict(_SMALL_TRAINING, update_epochs=1),
        "sweet-rl": dict(_SMALL_TRAINING, epochs=2, n_candidates=4, pairs_per_state=2, candidate_temperature=0.7,
                         critic={"learning_rate": 1e-4, "epochs": 2})}},
    # The reference's settings (facebookresearch/sweet_rl README + scripts, and the OpenRLHF fork's
    # train_dpo.py); each value is pinned, with its source, by PAPER_SETTINGS below.
    "paper": {
        "out_dir": "benchmarks/results/pipeline_paper", "policy": "meta-llama/Llama-3.1-8B-Instruct",
        "tasks": "default", "family": "all", "prompt_style": "paper", "n_train_tasks": 5000, "n_test_tasks": 1000,
        "rollouts_per_task": 3, "max_turns": 10, "max_new_tokens": 1024, "rollout_temperature": 1.0,
        "eval_temperature": 1.0, "episodes_in_flight": 64, "simulator": "openai",
        "simulator_kwargs": {"model": "meta-llama/Llama-3.1-70B-Instruct", "temperature": 0.0, "max_new_tokens": 4096},
        "trainer_overrides": {"sweet-rl": {
            # critic (README: the first train_dpo run, --mean_log_prob)
            "critic": {"model_name_or_path": "meta-llama/Llama-3.1-8B-Instruct", "full_finetune": True,
                       "learning_rate": 2e-7, "epochs": 4, "pairs_per_batch": 1, "max_length": 8192},
            "beta": 0.1,
            # step-level pairs (sample_best_of_n.py, generate_random_pairs_from_ranks.py)
            "n_candidates": 16, "candidate_temperature": 1.0, "candidate_max_new_tokens": 1024,
            "state_selection": "first_trajectories", "state_fraction": 0.1, "pairs_per_state": 4,
            # policy DPO (README: the second train_dpo run)
            "policy": {"full_finetune": True, "learning_rate": 2e-7}, "epochs": 1, "pairs_per_batch": 1, "dpo_beta": 0.1,
            "nll_coef": 0.01, "max_length": 16384,
            # both runs: --train_batch_size 8 --micro_train_batch_size 1, and train_dpo.py's optimiser
            "gradient_accumulation_steps": 8, "adam_betas": (0.9, 0.95), "weight_decay": 0.0, "max_grad_norm": 1.0,
            "lr_scheduler": "cosine", "warmup_ratio": 0.03, "min_lr_ratio": 0.1,
            "mixed_precision": "bf16", "gradient_checkpointing": True}},
    },
}

_SR = "facebookresearch/sweet_rl"
_ORLHF = "YifeiZhou02/collab_openrlhf"
#: ``--paper`` against the reference: ``(setting, reference value, reference file, colbench key)``.
#: A key is ``pipeline.<PipelineConfig field>`` or ``<method>.<trainer config field>`` (the trainer's
#: resolved config, as :func:`trainer_config` builds it); ``a*b`` multiplies two keys.
#: ``tests/test_pipeline.py`` checks every row against the resolved preset and that the README
#: table is :func:`paper_settings_table`'s output.
PAPER_SETTINGS: list[tuple[str, Any, str, str]] = [
    ("policy model", "meta-llama/Llama-3.1-8B-Instruct", f"{_SR} README.md (train_dpo --pretrain)", "pipeline.policy"),
    ("critic model", "meta-llama/Llama-3.1-8B-Instruct", f"{_SR} README.md (train_dpo --pretrain)", "sweet-rl.critic.model_name_or_path"),
    ("human simulator", "meta-llama/Llama-3.1-70B-Instruct", f"{_SR} README.md (vllm server), scripts/simulate_interactions.py",
     "pipeline.simulator_kwargs.model"),
    ("human simulator temperature", 0, f"{_SR} sweet_rl/environments/human_interaction_env.py (temperature=0)",
     "pipeline.simulator_kwargs.temperature"),
    ("human simulator tokens per reply (then cut to 400 characters)", 4096,
     f"{_SR} sweet_rl/environments/human_interaction_env.py (max_tokens, HUMAN_RESPONSE_CHARACTER_LIMIT)",
     "pipeline.simulator_kwargs.max_new_tokens"),
    ("offline trajectories per task (k)", 3, f"{_SR} README.md (evaluate_code.py --k 3)", "pipeline.rollouts_per_task"),
    ("offline trajectories (15k = 5000 tasks x 3)", 15000, f"{_SR} README.md (colbench_code_offline_15k_llama8b.jsonl)",
     "pipeline.n_train_tasks*pipeline.rollouts_per_task"),
    ("rollout sampling temperature", 1.0, f"{_SR} scripts/simulate_interactions.py (temperature)", "pipeline.rollout_temperature"),
    ("agent turns per episode", 10, f"{_SR} scripts/simulate_interactions.py (max_steps)", "pipeline.max_turns"),
    ("tokens per agent turn", 1024, f"{_SR} sweet_rl/models/vllm_agent.py (max_tokens)", "pipeline.max_new_tokens"),
    ("evaluation sampling temperature", 1.0, f"{_SR} scripts/simulate_interactions.py (temperature)", "pipeline.eval_temperature"),
    ("backend scoring semantics", "reference", f"{_SR} sweet_rl/utils/code_utils.py (exec inside a function)",
     "pipeline.semantics"),
    ("evaluation tasks", 1000, f"{_SR} README.md (simulate_interactions.py --num_tasks 1000)", "pipeline.n_test_tasks"),
    ("critic: full fine-tune (no LoRA)", True, f"{_SR} README.md (train_dpo: no LoRA option)", "sweet-rl.critic.full_finetune"),
    ("critic learning rate", 2e-7, f"{_SR} README.md (--learning_rate)", "sweet-rl.critic.learning_rate"),
    ("critic epochs", 4, f"{_SR} README.md (--max_epochs)", "sweet-rl.critic.epochs"),
    ("critic pairs per optimiser step", 8, f"{_SR} README.md (--train_batch_size 8 --micro_train_batch_size 1)",
     "sweet-rl.critic.pairs_per_batch*sweet-rl.gradient_accumulation_steps"),
    ("critic max length", 8192, f"{_SR} README.md (--max_len)", "sweet-rl.critic.max_length"),
    ("critic beta", 0.1, f"{_SR} README.md (--beta)", "sweet-rl.beta"),
    ("candidates per state", 16, f"{_SR} scripts/sample_best_of_n.py (best_of_n)", "sweet-rl.n_candidates"),
    ("candidate temperature", 1.0, f"{_SR} scripts/sample_best_of_n.py (temperature)", "sweet-rl.candidate_temperature"),
    ("candidate tokens", 1024, f"{_SR} scripts/sample_best_of_n.py (max_tokens)", "sweet-rl.candidate_max_new_tokens"),
    ("states: all turns of the first trajectories", "first_trajectories",
     f"{_SR} scripts/sample_best_of_n.py (data[: int(len(data) * data_fraction)])", "sweet-rl.state_selection"),
    ("data fraction for states", 0.1, f"{_SR} README.md (sample_best_of_n.py --data_fraction)", "sweet-rl.state_fraction"),
    ("pairs per state", 4, f"{_SR} README.md (generate_random_pairs_from_ranks.py --num_pairs)", "sweet-rl.pairs_per_state"),
    ("policy: full fine-tune (no LoRA)", True, f"{_SR} README.md (train_dpo: no LoRA option)", "sweet-rl.policy.full_finetune"),
    ("policy learning rate", 2e-7, f"{_SR} README.md (--learning_rate)", "sweet-rl.policy.learning_rate"),
    ("policy epochs", 1, f"{_SR} README.md (--max_epochs)", "sweet-rl.epochs"),
    ("policy pairs per optimiser step", 8, f"{_SR} README.md (--train_batch_size 8 --micro_train_batch_size 1)",
     "sweet-rl.pairs_per_batch*sweet-rl.gradient_accumulation_steps"),
    ("policy DPO beta", 0.1, f"{_SR} README.md (--beta)", "sweet-rl.dpo_beta"),
    ("policy NLL coefficient", 0.01, f"{_SR} README.md (--nll_loss_coef)", "sweet-rl.nll_coef"),
    ("policy max length", 16384, f"{_SR} README.md (--max_len)", "sweet-rl.max_length"),
    ("AdamW betas", (0.9, 0.95), f"{_ORLHF} openrlhf/cli/train_dpo.py (--adam_betas)", "sweet-rl.adam_betas"),
    ("weight decay", 0.0, f"{_ORLHF} openrlhf/cli/train_dpo.py (--l2)", "sweet-rl.weight_decay"),
    ("gradient clipping norm", 1.0, f"{_ORLHF} openrlhf/cli/train_dpo.py (--max_norm)", "sweet-rl.max_grad_norm"),
    ("learning-rate schedule", "cosine", f"{_ORLHF} openrlhf/cli/train_dpo.py (cosine_with_min_lr)", "sweet-rl.lr_scheduler"),
    ("warm-up fraction", 0.03, f"{_ORLHF} openrlhf/cli/train_dpo.py (--lr_warmup_ratio)", "sweet-rl.warmup_ratio"),
    ("final / initial learning rate", 0.1, f"{_ORLHF} openrlhf/cli/train_dpo.py (min_lr = 0.1 x lr)", "sweet-rl.min_lr_ratio"),
    ("precision", "bf16", f"{_SR} README.md (--bf16)", "sweet-rl.mixed_precision"),
    ("gradient checkpointing", True, f"{_SR} README.md (--gradient_checkpointing)", "sweet-rl.gradient_checkpointing"),
]


def resolve_setting(key: str, cfg: "PipelineConfig", trainer_configs: dict[str, Any]) -> Any:
    """The value of a :data:`PAPER_SETTINGS` key in a resolved pipeline config."""
    if "*" in key:
        a, b = key.split("*")
        return resolve_setting(a, cfg, trainer_configs) * resolve_setting(b, cfg, trainer_configs)
    head, *path = key.split(".")
    obj: Any = cfg if head == "pipeline" else trainer_configs[head]
    for name in path:
        obj = obj[name] if isinstance(obj, dict) else getattr(obj, name)
    return obj


def paper_settings_table(preset: str = "paper") -> str:
    """The Markdown table ``setting | reference value | reference file | colbench`` of a preset
    (``colbench``: the key and its resolved value, e.g. ``sweet-rl.critic.epochs = 4``)."""
    cfg = PipelineConfig(**PRESETS[preset])
    trainers = {m: trainer_config(cfg, m, cfg.policy) for m in cfg.methods}
    fmt = lambda v: json.dumps(list(v) if isinstance(v, tuple) else v)  # noqa: E731
    lines = ["| setting | reference value | reference file | colbench |", "|---|---|---|---|"]
    for setting, ref, source, key in PAPER_SETTINGS:
        lines.append(f"| {setting} | {fmt(ref)} | {source} | `{key}` = {fmt(resolve_setting(key, cfg, trainers))} |")
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------------------------------------ stages
def _log(msg: str) -> None:
    print(f"[pipeline {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def task_split(cfg: PipelineConfig, split: str) -> list:
    """The run's training (``split="train"``) or held-out (``"test"``) tasks, as every stage sees them."""
    from colbench_env.tasks import generated_spec, load_tasks

    n = cfg.n_train_tasks if split == "train" else cfg.n_test_tasks
    if cfg.tasks == "generated":
        return load_tasks(generated_spec(n or 20, cfg.difficulty, cfg.family), kind="backend", split=split)
    tasks = load_tasks(cfg.tasks, kind="backend", split=split)
    return tasks[:n] if n else tasks


def base_policy(cfg: PipelineConfig) -> str:
    """The base policy's loadable path (``smollm2``: the embedded model's converted weights)."""
    if cfg.policy == "smollm2":
        from colbench_env.lm.smollm2 import smollm2_path

        return smollm2_path()
    return cfg.policy


def run_episodes(cfg: PipelineConfig, tasks: list, model_path: str, out: Path, *, repeats: int,
                 temperature: float, desc: str, only: set[str] | None = None) -> list[dict]:
    """Episodes of ``model_path`` on ``tasks`` (each ``repeats`` times; ``only``: just the episodes of
    these ids), appended to ``out`` (resumes)."""
    import gymnasium as gym

    import colbench_env  # noqa: F401
    from agents.base import LMAgent
    from colbench.cli.run import run_to_file
    from colbench_env.lm.base import SamplingParams
    from colbench_env.evaluation.backend import BackendEvaluator
    from colbench_env.simulators import make_simulator

    specs = [s for s in _specs(cfg, tasks, repeats) if only is None or s.episode_id in only]

    def make_agent():
        return LMAgent("hf", model=model_path, max_turns=cfg.max_turns, prompt_style=cfg.prompt_style,
                       sampling=SamplingParams(max_new_tokens=cfg.max_new_tokens, temperature=temperature,
                                               seed=cfg.seed if temperature > 0 else None))

    sim = make_simulator(cfg.simulator, kind="backend", **cfg.simulator_kwargs)
    try:
        with BackendEvaluator(workers=2, semantics=cfg.semantics) as ev:
            return run_to_file(lambda: gym.make("ColBench-Backend-v0", tasks=tasks, simulator=sim, evaluator=ev,
                                                max_turns=cfg.max_turns),
                               make_agent, specs, out, batch_size=cfg.episodes_in_flight, desc=desc)
    finally:
        sim.close()
        _release_memory()


def _specs(cfg: PipelineConfig, tasks: list, repeats: int) -> list:
    from colbench_env.rollout import episode_specs

    return episode_specs(len(tasks) * repeats, n_tasks=len(tasks), seed=cfg.seed, repeats=repeats)


def episodes_in_file(cfg: PipelineConfig, tasks: list, path: Path, *, repeats: int) -> tuple[list[dict], int]:
    """The episodes of ``tasks`` x ``repeats`` already in ``path`` (as :func:`run_episodes` would return them,
    running nothing) and how many of them are missing."""
    from wrappers.recorder import recorded_episodes

    records, missing = recorded_episodes(path, {s.episode_id for s in _specs(cfg, tasks, repeats)})
    return records, len(missing)


def finished_methods(out: Path) -> list[str]:
    """The methods whose training finished in the run directory ``out`` (trained, or found to have
    nothing to learn from), in :data:`METHODS` order."""
    return [m for m in METHODS if _done_marker(out, m).exists()]


def _done_marker(out: Path, method: str) -> Path:
    return Path(out) / "models" / method / "pipeline_done.json"


def training_outcome(out: Path, method: str) -> dict | None:
    """What ``method``'s training stage left in the run directory ``out``: its metrics and seconds,
    or ``skipped``, why it was not trained; ``None`` while the stage has not finished."""
    marker = _done_marker(out, method)
    return json.loads(marker.read_text()) if marker.exists() else None


def _trainer_class(method: str):
    from agents.registry import trainer_class

    return trainer_class(method)


def trainer_config(cfg: PipelineConfig, method: str, base: str):
    """The resolved trainer config of ``method`` in a pipeline run (the preset's overrides over the
    fields the pipeline sets for every trainer)."""
    from agents.config import config_from_dict

    cls, source = _trainer_class(method).config_class, f"trainer_overrides[{method!r}]"
    conf = {"policy": {"model_name_or_path": base}, "seed": cfg.seed, "max_new_tokens": cfg.max_new_tokens,
            "show_progress": True, "max_turns": cfg.max_turns, "prompt_style": cfg.prompt_style}
    if method in ("ppo", "grpo"):
        conf["rollout_temperature"] = cfg.rollout_temperature  # the behaviour policy sampled at it
    conf = merge_config_dicts(cls, conf, cfg.trainer_overrides.get(method, {}), source=source)
    return config_from_dict(cls, conf, source=source)


def train_method(cfg: PipelineConfig, method: str, base: str, rollouts: list[dict], out: Path) -> dict:
    """Train ``method`` on the rollouts; save the checkpoint and the merged policy (``out/ckpt/<method>``,
    ``out/models/<method>``). Resumes: a stage marked done returns its recorded outcome, trains nothing."""
    ckpt, model_dir = out / "ckpt" / method, out / "models" / method
    done = training_outcome(out, method)
    if done is not None:
        return done
    cls = _trainer_class(method)
    conf = trainer_config(cfg, method, base)
    _log(f"train {method}: {len(rollouts)} rollouts, config {conf.to_dict()}")
    t0 = time.perf_counter()
    trainer = cls(conf)
    try:
        if getattr(cls, "resumable_stages", False):  # SWEET-RL: its critic and candidates survive an interruption
            metrics = trainer.update(rollouts, stage_dir=out / "stages" / method)
        else:
            metrics = trainer.update(rollouts)
    except UsageError:  # e.g. stage files made with other settings: the user's to resolve, not a skip
        raise
    except ValueError as e:  # the rollouts hold nothing this method can learn from (e.g. no success)
        info = {"method": method, "skipped": str(e), "train_seconds": time.perf_counter() - t0}
        _log(f"{method} skipped: {e}")
    else:
        trainer.save(ckpt)
        _export_merged(trainer, model_dir)
        info = {"method": method, "metrics": metrics, "train_seconds": time.perf_counter() - t0}
    finally:
        del trainer
        _release_memory()
    return _finished(out, method, info)


def _finished(out: Path, method: str, info: dict) -> dict:
    """Mark ``method``'s training stage done (``models/<method>/pipeline_done.json`` = ``info``: its
    metrics, or why it was not trained; :func:`training_outcome` reads it); returns ``info``."""
    marker = _done_marker(out, method)
    marker.parent.mkdir(parents=True, exist_ok=True)
    tmp = marker.with_suffix(".tmp")
    tmp.write_text(json.dumps(info, indent=2, default=str))
    os.replace(tmp, marker)
    return info


def _release_memory() -> None:
    """Free a finished stage's models now (not at the next garbage collection) and hand the freed
    heap back to the OS (glibc ``malloc_trim``), so stages do not stack up in the process's RSS."""
    import ctypes
    import gc

    gc.collect()
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):  # not glibc
        pass


def _export_merged(trainer: Any, model_dir: Path) -> None:
    """The trained policy as a plain transformers model directory (LoRA merged into the base)."""
    model_dir.mkdir(parents=True, exist_ok=True)
    merged = trainer.policy.merged_model()
    merged.save_pretrained(model_dir)
    trainer.tokenizer.save_pretrained(model_dir)


def _write_report(rows: list[dict], out: Path, meta: dict) -> None:
    from colbench.report import write_report

    columns = ["method", "episodes", "tests_passed_pct", "success_rate_pct", "train_seconds", "note"]
    if any("sampled_episodes" in r for r in rows):
        columns[4:4] = ["sampled_episodes", "sampled_tests_passed_pct", "sampled_success_rate_pct"]
    write_report(rows, out, stem="results", label=("method",), columns=columns,
                 metrics=("tests_passed_pct", "success_rate_pct"),
                 titles={"tests_passed_pct": "% tests passed", "success_rate_pct": "success rate (%)"}, meta=meta,
                 suptitle=f"ColBench backend, held-out split ({meta.get('preset', '')}: {meta.get('policy', '')})")


def run_pipeline(cfg: PipelineConfig, *, preset: str = "custom") -> dict:
    """Run (or resume) every stage; returns the report (with ``cfg.seeds``: one run per seed, then
    the statistics over tasks and seeds)."""
    check_sampled_files(cfg)  # every seed's, before any stage runs
    check_resume(cfg)
    from colbench.provenance import record_invocation

    note = record_invocation(cfg.out_dir, "pipeline")  # which code made the files: invocations.jsonl
    if note:
        _log(note)
    if not cfg.seeds:
        return _run_one_seed(cfg, preset=preset)
    from benchmarks.pipeline_stats import analyse_runs

    out = Path(cfg.out_dir)
    out.mkdir(parents=True, exist_ok=True)
    # the statistics pool every seed of the directory made with this run's settings (an invocation
    # with a subset of --seeds does not shrink them), over every method trained in any of them;
    # config.json says which (written before the seeds run, so an interrupted run records them too)
    seeds = sorted({*cfg.seeds, *_earlier_seeds(cfg)})
    dirs = [Path(c.out_dir) for c in _seed_configs(cfg, seeds)]

    def write_config() -> list[str]:
        methods = [m for m in METHODS if m in cfg.methods or any(m in finished_methods(d) for d in dirs)]
        (out / "config.json").write_text(json.dumps({**dataclasses.asdict(cfg), **_human_version(cfg), "seeds": seeds,
                                                     "methods": methods}, indent=2) + "\n")
        return methods

    write_config()
    runs = {}
    for run_cfg in _seed_configs(cfg):
        _log(f"seed {run_cfg.seed}")
        runs[run_cfg.seed] = _run_one_seed(run_cfg, preset=preset)
    methods = write_config()
    stats = analyse_runs(dirs, out, methods=["zero-shot", *methods],
                         resamples=cfg.bootstrap_resamples, title=f"{preset}: {cfg.policy}")
    return {"rows": [dict(r, seed=s) for s, rep in runs.items() for r in rep["rows"]], "stats": stats,
            "seeds": seeds}


def _earlier_seeds(cfg: PipelineConfig) -> list[int]:
    """The seeds an earlier invocation ran in ``cfg.out_dir`` (its ``config.json``) and this one does
    not, whose directories were made with this run's settings; a seed made with others is logged and
    left out of the statistics."""
    path = Path(cfg.out_dir) / "config.json"
    if not path.exists():
        return []
    keep = []
    try:
        earlier = _read_json_object(path).get("seeds") or []
    except ValueError as e:  # only the pooling is lost: say so, run what was asked
        _log(f"earlier seeds not pooled: {e}")
        return []
    for run_cfg in _seed_configs(cfg, [s for s in earlier if isinstance(s, int) and s not in cfg.seeds]):
        d = Path(run_cfg.out_dir)
        if not (d / "config.json").exists():
            continue
        try:
            old = _read_json_object(d / "config.json")
        except ValueError as e:
            _log(f"{d} left out of the statistics: {e}")
            continue
        diffs = changed_fields(old, dataclasses.asdict(run_cfg), _RESUME_FIELDS) + human_version_changed(old, run_cfg)
        if diffs:
            _log(f"{d} left out of the statistics: made with {diffs[0][0]} = {diffs[0][1]!r}, this run {diffs[0][2]!r}")
        else:
            keep.append(run_cfg.seed)
    return keep


def _seed_configs(cfg: PipelineConfig, seeds: Sequence[int] | None = None) -> list[PipelineConfig]:
    """The run of each seed (``out_dir/seed-<s>``, ``seed=s``) of ``seeds`` (default ``cfg.seeds``;
    without any, ``cfg`` alone)."""
    if seeds is None:
        if not cfg.seeds:
            return [cfg]
        seeds = cfg.seeds
    return [dataclasses.replace(cfg, seeds=(), seed=s, out_dir=str(Path(cfg.out_dir) / f"seed-{s}")) for s in seeds]


def _read_json_object(path: Path) -> dict:
    """A JSON object file the pipeline wrote earlier; a ValueError naming it when it is not one."""
    try:
        data = json.loads(path.read_text())
    except json.JSONDecodeError as e:
        raise ValueError(f"{path}: invalid JSON ({e.msg} at line {e.lineno})") from None
    if not isinstance(data, dict):
        raise ValueError(f"{path}: not a JSON object")
    return data


def _sampled_settings(cfg: PipelineConfig) -> dict:
    return {"samples": cfg.eval_samples, "temperature": cfg.eval_samples_temperature}


def check_sampled_files(cfg: PipelineConfig) -> None:
    """Refuse to resume a sampled evaluation made with other settings: ``eval/<method>.sampled.jsonl``
    is named the same at every temperature, so its sidecar ``eval/<method>.sampled.json`` records the
    temperature and ``k`` it was made with; a mismatch would report one temperature's episodes as
    another's. A ValueError naming the file and field; nothing is changed."""
    if not cfg.eval_samples:
        return
    want = _sampled_settings(cfg)
    for run_cfg in _seed_configs(cfg):
        for meta in sorted((Path(run_cfg.out_dir) / "eval").glob("*.sampled.json")):
            got = _read_json_object(meta)
            for field, value in want.items():
                if got.get(field) != value:
                    name = "--eval-samples" if field == "samples" else "--eval-samples-temperature"
                    raise ValueError(f"{meta}: field {field!r}: {got.get(field)!r}, but this run asks {name} {value:g}; "
                                     f"its episodes would be reported as this run's: use another --out-dir")


#: the settings that shaped what a resumed out-dir already holds (rollouts, evaluation episodes, trained
#: models): changing one of them and resuming would mix two settings' episodes in one report
_RESUME_FIELDS = ("policy", "tasks", "difficulty", "family", "prompt_style", "n_train_tasks", "rollouts_per_task",
                  "max_turns", "max_new_tokens", "rollout_temperature", "eval_temperature", "simulator",
                  "simulator_kwargs", "seed", "semantics")


def _as_json(value: Any) -> Any:
    return json.loads(json.dumps(value))  # tuples as lists, as config.json holds them


def _human_version(cfg: PipelineConfig) -> dict:
    """``{"human_version": v}`` for the offline scripted human (its replies' version), else ``{}``."""
    from colbench_env.simulators.scripted_backend import reply_version

    version = reply_version(cfg.simulator)
    return {} if version is None else {"human_version": version}


def human_version_changed(old: dict, cfg: PipelineConfig) -> list[tuple[str, Any, Any]]:
    """``[("human_version", was, now)]`` when an earlier ``config.json`` (``old``) was made with the
    scripted human and another version of its replies; one without the field predates version 3
    (:data:`~colbench_env.simulators.scripted_backend.UNRECORDED_VERSION`). ``[]`` otherwise
    (another simulator: its settings are compared as fields)."""
    from colbench_env.simulators.scripted_backend import UNRECORDED_VERSION, reply_version

    now = reply_version(cfg.simulator)
    if now is None or reply_version(old.get("simulator", "scripted")) is None:
        return []
    was = old.get("human_version", UNRECORDED_VERSION)
    return [] if was == now else [("human_version", was, now)]


def changed_fields(old: dict, want: dict, fields: Sequence[str]) -> list[tuple[str, Any, Any]]:
    """``(field, old value, wanted value)`` for each of ``fields`` that an earlier ``config.json``
    (``old``) holds with another value than ``want`` (a config's ``asdict``); fields it lacks are
    not compared."""
    return [(f, old[f], _as_json(want[f])) for f in fields if f in old and old[f] != _as_json(want[f])]


def _canonical_overrides(method: str, overrides: Any) -> Any:
    """A method's overrides as PipelineConfig stores them (old keys renamed), for comparison; as
    given where they no longer load."""
    from agents.config import canonical_config_dict

    if method not in METHODS or not isinstance(overrides, dict):
        return overrides
    try:
        return _as_json(canonical_config_dict(_trainer_class(method).config_class, dict(overrides), source=method))
    except ValueError:
        return overrides


def _begun_stages(out: Path) -> list[str]:
    """Methods with files in ``out/stages/<method>/`` (begun by an earlier, maybe interrupted, invocation)."""
    d = out / "stages"
    return sorted(p.name for p in d.iterdir() if p.is_dir() and any(p.iterdir())) if d.is_dir() else []


def check_resume(cfg: PipelineConfig) -> None:
    """Refuse to resume an out-dir whose files were made with other settings. Every stage resumes
    what it finds (``rollouts.jsonl``, ``eval/*.jsonl``, ``models/<method>``), so a run with another
    ``--rollout-temperature`` (say) would train and report on the old temperature's rollouts under the
    new one's name. ``config.json`` of the earlier invocation says what made them: a ValueError naming
    it and the first field that differs; nothing is changed. Free to change on a resume: the methods,
    seeds, held-out task count, episodes in flight, bootstrap resamples and the sampled evaluation
    (checked by :func:`check_sampled_files`); a method's ``trainer_overrides`` only while its model
    is not trained yet (nor its resumable stages begun, ``stages/<method>/``). Fields an older
    config.json lacks are not compared."""
    for run_cfg in _seed_configs(cfg):
        d = Path(run_cfg.out_dir)
        path = d / "config.json"
        trained = finished_methods(d)
        # a method whose resumable stages (SWEET-RL's critic and candidates) were begun: as a trained one
        begun = [m for m in _begun_stages(d) if m not in trained]
        models = trained + begun
        made = [p for p in (d / "rollouts.jsonl", *sorted((d / "eval").glob("*.jsonl"))) if p.exists() and p.stat().st_size]
        if not path.exists() or not (made or models):
            continue
        old = _read_json_object(path)
        want = dataclasses.asdict(run_cfg)
        diffs = changed_fields(old, want, _RESUME_FIELDS) + human_version_changed(old, run_cfg)
        overrides = old.get("trainer_overrides", {})
        diffs += [(f"trainer_overrides.{m}", overrides.get(m), want["trainer_overrides"].get(m))
                  for m in models if "trainer_overrides" in old
                  and _canonical_overrides(m, overrides.get(m, {})) != _as_json(want["trainer_overrides"].get(m, {}))]
        if diffs:
            field_, was, now = diffs[0]
            held = " and ".join(x for x in ("its episodes" if made else "", f"trained {', '.join(trained)}" if trained else "",
                                            f"the begun stages of {', '.join(begun)}" if begun else "") if x)
            raise ValueError(f"{path}: field {field_!r}: {was!r}, but this run asks {now!r} "
                             f"({held} were made with the former): use another --out-dir"
                             + (f" ({len(diffs) - 1} more field(s) differ)" if len(diffs) > 1 else ""))


def _evaluate_sampled(cfg: PipelineConfig, test_tasks: list, model_path: str, out: Path, method: str, row: dict) -> None:
    """``cfg.eval_samples`` sampled episodes per held-out task; their means go into ``row``."""
    from colbench_env.metrics import summarize

    if not cfg.eval_samples:
        return
    path, meta = out / "eval" / f"{method}.sampled.jsonl", out / "eval" / f"{method}.sampled.json"
    if not meta.exists():
        if path.exists() and path.stat().st_size:  # made before the settings were recorded
            _log(f"{path}: sampling settings not recorded; resumed as {_sampled_settings(cfg)}")
        else:
            meta.write_text(json.dumps(_sampled_settings(cfg)) + "\n")
    m = summarize(run_episodes(cfg, test_tasks, model_path, path, repeats=cfg.eval_samples,
                               temperature=cfg.eval_samples_temperature,
                               desc=f"eval {method} x{cfg.eval_samples} sampled"))
    row.update(_sampled_fields(m))


def _run_one_seed(cfg: PipelineConfig, *, preset: str) -> dict:
    from colbench_env.metrics import summarize

    limit_heap_retention()  # what every CPU TrainableLM does; here before collection starts
    out = Path(cfg.out_dir)
    (out / "eval").mkdir(parents=True, exist_ok=True)
    # the report covers the whole directory: methods an earlier invocation trained here are reported
    # (from their files; nothing is trained or run for them), and config.json lists them
    earlier = [m for m in finished_methods(out) if m not in cfg.methods]
    methods = [m for m in METHODS if m in cfg.methods or m in earlier]
    (out / "config.json").write_text(json.dumps({**dataclasses.asdict(cfg), **_human_version(cfg), "methods": methods},
                                                indent=2) + "\n")
    t_start = time.perf_counter()
    base = base_policy(cfg)
    train_tasks, test_tasks = task_split(cfg, "train"), task_split(cfg, "test")
    _log(f"{len(train_tasks)} train tasks x {cfg.rollouts_per_task} rollouts; {len(test_tasks)} test tasks")
    rollouts = run_episodes(cfg, train_tasks, base, out / "rollouts.jsonl", repeats=cfg.rollouts_per_task,
                            temperature=cfg.rollout_temperature, desc="collect")
    collect = summarize(rollouts)
    _log(f"rollouts: {collect}")
    rows, train_info = [], {}
    zs = summarize(run_episodes(cfg, test_tasks, base, out / "eval" / "zero-shot.jsonl", repeats=1,
                                temperature=cfg.eval_temperature, desc="eval zero-shot"))
    rows.append(_row("zero-shot", 0.0, zs))
    _evaluate_sampled(cfg, test_tasks, base, out, "zero-shot", rows[-1])
    distinct = sorted({float(r.get("reward") or 0.0) for r in rollouts})
    no_signal = None if len(distinct) > 1 else f"every rollout has reward {distinct[0] if distinct else 0.0:g} (no learning signal)"
    for method in methods:
        if method in earlier:
            rows.append(_earlier_row(cfg, method, out, test_tasks, train_info))
            continue
        if no_signal:  # no method can learn anything; say so instead of training on noise
            train_info[method] = _finished(out, method, {"method": method, "skipped": no_signal, "train_seconds": 0.0})
            rows.append(_row(method, 0.0, note=f"not trained: {no_signal}"))
            _log(f"{method} not trained: {no_signal}")
            continue
        info = train_method(cfg, method, base, rollouts, out)
        train_info[method] = info
        if "skipped" in info:
            rows.append(_row(method, info["train_seconds"], note=f"not trained: {info['skipped']}"))
            continue
        m = summarize(run_episodes(cfg, test_tasks, str(out / "models" / method), out / "eval" / f"{method}.jsonl",
                                   repeats=1, temperature=cfg.eval_temperature, desc=f"eval {method}"))
        rows.append(_row(method, info["train_seconds"], m))
        _evaluate_sampled(cfg, test_tasks, str(out / "models" / method), out, method, rows[-1])
        _log(f"{method}: {rows[-1]}")
    import platform

    meta = {"preset": preset, "policy": cfg.policy, "collect": collect, "train": train_info,
            "wall_seconds_this_invocation": time.perf_counter() - t_start,
            "machine": f"{platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}",
            "config": dataclasses.asdict(cfg)}
    _write_report(rows, out, meta)
    from benchmarks.pipeline_stats import analyse_runs

    stats = analyse_runs([out], out, methods=["zero-shot", *methods], resamples=cfg.bootstrap_resamples,
                         title=f"{preset}: {cfg.policy}")
    return {"rows": rows, **meta, "stats": stats}


def _earlier_row(cfg: PipelineConfig, method: str, out: Path, test_tasks: list, train_info: dict) -> dict:
    """The report row of a method trained by an earlier invocation in ``out`` and not asked for now:
    its training record and the evaluation episodes already in its files (none are run)."""
    from colbench_env.metrics import summarize

    info = training_outcome(out, method)
    train_info[method] = info
    seconds = info.get("train_seconds", 0.0)
    if "skipped" in info:
        return _row(method, seconds, note=f"not trained: {info['skipped']}")
    records, missing = episodes_in_file(cfg, test_tasks, out / "eval" / f"{method}.jsonl", repeats=1)
    if missing:
        return _row(method, seconds, note=f"evaluation unfinished: {missing} of {len(test_tasks)} episodes missing "
                                          f"(resume with --methods {method})")
    row = _row(method, seconds, summarize(records), note="trained and evaluated by an earlier invocation")
    if cfg.eval_samples and (out / "eval" / f"{method}.sampled.json").exists():  # its settings checked before
        sampled, missing = episodes_in_file(cfg, test_tasks, out / "eval" / f"{method}.sampled.jsonl",
                                            repeats=cfg.eval_samples)
        if not missing:
            row.update(_sampled_fields(summarize(sampled)))
    return row


def _row(method: str, train_seconds: float, summary: dict | None = None, *, note: str | None = None) -> dict:
    """A report row: the evaluation's means (``summary``, :func:`colbench_env.metrics.summarize`'s), or
    none (0 episodes) for a method that was not trained or not evaluated."""
    row = {"method": method, "episodes": 0, "tests_passed_pct": None, "success_rate_pct": None,
           "train_seconds": train_seconds}
    if summary is not None:
        row.update(episodes=summary["count"], tests_passed_pct=summary["tests_passed_pct"],
                   success_rate_pct=100 * summary["success_rate"])
    if note is not None:
        row["note"] = note
    return row


def _sampled_fields(summary: dict) -> dict:
    """A row's columns for the sampled evaluation's means."""
    return {"sampled_episodes": summary["count"], "sampled_tests_passed_pct": summary["tests_passed_pct"],
            "sampled_success_rate_pct": 100 * summary["success_rate"]}


# ------------------------------------------------------------------------------------------ CLI
def add_arguments(p: argparse.ArgumentParser) -> None:
    g = p.add_mutually_exclusive_group()
    g.add_argument("--small", action="store_true", help="CPU preset (default); every option below defaults to the preset's value")
    g.add_argument("--paper", action="store_true", help="the paper's 8B/70B setting (GPUs, vLLM)")
    p.add_argument("--out-dir", default=None, help="where every stage writes and resumes from (preset's default)")
    p.add_argument("--policy", default=None, help="base policy (smollm2, a local path or hub id)")
    p.add_argument("--tasks", default=None,
                   help="'generated' (procedural, see --difficulty/--family), 'default' or a task file")
    p.add_argument("--difficulty", type=int, default=None, help="generated tasks' difficulty, 1..4")
    from colbench_env.generator import FAMILIES

    p.add_argument("--family", default=None, help=f"generated tasks' template family ({', '.join(FAMILIES)}; "
                   "ask: pair it with --simulator-kwargs '{\"volunteer\": false}')")
    p.add_argument("--prompt-style", default=None, choices=PROMPT_STYLES,
                   help="LM agents' prompt: the paper's instructions, or a worked example for very small models")
    p.add_argument("--rollout-temperature", type=float, default=None, help="sampling temperature of the collection")
    p.add_argument("--n-train-tasks", type=int, default=None, help="training tasks")
    p.add_argument("--n-test-tasks", type=int, default=None, help="held-out evaluation tasks")
    p.add_argument("--rollouts-per-task", type=int, default=None, help="k sampled rollouts per training task")
    p.add_argument("--max-turns", type=int, default=None,
                   help="agent turns per episode (the last one is taken as the answer)")
    p.add_argument("--methods", nargs="+", choices=METHODS, default=None, help="trainers to run (default: all)")
    p.add_argument("--simulator", default=None, help="the human: scripted (offline) or openai (a served LLM)")
    p.add_argument("--simulator-base-url", default=None, help="LLM simulator's OpenAI-compatible base URL")
    p.add_argument("--simulator-model", default=None, help="LLM simulator's model (served name)")
    p.add_argument("--simulator-kwargs", default=None,
                   help='JSON object of simulator options, e.g. \'{"volunteer": false}\' for the scripted human')
    p.add_argument("--trainer-overrides", default=None, help="JSON: {method: {field: value}} (merged over the preset's)")
    p.add_argument("--max-new-tokens", type=int, default=None, help="LM agents' tokens per turn")
    p.add_argument("--episodes-in-flight", "--batch-size", type=int, default=None, dest="episodes_in_flight",
                   help="episodes run side by side, one batched agent call per turn (--batch-size: old name)")
    p.add_argument("--seeds", type=int, nargs="+", default=None,
                   help="one whole run per seed (out-dir/seed-<s>/), then bootstrap intervals over tasks and seeds")
    p.add_argument("--eval-samples", type=int, default=None,
                   help="k more sampled episodes per held-out task (besides the evaluation episode)")
    p.add_argument("--eval-samples-temperature", type=float, default=None,
                   help="temperature of those episodes (default 1.0)")
    p.add_argument("--eval-temperature", type=float, default=None,
                   help="temperature of the evaluation episodes (--small: 0, greedy; --paper: 1.0)")
    p.add_argument("--bootstrap-resamples", type=int, default=None, help="bootstrap resamples for the intervals")
    p.add_argument("--semantics", choices=("reference", "python"), default=None,
                   help="backend scoring: reference (default, comparable with published numbers) or python")


def main(args: argparse.Namespace) -> int:
    preset = "paper" if args.paper else "small"
    conf = dict(PRESETS[preset])
    if args.simulator is not None and args.simulator != conf.get("simulator", "scripted"):
        conf.pop("simulator_kwargs", None)  # the preset's options are its own human's (a model name, ...)
    for name in ("out_dir", "policy", "tasks", "difficulty", "family", "prompt_style", "rollout_temperature",
                 "n_train_tasks", "n_test_tasks", "rollouts_per_task", "max_turns", "methods", "simulator",
                 "max_new_tokens", "episodes_in_flight", "semantics", "seeds", "eval_samples", "eval_temperature",
                 "eval_samples_temperature",
                 "bootstrap_resamples"):
        v = getattr(args, name, None)
        if v is not None:
            conf[name] = v
    if args.simulator_base_url or args.simulator_model:
        sim = dict(conf.get("simulator_kwargs", {}))  # the preset's simulator model unless one is given
        sim.update({k: v for k, v in (("base_url", args.simulator_base_url), ("model", args.simulator_model)) if v})
        conf["simulator_kwargs"] = sim
    if args.simulator_kwargs:
        try:
            extra = json.loads(args.simulator_kwargs)
        except json.JSONDecodeError as e:
            print(f"colbench pipeline: error: --simulator-kwargs: invalid JSON ({e.msg} at column {e.colno})",
                  file=sys.stderr)
            return 2
        if not isinstance(extra, dict):
            print("colbench pipeline: error: --simulator-kwargs: must be a JSON object", file=sys.stderr)
            return 2
        conf["simulator_kwargs"] = {**conf.get("simulator_kwargs", {}), **extra}
    if args.trainer_overrides:
        merged = {k: dict(v) for k, v in conf.get("trainer_overrides", {}).items()}
        try:
            given = json.loads(args.trainer_overrides)
        except json.JSONDecodeError as e:
            print(f"colbench pipeline: error: --trainer-overrides: invalid JSON ({e.msg} at column {e.colno})",
                  file=sys.stderr)
            return 2
        if not isinstance(given, dict) or not all(isinstance(v, dict) for v in given.values()):
            print("colbench pipeline: error: --trainer-overrides: must be a JSON object {method: {field: value}}",
                  file=sys.stderr)
            return 2
        try:  # over the preset's, nested configs field by field (an unknown method: PipelineConfig says so)
            for k, v in given.items():
                merged[k] = merge_config_dicts(_trainer_class(k).config_class, merged.get(k, {}), v,
                                               source=f"--trainer-overrides[{k!r}]") if k in METHODS else v
        except ValueError as e:
            print(f"colbench pipeline: error: {e}", file=sys.stderr)
            return 2
        conf["trainer_overrides"] = merged
    try:
        cfg = PipelineConfig(**conf)
        check_sampled_files(cfg)
        check_resume(cfg)
    except ValueError as e:
        print(f"colbench pipeline: error: {e}", file=sys.stderr)
        return 2
    report = run_pipeline(cfg, preset=preset)
    out = Path(cfg.out_dir)
    if not cfg.seeds:
        print((out / "results.md").read_text())
    print((out / "stats.md").read_text())
    print(json.dumps({"rows": report["rows"]}))
    return 0
