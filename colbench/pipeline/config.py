"""The pipeline's settings: :class:`PipelineConfig`, the presets and the trainer config of each method.

The pipeline runs one env (``env``): ``ColBench-Backend-v0`` (reward = fraction of the hidden tests
passed, success = all passed) or ``ColBench-Frontend-v0`` (reward = visual similarity of the final
page's Chromium render to the target's, no success). A continuous reward changes which rollouts the
trainers learn from; :data:`KIND_TRAINER_SETTINGS` holds each kind's rules (under a preset's and the
user's ``trainer_overrides``):

* frontend RFT keeps **each task's best rollouts** (``selection="task_best"``: per task, the rollouts
  with the task's highest similarity, when it is at least 0.01: the best rollout has a page that
  rendered -- a blank page scores about 0.25, an answer without a page 0);
* frontend multi-turn DPO pairs **every two rollouts of a task whose similarities differ by more than
  a gap** (``pairing="all_ordered"``), and SWEET-RL's critic trains on the same pairs
  (``critic_pairs="all_ordered"``): the reference's frontend pairs (``scripts/evaluate_html.py`` of
  facebookresearch/sweet_rl: every pair of a task's rollouts at least 0.1 apart in CLIP similarity,
  the higher one chosen). The gap is :data:`FRONTEND_REWARD_GAP` of the similarity: 0.1 for CLIP (the
  reference's), 0.02 for the offline visual similarity, whose one-fact differences on a mini page are
  0.05-0.47 (identical pages render and score the same, so the gap only drops near-ties);
* SWEET-RL's critic sees the target HTML (``info_fields=["ground_truth"]``, the default, as the
  reference's "In light that the final answer is: ..."); PPO and GRPO take the similarity as the
  reward as it is.

Presets (the backend's; :func:`preset_settings` lays :data:`FRONTEND_PRESETS` over them for the frontend):

* ``--small``: the embedded SmolLM2-135M-Instruct as policy (and critic), the offline scripted
  simulator, generated tasks of the ``"rate"`` family at difficulty 1 (the argument times one hidden
  number: the one kind of task this 135M policy solves sometimes -- about a third zero-shot with the
  ``"compact"`` prompt, so a change is measurable), short episodes (``max_turns`` 3, 96 tokens),
  rollouts sampled at temperature 0.1, LoRA on CPU. Sized for 2 CPU cores in <= 45 minutes.
* ``--paper``: the reference implementation's setting, for GPUs, for every method (every value and
  its source file and line in :data:`PAPER_SETTINGS`, rendered in docs/guides/paper.md by
  :func:`paper_settings_table`): Llama-3.1-8B-Instruct policy and critic, both fully fine-tuned (lr
  2e-7, bf16, AdamW betas (0.9, 0.95), cosine to 0.1x with 3 % warm-up, 8 examples per step,
  ``max_length`` 16384), RFT, multi-turn DPO, PPO and GRPO training their policy the same way
  (the reference has no command for them), Llama-3.1-70B simulator behind an OpenAI-compatible
  server (``--simulator-base-url``), 5000 train tasks x k = 3 rollouts (15k trajectories; the
  embedded tasks, or an official file via ``--tasks``), 10 turns of 1024 tokens, N = 16 candidates at
  temperature 1.0, evaluation sampled at temperature 1.0 on 1000 tasks. Run the training stages
  under ``accelerate launch`` with ``configs/accelerate/deepspeed_zero3.yaml``; the memory each stage
  needs: :mod:`colbench.pipeline.memory`.
* ``--paper --env ColBench-Frontend-v0``: the reference README's frontend setting
  (:data:`FRONTEND_PAPER_SETTINGS`): a Qwen2-VL-72B-Instruct human, CLIP similarity, 1000 train
  tasks x 6 rollouts, 500 held-out tasks, the backend's training.
* ``--small --env ColBench-Frontend-v0``: the same model, human and trainers on generated
  frontend tasks of the ``"mini"`` family at difficulty 1 (a navigation bar, a welcome section and a
  footer; one of headline, accent colour and welcome background hidden; ~150-token pages), the
  compact prompt (a worked dialogue whose answer is a mini page), 2 turns (a question, then the page)
  of 176 tokens, 8 training tasks x 3 rollouts, one epoch of every trainer: one seed in <= 1 h on
  2 CPU cores (measured: studies/frontend_small/README.md). The study there ran heavier settings
  (``studies/frontend_small/settings.py``).
"""
from __future__ import annotations

import copy
import json
from dataclasses import dataclass, field
from typing import Any

from colbench.agents.config import merge_config_dicts
from colbench.agents.registry import TRAINERS, config_class
from colbench_env.prompting import PROMPT_STYLES

__all__ = ["ENVS", "METHODS", "PipelineConfig", "PRESETS", "FRONTEND_PRESETS", "FRONTEND_REWARD_GAP",
           "KIND_TRAINER_SETTINGS", "PAPER_SETTINGS", "FRONTEND_PAPER_SETTINGS", "PAPER_TRAINING_SETTINGS",
           "PAPER_REFERENCE_COMMITS", "COLBENCH_CHOICE", "kind_trainer_settings", "paper_settings",
           "paper_settings_table", "preset_settings", "resolve_setting", "shared_preference_settings", "trainer_config"]

#: the training methods, in report order (:data:`colbench.agents.registry.TRAINERS`)
METHODS = tuple(TRAINERS)
#: the envs the pipeline runs, and their task kind
ENVS = {"ColBench-Backend-v0": "backend", "ColBench-Frontend-v0": "frontend"}
#: frontend: the reward gap below which two rollouts of a task are not paired, by similarity metric
FRONTEND_REWARD_GAP = {"clip": 0.1, "visual": 0.02}


