"""Critic analysis (SWEET-RL's key ablation, in miniature): how often does a critic rank the better
trajectory of a held-out task above the worse one?

Three critics, all built on the same critic LM (LoRA adapter of the same rank, same learning rate,
same epochs and batch size) and trained with the same Bradley-Terry loss
(:func:`colbench.agents.losses.bradley_terry_loss`) on the same (higher-reward, lower-reward) trajectory
pairs of the training tasks:

* ``logprob_with_info`` -- SWEET-RL's critic (:class:`colbench.agents.sweet_rl.SweetRL`): a trajectory's score
  is ``sum_t beta * (mean log pi_c(a_t | o_t, c) - mean log pi_ref(a_t | o_t, c))``, its context
  holding the training-time information ``c`` (:meth:`~colbench.agents.sweet_rl.SweetRL.trajectory_score`).
* ``logprob_without_info`` -- the same with ``SweetRLConfig(use_training_info=False)``.
* ``value_head_with_info`` -- a scalar value head: a ``torch.nn.Linear(hidden_size, 1)`` on the last
  layer's hidden state of the last (non-pad) token of the critic LM (with its own LoRA adapter),
  reading the same critic context (:func:`colbench.agents.sweet_rl.critic_messages` over the same formatter,
  with the same training-time information). A trajectory's score is the **value of its final
  state**: the context is the whole dialogue including the last agent action.

Data: a synthetic "favourite colour" task family (as in ``tests/test_sweet_rl_critic.py``): the user
asks for a thing "in my favourite colour" and never says which; the agent's final answer names a
colour; reward 1 when it is the hidden one (``task["ground_truth"]``), else 0. Every task has three
rollouts (one per colour) that differ only in the final answer, so only the hidden information can
tell the better one. Training tasks and held-out tasks are disjoint (different task ids and, as far
as the list of things allows, different requests); each held-out task gives two (better, worse)
pairs. Accuracy = fraction of held-out pairs where the critic scores the better trajectory higher;
ties count one half. Without information the colour cannot be inferred, so ~0.5 is chance.

Real trajectories instead (``--trajectories FILE``, e.g. the pipeline's ``rollouts.jsonl``): the
scored records are grouped by task; every ``--holdout-every``-th task (in sorted task-id order) is
held out, the others train; pairs are every (higher-reward, lower-reward) pair of rollouts of one
task. The agent context is the real agent prompt (``--prompt-style``, ``--max-turns``: those the
trajectories were collected with), the training-time information the task's ground truth.

Run: ``colbench critic-analysis [--train-tasks 12 --test-tasks 6 --epochs 8] [--json] [--out DIR]
[--model PATH|smollm2] [--trajectories FILE]`` (:mod:`colbench.cli.critic_analysis`), or :func:`run`. The
default model is a tiny random 2-layer Llama with SmolLM2's tokenizer, built in-process (no
download); ``--model`` takes a local model directory (its own tokenizer) or ``smollm2`` (the
embedded SmolLM2-135M-Instruct), used for the policy and all critics.
"""
from __future__ import annotations

import random
import time
from pathlib import Path
from typing import Callable

import torch

from colbench.agents.losses import bradley_terry_loss
from colbench.agents.sweet_rl import SweetRL, SweetRLConfig, all_ordered_pairs, critic_messages, training_info
from colbench_env.protocol import MAX_TURNS
from colbench_env.prompting import dialogue_messages

__all__ = ["COLOURS", "colour_task", "colour_rollout", "colour_data", "short_formatter", "ValueHeadCritic",
           "pairwise_accuracy", "trajectory_split", "run", "markdown_table"]

COLOURS = ["red", "blue", "green"]
THINGS = ["a banner", "a button", "a header", "a footer", "a card", "a menu", "a badge", "a sidebar", "a tooltip",
          "a modal", "a table", "a form", "a chart", "a logo", "a tab bar", "a toast", "a slider", "a panel"]
METHODS = ("logprob_with_info", "logprob_without_info", "value_head_with_info")


