"""SWEET-RL (Zhou et al. 2025): a critic that sees training-time information trains a multi-turn policy.

Three stages per :meth:`SweetRL.update`:

1. **Critic.** The critic is an LM (its own LoRA adapter, optionally on a 4-bit base) whose context
   is the agent's context *plus the training-time information* of the task -- the hidden ground
   truth (``task["ground_truth"]``; configurable, e.g. ``"hidden_information"``) -- placed before the
   dialogue. The advantage of action ``a_t`` in context ``o_t`` is
   ``A(o_t, a_t, c) = beta * (mean log pi_c(a_t | o_t, c) - mean log pi_ref(a_t | o_t, c))`` (means over
   the action's tokens, :func:`colbench.agents.losses.sweet_advantage`), ``pi_ref`` being the critic's base with
   the adapter disabled. A trajectory's score is ``sum_t A``; the critic is trained with a
   Bradley-Terry loss on pairs of rollouts of the same task (higher reward = chosen):
   ``-log sigmoid(score_chosen - score_rejected)``.
2. **Step-level preferences.** For a random ``state_fraction`` of the agent turns in the data, the
   policy samples ``n_candidates`` actions; the critic ranks them by
   ``beta * (mean log pi_c(a | o, c) - mean log pi_policy(a | o))`` (against the sampling policy's own
   log-prob, as the reference implementation does); ``pairs_per_state`` pairs are drawn with the
   chosen action from the top half and the rejected one from the bottom half. The candidates are
   sampled here or by the policy's server (:attr:`SweetRLConfig.candidate_base_url`, as the
   reference samples them with vLLM); with several processes each takes its share of the states
   (:meth:`SweetRL.step_pairs`). With stage files the critic is freed after this stage.
   Token-exact: a candidate carries the ids the policy saw and produced (always when sampled here;
   from a server that returns them, vLLM's ``return_token_ids``, when its prompt ids are this
   tokenizer's), kept in ``candidates.jsonl`` (the line's ``tokens``, :func:`candidate_tokens_field`);
   the policy's term of its score and its pair's chosen / rejected sequence (so the policy-DPO
   log-probs of the policy and of its reference) are those ids, never a re-rendering of the text
   -- which a chat template that writes an assistant message otherwise than the policy generated
   it (Qwen3's think blocks, ChatML's newline after the end token) would change. Candidates given
   as text, or from a server without ids, are re-tokenized (the metrics' ``step_pair_actions``
   count both). The critic's own terms always re-tokenize: its context holds the training-time
   information the policy never saw, and it may have another tokenizer.
3. **Policy.** DPO on those step-level pairs plus a small NLL term on the chosen actions
   (:func:`colbench.agents.mt_dpo.train_preference_pairs`; why not TRL's ``DPOTrainer`` is explained in
   :mod:`colbench.agents.mt_dpo`). The policy never sees the training-time information.

Memory for an 8B critic in 4-bit (``critic.load_in_4bit=True``; QLoRA) -- weights dominate:

* bf16 base: 8.0e9 params x 2 B = 16 GB; NF4 with double quantisation: ~0.5 B/param + ~0.127 bit
  of quantisation constants per param ~= 4.1 GB, plus bf16 embeddings/lm_head kept unquantised by
  bitsandbytes (2 x 128256 x 4096 x 2 B ~= 2.1 GB) -> ~5.5 GB instead of 16 GB (~0.35x).
* LoRA r=16 on all linear layers of Llama-3.1-8B: ~42M params; fp32 weights + AdamW moments
  (3 x 4 B) + grads (4 B) = 16 B/param ~= 0.7 GB, the same in both settings.
* Activations (per 4096-token sequence, bf16, with gradient checkpointing) ~ a few GB, the same in
  both settings; the reference pass (adapter disabled) runs under ``no_grad`` and adds none.
* So one 80 GB GPU holds the 4-bit critic (~10 GB) next to a bf16 policy with LoRA (~16 GB weights
  + ~1 GB optimiser + activations); with ZeRO-3 over 8 GPUs (``configs/accelerate/deepspeed_zero3.yaml``)
  or FSDP (``configs/accelerate/fsdp.yaml``) the weights are sharded 8 ways (2 GB each), a 4-bit
  base's too: :class:`~colbench.agents.trainer_base.TrainableLM` then stores the 4-bit weights in the compute
  dtype (``bnb_4bit_quant_storage``; flat parameters of one dtype) and, under ZeRO-3, loads them
  without a ``device_map`` (transformers refuses one there). Run here on 2 CPU processes under both
  (``tests/test_distributed.py``: the same results as one process with the 4-bit critic).

``benchmarks/bench_critic_memory.py`` measures the 4-bit / full-precision peak ratio of one critic
training step with the real SmolLM2-135M on this machine.
"""
from __future__ import annotations

import hashlib
import json
import os
import random
from pathlib import Path
from typing import Any, Sequence

import torch

from colbench_env.errors import UsageError
from colbench_env.lm.base import BackendError, GeneratedText, SamplingParams, derived_seed, finish_reason_of
from colbench_env.lm.tokens import TurnTokens
from colbench_env.trajectories import append_jsonl, atomic_open, read_jsonl

from .losses import bradley_terry_loss, turn_advantage
from .mt_dpo import (SUBSAMPLE_STREAM, PreferencePair, all_ordered_pairs, subsample_pairs, train_preference_pairs,
                     trajectory_pairs)
from .sweet_rl_config import CriticConfig, SweetRLConfig
from .tokenize import (ContextTooLong, TokenizedSequence, Turn, action_tokens, agent_turns, tokenize_trajectory,
                       tokenize_turn, turn_masks, turn_sequence)
from .config import SAMPLED_ROLLOUTS_HINT, NoTrainingData
from .trainer_base import BUDGET_FIELDS, ConfigError, LMTrainer, TrainableLM, load_trajectories, task_key, training_budget

__all__ = ["SweetRLConfig", "CriticConfig", "SweetRL", "StageFiles", "StageMismatch", "critic_keep_head",
           "critic_messages", "training_info", "draw_step_pairs", "candidate_actions", "candidate_tokens_field",
           "critic_pairs", "all_ordered_pairs"]

INFO_HEADER = "Training-time information (hidden from the agent; use it to judge the agent's actions):"


#: config fields that only stage 3 (the policy DPO) reads: left out of the stage signature, so that
#: :meth:`SweetRL.step_pair_count`'s stage files serve an update with a matched budget
_POLICY_STAGE_ONLY = ("max_pairs", "optimizer_steps", "rows_per_forward")

#: ``derived_seed`` keys of the candidate sampling streams (one per update and state) and of the
#: policy stage's torch seed (so that a resumed update trains the policy as an uninterrupted one)
_CANDIDATE_STREAM, _POLICY_STREAM = 0x5EE7C, 0x5EE7D