@dataclass
class PipelineConfig:
    """One pipeline run.

    Attributes:
        out_dir: where every stage writes (and resumes from).
        env: the env of every episode (a key of :data:`ENVS`): ``"ColBench-Backend-v0"`` or
            ``"ColBench-Frontend-v0"`` (then ``tasks="generated"`` means generated frontend tasks,
            ``family`` one of :data:`colbench_env.generator.frontend.FRONTEND_FAMILIES`).
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
        episodes_in_flight: episodes in flight, each advancing on its own (a local policy batches
            their turns; a served one gets one request per episode in flight).
        simulator / simulator_kwargs: the human (``"scripted"`` offline; ``"openai"`` for vLLM).
        policy_base_url: ``None``: the policy's turns are generated here (``transformers.generate``).
            Else the OpenAI-compatible server(s) that generate them in collection and every
            evaluation (several: comma-separated, each request to the least busy one), asked for each
            model by the name the server knows it under (:func:`colbench.agents.served.served_model_name`):
            the base policy by ``policy`` (a hub id, or the path ``smollm2`` resolves to), a trained
            one by its path relative to the top-level ``out_dir``, ``models/<method>`` (with
            ``seeds``: ``seed-<s>/models/<method>``); SWEET-RL's candidates come from them too, asked
            for the base policy (:attr:`colbench.agents.sweet_rl_config.SweetRLConfig.candidate_base_url`).
            Training runs here either way. A resume may change the URL but not switch between a
            served and a local policy.
        policy_lora: after a method trains, load its LoRA adapter (``ckpt/<method>/policy``) into
            the server(s) under that name (vLLM ``--enable-lora``, :func:`colbench.agents.served.load_lora_adapter`);
            ``False``: the server finds ``models/<method>`` itself (``transformers serve`` started
            in ``out_dir``; vLLM serving the merged model under that name).
        methods: which trainers to run.
        trainer_overrides: per-method config fields (e.g. ``{"sweet-rl": {"n_candidates": 4,
            "critic": {"learning_rate": 1e-4}}}``), checked by ``config_from_dict``.
        seed: seeds collection and training (and the sampling of every episode).
        seeds: several seeds: one whole run (collection, training, evaluation) per seed in
            ``out_dir/seed-<s>/``, then ``stats.*`` in ``out_dir`` over tasks and seeds
            (:mod:`colbench.pipeline.analysis`); empty: one run with ``seed`` in ``out_dir``.
        eval_temperature: temperature of the evaluation episodes (``eval/<method>.jsonl``, one per
            held-out task): 0, greedy (``--small``); the reference's
            ``scripts/simulate_interactions.py`` samples at 1.0 (``--paper``).
        eval_samples: ``k`` more episodes per held-out task at ``eval_samples_temperature`` for
            every policy (``eval/<method>.sampled.jsonl``); 0: none.
        eval_samples_temperature: sampling temperature of those ``k`` episodes (> 0).
        bootstrap_resamples: bootstrap replicates of the intervals in ``stats.*``.
        semantics: backend scoring semantics (``"reference"``: comparable with published numbers;
            ``"python"``: plain Python modules), see :mod:`colbench_env.evaluation.backend`;
            frontend runs take only ``"reference"`` (unused: a page is scored by similarity).
        similarity: frontend reward, the similarity of the two renders (``"visual"``, offline, or
            ``"clip"``, the paper's CLIP ViT-B/32 cosine; :mod:`colbench_env.evaluation.similarity`);
            unused by backend runs.
        matched_budget: train every method at one budget (:mod:`colbench.pipeline.budget`): the
            preference methods (multi-turn DPO, SWEET-RL's policy DPO) with SWEET-RL's policy-DPO
            settings (learning rate, beta, NLL coefficient, pairs per micro-batch, accumulation,
            epochs) on the same number of pairs (a seeded subsample to the smallest method's count),
            so for the same optimiser steps; RFT, PPO and GRPO for that many optimiser steps. The
            plan is written to each seed's ``budget_plan.json``; every report prints the budgets
            trained with, with or without it.
        strict_tokens: refuse, before any method trains (one line, exit 2), when some agent turn
            of the rollouts would be trained on a re-tokenization of its text that differs from,
            or cannot be checked against, the token ids its policy recorded (``colbench train
            --strict-tokens``; :class:`colbench.agents.tokenize.TokenReport`). Either way each
            method's training logs how many turns train on recorded ids and how many re-tokenized
            ones differ (its metrics' ``tokens``).
    """

    out_dir: str = "runs/pipeline_small"
    env: str = "ColBench-Backend-v0"
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
    # 0/16 held-out tasks vs 5/16 greedy and 7/16 at 0.1 (studies/sampling_anomaly/)
    rollout_temperature: float = 0.1
    eval_temperature: float = 0.0
    episodes_in_flight: int = 8
    simulator: str = "scripted"
    simulator_kwargs: dict = field(default_factory=dict)
    policy_base_url: str | None = None
    policy_lora: bool = False
    methods: tuple = METHODS
    trainer_overrides: dict = field(default_factory=dict)
    seed: int = 0
    seeds: tuple = ()
    eval_samples: int = 0
    eval_samples_temperature: float = 1.0
    bootstrap_resamples: int = 10000
    semantics: str = "reference"
    similarity: str = "visual"
    matched_budget: bool = False
    strict_tokens: bool = False

    @property
    def kind(self) -> str:
        """``"backend"`` or ``"frontend"``: the task kind of :attr:`env`."""
        return ENVS[self.env]

    def __post_init__(self) -> None:
        if self.env not in ENVS:
            raise ValueError(f"env must be one of {sorted(ENVS)}, got {self.env!r}")
        if self.semantics not in ("reference", "python"):
            raise ValueError(f"semantics must be 'reference' or 'python', got {self.semantics!r}")
        if self.kind != "backend" and self.semantics != "reference":
            raise ValueError(f"semantics {self.semantics!r}: only backend runs have scoring semantics "
                             f"({self.env} scores a page by similarity)")
        if not isinstance(self.matched_budget, bool):
            raise ValueError(f"matched_budget must be true or false, got {self.matched_budget!r}")
        if not isinstance(self.strict_tokens, bool):
            raise ValueError(f"strict_tokens must be true or false, got {self.strict_tokens!r}")
        if self.similarity not in FRONTEND_REWARD_GAP:
            raise ValueError(f"similarity must be one of {sorted(FRONTEND_REWARD_GAP)}, got {self.similarity!r}")
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

        generated_spec(1, self.difficulty, self.family, kind=self.kind)  # the generator's checks of both
        if self.prompt_style not in PROMPT_STYLES:
            raise ValueError(f"prompt_style must be one of {PROMPT_STYLES}, got {self.prompt_style!r}")
        self.methods = tuple(self.methods)
        from colbench.agents.config import canonical_config_dict, config_from_dict

        checked = {}
        for method, overrides in self.trainer_overrides.items():  # the same validation as `colbench train`
            if method not in METHODS:
                raise ValueError(f"trainer_overrides: unknown method {method!r}; choose from {METHODS}")
            cls, source = config_class(method), f"trainer_overrides[{method!r}]"
            config_from_dict(cls, dict(overrides), source=source)
            checked[method] = canonical_config_dict(cls, dict(overrides), source=source)  # nested objects as dicts
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
            check_simulator_kwargs(self.simulator, self.kind, self.simulator_kwargs)
        except ValueError as e:
            raise ValueError(f"simulator_kwargs: {e}") from None
        self._check_policy_server()

    def _check_policy_server(self) -> None:
        from colbench_env.lm.openai_compat import split_base_urls

        if self.policy_base_url is not None:
            try:  # one comma-separated string, as config.json keeps it
                self.policy_base_url = ",".join(split_base_urls(self.policy_base_url))
            except ValueError as e:
                raise ValueError(f"policy_base_url: {e}") from None
        if not isinstance(self.policy_lora, bool):
            raise ValueError(f"policy_lora must be true or false, got {self.policy_lora!r}")
        if self.policy_lora and not self.policy_base_url:
            raise ValueError("policy_lora: the adapters are loaded into the policy's server(s): set policy_base_url")
        for method in self.methods if self.policy_lora else ():
            if trainer_config(self, method, self.policy).policy.full_finetune:
                raise ValueError(f"policy_lora: {method} fully fine-tunes its policy "
                                 f"(trainer_overrides[{method!r}].policy.full_finetune): it leaves no LoRA adapter "
                                 f"to load; serve its merged model (models/{method}) instead")