# ---- the synthetic task family -----------------------------------------------------------------------------
def colour_task(i: int, colour: str) -> dict:
    """Task record ``i`` whose hidden favourite colour is ``colour``."""
    thing = THINGS[i % len(THINGS)]
    return {"task_id": f"t{i}", "problem_description": f"Please make {thing} for my page in my favourite colour.",
            "ground_truth": f"The favourite colour is {colour}.",
            "hidden_information": f"The favourite colour is {colour}.", "test_cases": {"test1": "f()"}}


def colour_rollout(task: dict, said: str, right: str) -> dict:
    """A two-turn trajectory whose final answer uses colour ``said`` (reward 1 iff ``said == right``)."""
    return {"task": task, "dialogue_history": [
        {"role": "assistant", "content": "Which colour?", "output": "Which colour would you like?"},
        {"role": "user", "content": "I have one colour in mind."},
        {"role": "assistant", "content": f"I will use {said}.", "output": f"I WANT TO ANSWER: I will use {said}."},
    ], "answer": f"I will use {said}.", "reward": 1.0 if said == right else 0.0}


def colour_data(indices, seed: int) -> list[list[dict]]:
    """For each task index: its three rollouts (one per colour), in a seeded random order."""
    rng = random.Random(seed)
    groups = []
    for i in indices:
        right = COLOURS[i % len(COLOURS)]
        task = colour_task(i, right)
        rolls = [colour_rollout(task, c, right) for c in COLOURS]
        rng.shuffle(rolls)
        groups.append(rolls)
    return groups


def short_formatter(task: dict, history: list) -> list[dict]:
    """A short agent prompt (same shape as :func:`colbench_env.prompting.record_messages`: instructions, problem, then the turns)."""
    return [{"role": "system", "content": "Help the user."}, {"role": "user", "content": task["problem_description"]},
            *dialogue_messages(history)]


def trajectory_split(records: list[dict], holdout_every: int = 3) -> tuple[list[dict], list[tuple[dict, dict]], dict]:
    """Real scored trajectories -> (training records, held-out pairs, counts).

    Records are grouped by task (:func:`colbench.agents.sweet_rl.task_key`); in sorted task-key order every
    ``holdout_every``-th task (the 1st, the ``1 + holdout_every``-th, ...) is held out. Held-out
    pairs are every (higher-reward, lower-reward) pair of one held-out task's rollouts.

    Raises:
        ValueError: when the training tasks or the held-out tasks give no pair (every rollout of
            every task has the same reward: nothing to rank).
    """
    from colbench.agents.trainer_base import task_key

    if not isinstance(holdout_every, int) or holdout_every < 2:
        raise ValueError(f"holdout_every must be an int >= 2, got {holdout_every!r}")
    keys = sorted({task_key(r["task"]) for r in records})
    held = {k for i, k in enumerate(keys) if i % holdout_every == 0}
    train = [r for r in records if task_key(r["task"]) not in held]
    test = [r for r in records if task_key(r["task"]) in held]
    train_pairs, test_pairs = all_ordered_pairs(train, 0.0), all_ordered_pairs(test, 0.0)
    counts = {"n_train_tasks": len(keys) - len(held), "n_test_tasks": len(held), "n_train_pairs": len(train_pairs),
              "n_test_pairs": len(test_pairs), "n_records": len(records)}
    if not train_pairs or not test_pairs:
        raise ValueError(f"no {'training' if not train_pairs else 'held-out'} pair: every rollout of those tasks has "
                         f"the same reward ({counts})")
    return train, test_pairs, counts