def training_info(task: dict, fields: Sequence[str]) -> str:
    """The training-time information of a task record: the listed fields that are present."""
    parts = [f"{name}:\n{task[name]}" for name in fields if isinstance(task.get(name), str) and task[name].strip()]
    if not parts:
        raise ValueError(f"task record has none of the training-time fields {list(fields)} "
                         f"(fields present: {sorted(task)})")
    return "\n\n".join(parts)


def critic_keep_head(formatter, task: dict) -> int:
    """How many leading context messages the critic's truncation never cuts: every message before
    the dialogue -- the instructions, which carry the training-time information
    (:func:`critic_messages`), a worked example where the prompt style has one, and the problem."""
    return len(formatter(task, []))


def critic_messages(agent_messages: list[dict], info: str | None) -> list[dict]:
    """The critic's context: the agent's, with the training-time information before the dialogue.

    The information is prepended to the first message (the instructions), so chat templates that
    accept a single leading system message still work.
    """
    msgs = [dict(m) for m in agent_messages]
    if info is not None and msgs:
        msgs[0]["content"] = f"{INFO_HEADER}\n{info}\n\n{msgs[0]['content']}"
    return msgs


class SweetRL(LMTrainer):
    """SWEET-RL. See :class:`SweetRLConfig`, the module docstring and :class:`~colbench.agents.trainer_base.LMTrainer`.

    Extra args:
        critic: base model object/path for the critic (default: ``config.critic.model_name_or_path``, else
            the policy's).
        critic_tokenizer: its tokenizer (default: the policy's when the critic has no path of its own).
    """

    config_class = SweetRLConfig
    algorithm = "sweet-rl"
    #: :meth:`update` takes ``stage_dir`` (the pipeline passes ``<out>/stages/sweet-rl``)
    resumable_stages = True

    @classmethod
    def check_data(cls, records: list[dict], config) -> None:
        """The critic needs a pair of rollouts of one task (:attr:`SweetRLConfig.critic_pairs`;
        :class:`~colbench.agents.config.NoTrainingData` otherwise)."""
        super().check_data(records, config)
        if not critic_pairs(records, config.min_reward_gap, config.critic_pairs):
            raise NoTrainingData(f"sweet-rl: {_no_critic_pairs(config, len(records))}; {SAMPLED_ROLLOUTS_HINT}")

    def __init__(self, config=None, *, critic=None, critic_tokenizer=None, **kwargs):
        self._critic_source = critic
        self._critic_tokenizer = critic_tokenizer
        super().__init__(config, **kwargs)

    def _build(self) -> None:
        c = self.config
        self._critic: TrainableLM | None = None
        #: where the critic's trained state lies on disk (its stage files), while it is released
        self._critic_saved: Path | None = None
        self._candidate_backend = None
        self.critic = self._new_critic()
        self.critic_tokenizer = self.critic.tokenizer
        self._rng = random.Random(c.seed)

    def _critic_source_of(self):
        c = self.config
        source = self._critic_source or c.critic.model_name_or_path or c.policy.model_name_or_path
        if source is None:
            raise ConfigError("field 'critic.model_name_or_path': no critic model (set it or policy.model_name_or_path, "
                              "or pass critic=...)")
        return source

    def _new_critic(self) -> TrainableLM:
        source = self._critic_source_of()
        tok = self._critic_tokenizer
        if tok is None and not isinstance(source, str):
            tok = self.tokenizer
        return self._make_lm(source, tok, self.config.critic)

    @property
    def critic(self) -> TrainableLM:
        """The critic. After :meth:`update` released it (:meth:`release_critic`), the first use builds
        it again and loads its trained state (adapter and optimiser) from its stage files."""
        if self._critic is None:
            if self._critic_saved is None:
                raise RuntimeError("sweet-rl: the critic was released and its trained state is nowhere")
            with torch.random.fork_rng():  # building draws the adapter's initial weights: no other stream moves
                critic = self._new_critic()
            critic.load_state(self._critic_saved)
            self._critic = critic
        return self._critic

    @critic.setter
    def critic(self, lm: TrainableLM) -> None:
        self._critic = lm

    def release_critic(self) -> bool:
        """Free the critic's models (its network, optimiser and frozen reference; GPU and CPU memory,
        :meth:`~colbench.agents.trainer_base.TrainableLM.release`) when its trained state is on disk, in the
        stage files of :meth:`update`'s ``stage_dir``, and it was built from a path (a model object
        given as ``critic=...`` cannot be built again). Returns whether it was released. Every
        process calls it. :meth:`save` then copies the critic's files from the stage directory;
        the next use of :attr:`critic` builds it again from them."""
        if self._critic is None:
            return True
        if self._critic_saved is None or not isinstance(self._critic_source_of(), (str, os.PathLike)):
            return False
        self._critic.release()
        self._critic = None
        return True

    def _models(self) -> dict[str, TrainableLM]:
        return {"policy": self.policy, **({"critic": self._critic} if self._critic is not None else {})}

    # --- critic ------------------------------------------------------------------------------
    def _critic_formatter(self, task: dict):
        info = training_info(task, self.config.info_fields) if self.config.use_training_info else None
        base = self.formatter
        return lambda t, h: critic_messages(base(t, h), info)

    def _critic_sequences(self, rec: dict) -> list[TokenizedSequence]:
        """The critic's token sequences of a trajectory. Longer than ``critic.max_length`` (default
        ``max_length``): one sequence per turn, each keeping the training-time information, the
        problem and the whole action, the dialogue cut in the middle
        (:func:`~colbench.agents.tokenize.tokenize_turn` ``keep_head``);
        :class:`~colbench.agents.tokenize.ContextTooLong` when even that does not fit."""
        fmt = self._critic_formatter(rec["task"])
        return tokenize_trajectory(self.critic_tokenizer, rec, formatter=fmt,
                                   max_length=self.config.critic.max_length or self.config.max_length,
                                   keep_head=critic_keep_head(fmt, rec["task"]))

    def _turn_means(self, lm: TrainableLM, sequences: list[TokenizedSequence], *, reference: bool) -> torch.Tensor:
        """Mean log-prob of each turn's action tokens, all turns of ``sequences`` in order: ``(n_turns,)``."""
        sums, counts = self._turn_sums(lm, sequences, reference=reference)
        return sums / counts.clamp(min=1.0)

    def _turn_sums(self, lm: TrainableLM, sequences: list[TokenizedSequence], *, reference: bool,
                   rows_per_forward: int | None = None) -> tuple[torch.Tensor, torch.Tensor]:
        """Summed log-prob and token count of each turn's action, all turns in order: two ``(n_turns,)``
        (``rows_per_forward`` sequences per forward: :meth:`~colbench.agents.trainer_base.TrainableLM.row_logps`)."""
        logps, batch, _ = lm.row_logps(sequences, reference=reference, rows_per_forward=rows_per_forward)
        L = batch["input_ids"].shape[1]
        rows, masks = [], []
        for b, _tid, m in turn_masks(sequences, L):
            rows.append(b)
            masks.append(m)
        mask = torch.stack(masks).to(lm.device)
        return (logps[torch.tensor(rows, device=lm.device)] * mask).sum(-1), mask.sum(-1)

    def _aggregate(self, cur_sums: torch.Tensor, ref_sums: torch.Tensor, counts: torch.Tensor,
                   owner: torch.Tensor, n: int) -> torch.Tensor:
        """Trajectory scores ``(n,)`` from per-turn sums/counts; ``owner[t]`` is turn ``t``'s trajectory
        (:attr:`SweetRLConfig.critic_aggregation`)."""
        c = self.config
        zeros = torch.zeros(n, device=cur_sums.device, dtype=cur_sums.dtype)
        if c.critic_aggregation == "turn_sum":
            adv = turn_advantage(cur_sums / counts.clamp(min=1.0), ref_sums / counts.clamp(min=1.0), beta=c.beta)
            return zeros.index_add(0, owner, adv)
        tokens = zeros.index_add(0, owner, counts.to(zeros.dtype)).clamp(min=1.0)
        return c.beta * (zeros.index_add(0, owner, cur_sums) - zeros.index_add(0, owner, ref_sums)) / tokens

    def trajectory_score(self, rec: dict, *, grad: bool = False) -> torch.Tensor:
        """The critic's score of one trajectory (:attr:`SweetRLConfig.critic_aggregation`)."""
        seqs = self._critic_sequences(rec)
        with torch.no_grad():
            ref, counts = self._turn_sums(self.critic, seqs, reference=True)
        ctx = torch.enable_grad() if grad else torch.no_grad()
        with ctx:
            cur, _ = self._turn_sums(self.critic, seqs, reference=False)
            owner = torch.zeros(len(cur), dtype=torch.long, device=cur.device)
            return self._aggregate(cur, ref, counts, owner, 1)[0]

    def update_critic(self, trajectories) -> dict:
        """Bradley-Terry epochs on rollout pairs of the same task (higher reward = chosen).

        A trajectory whose training-time information, problem and some action do not fit in
        ``critic.max_length`` (default ``max_length``) together is dropped with its pairs (counted in ``n_critic_dropped``), as the
        reference drops over-long examples: the critic never scores a turn without the information.

        Returns:
            ``{"critic_loss", "critic_accuracy", "n_critic_pairs", "n_critic_dropped"}`` (means over the
            last epoch's micro-batches of every process) and the critic's ``critic_optimizer_steps``,
            ``critic_learning_rate``, ``critic_epochs`` (:func:`~colbench.agents.trainer_base.training_budget`).
        """
        records = load_trajectories(trajectories)
        c = self.config
        pairs = critic_pairs(records, c.min_reward_gap, c.critic_pairs)
        cache: dict[int, list[TokenizedSequence]] = {}
        dropped: set[int] = set()
        for rec in {id(r): r for pair in pairs for r in pair}.values():
            try:
                cache[id(rec)] = self._critic_sequences(rec)
            except ContextTooLong:
                dropped.add(id(rec))
        pairs = [p for p in pairs if id(p[0]) not in dropped and id(p[1]) not in dropped]
        if not pairs:
            raise NoTrainingData(f"sweet-rl: {_no_critic_pairs(c, len(records))} ({len(dropped)} dropped as longer "
                                 f"than the critic's max length {c.critic.max_length or c.max_length}); "
                                 f"{SAMPLED_ROLLOUTS_HINT}")
        lm = self.critic
        ref_cache: dict[int, tuple[torch.Tensor, torch.Tensor]] = {}
        lm.eval()
        with torch.no_grad():
            for rec in {id(r): r for pair in pairs for r in pair}.values():
                ref_cache[id(rec)] = self._turn_sums(lm, cache[id(rec)], reference=True,
                                                     rows_per_forward=c.critic.rows_per_forward)
        lm.train()
        per_pass = self._n_batches(len(pairs), c.critic.pairs_per_batch)
        lm.start_schedule(per_pass, c.critic.epochs)
        start = (lm.optimizer_steps, lm.micro_batches)
        loss_sum, acc_sum, n = 0.0, 0.0, 0
        for epoch in range(c.critic.epochs):
            loss_sum, acc_sum, n = 0.0, 0.0, 0
            for chunk in self._progress(self._batches(pairs, c.critic.pairs_per_batch), f"critic epoch {epoch}"):
                recs = [r for pair in chunk for r in pair]
                seqs = [s for r in recs for s in cache[id(r)]]
                sums, _ = self._turn_sums(lm, seqs, reference=False, rows_per_forward=c.critic.rows_per_forward)
                refs = torch.cat([ref_cache[id(r)][0] for r in recs])
                counts = torch.cat([ref_cache[id(r)][1] for r in recs])
                owner = torch.tensor([k for k, r in enumerate(recs) for _ in range(len(ref_cache[id(r)][0]))],
                                     device=lm.device)
                scores = self._aggregate(sums, refs, counts, owner, len(recs))
                chosen, rejected = scores[0::2], scores[1::2]
                loss = bradley_terry_loss(chosen, rejected)
                lm.backward(loss)
                loss_sum += float(loss.detach())
                acc_sum += float((chosen > rejected).float().mean())
                n += 1
            lm.flush()
        budget = training_budget(lm, start, examples=len(pairs), micro_batches_per_pass=per_pass, nll_coef=0.0)
        if self.accelerator.num_processes > 1:  # every process's batches: the means one process reports
            totals = torch.tensor([loss_sum, acc_sum, float(n)], dtype=torch.float64, device=self.accelerator.device)
            loss_sum, acc_sum, n = self.accelerator.reduce(totals, reduction="sum").tolist()
        return {"critic_loss": loss_sum / max(n, 1), "critic_accuracy": acc_sum / max(n, 1), "n_critic_pairs": len(pairs),
                "n_critic_dropped": len(dropped),
                **{f"critic_{k}": budget[k] for k in ("optimizer_steps", "learning_rate", "epochs")}}

    @torch.no_grad()
    def score_actions(self, task: dict, history: list, actions: Sequence[str], *,
                      baseline: str = "critic_reference") -> list[float]:
        """Critic advantages of candidate ``actions`` at the state ``(task, history)``.

        Args:
            baseline: ``"critic_reference"`` -- ``beta * (mean log pi_c - mean log pi_ref)`` with the
                critic's base as reference (the critic's training objective); ``"policy"`` -- against
                the current policy's own mean log-prob of the action in the agent's context (stage 2):
                of the ids the policy saw and produced when the action carries them
                (:meth:`_policy_sequence`), else of its text re-tokenized. The critic's terms always
                re-tokenize: its context holds the training-time information, which the policy never
                saw, and the critic may have another tokenizer.

        Raises:
            ContextTooLong: the information, the problem and an action exceed ``max_length``
                (a longer dialogue is cut in the middle; the information never is).
        """
        c = self.config
        fmt = self.formatter
        agent_ctx = list(fmt(task, list(history)))
        critic_fmt = self._critic_formatter(task)
        critic_ctx = critic_fmt(task, list(history))
        self.critic.eval()
        out: list[float] = []
        for start in range(0, len(actions), c.pairs_per_batch):
            chunk = list(actions[start:start + c.pairs_per_batch])
            cseqs = [tokenize_turn(self.critic_tokenizer, critic_ctx, a, max_length=c.critic.max_length or c.max_length,
                                   keep_head=critic_keep_head(critic_fmt, task)) for a in chunk]
            crit = self._turn_means(self.critic, cseqs, reference=False)
            if baseline == "critic_reference":
                base = self._turn_means(self.critic, cseqs, reference=True)
            elif baseline == "policy":
                self.policy.eval()
                pseqs = [self._policy_sequence(agent_ctx, a) for a in chunk]
                base = self._turn_means(self.policy, pseqs, reference=False)
            else:
                raise ValueError(f"baseline must be 'critic_reference' or 'policy', got {baseline!r}")
            out += turn_advantage(crit, base, beta=c.beta).tolist()
        return out

    def _policy_sequence(self, messages: list[dict], action: str) -> TokenizedSequence:
        """The policy's sequence of a candidate ``action`` at the state whose agent context is
        ``messages``: the ids the policy saw and produced when it carries them from this policy's
        tokenizer (:attr:`token_fingerprint`; a candidate sampled here or by a server that gave its
        ids), else its text re-tokenized (:func:`~colbench.agents.tokenize.turn_sequence`)."""
        return turn_sequence(self.tokenizer, messages, action, max_length=self.config.max_length,
                             token_fingerprint=self.token_fingerprint)

    # --- step-level pairs and the policy ----------------------------------------------------------
    def select_states(self, trajectories) -> list[tuple[dict, Turn]]:
        """Stage-2 states ``[(record, turn)]`` (:attr:`SweetRLConfig.state_selection`): all agent turns
        of the first ``state_fraction`` of the trajectories (reference; at least one trajectory with a
        turn), or a seeded random ``state_fraction`` of all agent turns (at least one)."""
        records = load_trajectories(trajectories)
        c = self.config
        if c.state_selection == "first_trajectories":
            # the reference keeps data[:int(len(data) * data_fraction)]; at least one trajectory here
            k = max(1, int(len(records) * c.state_fraction))
            states = [(rec, t) for rec in records[:k] for t in agent_turns(rec, self.formatter)]
            if not states:
                states = [(rec, t) for rec in records for t in agent_turns(rec, self.formatter)][:1]
            if not states:
                raise ValueError("sweet-rl: the trajectories have no agent turns")
            return states
        states = []
        for rec in records:
            for t in agent_turns(rec, self.formatter):
                states.append((rec, t))
        if not states:
            raise ValueError("sweet-rl: the trajectories have no agent turns")
        k = max(1, round(c.state_fraction * len(states)))
        return self._rng.sample(states, k)

    def step_pairs(self, trajectories, *, candidates: dict | None = None, stages: "StageFiles | None" = None,
                   critic_metrics: dict | None = None) -> tuple[list[PreferencePair], dict]:
        """Stage 2: sample candidates at selected states, rank them with the critic, draw pairs.

        Each state's candidates are sampled from their own seeded stream
        (``derived_seed(seed, stream, update, state number)``; the request's ``seed`` when a server
        samples them, :attr:`SweetRLConfig.candidate_base_url`), so a state's candidates do not
        depend on which states were sampled before it, nor on which process sampled them (what
        makes a resumed run, and a run on several processes, equal one uninterrupted process).
        Pairs are drawn after every state is scored, in state order.

        Several processes (``accelerate launch``): the states not done yet are split over them,
        process ``k`` of ``N`` taking every ``N``-th from the ``k``-th; each samples and scores its
        share with its models called :meth:`~colbench.agents.trainer_base.TrainableLM.alone` (no collective
        per call: shares of unequal work -- a dropped state, a slow server reply -- wait for nobody)
        and appends each state to its own part file (:class:`StageFiles`). Then the main process
        merges the parts into ``candidates.jsonl`` in state order and every process reads every
        state back (without stage files: gathered in memory), and all draw the same pairs.

        Args:
            candidates: optional ``{(task_key, turn_index): [actions]}``, or a list of each state's
                actions in state order (states of one task and turn may differ), used instead of
                sampling (a :class:`~colbench_env.lm.base.GeneratedText` keeps its finish reason).
            stages: the :class:`StageFiles` of :meth:`update`'s ``stage_dir``: states already in its
                files are read back instead of sampled and scored; new ones are appended.
            critic_metrics: the critic's training metrics, recorded in (and, on resume, checked against)
                the candidates file's header: a critic retrained from scratch after its files were lost
                must have trained the same, or the file's scores are not this critic's.

        Returns:
            ``(pairs, stats)``; pairs are tokenised for the policy (agent context, no training info).

        Raises:
            BackendError: the policy's server failed (after the backend's retries); the states
                scored before are kept in the stage files, and the same ``update`` resumes from them.
        """
        c = self.config
        acc = self.accelerator
        states = self.select_states(trajectories)
        keys = [(i, task_key(rec["task"]), turn.index) for i, (rec, turn) in enumerate(states)]
        done: dict[int, dict] = {}
        if stages is not None:  # the main process checks (and makes) the file; the others read it after
            if acc.is_main_process:
                done = stages.open_candidates(keys, dict(critic_metrics or {}))
            acc.wait_for_everyone()
            if not acc.is_main_process:
                done = stages.open_candidates(keys, dict(critic_metrics or {}), is_main=False)
        mine = [i for i in range(len(states)) if i not in done][acc.process_index::acc.num_processes]
        part = acc.process_index if acc.num_processes > 1 else None
        made: dict[int, dict] = {}
        try:
            with self.policy.alone(), self.critic.alone():
                for i in self._progress(mine, "candidates"):
                    rec, turn = states[i]
                    try:
                        made[i] = self._scored_state(i, rec, turn, candidates)
                    except BackendError as e:
                        where = f"; the {len(done) + len(made)} states scored so far are kept in {stages.dir}" \
                            if stages is not None else ""
                        raise BackendError(f"sweet-rl candidates of state {i}: {e}{where} (the same update with the "
                                           "same stage directory resumes from them)") from e
                    if stages is not None:
                        stages.append_state(made[i], **({} if part is None else {"part": part}))
        finally:
            self._close_candidate_backend()
        every = self._every_state(keys, done, made, stages, critic_metrics)
        scored = [every[i] for i in range(len(states))]
        pairs, stats = self._draw_pairs(states, scored)
        return pairs, {**stats, "n_states_resumed": len(done)}

    def _draw_pairs(self, states: list[tuple[dict, Turn]], entries: Sequence[dict]) -> tuple[list[PreferencePair], dict]:
        """The step-level pairs of scored states (:func:`draw_step_pairs` with this trainer's
        generator), tokenised for the policy, and their statistics."""
        c = self.config
        pairs: list[PreferencePair] = []
        gaps = []
        exact = 0
        for k, i, j in draw_step_pairs(entries, self._rng, c.pairs_per_state):
            entry, turn = entries[k], states[k][1]
            acts = candidate_actions(entry)
            pairs.append(([self._policy_sequence(turn.messages, acts[i])], [self._policy_sequence(turn.messages, acts[j])]))
            exact += sum(action_tokens(a, self.token_fingerprint) is not None for a in (acts[i], acts[j]))
            gaps.append(entry["scores"][i] - entry["scores"][j])
        return pairs, {"n_step_pairs": len(pairs), "mean_advantage_gap": sum(gaps) / max(len(gaps), 1),
                       "n_states_dropped": sum(1 for e in entries if "dropped" in e), "n_states": len(states),
                       "step_pair_actions": {"recorded": exact, "retokenized": 2 * len(pairs) - exact}}

    def update_from_scores(self, trajectories, entries: Sequence[dict], *, scorer: dict | None = None) -> dict:
        """Stage 3 alone, on candidates scored elsewhere: another critic's scores, or an oracle's
        (true continuation values). ``entries`` holds one ``{"task", "turn", "actions", "scores"}``
        (optionally ``"finish_reasons"``; ``"dropped"`` instead of ``"scores"`` leaves a state out)
        per stage-2 state of ``trajectories`` (:meth:`select_states`, in order), e.g. the lines of a
        stage directory's ``candidates.jsonl`` after its header. The pairs are drawn, subsampled
        (``max_pairs``) and trained as :meth:`update` does with its own critic's scores -- the same
        pairs, settings and budget; only the order of the policy's micro-batches differs, drawn from
        this trainer's shuffle counter where :meth:`update`'s continues after its critic's passes.
        ``scorer`` (e.g. ``{"kind": "oracle", ...}``) is recorded in the metrics as given.

        Raises:
            ValueError: an entry is not the state it stands at (task or turn differ), or the counts differ.
        """
        records = self.training_records(trajectories)
        states = self.select_states(records)
        if len(entries) != len(states):
            raise ValueError(f"sweet-rl: {len(entries)} scored entries for {len(states)} states")
        for k, ((rec, turn), entry) in enumerate(zip(states, entries)):
            if (entry.get("task"), entry.get("turn")) != (task_key(rec["task"]), turn.index):
                raise ValueError(f"sweet-rl: entry {k} scores ({entry.get('task')!r}, turn {entry.get('turn')!r}), "
                                 f"state {k} is ({task_key(rec['task'])!r}, turn {turn.index})")
        pairs, metrics = self._draw_pairs(states, entries)
        if scorer is not None:
            metrics["scorer"] = scorer
        metrics.update(self._policy_stage(pairs))
        return self._record(metrics)

    def _policy_stage(self, pairs: list[PreferencePair]) -> dict:
        """Stage 3 as :meth:`update` runs it: the pairs subsampled to ``max_pairs``
        (:func:`~colbench.agents.mt_dpo.subsample_pairs`), the policy's torch seed set, DPO + NLL; returns its
        metrics and ``n_pairs_available`` (``{}`` without any pair)."""
        c = self.config
        available = len(pairs)
        pairs = subsample_pairs(pairs, c.max_pairs, derived_seed(c.seed, SUBSAMPLE_STREAM, self.updates))
        torch.manual_seed(derived_seed(c.seed, _POLICY_STREAM, self.updates))
        if not pairs:
            return {}
        return {**self.update_policy(pairs), "n_pairs_available": available}

    def _scored_state(self, i: int, rec: dict, turn: Turn, candidates: dict | list | None) -> dict:
        """State ``i``'s candidates and their critic scores: one line of ``candidates.jsonl``."""
        if candidates is not None:
            acts = list(candidates[i] if isinstance(candidates, (list, tuple))
                        else candidates[(task_key(rec["task"]), turn.index)])
        else:
            acts = self.sample_candidates(turn.messages, i)
        entry = {"state": i, "task": task_key(rec["task"]), "turn": turn.index, "actions": [str(a) for a in acts],
                 "finish_reasons": [finish_reason_of(a) for a in acts], **candidate_tokens_field(acts)}
        try:
            entry["scores"] = self.score_actions(rec["task"], rec["dialogue_history"][:turn.index], acts,
                                                 baseline="policy")
        except ContextTooLong:  # the critic cannot see this state with its information: skip it
            entry["dropped"] = "context too long for the critic"
        return entry

    def sample_candidates(self, messages: list[dict], state: int) -> list[GeneratedText]:
        """The ``n_candidates`` actions of stage-2 state number ``state`` (its agent context
        ``messages``), from the state's seeded stream ``derived_seed(seed, stream, update, state)``:
        the policy here (``candidate_batch`` at a time, after seeding torch with it), or the policy's
        server (:attr:`SweetRLConfig.candidate_base_url`: one request for ``n_candidates`` choices
        with it as the request's ``seed``). Each carries the token ids the policy saw and produced
        (``tokens``) when known: always from the policy here; from a server that returns them
        (vLLM's ``return_token_ids``) when its prompt ids are this tokenizer's rendering of
        ``messages`` (then they are this policy's tokens, :attr:`token_fingerprint`)."""
        c = self.config
        seed = derived_seed(c.seed, _CANDIDATE_STREAM, self.updates, state)
        max_new = c.candidate_max_new_tokens or c.max_new_tokens
        if c.candidate_base_url is None:
            torch.manual_seed(seed)
            size = c.candidate_batch or c.n_candidates
            return [a for start in range(0, c.n_candidates, size)
                    for a in self.policy.generate(messages, n=min(size, c.n_candidates - start), max_new_tokens=max_new,
                                                  temperature=c.candidate_temperature)]
        if self._candidate_backend is None:
            from colbench_env.lm.openai_compat import OpenAICompatBackend

            self._candidate_backend = OpenAICompatBackend(c.candidate_base_url, self.candidate_model(),
                                                          timeout_s=c.candidate_timeout_s)
        gens = self._candidate_backend.generate([list(messages)], SamplingParams(
            max_new_tokens=max_new, temperature=c.candidate_temperature, n=c.n_candidates, seed=seed,
            return_token_ids=self.token_fingerprint is not None))
        prompt = None
        if any(g.token_ids is not None and g.prompt_token_ids is not None for g in gens):
            prompt = self.tokenizer.apply_chat_template(list(messages), add_generation_prompt=True, tokenize=True,
                                                        return_dict=True)["input_ids"]
        # the server's ids are this policy's tokens when it rendered the prompt to this tokenizer's ids
        return [GeneratedText(g.text, g.finish_reason,
                              TurnTokens(prompt_ids=list(g.prompt_token_ids), completion_ids=list(g.token_ids),
                                         fingerprint=self.token_fingerprint)
                              if prompt is not None and g.token_ids is not None and g.prompt_token_ids == prompt
                              else None) for g in gens]

    def candidate_model(self) -> str | None:
        """The model name the candidates' server is asked for (:attr:`SweetRLConfig.candidate_model`,
        else ``policy.model_name_or_path`` as given); ``None`` when this process samples them."""
        c = self.config
        if c.candidate_base_url is None:
            return None
        name = c.candidate_model or c.policy.model_name_or_path
        if not isinstance(name, (str, os.PathLike)):
            raise ConfigError("field 'candidate_model': the policy was given as an object: name the model the "
                              "candidates' server serves it under")
        return os.fspath(name)

    def _close_candidate_backend(self) -> None:
        if self._candidate_backend is not None:
            self._candidate_backend.close()
            self._candidate_backend = None

    def _every_state(self, keys: list, done: dict[int, dict], made: dict[int, dict], stages: "StageFiles | None",
                     critic_metrics: dict | None) -> dict[int, dict]:
        """Every state's entry, on every process: its own and the others' (:meth:`step_pairs`)."""
        acc = self.accelerator
        if stages is not None:
            acc.wait_for_everyone()
            if acc.is_main_process:
                stages.merge_parts(keys)
            acc.wait_for_everyone()
            if acc.num_processes == 1:
                return {**done, **made}
            return stages.open_candidates(keys, dict(critic_metrics or {}), is_main=False)
        if acc.num_processes == 1:
            return made
        from accelerate.utils import gather_object

        return dict(gather_object(sorted(made.items())))

    def update_policy(self, pairs: Sequence[PreferencePair]) -> dict:
        """Stage 3: DPO + NLL on step-level pairs (``optimizer_steps`` set: exactly that many steps).
        Its losses are returned as ``policy_<name>``, its budget
        (:data:`~colbench.agents.trainer_base.BUDGET_FIELDS`) under the plain names: the policy's budget is
        the run's, comparable with every other trainer's."""
        c = self.config
        m = train_preference_pairs(self.policy, list(pairs), beta=c.dpo_beta, nll_coef=c.nll_coef, nll_scope=c.nll_scope,
                                   pairs_per_batch=c.pairs_per_batch, epochs=c.epochs, batches=self._batches,
                                   progress=self._progress, optimizer_steps=c.optimizer_steps,
                                   rows_per_forward=c.rows_per_forward)
        return {f"policy_{k}" if not (k.startswith("n_") or k in BUDGET_FIELDS) else k: v for k, v in m.items()}

    def step_pair_count(self, trajectories, *, stage_dir: str | os.PathLike, candidates=None) -> int:
        """Stages 1 and 2 of :meth:`update` into ``stage_dir`` (the critic, the scored candidates),
        then the number of step pairs drawn from them, before ``max_pairs``. A later :meth:`update`
        with the same ``stage_dir``, trajectories and settings -- ``max_pairs`` and
        ``optimizer_steps`` aside, which only stage 3 reads -- resumes both stages from the files and
        draws the same pairs: how ``colbench pipeline --matched-budget`` learns SWEET-RL's pair count
        before any preference method trains. Changes nothing of this trainer's policy."""
        records = self.training_records(trajectories)
        stages = StageFiles(stage_dir, self._stage_signature(records))
        metrics = self._critic_stage(records, stages)
        rng = self._rng.getstate()
        pairs, _ = self.step_pairs(records, stages=stages, critic_metrics=metrics, candidates=candidates)
        self._rng.setstate(rng)
        return len(pairs)

    def update(self, trajectories, *, stage_dir: str | os.PathLike | None = None, candidates=None) -> dict:
        """All three stages on ``trajectories``; returns critic and policy metrics.

        Args:
            stage_dir: makes the first two stages resumable (:class:`StageFiles`): the trained
                critic is saved there (``critic/``, ``critic.json``) and each state's candidates and
                critic scores are appended to ``candidates.jsonl`` as they are made; a later
                ``update`` on the same trajectories with the same settings loads the critic and
                skips the states already done, and gives the same pairs and policy as an
                uninterrupted run. Other settings or other trajectories are refused
                (:class:`StageMismatch`, naming the file and field). ``None``: nothing is written.
            candidates: given candidate actions instead of sampled ones (:meth:`step_pairs`).

        The policy trains on at most ``max_pairs`` step pairs (a seeded subsample) for ``epochs``
        passes or exactly ``optimizer_steps`` steps; its budget is in the metrics under the plain
        names (:meth:`update_policy`), the critic's as ``critic_*``.

        Memory: with ``stage_dir`` the critic's models are freed before the policy stage
        (:meth:`release_critic`; their trained state is in ``critic/``), so the policy trains
        without them beside it, as the reference's separate training runs do.
        """
        records = self.training_records(trajectories)
        stages = StageFiles(stage_dir, self._stage_signature(records)) if stage_dir is not None else None
        metrics = self._critic_stage(records, stages)
        if self.config.train_policy:
            pairs, stats = self.step_pairs(records, stages=stages, critic_metrics=metrics, candidates=candidates)
            metrics.update(stats)
            # the policy stage needs no critic: its models go now, when its trained state is on disk
            self.release_critic()
            metrics.update(self._policy_stage(pairs))
        return self._record(metrics)

    def _stage_signature(self, records: list[dict]) -> dict:
        """What shapes the critic and the candidates: every config field (progress bars, the
        candidates' server URL and timeout aside; ``candidate_model`` the model asked for, ``None``
        when sampled here) and the trajectories' content (sha256 of their canonical JSON), and the
        update's number."""
        conf = json.loads(json.dumps(self.config.to_dict(), default=str))
        # progress bars, the candidates' server URL and timeout (change no result); what only stage 3 reads
        for name in ("show_progress", "candidate_base_url", "candidate_timeout_s", *_POLICY_STAGE_ONLY):
            conf.pop(name, None)
        conf["candidate_model"] = self.candidate_model()  # None: sampled here
        digest = hashlib.sha256()
        for rec in records:
            digest.update(json.dumps(rec, sort_keys=True, ensure_ascii=False, default=str).encode("utf-8"))
            digest.update(b"\n")
        return {"config": conf, "trajectories_sha256": digest.hexdigest(), "n_trajectories": len(records),
                "update": self.updates}

    def _critic_stage(self, records: list[dict], stages: "StageFiles | None") -> dict:
        """Stage 1, or its saved outcome: a critic saved in ``stages`` by an earlier interrupted
        ``update`` with the same signature is loaded (adapter and optimiser) instead of retrained,
        and the micro-batch order counter is set where its training left it."""
        if stages is not None:
            done = stages.critic_done()
            if done is not None:
                self.critic.load_state(stages.critic_dir)
                self._critic_saved = stages.critic_dir
                self._shuffle_calls = (self.updates, int(done["shuffle_calls"]))
                return dict(done["metrics"])
        metrics = self.update_critic(records)
        if stages is not None:
            stages.save_critic(self.critic, metrics, getattr(self, "_shuffle_calls", (self.updates, 0))[1],
                               is_main=self.accelerator.is_main_process)
            self.accelerator.wait_for_everyone()
            self._critic_saved = stages.critic_dir
        return metrics

    def _save_extra(self, d: Path) -> None:
        if self.accelerator.is_main_process:
            torch.save(self._rng.getstate(), d / "sweet_rng.pt")
            if self._critic is None:  # released: its files, as it saved them in the stage directory
                import shutil

                shutil.rmtree(d / "critic", ignore_errors=True)
                shutil.copytree(self._critic_saved, d / "critic")

    def _load_extra(self, d: Path) -> None:
        p = d / "sweet_rng.pt"
        if p.exists():
            self._rng.setstate(torch.load(p, weights_only=False))