# Gradient checkpointing bounds the activations: without it one PPO minibatch (4 x ~600 tokens)
# held > 3 GB of SmolLM2 activations (measured: studies/pipeline_small/README.md).
_SMALL_TRAINING = {"policy": {"learning_rate": 1e-4}, "max_length": 2048, "gradient_checkpointing": True}
#: What every ``--paper`` policy update trains with: SWEET-RL's policy DPO run (facebookresearch/sweet_rl
#: README.md, the second ``train_dpo``: a full fine-tune in bf16 at lr 2e-7, 8 examples per optimiser
#: step as ``--train_batch_size 8 --micro_train_batch_size 1``, ``--max_len 16384``, gradient
#: checkpointing) and the OpenRLHF fork's ``train_dpo.py`` optimiser (AdamW betas (0.9, 0.95), no weight
#: decay, clipping at 1.0, cosine to 0.1x after 3 % warm-up). Methods the reference has no command for
#: (RFT, multi-turn DPO, PPO, GRPO) take it as it is, so that the methods differ in their objective only.
_PAPER_POLICY_TRAINING = {
    "policy": {"full_finetune": True, "learning_rate": 2e-7}, "max_length": 16384, "gradient_accumulation_steps": 8,
    "adam_betas": (0.9, 0.95), "weight_decay": 0.0, "max_grad_norm": 1.0, "lr_scheduler": "cosine",
    "warmup_ratio": 0.03, "min_lr_ratio": 0.1, "mixed_precision": "bf16", "gradient_checkpointing": True}


def _paper_training(**fields) -> dict:
    """A method's ``--paper`` overrides: :data:`_PAPER_POLICY_TRAINING` (a copy) with ``fields``."""
    return {**copy.deepcopy(_PAPER_POLICY_TRAINING), **fields}


