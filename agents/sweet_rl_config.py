"""SWEET-RL's two configs: the trainer's (:class:`SweetRLConfig`, for :class:`colbench.agents.sweet_rl.SweetRL`) and
its critic's model and training (:class:`CriticConfig`). No torch import."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from .config import (ModelConfig, TrainerConfig, _check, _check_max_pairs, _check_positive_ints,
                     _check_rows_per_forward, _nested_config)

__all__ = ["CriticConfig", "SweetRLConfig"]


@dataclass
class CriticConfig(ModelConfig):
    """SWEET-RL's critic: its model (every :class:`~colbench.agents.trainer_base.ModelConfig` field) and its
    Bradley-Terry training.

    Attributes:
        model_name_or_path: base model of the critic (``None``: the policy's).
        epochs: Bradley-Terry epochs over the trajectory pairs per ``update``.
        pairs_per_batch: (chosen, rejected) trajectory pairs per critic micro-batch.
        max_length: longest tokenised critic sequence (``None``: the trainer's ``max_length``; the
            reference trains the critic at 8192 tokens and the policy at 16384).
        rows_per_forward: critic sequences per forward of a micro-batch (a pair is ``2 x turns``
            sequences when the trajectories are longer than ``max_length`` or use the paper prompt);
            ``None``: all at once. A number gives the same gradients
            (:meth:`colbench.agents.trainer_base.TrainableLM.row_logps`; one extra forward).

    ``full_finetune`` trains every weight of the critic (the reference's critic is a full
    fine-tune); its reference is then a frozen copy.
    """

    epochs: int = 1
    pairs_per_batch: int = 2
    max_length: int | None = None
    rows_per_forward: int | None = None

    def __post_init__(self) -> None:
        super().__post_init__()
        _check_positive_ints(self, "epochs", "pairs_per_batch")
        _check_rows_per_forward(self)
        _check(self.max_length is None or (isinstance(self.max_length, int) and self.max_length > 0),
               "max_length", f"must be a positive int or None, got {self.max_length!r}")


@dataclass
class SweetRLConfig(TrainerConfig):
    """SWEET-RL settings (plus every :class:`~colbench.agents.trainer_base.TrainerConfig` field, which set the policy).

    Attributes:
        beta: scale of the critic's advantage ``beta * (mean log pi_c - mean log pi_ref)`` (reference: 0.1).
        dpo_beta: DPO inverse temperature of the policy update (reference: 0.1).
        nll_coef: weight of the per-token NLL of the chosen action added to the policy's DPO loss.
        n_candidates: actions sampled from the policy per selected state (reference: 16).
        pairs_per_state: (top-half, bottom-half) pairs drawn per state (reference: 4).
        state_fraction: fraction of the agent turns in the data used as states (reference: 10%);
            at least one state is always used.
        candidate_temperature: sampling temperature of the candidate actions.
        candidate_max_new_tokens: generation length of a candidate (``None``: ``max_new_tokens``).
        candidate_batch: candidates sampled per generation call (``None``: all ``n_candidates`` at
            once). Each call holds the KV cache of that many copies of the state's context: lower it
            to bound memory (``colbench train`` sets 4). The candidates of a state come from one seeded
            stream either way, so a run is reproducible at any value (not equal across values).
            Unused with ``candidate_base_url`` (the server gets all ``n_candidates`` in one request).
        candidate_base_url: ``None`` (default): the candidates are sampled in this process
            (``transformers.generate``). Else the OpenAI-compatible server(s) that serve the policy
            (vLLM, ``transformers serve``; several: a list or comma-separated, each request to the
            least busy one): each state's candidates are one request for ``n_candidates`` choices
            (a server that answers fewer is asked again for the rest,
            :class:`~colbench_env.lm.openai_compat.OpenAICompatBackend`) with the state's seeded
            stream ``derived_seed(seed, stream, update, state)`` as the request's ``seed``, as the
            reference samples them with vLLM (``scripts/sample_best_of_n.py``: ``n=16``). The server
            must serve the policy being trained (the pipeline's ``--policy-base-url``: the model the
            rollouts were collected with, i.e. the policy before this update). Not part of the stage
            signature: a resumed update may ask another server for the same model.
        candidate_model: the model name the server knows the policy under (``None``:
            ``policy.model_name_or_path`` as given). Part of the stage signature.
        candidate_timeout_s: per-request timeout of a served candidate request (``n_candidates``
            completions of up to ``candidate_max_new_tokens`` tokens on a busy server take minutes).
        info_fields: task-record fields shown to the critic as training-time information, in order
            (present ones are used; ``"ground_truth"`` exists for both backend and frontend tasks).
        use_training_info: ``False`` gives the ablated critic that sees no training-time information.
        critic: the critic's model and its training (:class:`CriticConfig`; a dict of its fields is
            accepted, e.g. ``{"critic": {"learning_rate": 1e-4, "load_in_4bit": true}}``).
        pairs_per_batch: step-level (chosen, rejected) action pairs per policy DPO micro-batch (also
            the candidate actions scored per critic forward pass).
        epochs: policy DPO passes over the step-level pairs per ``update``.
        max_pairs: the policy DPO trains on at most this many step-level pairs: when stage 2 draws
            more, a seeded uniform subsample (:func:`colbench.agents.mt_dpo.subsample_pairs`, the same on every
            rerun); ``None``: all of them. ``colbench pipeline --matched-budget`` sets it to the
            smallest preference method's count.
        min_reward_gap: a pair's rewards must differ by more than this.
        train_policy: ``False`` trains only the critic in ``update``.
        critic_pairs: which rollout pairs train the critic (:func:`critic_pairs`).
            ``"best_vs_lower"`` (reference, ``scripts/evaluate_code.py`` of facebookresearch/sweet_rl):
            only tasks with a fully successful rollout (reward >= 1), the best one against each lower
            one; ``"all_ordered"``: every ordered pair of a task with a reward gap, fail-vs-fail included.
        critic_aggregation: how a trajectory's score aggregates its turns' log-probs.
            ``"token_mean"`` (reference: ``openrlhf/trainer/dpo_trainer.py`` of
            YifeiZhou02/collab_openrlhf with ``--mean_log_prob`` and ``--response_template``, as the
            sweet_rl README trains the critic): ``beta * (mean log pi_c - mean log pi_ref)`` with the
            means over *all* action tokens of the trajectory; ``"turn_sum"``: ``sum_t A(o_t, a_t, c)``,
            the per-turn advantages (each a per-turn token mean) summed.
        state_selection: which agent turns become stage-2 states. ``"first_trajectories"``
            (reference, ``scripts/sample_best_of_n.py --data_fraction``): the first ``state_fraction``
            of the trajectories in data order, all their agent turns; ``"random_turns"``: a seeded
            random ``state_fraction`` of all agent turns.
        nll_scope: the NLL term of the policy DPO. ``"sequence"`` (reference: ``openrlhf`` DPO
            trainer's ``nll_loss`` with the sweet_rl README's step-level pairs, whose chosen text is the
            whole context + action and has no prompt part): mean negative log-likelihood over every
            token of the chosen sequence, context included; ``"action"``: over the chosen action's
            tokens only.
        rows_per_forward: sequences per forward of a policy DPO micro-batch (``2 x pairs_per_batch``
            sequences); ``None``: all at once; a number: the same gradients
            (:meth:`colbench.agents.trainer_base.TrainableLM.row_logps`). The critic's own is
            ``critic.rows_per_forward``.
    """

    _nested: ClassVar[dict[str, type]] = {"policy": ModelConfig, "critic": CriticConfig}

    beta: float = 0.1
    dpo_beta: float = 0.1
    nll_coef: float = 0.01
    n_candidates: int = 16
    pairs_per_state: int = 4
    state_fraction: float = 0.1
    candidate_temperature: float = 1.0
    candidate_max_new_tokens: int | None = None
    candidate_batch: int | None = None
    candidate_base_url: str | None = None
    candidate_model: str | None = None
    candidate_timeout_s: float = 600.0
    info_fields: list = field(default_factory=lambda: ["ground_truth"])
    use_training_info: bool = True
    critic: CriticConfig = field(default_factory=CriticConfig)
    pairs_per_batch: int = 4
    epochs: int = 1
    max_pairs: int | None = None
    min_reward_gap: float = 0.0
    train_policy: bool = True
    critic_pairs: str = "best_vs_lower"
    critic_aggregation: str = "token_mean"
    state_selection: str = "first_trajectories"
    nll_scope: str = "sequence"
    rows_per_forward: int | None = None

    def __post_init__(self) -> None:
        super().__post_init__()
        self.critic = _nested_config(CriticConfig, self.critic, "critic")
        for name in ("beta", "dpo_beta"):
            _check(getattr(self, name) > 0, name, f"must be > 0, got {getattr(self, name)!r}")
        _check(self.nll_coef >= 0, "nll_coef", f"must be >= 0, got {self.nll_coef!r}")
        _check(isinstance(self.n_candidates, int) and self.n_candidates >= 2, "n_candidates",
               f"must be an int >= 2 (a top and a bottom half), got {self.n_candidates!r}")
        _check_positive_ints(self, "pairs_per_state", "pairs_per_batch", "epochs")
        _check_max_pairs(self)
        _check_rows_per_forward(self)
        _check(0.0 < self.state_fraction <= 1.0, "state_fraction", f"must be in (0, 1], got {self.state_fraction!r}")
        _check(self.candidate_temperature > 0, "candidate_temperature",
               f"must be > 0 (candidates are sampled), got {self.candidate_temperature!r}")
        for name in ("candidate_max_new_tokens", "candidate_batch"):
            value = getattr(self, name)
            _check(value is None or (isinstance(value, int) and not isinstance(value, bool) and value > 0), name,
                   f"must be a positive int or None, got {value!r}")
        if self.candidate_base_url is not None:
            from colbench_env.lm.openai_compat import split_base_urls

            try:  # one comma-separated string, as trainer.json keeps it
                self.candidate_base_url = ",".join(split_base_urls(self.candidate_base_url))
            except ValueError as e:
                _check(False, "candidate_base_url", str(e))
        _check(self.candidate_model is None or (isinstance(self.candidate_model, str) and self.candidate_model.strip()),
               "candidate_model", f"must be a non-empty string or None, got {self.candidate_model!r}")
        timeout = self.candidate_timeout_s
        _check(isinstance(timeout, (int, float)) and not isinstance(timeout, bool) and timeout > 0,
               "candidate_timeout_s", f"must be > 0, got {timeout!r}")
        _check(isinstance(self.info_fields, (list, tuple)) and len(self.info_fields) > 0
               and all(isinstance(f, str) for f in self.info_fields), "info_fields",
               f"must be a non-empty list of task-record field names, got {self.info_fields!r}")
        self.info_fields = list(self.info_fields)
        _check(self.min_reward_gap >= 0, "min_reward_gap", f"must be >= 0, got {self.min_reward_gap!r}")
        for name, choices in (("critic_pairs", ("best_vs_lower", "all_ordered")),
                              ("critic_aggregation", ("token_mean", "turn_sum")),
                              ("state_selection", ("first_trajectories", "random_turns")),
                              ("nll_scope", ("sequence", "action"))):
            _check(getattr(self, name) in choices, name, f"must be one of {choices}, got {getattr(self, name)!r}")