def candidate_tokens_field(actions: Sequence[str]) -> dict:
    """The ``tokens`` field of a state's line in ``candidates.jsonl`` when every candidate action
    carries its ids from one prompt and tokenizer (:class:`~colbench_env.lm.base.GeneratedText`
    ``tokens``): ``{"tokens": {"fingerprint", "prompt_ids", "completion_ids": [one list per action]}}``;
    ``{}`` otherwise (the actions are then trained as their text re-tokenized)."""
    tokens = [getattr(a, "tokens", None) for a in actions]
    if not tokens or not all(isinstance(t, TurnTokens) and t.has_ids and t.fingerprint is not None for t in tokens):
        return {}
    first = tokens[0]
    if any(t.prompt_ids != first.prompt_ids or t.fingerprint != first.fingerprint for t in tokens):
        return {}
    return {"tokens": {"fingerprint": first.fingerprint, "prompt_ids": list(first.prompt_ids),
                       "completion_ids": [list(t.completion_ids) for t in tokens]}}


def candidate_actions(entry: dict) -> list[GeneratedText]:
    """A state's candidate actions from its line in ``candidates.jsonl``: each with its finish
    reason and, when the line has a well-formed ``tokens`` field (:func:`candidate_tokens_field`),
    its ids."""
    reasons = entry.get("finish_reasons") or [None] * len(entry["actions"])
    field = entry.get("tokens")
    ids = None
    if isinstance(field, dict) and isinstance(field.get("completion_ids"), list) \
            and len(field["completion_ids"]) == len(entry["actions"]) and isinstance(field.get("prompt_ids"), list):
        ids = [TurnTokens(prompt_ids=list(field["prompt_ids"]), completion_ids=list(c), fingerprint=field.get("fingerprint"))
               for c in field["completion_ids"]]
    return [GeneratedText(a, r, ids[k] if ids else None) for k, (a, r) in enumerate(zip(entry["actions"], reasons))]