# --small: sized to the 45-minute budget on 2 cores (measured: PPO's second update epoch cost 3.7 min
# and SWEET-RL's 4 pairs per state 13 min of DPO): one PPO update epoch, 2 pairs per SWEET-RL state.
PRESETS: dict[str, dict] = {
    "small": {"trainer_overrides": {
        "rft": dict(_SMALL_TRAINING, epochs=2), "mt-dpo": dict(_SMALL_TRAINING, epochs=2),
        "ppo": dict(_SMALL_TRAINING, update_epochs=1),  # PPO's and GRPO's passes are update_epochs
        "grpo": dict(_SMALL_TRAINING, update_epochs=1),
        "sweet-rl": dict(_SMALL_TRAINING, epochs=2, n_candidates=4, pairs_per_state=2, candidate_temperature=0.7,
                         critic={"learning_rate": 1e-4, "epochs": 2})}},
    # The reference's settings (facebookresearch/sweet_rl README + scripts, and the OpenRLHF fork's
    # train_dpo.py) for every method; each value is pinned, with its source, by PAPER_SETTINGS below.
    "paper": {
        "out_dir": "runs/pipeline_paper", "policy": "meta-llama/Llama-3.1-8B-Instruct",
        "tasks": "default", "family": "all", "prompt_style": "paper", "n_train_tasks": 5000, "n_test_tasks": 1000,
        "rollouts_per_task": 3, "max_turns": 10, "max_new_tokens": 1024, "rollout_temperature": 1.0,
        "eval_temperature": 1.0, "episodes_in_flight": 64, "simulator": "openai",
        "simulator_kwargs": {"model": "meta-llama/Llama-3.1-70B-Instruct", "temperature": 0.0, "max_new_tokens": 4096},
        "trainer_overrides": {
            # RFT and multi-turn DPO: the reference has no command for them, so SWEET-RL's policy DPO run
            "rft": _paper_training(sequences_per_batch=1, epochs=1),
            # rows_per_forward=1: a trajectory's turns one sequence per forward (the same gradients in
            # two passes; colbench.pipeline.memory: one forward of all of a pair's 20 does not fit 80 GB)
            "mt-dpo": _paper_training(pairs_per_batch=1, epochs=1, beta=0.1, nll_coef=0.01, rows_per_forward=1),
            # PPO and GRPO: no reference; stated choices (PAPER_CHOICES): the same policy training,
            # one pass, the algorithms' own constants at their defaults
            "ppo": _paper_training(trajectories_per_batch=1, update_epochs=1, rows_per_forward=1),
            "grpo": _paper_training(sequences_per_batch=1, update_epochs=1),
            "sweet-rl": _paper_training(
                # critic (README: the first train_dpo run, --mean_log_prob)
                critic={"model_name_or_path": "meta-llama/Llama-3.1-8B-Instruct", "full_finetune": True,
                        "learning_rate": 2e-7, "epochs": 4, "pairs_per_batch": 1, "max_length": 8192,
                        "rows_per_forward": 1},
                beta=0.1,
                # step-level pairs (sample_best_of_n.py, generate_random_pairs_from_ranks.py)
                n_candidates=16, candidate_temperature=1.0, candidate_max_new_tokens=1024,
                state_selection="first_trajectories", state_fraction=0.1, pairs_per_state=4,
                # policy DPO (README: the second train_dpo run)
                epochs=1, pairs_per_batch=1, dpo_beta=0.1, nll_coef=0.01, rows_per_forward=1)},
    },
}


def _frontend_trainer_settings(similarity: str) -> dict:
    gap = FRONTEND_REWARD_GAP[similarity]
    return {"rft": {"selection": "task_best", "success_threshold": 0.01},
            "mt-dpo": {"pairing": "all_ordered", "success_threshold": 0.0, "min_reward_gap": gap},
            "sweet-rl": {"critic_pairs": "all_ordered", "min_reward_gap": gap, "info_fields": ["ground_truth"]}}


#: Each task kind's trainer settings, by similarity metric for the frontend (see the module
#: docstring); :func:`trainer_config` lays a preset's and the user's ``trainer_overrides`` over them.
KIND_TRAINER_SETTINGS: dict[str, dict] = {
    "backend": {},
    **{f"frontend/{m}": _frontend_trainer_settings(m) for m in FRONTEND_REWARD_GAP},
}

#: What ``--small`` changes for ``ColBench-Frontend-v0`` (laid over ``PRESETS["small"]``, trainer
#: overrides field by field): mini pages at difficulty 1, 2 turns (ask, then write the page) of 176
#: tokens (a mini page is ~150 SmolLM2 tokens), 8 training tasks x 3 rollouts (the reference's k),
#: one epoch of every trainer (RFT, multi-turn DPO, SWEET-RL's critic and policy), 16 episodes in
#: flight. Sized to one seed in <= 1 h on 2 cores: the 3-seed study (studies/frontend_small/) ran
#: heavier settings (its settings.py; ~95 min a seed at 16 held-out tasks, 70 of them training).
FRONTEND_PRESETS: dict[str, dict] = {
    "small": {"out_dir": "runs/pipeline_small_frontend", "env": "ColBench-Frontend-v0", "family": "mini",
              "difficulty": 1, "max_turns": 2, "max_new_tokens": 176, "n_train_tasks": 8, "rollouts_per_task": 3,
              "episodes_in_flight": 16,
              "trainer_overrides": {"rft": {"epochs": 1}, "mt-dpo": {"epochs": 1},
                                    "sweet-rl": {"epochs": 1, "critic": {"epochs": 1}}}},
    # the reference README's frontend commands (every value and its source: FRONTEND_PAPER_SETTINGS);
    # the training is the backend's --paper (the README's SWEET-RL command is the backend's)
    "paper": {"out_dir": "runs/pipeline_paper_frontend", "env": "ColBench-Frontend-v0", "similarity": "clip",
              "n_train_tasks": 1000, "rollouts_per_task": 6, "n_test_tasks": 500,
              "simulator_kwargs": {"model": "Qwen/Qwen2-VL-72B-Instruct", "temperature": 0.0, "max_new_tokens": 4096}},
}


def preset_settings(preset: str, env: str = "ColBench-Backend-v0") -> dict:
    """The :class:`PipelineConfig` fields of ``preset`` (a key of :data:`PRESETS`) for ``env``: the
    preset itself for the backend, with :data:`FRONTEND_PRESETS` laid over it for the frontend.
    ValueError for a preset the env has none of."""
    if preset not in PRESETS:
        raise ValueError(f"preset must be one of {sorted(PRESETS)}, got {preset!r}")
    if env not in ENVS:
        raise ValueError(f"env must be one of {sorted(ENVS)}, got {env!r}")
    conf = {**PRESETS[preset], "env": env}
    if ENVS[env] == "backend":
        return conf
    if preset not in FRONTEND_PRESETS:
        raise ValueError(f"the {preset} preset has no {env} setting")
    over = FRONTEND_PRESETS[preset]
    overrides = {k: dict(v) for k, v in conf.get("trainer_overrides", {}).items()}
    for method, fields in over.get("trainer_overrides", {}).items():
        overrides[method] = merge_config_dicts(config_class(method), overrides.get(method, {}), fields,
                                               source=f"FRONTEND_PRESETS[{preset!r}]")
    return {**conf, **over, "trainer_overrides": overrides}