# ---- the value-head critic ---------------------------------------------------------------------------------
class ValueHeadCritic:
    """A scalar value head on a causal LM with a LoRA adapter, trained with a Bradley-Terry loss.

    Args:
        model: a ``PreTrainedModel`` (causal LM) used as the base.
        tokenizer: its tokenizer (a chat template is required).
        formatter: ``(task, history) -> agent messages``; the critic sees
            ``critic_messages(formatter(task, history), training_info(task, info_fields))``.
        info_fields: training-time fields shown to the critic; ``None`` shows none.
        lora_r, lora_alpha, learning_rate, max_grad_norm, max_length: as in :class:`SweetRLConfig`
            (``critic_*`` fields); contexts longer than ``max_length`` are cut from the left, so the
            final state is always kept.
        seed: seeds the head's initialisation.
        head_init: ``"random"`` (N(0, 1/hidden) weights: a Bradley-Terry head, whose scale is free) or
            ``"zeros"`` (weight and bias 0, as :class:`colbench.agents.ppo.PPO`'s value head: a regression head
            that starts at value 0 instead of at a random offset of a few units per state).
    """

    def __init__(self, model, tokenizer, formatter: Callable, *, info_fields: list | None = ("ground_truth",),
                 lora_r: int = 16, lora_alpha: int = 32, learning_rate: float = 2e-5, max_grad_norm: float | None = 1.0,
                 max_length: int = 4096, seed: int = 0, head_init: str = "random"):
        if head_init not in ("random", "zeros"):
            raise ValueError(f"head_init must be 'random' or 'zeros', got {head_init!r}")
        import peft

        self.tokenizer = tokenizer
        if tokenizer.pad_token_id is None:
            tokenizer.pad_token = tokenizer.eos_token
        self.formatter = formatter
        self.info_fields = list(info_fields) if info_fields else None
        self.max_length = max_length
        self.max_grad_norm = max_grad_norm
        cfg = peft.LoraConfig(r=lora_r, lora_alpha=lora_alpha, target_modules="all-linear", task_type="CAUSAL_LM",
                              bias="none")
        self.model = peft.get_peft_model(model, cfg)
        g = torch.Generator().manual_seed(seed)
        hidden = model.config.hidden_size
        self.head = torch.nn.Linear(hidden, 1)
        with torch.no_grad():
            self.head.weight.copy_(torch.randn(1, hidden, generator=g) / hidden ** 0.5 if head_init == "random"
                                   else torch.zeros(1, hidden))
            self.head.bias.zero_()
        self.device = next(self.model.parameters()).device
        self.head.to(self.device)
        params = [p for p in self.model.parameters() if p.requires_grad] + list(self.head.parameters())
        self.optimizer = torch.optim.AdamW(params, lr=learning_rate)

    def state_ids(self, rec: dict) -> list[int]:
        """Token ids of the critic context of ``rec``'s final state (the whole dialogue)."""
        task = rec["task"]
        info = training_info(task, self.info_fields) if self.info_fields else None
        msgs = critic_messages(self.formatter(task, list(rec["dialogue_history"])), info)
        text = self.tokenizer.apply_chat_template(msgs, tokenize=False, add_generation_prompt=False)
        ids = list(self.tokenizer(text, add_special_tokens=False)["input_ids"])
        return ids[-self.max_length:]

    def values(self, records: list[dict]) -> torch.Tensor:
        """``(len(records),)`` values of the final states (grad flows in training mode)."""
        seqs = [self.state_ids(r) for r in records]
        L = max(len(s) for s in seqs)
        ids = torch.full((len(seqs), L), self.tokenizer.pad_token_id, dtype=torch.long)
        att = torch.zeros((len(seqs), L), dtype=torch.long)
        for b, s in enumerate(seqs):
            ids[b, :len(s)] = torch.tensor(s)
            att[b, :len(s)] = 1
        ids, att = ids.to(self.device), att.to(self.device)
        base = self.model.get_base_model()
        body = getattr(base, base.base_model_prefix)  # the transformer without the LM head (LoRA inside)
        hidden = body(input_ids=ids, attention_mask=att, use_cache=False).last_hidden_state
        last = hidden[torch.arange(len(seqs), device=self.device), att.sum(1) - 1]
        return self.head(last.float()).squeeze(-1)

    def _step(self, loss: torch.Tensor) -> None:
        """One optimiser step on ``loss`` (gradients clipped to ``max_grad_norm`` when set)."""
        self.optimizer.zero_grad(set_to_none=True)
        loss.backward()
        if self.max_grad_norm:
            torch.nn.utils.clip_grad_norm_([p for g in self.optimizer.param_groups for p in g["params"]],
                                           self.max_grad_norm)
        self.optimizer.step()

    def train_pairs(self, pairs: list[tuple[dict, dict]], *, epochs: int, batch_size: int, seed: int = 0) -> dict:
        """Bradley-Terry epochs on ``(chosen, rejected)`` pairs; returns the last epoch's mean loss/accuracy."""
        self.model.train()
        loss_sum, acc_sum, n = 0.0, 0.0, 0
        for epoch in range(epochs):
            loss_sum, acc_sum, n = 0.0, 0.0, 0
            order = torch.randperm(len(pairs), generator=torch.Generator().manual_seed(seed + epoch)).tolist()
            for s in range(0, len(order), batch_size):
                chunk = [pairs[i] for i in order[s:s + batch_size]]
                v = self.values([r for pair in chunk for r in pair])
                chosen, rejected = v[0::2], v[1::2]
                loss = bradley_terry_loss(chosen, rejected)
                self._step(loss)
                loss_sum += float(loss.detach())
                acc_sum += float((chosen > rejected).float().mean())
                n += 1
        self.model.eval()
        return {"critic_loss": loss_sum / max(n, 1), "critic_accuracy": acc_sum / max(n, 1)}

    def train_regression(self, examples: list[tuple[dict, float]], *, epochs: int, batch_size: int,
                         seed: int = 0) -> dict:
        """MSE epochs on ``(record, target)`` examples: the value of the record's final state regressed
        on the target (a PPO-style value/Q critic; e.g. the state after an agent action and the
        episode's final reward). Returns the last epoch's mean squared error."""
        if not examples:
            raise ValueError("train_regression: no examples")
        self.model.train()
        loss_sum, n = 0.0, 0
        for epoch in range(epochs):
            loss_sum, n = 0.0, 0
            order = torch.randperm(len(examples), generator=torch.Generator().manual_seed(seed + epoch)).tolist()
            for s in range(0, len(order), batch_size):
                chunk = [examples[i] for i in order[s:s + batch_size]]
                v = self.values([r for r, _ in chunk])
                target = torch.tensor([float(t) for _, t in chunk], device=v.device)
                loss = torch.nn.functional.mse_loss(v, target)
                self._step(loss)
                loss_sum += float(loss.detach())
                n += 1
        self.model.eval()
        return {"critic_mse": loss_sum / max(n, 1), "n_examples": len(examples)}

    @torch.no_grad()
    def trajectory_score(self, rec: dict) -> float:
        """The value of ``rec``'s final state."""
        self.model.eval()
        return float(self.values([rec])[0])