def draw_step_pairs(entries: Sequence[dict], rng: random.Random, pairs_per_state: int) -> list[tuple[int, int, int]]:
    """SWEET-RL's step-level pairs from scored states (stage 2; the reference's
    ``generate_random_pairs_from_ranks.py``): per state, in order, its candidates sorted by score
    (highest first; ties keep sampling order), ``pairs_per_state`` draws of one candidate of the top
    half (chosen) and one of the bottom half (rejected) with ``rng``, a draw whose two texts are equal
    left out. ``entries``: ``{"actions", "scores"}`` per state (a ``"dropped"`` one gives nothing).

    Returns:
        ``(entry index, chosen candidate, rejected candidate)`` per pair, in drawing order.
    """
    out = []
    for k, entry in enumerate(entries):
        if "dropped" in entry:
            continue
        acts, scores = entry["actions"], entry["scores"]
        order = sorted(range(len(acts)), key=lambda i: scores[i], reverse=True)
        half = len(order) // 2
        top, bottom = order[:half], order[len(order) - half:]
        for _ in range(pairs_per_state):
            i, j = rng.choice(top), rng.choice(bottom)
            if acts[i] != acts[j]:
                out.append((k, i, j))
    return out


class StageMismatch(UsageError):
    """A stage directory made with other settings or other trajectories; the message names the file
    and the first field that differs (a user error: the ``colbench`` command prints it in one line)."""