_SR = "facebookresearch/sweet_rl"
_ORLHF = "YifeiZhou02/collab_openrlhf"
#: the commits of the two reference repositories that the line numbers of :data:`PAPER_SETTINGS` cite
PAPER_REFERENCE_COMMITS = {_SR: "38daf2a", _ORLHF: "87259d4"}
#: the source of a setting the reference does not give (PPO and GRPO have no ColBench run there)
COLBENCH_CHOICE = "colbench's choice"


def _src(repo: str, path: str, line: int, text: str, note: str = "") -> str:
    """A reference citation: ``repo path:line (text)``; ``text`` is on that line of the file
    (``tests/test_paper_settings.py`` checks it against the mirrored repositories)."""
    return f"{repo} {path}:{line} ({text})" + (f"; {note}" if note else "")


_NO_CMD = "no command for this method in the reference: SWEET-RL's policy DPO value"
_ALL = "rft|mt-dpo|ppo|grpo|sweet-rl"

#: The ``--paper`` training settings of every method (backend and frontend alike): SWEET-RL's two
#: ``train_dpo`` runs, and for the methods the reference runs no command for, SWEET-RL's policy-DPO
#: values (RFT, multi-turn DPO) or a stated choice (PPO, GRPO).
PAPER_TRAINING_SETTINGS: list[tuple[str, Any, str, str]] = [
    # SWEET-RL's critic: the first train_dpo run of the README
    ("critic model", "meta-llama/Llama-3.1-8B-Instruct", _src(_SR, "README.md", 163, "--pretrain /PATH/TO/8BLLAMA"),
     "sweet-rl.critic.model_name_or_path"),
    ("critic: full fine-tune (no LoRA)", True, _src(_SR, "README.md", 156, "deepspeed --module openrlhf.cli.train_dpo",
                                                      "no LoRA flag"), "sweet-rl.critic.full_finetune"),
    ("critic learning rate", 2e-7, _src(_SR, "README.md", 168, "--learning_rate 2e-7"), "sweet-rl.critic.learning_rate"),
    ("critic epochs", 4, _src(_SR, "README.md", 165, "--max_epochs 4"), "sweet-rl.critic.epochs"),
    ("critic pairs per micro-batch", 1, _src(_SR, "README.md", 162, "--micro_train_batch_size 1"),
     "sweet-rl.critic.pairs_per_batch"),
    ("critic pairs per optimiser step", 8, _src(_SR, "README.md", 161, "--train_batch_size 8"),
     "sweet-rl.critic.pairs_per_batch*sweet-rl.gradient_accumulation_steps"),
    ("critic max length", 8192, _src(_SR, "README.md", 166, "--max_len 8192"), "sweet-rl.critic.max_length"),
    ("critic beta", 0.1, _src(_SR, "README.md", 169, "--beta 0.1"), "sweet-rl.beta"),
    ("critic score: mean token log-prob ratio", "token_mean", _src(_SR, "README.md", 178, "--mean_log_prob"),
     "sweet-rl.critic_aggregation"),
    # SWEET-RL's step-level pairs
    ("candidates per state", 16, _src(_SR, "scripts/sample_best_of_n.py", 28, "best_of_n=16"), "sweet-rl.n_candidates"),
    ("candidate temperature", 1.0, _src(_SR, "scripts/sample_best_of_n.py", 27, "temperature=1.0"),
     "sweet-rl.candidate_temperature"),
    ("candidate tokens", 1024, _src(_SR, "scripts/sample_best_of_n.py", 74, "max_tokens=1024"),
     "sweet-rl.candidate_max_new_tokens"),
    ("states: all turns of the first trajectories", "first_trajectories",
     _src(_SR, "scripts/sample_best_of_n.py", 39, "data[: int(len(data) * data_fraction)]"), "sweet-rl.state_selection"),
    ("data fraction for states", 0.1, _src(_SR, "README.md", 183, "--data_fraction 0.1"), "sweet-rl.state_fraction"),
    ("pairs per state", 4, _src(_SR, "README.md", 191, "--num_pairs 4"), "sweet-rl.pairs_per_state"),
    # the policy: SWEET-RL's second train_dpo run; every other method trains its policy the same way
    ("policy: full fine-tune (no LoRA)", True, _src(_SR, "README.md", 196, "deepspeed --module openrlhf.cli.train_dpo",
                                                      "no LoRA flag; " + _NO_CMD), f"{_ALL}.policy.full_finetune"),
    ("policy learning rate", 2e-7, _src(_SR, "README.md", 208, "--learning_rate 2e-7", _NO_CMD),
     f"{_ALL}.policy.learning_rate"),
    ("policy epochs", 1, _src(_SR, "README.md", 205, "--max_epochs 1", _NO_CMD), "rft|mt-dpo|sweet-rl.epochs"),
    ("PPO / GRPO passes over the rollouts", 1, f"{COLBENCH_CHOICE}: one pass, as every policy run of the reference "
     "(--max_epochs 1)", "ppo|grpo.update_epochs"),
    ("policy examples per micro-batch (pairs, sequences, trajectories)", 1,
     _src(_SR, "README.md", 202, "--micro_train_batch_size 1", _NO_CMD),
     "mt-dpo.pairs_per_batch|sweet-rl.pairs_per_batch|rft.sequences_per_batch|grpo.sequences_per_batch"
     "|ppo.trajectories_per_batch"),
    ("policy examples per optimiser step (one process)", 8, _src(_SR, "README.md", 201, "--train_batch_size 8", _NO_CMD),
     f"{_ALL}.gradient_accumulation_steps"),
    ("policy DPO beta", 0.1, _src(_SR, "README.md", 209, "--beta 0.1", _NO_CMD), "mt-dpo.beta|sweet-rl.dpo_beta"),
    ("policy DPO NLL coefficient", 0.01, _src(_SR, "README.md", 215, "--nll_loss_coef 0.01", _NO_CMD),
     "mt-dpo|sweet-rl.nll_coef"),
    ("policy max length (tokens)", 16384, _src(_SR, "README.md", 206, "--max_len 16384", _NO_CMD),
     f"{_ALL}.max_length"),
    ("precision", "bf16", _src(_SR, "README.md", 204, "--bf16", _NO_CMD), f"{_ALL}.mixed_precision"),
    ("gradient checkpointing", True, _src(_SR, "README.md", 214, "--gradient_checkpointing", _NO_CMD),
     f"{_ALL}.gradient_checkpointing"),
    ("AdamW betas", (0.9, 0.95), _src(_ORLHF, "openrlhf/cli/train_dpo.py", 200, "default=(0.9, 0.95)"),
     f"{_ALL}.adam_betas"),
    ("weight decay", 0.0, _src(_ORLHF, "openrlhf/cli/train_dpo.py", 192, '"--l2", type=float, default=0.0'),
     f"{_ALL}.weight_decay"),
    ("gradient clipping norm", 1.0, _src(_ORLHF, "openrlhf/cli/train_dpo.py", 173, '"--max_norm", type=float, default=1.0'),
     f"{_ALL}.max_grad_norm"),
    ("learning-rate schedule", "cosine", _src(_ORLHF, "openrlhf/cli/train_dpo.py", 116, "cosine_with_min_lr"),
     f"{_ALL}.lr_scheduler"),
    ("warm-up fraction", 0.03, _src(_ORLHF, "openrlhf/cli/train_dpo.py", 182, '"--lr_warmup_ratio", type=float, default=0.03'),
     f"{_ALL}.warmup_ratio"),
    ("final / initial learning rate", 0.1, _src(_ORLHF, "openrlhf/cli/train_dpo.py", 120, "args.learning_rate * 0.1"),
     f"{_ALL}.min_lr_ratio"),
    # PPO and GRPO: no ColBench run in the reference; the algorithms' constants at colbench's defaults
    ("PPO clip range", 0.2, f"{COLBENCH_CHOICE}: PPOConfig's default (CleanRL's)", "ppo.clip_coef"),
    ("PPO KL-to-reference coefficient (k3)", 0.05, f"{COLBENCH_CHOICE}: PPOConfig's default", "ppo.kl_coef"),
    ("PPO discount per turn / GAE lambda", (1.0, 0.95), f"{COLBENCH_CHOICE}: PPOConfig's defaults (one terminal reward)",
     "ppo.gamma,ppo.gae_lambda"),
    ("PPO value head learning rate", 1e-4, f"{COLBENCH_CHOICE}: PPOConfig's default (a linear head on the policy)",
     "ppo.value_learning_rate"),
    ("sequences per forward pass (memory: the same gradients, one extra forward)", 1,
     f"{COLBENCH_CHOICE}: a trajectory's turns are separate sequences; one forward of a pair's 20 does not fit "
     "80 GB (docs/guides/paper.md, Memory plan)",
     "mt-dpo.rows_per_forward|ppo.rows_per_forward|sweet-rl.rows_per_forward|sweet-rl.critic.rows_per_forward"),
    ("GRPO KL-to-reference coefficient (k3)", 0.04, f"{COLBENCH_CHOICE}: GRPOConfig's default (DeepSeekMath's)",
     "grpo.beta"),
    ("GRPO clip range / reward scaling", (0.2, "group"), f"{COLBENCH_CHOICE}: GRPOConfig's defaults",
     "grpo.clip_coef,grpo.scale_rewards"),
    ("PPO / GRPO log-probs at the collection temperature", 1.0, f"{COLBENCH_CHOICE}: the rollouts' sampling "
     "distribution (pipeline.rollout_temperature)", "ppo|grpo.rollout_temperature"),
]