# ---- measuring ---------------------------------------------------------------------------------------------
def pairwise_accuracy(score: Callable[[dict], float], pairs: list[tuple[dict, dict]]) -> float:
    """Fraction of ``(better, worse)`` pairs with ``score(better) > score(worse)``; ties count 1/2."""
    if not pairs:
        raise ValueError("pairwise_accuracy: no pairs")
    cache: dict[int, float] = {}

    def s(r):
        if id(r) not in cache:
            cache[id(r)] = float(score(r))
        return cache[id(r)]

    return sum(1.0 if s(a) > s(b) else 0.5 if s(a) == s(b) else 0.0 for a, b in pairs) / len(pairs)


def _tiny_llama(tokenizer, seed: int, hidden_size: int = 64):
    """A seeded 2-layer random Llama over ``tokenizer``'s vocabulary."""
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(seed)
    cfg = LlamaConfig(hidden_size=hidden_size, intermediate_size=2 * hidden_size, num_hidden_layers=2,
                      num_attention_heads=4, num_key_value_heads=2, vocab_size=len(tokenizer))
    return LlamaForCausalLM(cfg)


def run(n_train_tasks: int = 12, n_test_tasks: int = 6, epochs: int = 8, model: str | None = None, seed: int = 0, *,
        beta: float = 1.0, learning_rate: float = 3e-3, lora_r: int = 8, batch_size: int = 4,
        value_head_epochs: int | None = None, trajectories: str | None = None, holdout_every: int = 3,
        prompt_style: str = "paper", max_turns: int = MAX_TURNS, max_length: int = 4096) -> dict:
    """Train the three critics on the training tasks' pairs; measure pairwise accuracy on held-out tasks.

    Args:
        n_train_tasks: training tasks (three rollouts each, two ordered pairs each).
        n_test_tasks: held-out tasks (task indices after the training ones; never trained on).
        epochs: Bradley-Terry epochs over the training pairs (every critic).
        model: ``None`` -- tiny random Llamas with SmolLM2's tokenizer (policy seed ``seed``, critic
            base seed ``seed + 1``, the same base weights for all three critics); or a local model
            directory (loaded for the policy and for each critic).
        seed: data order, LoRA and head initialisation.
        beta, learning_rate, lora_r, batch_size: critic settings shared by all three critics
            (``lora_alpha = 2 * lora_r``).
        value_head_epochs: epochs of the value head (``None``: ``epochs``, the matched budget; more
            shows how much longer a value head needs to learn what the log-prob critic learns).
        trajectories: a scored trajectory jsonl to use instead of the synthetic tasks
            (:func:`trajectory_split` with ``holdout_every``; ``n_train_tasks``/``n_test_tasks``
            are then ignored); contexts use the agent prompt of ``prompt_style`` and ``max_turns``.
        max_length: critic contexts longer than this are cut from the left.

    Returns:
        ``pairwise_accuracy_<method>`` for each method, ``critic_loss_<method>`` (last epoch's mean
        Bradley-Terry loss), ``n_train_pairs``, ``n_test_pairs``, the settings and ``seconds``.
    """
    for name, v in (("n_train_tasks", n_train_tasks), ("n_test_tasks", n_test_tasks), ("epochs", epochs),
                    ("lora_r", lora_r), ("batch_size", batch_size),
                    ("value_head_epochs", epochs if value_head_epochs is None else value_head_epochs)):
        if not isinstance(v, int) or v <= 0:
            raise ValueError(f"critic_analysis.run: {name} must be a positive int, got {v!r}")
    model_name = model
    if model == "smollm2":
        from colbench_env.lm.smollm2 import smollm2_path

        model = smollm2_path()
    if model is not None and not Path(model).is_dir():
        raise ValueError(f"critic_analysis.run: model must be a local model directory or 'smollm2', got {model!r}")
    t0 = time.perf_counter()
    if trajectories is None:
        train = [r for g in colour_data(range(n_train_tasks), seed) for r in g]
        test_groups = colour_data(range(n_train_tasks, n_train_tasks + n_test_tasks), seed + 1)
        test_pairs = [p for g in test_groups for p in all_ordered_pairs(g, 0.0)]
        formatter = short_formatter
        data = {"data": "synthetic favourite-colour tasks"}
    else:
        import functools

        from colbench_env.prompting import record_messages
        from colbench_env.trajectories import read_jsonl, validate_trajectory

        records = []
        for line, rec in read_jsonl(trajectories):
            validate_trajectory(rec, source=str(trajectories), line=line)
            if rec.get("reward") is None and rec.get("success") is None:
                raise ValueError(f"{trajectories}:{line}: field 'reward': missing (an unscored trajectory; "
                                 "score the file with 'colbench evaluate' first)")
            records.append(rec)
        train, test_pairs, counts = trajectory_split(records, holdout_every)
        n_train_tasks, n_test_tasks = counts["n_train_tasks"], counts["n_test_tasks"]
        formatter = functools.partial(record_messages, max_turns=max_turns, style=prompt_style)
        data = {"data": str(trajectories), "n_records": counts["n_records"], "holdout_every": holdout_every,
                "prompt_style": prompt_style, "max_turns": max_turns}
    train_pairs = all_ordered_pairs(train, 0.0)

    if model is None:
        from transformers import AutoTokenizer

        from colbench_env.lm.smollm2 import smollm2_path

        tok = AutoTokenizer.from_pretrained(smollm2_path())
        critic_base = lambda: _tiny_llama(tok, seed + 1)  # noqa: E731
        policy_base = lambda: _tiny_llama(tok, seed)  # noqa: E731
    else:  # "smollm2", a directory, a colbench train checkpoint, a cached hub id (or one line: not found)
        from colbench_env.lm.models import load_causal_lm, load_tokenizer, resolve_model

        source = resolve_model(model, option="--model")
        tok = load_tokenizer(source)
        critic_base = lambda: load_causal_lm(source)  # noqa: E731
        policy_base = lambda: load_causal_lm(source)  # noqa: E731

    out: dict = {}
    for use_info in (True, False):
        cfg = SweetRLConfig(use_training_info=use_info, beta=beta, pairs_per_batch=8, seed=seed, train_policy=False,
                            policy={"lora_r": 4, "lora_alpha": 8}, max_length=max_length,
                            critic={"learning_rate": learning_rate, "lora_r": lora_r, "lora_alpha": 2 * lora_r,
                                    "pairs_per_batch": batch_size, "epochs": epochs})
        trainer = SweetRL(cfg, model=policy_base(), tokenizer=tok, critic=critic_base(), formatter=formatter)
        m = trainer.update_critic(train)
        name = "logprob_with_info" if use_info else "logprob_without_info"
        out[f"pairwise_accuracy_{name}"] = pairwise_accuracy(lambda r: float(trainer.trajectory_score(r)), test_pairs)
        out[f"critic_loss_{name}"] = m["critic_loss"]

    torch.manual_seed(seed)
    vh = ValueHeadCritic(critic_base(), tok, formatter, info_fields=["ground_truth"], lora_r=lora_r,
                         lora_alpha=2 * lora_r, learning_rate=learning_rate, seed=seed, max_length=max_length)
    vh_epochs = epochs if value_head_epochs is None else value_head_epochs
    m = vh.train_pairs(train_pairs, epochs=vh_epochs, batch_size=batch_size, seed=seed)
    out["pairwise_accuracy_value_head_with_info"] = pairwise_accuracy(vh.trajectory_score, test_pairs)
    out["critic_loss_value_head_with_info"] = m["critic_loss"]

    out.update({"n_train_tasks": n_train_tasks, "n_test_tasks": n_test_tasks, "n_train_pairs": len(train_pairs),
                "n_test_pairs": len(test_pairs), "epochs": epochs, "value_head_epochs": vh_epochs, "beta": beta, "learning_rate": learning_rate,
                "lora_r": lora_r, "batch_size": batch_size, "seed": seed,
                "model": model_name or "tiny random Llama (2 layers, hidden 64) + SmolLM2 tokenizer", **data,
                "value_head_score": "value of the final state", "seconds": time.perf_counter() - t0})
    return out


def markdown_table(result: dict) -> str:
    """The three accuracies (and last-epoch BT losses) as a Markdown table."""
    rows = [("log-prob ratio (SWEET-RL)", "yes", "logprob_with_info"),
            ("log-prob ratio", "no", "logprob_without_info"),
            ("value head (final state)", "yes", "value_head_with_info")]
    lines = [f"Held-out pairwise accuracy ({result['n_test_pairs']} pairs from {result['n_test_tasks']} unseen tasks; "
             f"{result['n_train_pairs']} training pairs; ties count 1/2). Data: {result.get('data', 'synthetic')}; "
             f"critic model: {result['model']}.", "",
             "| critic | training-time info | epochs | pairwise accuracy | last-epoch BT loss |", "|---|---|---|---|---|"]
    epochs = {"logprob_with_info": result["epochs"], "logprob_without_info": result["epochs"],
              "value_head_with_info": result.get("value_head_epochs", result["epochs"])}
    for label, info, key in rows:
        lines.append(f"| {label} | {info} | {epochs[key]} | {result['pairwise_accuracy_' + key]:.3f} "
                     f"| {result['critic_loss_' + key]:.4f} |")
    return "\n".join(lines)