def _first_difference(old: Any, new: Any, path: str = "") -> tuple[str, Any, Any] | None:
    """``(dotted field, old, new)`` of the first difference between two JSON values, else ``None``."""
    if isinstance(old, dict) and isinstance(new, dict):
        for k in sorted(set(old) | set(new)):
            d = _first_difference(old.get(k), new.get(k), f"{path}.{k}" if path else k)
            if d is not None:
                return d
        return None
    return None if old == new else (path or "<value>", old, new)


class StageFiles:
    """The resumable stages of one :meth:`SweetRL.update` in a directory.

    * ``critic/`` and ``critic.json``: the trained critic (adapter and optimiser, as
      :meth:`~colbench.agents.trainer_base.TrainableLM.save` writes them) and, written after it, its
      training metrics, the micro-batch order counter and the stage signature. Without
      ``critic.json`` the critic is trained again.
    * ``candidates.jsonl``: a header line ``{"header": {"format", "signature", "critic"}}``, then one
      line per stage-2 state, appended (flushed, fsynced) as soon as it is scored:
      ``{"state", "task", "turn", "actions", "finish_reasons", "scores"}`` (and ``"tokens"``, the
      candidates' ids, when they carry them: :func:`candidate_tokens_field`) or, for a state the
      critic cannot see, ``"dropped"`` instead of ``"scores"``. An unterminated last line (an
      interrupted append) is dropped on resume. Once the stage is done the states are in state
      order (:meth:`merge_parts`), whichever process made them.
    * ``candidates.part-<k>.jsonl``: with several processes, process ``k``'s states while the stage
      runs (the header line, then its states as they are scored); merged into ``candidates.jsonl``
      and removed when every process is done. A resumed run reads them, whatever number of
      processes wrote them.

    The signature (:meth:`SweetRL._stage_signature`) is every config field but the progress bars
    and the candidates' server, a hash of the trajectories and the update's number; a file made
    under another signature, or holding a state that is not this run's (another state list), raises
    :class:`StageMismatch` and nothing is changed.
    """

    FORMAT = "colbench.sweet-rl.stage/1"

    def __init__(self, directory: str | os.PathLike, signature: dict):
        self.dir = Path(directory)
        self.signature = signature
        self.critic_dir = self.dir / "critic"
        self.critic_json = self.dir / "critic.json"
        self.candidates = self.dir / "candidates.jsonl"

    def _check(self, path: Path, what: str, old: Any, new: Any) -> None:
        diff = _first_difference(old, new)
        if diff is not None:
            field_, was, now = diff
            raise StageMismatch(f"{path}: field '{what}.{field_}': {was!r}, but this run has {now!r} "
                                f"(made by another run: use another stage directory)")

    def critic_done(self) -> dict | None:
        """The saved critic stage (``critic.json``) when there is one; checks its signature."""
        if not self.critic_json.exists():
            return None
        try:
            data = json.loads(self.critic_json.read_text(encoding="utf-8"))
        except json.JSONDecodeError as e:
            raise StageMismatch(f"{self.critic_json}: invalid JSON ({e.msg} at line {e.lineno})") from None
        if not isinstance(data, dict) or data.get("format") != self.FORMAT:
            raise StageMismatch(f"{self.critic_json}: field 'format': not a {self.FORMAT} file")
        self._check(self.critic_json, "signature", data.get("signature"), self.signature)
        return data

    def save_critic(self, critic: TrainableLM, metrics: dict, shuffle_calls: int, *, is_main: bool = True) -> None:
        """Save the trained critic, then (atomically) ``critic.json``, which marks it complete."""
        critic.save(self.critic_dir)
        if not is_main:
            return
        data = {"format": self.FORMAT, "signature": self.signature, "metrics": metrics, "shuffle_calls": shuffle_calls}
        tmp = self.critic_json.with_suffix(".json.tmp")
        tmp.write_text(json.dumps(data, indent=2, default=str, allow_nan=False) + "\n", encoding="utf-8")
        os.replace(tmp, self.critic_json)

    def part(self, k: int) -> Path:
        """Process ``k``'s part file."""
        return self.dir / f"candidates.part-{k}.jsonl"

    def _parts(self) -> list[Path]:
        return sorted(self.dir.glob("candidates.part-*.jsonl"), key=lambda p: (len(p.name), p.name))

    def open_candidates(self, keys: Sequence[tuple[int, str, int]], critic_metrics: dict, *,
                        is_main: bool = True) -> dict[int, dict]:
        """The states already scored, ``{state number: entry}`` (from ``candidates.jsonl`` and any part
        files), after checking the files against this run; ``keys`` are this run's states ``(number,
        task key, turn index)``. Writes the header of a new file. ``is_main=False`` (another process
        of a multi-process run, reading after the main one): writes nothing and does not compare the
        critic's metrics."""
        critic = json.loads(json.dumps(critic_metrics, default=str))
        self._header = {"format": self.FORMAT, "signature": self.signature, "critic": critic}
        if not self.candidates.exists() or not self.candidates.stat().st_size:
            if is_main:
                append_jsonl(self.candidates, [{"header": self._header}])
            main = {}
        else:
            main = self._read(self.candidates, keys, critic if is_main else None)
        done = dict(main)
        for part in self._parts():
            done.update(self._read(part, keys, critic if is_main else None))
        return done

    def _read(self, path: Path, keys: Sequence[tuple[int, str, int]], critic: dict | None) -> dict[int, dict]:
        """The states of one file (``candidates.jsonl`` or a part), checked: the header's signature
        (and ``critic``, unless ``None``) and that every state is one of ``keys``."""
        src = str(path)
        done: dict[int, dict] = {}
        for n, rec in read_jsonl(src, tolerate_partial_last_line=True):
            if n == 1 or "header" in rec:
                old = rec.get("header") if isinstance(rec, dict) else None
                if n != 1 or not isinstance(old, dict) or old.get("format") != self.FORMAT:
                    raise StageMismatch(f"{src}:{n}: field 'header': line 1 must be the {self.FORMAT} header")
                self._check(path, "header.signature", old.get("signature"), self.signature)
                if critic is not None:
                    self._check(path, "header.critic", old.get("critic"), critic)
                continue
            i = rec.get("state") if isinstance(rec, dict) else None
            if not isinstance(i, int) or not 0 <= i < len(keys) or (i, rec.get("task"), rec.get("turn")) != keys[i]:
                raise StageMismatch(f"{src}:{n}: field 'state': {i!r} ({rec.get('task') if isinstance(rec, dict) else None!r}, "
                                    f"turn {rec.get('turn') if isinstance(rec, dict) else None!r}) is not one of this run's states")
            if "dropped" not in rec and not (isinstance(rec.get("scores"), list) and isinstance(rec.get("actions"), list)
                                             and len(rec["scores"]) == len(rec["actions"]) == len(rec.get("finish_reasons", []))):
                raise StageMismatch(f"{src}:{n}: field 'scores': must list one score per action")
            done[i] = rec
        return done

    def append_state(self, entry: dict, *, part: int | None = None) -> None:
        """Append one scored state (flushed and fsynced before the next state starts): to
        ``candidates.jsonl`` (one process: the main one), or to process ``part``'s part file (after
        :meth:`open_candidates`; a new part file starts with the header)."""
        if part is None:
            append_jsonl(self.candidates, [entry])
            return
        path = self.part(part)
        new = not path.exists() or not path.stat().st_size
        append_jsonl(path, ([{"header": self._header}] if new else []) + [entry])

    def merge_parts(self, keys: Sequence[tuple[int, str, int]]) -> None:
        """(The main process, when every process is done.) ``candidates.jsonl`` with every state of
        it and of the part files in state order (replaced atomically), then the part files removed.
        Nothing is rewritten when there is no part file and the states are in order already (one
        process)."""
        lines = [rec for _, rec in read_jsonl(self.candidates, tolerate_partial_last_line=True)]
        states = [rec["state"] for rec in lines[1:]]
        parts = self._parts()
        if not parts and states == sorted(set(states)):
            return
        every = {rec["state"]: rec for rec in lines[1:]}
        for part in parts:
            every.update(self._read(part, keys, None))
        with atomic_open(self.candidates) as f:
            for rec in [lines[0], *(every[i] for i in sorted(every))]:
                f.write(json.dumps(rec, ensure_ascii=False, allow_nan=False) + "\n")
        for part in parts:
            part.unlink()