#: How the reference's agent plays an episode, backend and frontend alike.
_EPISODE_SETTINGS: list[tuple[str, Any, str, str]] = [
    ("rollout sampling temperature", 1.0, _src(_SR, "scripts/simulate_interactions.py", 68, "temperature=1.0"),
     "pipeline.rollout_temperature"),
    ("agent turns per episode", 10, _src(_SR, "scripts/simulate_interactions.py", 63, "max_steps=10"),
     "pipeline.max_turns"),
    ("tokens per agent turn", 1024, _src(_SR, "sweet_rl/models/vllm_agent.py", 46, "max_tokens=1024"),
     "pipeline.max_new_tokens"),
    ("evaluation sampling temperature", 1.0, _src(_SR, "scripts/simulate_interactions.py", 68, "temperature=1.0"),
     "pipeline.eval_temperature"),
]

#: ``--paper`` (backend) against the reference: ``(setting, reference value, source, colbench key)``.
#: ``source`` is ``repo path:line (text on that line)`` at :data:`PAPER_REFERENCE_COMMITS`, or
#: :data:`COLBENCH_CHOICE` and why. A key is ``pipeline.<PipelineConfig field>``,
#: ``<method>.<trainer config field>`` (the resolved config, as :func:`trainer_config` builds it),
#: ``module:NAME`` (a constant of the library), ``a|b.field`` (the field of both methods),
#: ``k1|k2`` (keys that hold one value), ``k1,k2`` (a tuple of keys) or ``a*b`` (a product); :func:`resolve_setting` reads it. ``tests/test_pipeline.py``
#: checks every row against the resolved preset and the cited lines, and that docs/guides/paper.md
#: holds :func:`paper_settings_table`'s output.
PAPER_SETTINGS: list[tuple[str, Any, str, str]] = [
    ("policy model", "meta-llama/Llama-3.1-8B-Instruct",
     _src(_SR, "README.md", 203, "--pretrain /PATH/TO/Meta-Llama-3.1-8B-Instruct"), "pipeline.policy"),
    ("human simulator", "meta-llama/Llama-3.1-70B-Instruct",
     _src(_SR, "README.md", 68, "--env_model /path/to/llama3.1-70b-instruct"), "pipeline.simulator_kwargs.model"),
    ("human simulator temperature", 0, _src(_SR, "sweet_rl/environments/human_interaction_env.py", 79, "temperature=0"),
     "pipeline.simulator_kwargs.temperature"),
    ("human simulator tokens per reply", 4096,
     _src(_SR, "sweet_rl/environments/human_interaction_env.py", 78, "max_tokens=4096"),
     "pipeline.simulator_kwargs.max_new_tokens"),
    ("human reply cut to (characters)", 400,
     _src(_SR, "sweet_rl/environments/human_interaction_env.py", 10, "HUMAN_RESPONSE_CHARACTER_LIMIT = 400"),
     "colbench_env.simulators:BACKEND_REPLY_LIMIT"),
    ("offline trajectories per task (k)", 3, _src(_SR, "README.md", 154, "--k 3"), "pipeline.rollouts_per_task"),
    ("offline trajectories (15k = 5000 tasks x 3)", 15000, _src(_SR, "README.md", 136, "colbench_code_offline_15k_llama8b"),
     "pipeline.n_train_tasks*pipeline.rollouts_per_task"),
    *_EPISODE_SETTINGS,
    ("evaluation tasks", 1000, _src(_SR, "README.md", 65, "--num_tasks 1000"), "pipeline.n_test_tasks"),
    ("backend scoring semantics", "reference", _src(_SR, "sweet_rl/utils/code_utils.py", 34, "exec(function_definition)"),
     "pipeline.semantics"),
    ("multi-turn DPO pairs: the best successful rollout vs each lower one", "best_vs_lower",
     _src(_SR, "scripts/evaluate_code.py", 66, "np.max(raw_correctness_results[:, i]) >= 1"),
     "mt-dpo.pairing|sweet-rl.critic_pairs"),
    *PAPER_TRAINING_SETTINGS,
]

#: ``--paper --env ColBench-Frontend-v0`` against the reference (the README's frontend commands; its
#: SWEET-RL command is the backend's, so the training rows are :data:`PAPER_TRAINING_SETTINGS`).
FRONTEND_PAPER_SETTINGS: list[tuple[str, Any, str, str]] = [
    ("policy model", "meta-llama/Llama-3.1-8B-Instruct",
     _src(_SR, "README.md", 117, "--agent_model /path/to/Llama-3.1-8B-Instruct"), "pipeline.policy"),
    ("human simulator (a vision-language model)", "Qwen/Qwen2-VL-72B-Instruct",
     _src(_SR, "README.md", 123, "--env_model /path/to/Qwen2-VL-72B-Instruct"), "pipeline.simulator_kwargs.model"),
    ("human simulator temperature", 0,
     _src(_SR, "sweet_rl/environments/human_design_interaction_env.py", 141, "temperature=0"),
     "pipeline.simulator_kwargs.temperature"),
    ("human simulator tokens per reply", 4096,
     _src(_SR, "sweet_rl/environments/human_design_interaction_env.py", 140, "max_tokens=4096"),
     "pipeline.simulator_kwargs.max_new_tokens"),
    ("human reply cut to (characters)", 1000,
     _src(_SR, "sweet_rl/environments/human_design_interaction_env.py", 14, "HUMAN_RESPONSE_CHARACTER_LIMIT = 1000"),
     "colbench_env.simulators:FRONTEND_REPLY_LIMIT"),
    ("reward: CLIP ViT-B/32 cosine similarity of the renders", "clip",
     _src(_SR, "scripts/evaluate_html.py", 85, "openai/clip-vit-base-patch32"), "pipeline.similarity"),
    ("offline training tasks", 1000, _src(_SR, "README.md", 237, "--num_tasks 1000"), "pipeline.n_train_tasks"),
    ("offline trajectories per task (k)", 6, _src(_SR, "README.md", 238, "--best_of_n 6"), "pipeline.rollouts_per_task"),
    *_EPISODE_SETTINGS,
    ("evaluation tasks", 500, _src(_SR, "README.md", 119, "500 for paper results"), "pipeline.n_test_tasks"),
    ("preference pairs: every two rollouts of a task, the more similar chosen", "all_ordered",
     _src(_SR, "scripts/evaluate_html.py", 127, "for j2 in range(j + 1, k)"), "mt-dpo.pairing|sweet-rl.critic_pairs"),
    ("preference pairs: similarity gap at least", 0.1, _src(_SR, "scripts/evaluate_html.py", 133, "< 0.1"),
     "mt-dpo|sweet-rl.min_reward_gap"),
    ("RFT keeps each task's most similar rollouts", "task_best",
     f"{COLBENCH_CHOICE}: the reference has no RFT; a continuous reward has no success threshold", "rft.selection"),
    *PAPER_TRAINING_SETTINGS,
]


def paper_settings(env: str = "ColBench-Backend-v0") -> list[tuple[str, Any, str, str]]:
    """The ``--paper`` rows of ``env``: :data:`PAPER_SETTINGS` or :data:`FRONTEND_PAPER_SETTINGS`."""
    return PAPER_SETTINGS if ENVS[env] == "backend" else FRONTEND_PAPER_SETTINGS