def _no_critic_pairs(config: SweetRLConfig, n: int) -> str:
    """Why the critic has no pair (:attr:`SweetRLConfig.critic_pairs`), for :class:`NoTrainingData`."""
    what = ("no task has a fully successful rollout (reward >= 1) and a lower one"
            if config.critic_pairs == "best_vs_lower" else "no task has two rollouts with different rewards")
    return f"{what} among the {n} trajectories, so the critic has no pair to learn from"


def critic_pairs(records: Sequence[dict], min_gap: float, kind: str = "best_vs_lower") -> list[tuple[dict, dict]]:
    """``(chosen, rejected)`` rollout pairs for the critic (:attr:`SweetRLConfig.critic_pairs`).

    ``"best_vs_lower"`` follows ``scripts/evaluate_code.py`` (facebookresearch/sweet_rl): per task
    whose best reward is >= 1 (a fully successful rollout), the first rollout with that reward
    against every rollout whose reward is lower by more than ``min_gap``; tasks without a success
    give no pair (multi-turn DPO's :func:`~colbench.agents.mt_dpo.trajectory_pairs` at ``success_threshold``
    1). ``"all_ordered"``: :func:`all_ordered_pairs`.
    """
    if kind == "all_ordered":
        return all_ordered_pairs(records, min_gap)
    if kind != "best_vs_lower":
        raise ValueError(f"critic pairs must be 'best_vs_lower' or 'all_ordered', got {kind!r}")
    return trajectory_pairs(records, success_threshold=1.0, min_reward_gap=min_gap)