def resolve_setting(key: str, cfg: "PipelineConfig", trainer_configs: dict[str, Any]) -> Any:
    """The value of a :data:`PAPER_SETTINGS` key in a resolved pipeline config (see there for the
    key forms). ``k1|k2`` gives the keys' value when they agree, else ``{key: value}``."""
    if "," in key:
        return tuple(resolve_setting(k, cfg, trainer_configs) for k in key.split(","))
    if "*" in key:
        a, b = key.split("*")
        return resolve_setting(a, cfg, trainer_configs) * resolve_setting(b, cfg, trainer_configs)
    if ":" in key:
        import importlib

        module, name = key.split(":")
        return getattr(importlib.import_module(module), name)
    if "|" in key:
        parts = key.split("|")
        if not all("." in p for p in parts):  # a|b.field: the field of each method
            *heads, last = parts
            head, _, field_path = last.partition(".")
            parts = [f"{m}.{field_path}" for m in (*heads, head)]
        values = {k: resolve_setting(k, cfg, trainer_configs) for k in parts}
        distinct = {json.dumps(v, sort_keys=True, default=str) for v in values.values()}
        return next(iter(values.values())) if len(distinct) == 1 else values
    head, *path = key.split(".")
    obj: Any = cfg if head == "pipeline" else trainer_configs[head]
    for name in path:
        obj = obj[name] if isinstance(obj, dict) else getattr(obj, name)
    return obj


def paper_settings_table(env: str = "ColBench-Backend-v0") -> str:
    """The Markdown table ``setting | reference value | source | colbench`` of ``--paper`` for
    ``env`` (``colbench``: the key and its resolved value, e.g. ``sweet-rl.critic.epochs`` = 4)."""
    cfg = PipelineConfig(**preset_settings("paper", env))
    trainers = {m: trainer_config(cfg, m, cfg.policy) for m in cfg.methods}
    fmt = lambda v: json.dumps(list(v) if isinstance(v, tuple) else v)  # noqa: E731
    lines = ["| setting | reference value | source | colbench |", "|---|---|---|---|"]
    for setting, ref, source, key in paper_settings(env):
        cell = key.replace("|", "\\|")  # a pipe inside a table cell, code span or not, ends the cell
        lines.append(f"| {setting} | {fmt(ref)} | {source} | `{cell}` = {fmt(resolve_setting(key, cfg, trainers))} |")
    return "\n".join(lines) + "\n"


def kind_trainer_settings(cfg: PipelineConfig, method: str) -> dict:
    """``method``'s settings for the run's task kind (:data:`KIND_TRAINER_SETTINGS`)."""
    key = "backend" if cfg.kind == "backend" else f"frontend/{cfg.similarity}"
    return KIND_TRAINER_SETTINGS[key].get(method, {})


def shared_preference_settings(sweet_config) -> dict:
    """The policy-DPO settings every preference method trains with under a matched budget: SWEET-RL's
    (the reference's), as :class:`~colbench.agents.mt_dpo.MultiTurnDPOConfig` fields: ``policy.learning_rate``,
    ``beta`` (SWEET-RL's ``dpo_beta``), ``nll_coef``, ``pairs_per_batch``,
    ``gradient_accumulation_steps``, ``epochs``. ``sweet_config``: a resolved
    :class:`~colbench.agents.sweet_rl.SweetRLConfig`. (The NLL term's scope stays each method's own:
    multi-turn DPO's the chosen trajectory's actions, SWEET-RL's the chosen step sequence,
    :attr:`~colbench.agents.sweet_rl.SweetRLConfig.nll_scope`.)"""
    c = sweet_config
    return {"policy": {"learning_rate": c.policy.learning_rate}, "beta": c.dpo_beta, "nll_coef": c.nll_coef,
            "pairs_per_batch": c.pairs_per_batch, "gradient_accumulation_steps": c.gradient_accumulation_steps,
            "epochs": c.epochs}


def trainer_config(cfg: PipelineConfig, method: str, base: str, budget: dict | None = None):
    """The resolved trainer config of ``method`` in a pipeline run: the fields the pipeline sets for
    every trainer (with ``policy_base_url``, SWEET-RL's ``candidate_base_url``: its candidates come
    from the server(s) that served the collection, asked for ``base``), the task kind's rules
    (:func:`kind_trainer_settings`), then the run's ``trainer_overrides`` (the preset's and the
    user's); with ``cfg.matched_budget``, multi-turn DPO then takes SWEET-RL's policy-DPO settings
    (:func:`shared_preference_settings`), and ``budget`` (the seed's matched plan for this method:
    ``max_pairs`` or ``optimizer_steps``) is laid over all."""
    from colbench.agents.config import config_from_dict

    cls, source = config_class(method), f"trainer_overrides[{method!r}]"
    conf = {"policy": {"model_name_or_path": base}, "seed": cfg.seed, "max_new_tokens": cfg.max_new_tokens,
            "show_progress": True, "max_turns": cfg.max_turns, "prompt_style": cfg.prompt_style}
    if method in ("ppo", "grpo"):
        conf["rollout_temperature"] = cfg.rollout_temperature  # the behaviour policy sampled at it
    if method == "sweet-rl" and cfg.policy_base_url:  # the candidates from the model that collected the rollouts
        conf["candidate_base_url"] = cfg.policy_base_url
    conf = merge_config_dicts(cls, conf, kind_trainer_settings(cfg, method), source=f"the {cfg.kind} settings")
    conf = merge_config_dicts(cls, conf, cfg.trainer_overrides.get(method, {}), source=source)
    if cfg.matched_budget and method == "mt-dpo":
        conf = merge_config_dicts(cls, conf, shared_preference_settings(trainer_config(cfg, "sweet-rl", base)),
                                  source="--matched-budget")
    if budget:
        conf = merge_config_dicts(cls, conf, budget, source="--matched-budget")
    return config_from_dict(cls, conf, source=source)
