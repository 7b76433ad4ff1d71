"""``colbench critic-ranking``: does training-time information make a better turn-level critic, on
real policy rollouts? (issue 17, part 2)

Setting: the pipeline's ``--small`` environment (generated ``"rate"`` tasks of difficulty 1, compact
prompt, 3 agent turns of 96 tokens, scripted human, reference scoring), one policy (default: the
embedded SmolLM2-135M-Instruct) for collection, candidates and continuations, and the same base LM
for every critic.

Stages, each resumable (a rerun skips finished work; episode files are appended one record per
finished episode):

1. **collect** -- ``k`` rollouts per TRAIN task at ``--rollout-temperature`` ->
   ``train_rollouts.jsonl`` (:func:`colbench.runs.run_policy_episodes`, as the pipeline's collection).
   ``--extra-trajectories`` adds already collected training rollouts (e.g. a pipeline's
   ``rollouts.jsonl``); their tasks must be training tasks, never held-out ones.
2. **candidates** -- for each held-out TEST task, the state before the agent's first action; ``N``
   actions sampled from the policy at ``--candidate-temperature`` -> ``candidates.jsonl``.
3. **continue** -- every candidate is played as the first action of an episode which the policy
   (at ``--continue-temperature``) and the human then finish, ``M`` times ->
   ``continuations.jsonl``. A candidate that ends the episode itself (an answer) has a deterministic
   value: it is played once. The candidate's true value is the mean reward (fraction of tests
   passed) of its continuations, its true success the mean success.
4. **critics** -- three critics trained on the training rollouts only, each on its own LoRA adapter
   of the same base, same learning rate, rank, epochs (``--value-head-epochs`` may give the value
   head's regression more) and batch size, then scoring every candidate
   -> ``scores.jsonl`` (one line per critic):

   * ``sweet_with_info`` -- SWEET-RL's critic (:class:`colbench.agents.sweet_rl.SweetRL`, Bradley-Terry on
     rollout pairs of a task): a candidate's score is its turn advantage
     ``beta * (mean log pi_c(a | o, c) - mean log pi_ref(a | o, c))``
     (:meth:`~colbench.agents.sweet_rl.SweetRL.score_actions`), ``c`` the task's ground truth.
   * ``sweet_without_info`` -- the same with ``use_training_info=False``.
   * ``value_head_with_info`` -- a PPO-style Q critic: a scalar head on the critic LM's last hidden
     state (:class:`colbench.critics.analysis.ValueHeadCritic`), with the training-time information
     in its context, regressed (MSE) on the final reward from the state *after* each agent action of
     the training rollouts that make the SWEET critics' pairs (the same rollouts); a candidate's
     score is the value of the state after it. Its head starts at zero, as PPO's value head
     (:class:`colbench.agents.ppo.PPO`); the training MSE is reported beside the MSE of the constant mean.
   * ``random`` -- seeded uniform scores.

5. **report** -- per critic: pairwise ranking accuracy over the candidate pairs of a state whose true
   values differ (a critic tie counts one half), and the true value / success of its top-ranked
   candidate (best-of-N; tied top candidates are averaged: a random tie-break in expectation); the
   oracle (best true value) and the mean candidate as bounds. Means with 95 % percentile bootstrap
   intervals over held-out tasks (:mod:`colbench.stats`), and paired bootstraps of
   ``sweet_with_info`` against each other critic -> ``results.json``, ``results.md``, ``results.png``.

Run: ``colbench critic-ranking --out-dir DIR`` (:mod:`colbench.cli.critic_ranking`), or :func:`run` with a
:class:`RankingConfig`.
"""
from __future__ import annotations

import dataclasses
import functools
import json
import os
import random
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence


__all__ = ["RankingConfig", "pairwise_ranking", "best_of_n", "candidate_values", "task_metrics", "summarize_critics",
           "check_resume", "run", "markdown", "CRITICS", "STAGES"]

CRITICS = ("random", "sweet_with_info", "sweet_without_info", "value_head_with_info")
BASELINES = ("oracle", "mean_candidate")
STAGES = ("collect", "candidates", "continue", "critics", "report")


@dataclass
class RankingConfig:
    """One critic-ranking run (defaults: the pipeline's ``--small`` environment).

    ``episodes_in_flight``: collection and continuation episodes in flight, each advancing on its
    own; candidates are sampled for
    ``episodes_in_flight // n_candidates`` tasks per call. ``policy_base_url``: generate the
    policy's turns (collection, candidates, continuations) on OpenAI-compatible server(s) that know
    the policy by ``policy`` as given (the path ``smollm2`` resolves to), as
    :attr:`colbench.pipeline.PipelineConfig.policy_base_url`; the critics train here either way.
    """

    out_dir: str = "runs/critic_ranking"
    policy: str = "smollm2"
    policy_base_url: str | None = None
    difficulty: int = 1
    family: str = "rate"
    prompt_style: str = "compact"
    max_turns: int = 3
    max_new_tokens: int = 96
    semantics: str = "reference"
    # training data
    train_offset: int = 16          # own collection starts after the pipeline's first 16 training tasks
    n_train_tasks: int = 32
    rollouts_per_task: int = 4
    rollout_temperature: float = 0.1
    extra_trajectories: tuple = ()
    # held-out states
    n_test_tasks: int = 24
    n_candidates: int = 4
    candidate_temperature: float = 0.7
    n_continuations: int = 4
    continue_temperature: float = 0.1
    episodes_in_flight: int = 8
    # critics (shared by all three)
    critic_epochs: int = 2
    value_head_epochs: int | None = None  # the value head's regression epochs (None: critic_epochs)
    critic_learning_rate: float = 1e-4
    critic_lora_r: int = 8
    critic_batch_size: int = 2
    critic_pairs: str = "all_ordered"
    critic_turns: str = "all"       # "first": train on each rollout's first agent action only
    critic_context: str = "agent"   # "short": a one-line instruction instead of the agent's prompt
    beta: float = 0.1
    max_length: int = 2048
    seed: int = 0
    bootstrap_resamples: int = 10000
    critics: tuple = CRITICS
    stages: tuple = STAGES          # a subset runs only those (e.g. continuations and critics in two processes)

    def __post_init__(self) -> None:
        if isinstance(self.n_train_tasks, bool) or not isinstance(self.n_train_tasks, int) or self.n_train_tasks < 0:
            raise ValueError(f"n_train_tasks must be an integer >= 0, got {self.n_train_tasks!r}")
        if self.n_train_tasks == 0 and not self.extra_trajectories:
            raise ValueError("n_train_tasks is 0 and no extra_trajectories: the critics have no training data")
        for name in ("max_turns", "max_new_tokens", "rollouts_per_task", "n_test_tasks",
                     "n_continuations", "episodes_in_flight", "critic_epochs", "critic_lora_r", "critic_batch_size",
                     "max_length", "bootstrap_resamples"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise ValueError(f"{name} must be a positive integer, got {v!r}")
        if isinstance(self.n_candidates, bool) or not isinstance(self.n_candidates, int) or self.n_candidates < 2:
            raise ValueError(f"n_candidates must be an integer >= 2 (a ranking needs two), got {self.n_candidates!r}")
        if self.train_offset < 0:
            raise ValueError(f"train_offset must be >= 0, got {self.train_offset!r}")
        for name in ("rollout_temperature", "continue_temperature"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} must be >= 0, got {getattr(self, name)!r}")
        if not self.candidate_temperature > 0:
            raise ValueError(f"candidate_temperature must be > 0 (candidates are sampled), got {self.candidate_temperature!r}")
        if not (self.critic_learning_rate > 0 and self.beta > 0):
            raise ValueError("critic_learning_rate and beta must be > 0")
        if self.value_head_epochs is not None and (isinstance(self.value_head_epochs, bool)
                                                   or not isinstance(self.value_head_epochs, int)
                                                   or self.value_head_epochs < 1):
            raise ValueError(f"value_head_epochs must be a positive integer, got {self.value_head_epochs!r}")
        if self.critic_pairs not in ("all_ordered", "best_vs_lower"):
            raise ValueError(f"critic_pairs must be 'all_ordered' or 'best_vs_lower', got {self.critic_pairs!r}")
        if self.critic_turns not in ("all", "first"):
            raise ValueError(f"critic_turns must be 'all' or 'first', got {self.critic_turns!r}")
        if self.critic_context not in ("agent", "short"):
            raise ValueError(f"critic_context must be 'agent' or 'short', got {self.critic_context!r}")
        bad = [c for c in self.critics if c not in CRITICS]
        if bad or not self.critics:
            raise ValueError(f"critics: unknown {bad}; choose from {CRITICS}")
        self.critics = tuple(self.critics)
        bad = [x for x in self.stages if x not in STAGES]
        if bad or not self.stages:
            raise ValueError(f"stages: unknown {bad}; choose from {STAGES}")
        self.stages = tuple(self.stages)
        self.extra_trajectories = tuple(str(p) for p in self.extra_trajectories)
        if self.policy_base_url is not None:
            from colbench_env.lm.openai_compat import split_base_urls

            try:
                self.policy_base_url = ",".join(split_base_urls(self.policy_base_url))
            except ValueError as e:
                raise ValueError(f"policy_base_url: {e}") from None
        from colbench_env.tasks import generated_spec

        generated_spec(1, self.difficulty, self.family)  # the generator's checks


# ---- pure measuring ----------------------------------------------------------------------------------------
def pairwise_ranking(values: Sequence[float], scores: Sequence[float]) -> tuple[float, int]:
    """``(credit, n_pairs)`` over the candidate pairs whose true values differ: credit 1 when the
    critic scores the better candidate higher, 1/2 on a critic tie, 0 otherwise."""
    if len(values) != len(scores):
        raise ValueError(f"{len(values)} values but {len(scores)} scores")
    credit, n = 0.0, 0
    for i in range(len(values)):
        for j in range(i + 1, len(values)):
            if values[i] == values[j]:
                continue
            hi, lo = (i, j) if values[i] > values[j] else (j, i)
            n += 1
            credit += 1.0 if scores[hi] > scores[lo] else 0.5 if scores[hi] == scores[lo] else 0.0
    return credit, n


def best_of_n(values: Sequence[float], scores: Sequence[float]) -> float:
    """The true value of the critic's top-ranked candidate; candidates tied at the top score are
    averaged (the expectation of a random tie-break)."""
    if not values or len(values) != len(scores):
        raise ValueError("best_of_n: need as many scores as values, at least one")
    top = max(scores)
    chosen = [v for v, s in zip(values, scores) if s == top]
    return sum(chosen) / len(chosen)


def candidate_values(records: Sequence[dict], n_candidates: int) -> tuple[list[float], list[float], list[int]]:
    """Per candidate ``0..n_candidates-1`` of one state: (mean reward, mean success, continuations)
    of its continuation records (``record["candidate"]`` names the candidate).

    Raises:
        ValueError: a candidate without any continuation.
    """
    rewards: list[list[float]] = [[] for _ in range(n_candidates)]
    succ: list[list[float]] = [[] for _ in range(n_candidates)]
    for r in records:
        i = r["candidate"]
        rewards[i].append(float(r.get("reward") or 0.0))
        succ[i].append(1.0 if r.get("success") else 0.0)
    missing = [i for i in range(n_candidates) if not rewards[i]]
    if missing:
        raise ValueError(f"candidates {missing} have no continuation")
    return ([sum(x) / len(x) for x in rewards], [sum(x) / len(x) for x in succ], [len(x) for x in rewards])


def task_metrics(values: Sequence[float], successes: Sequence[float], scores: Sequence[float]) -> dict:
    """One state's measures for one critic: ranking credit/pairs and best-of-N value/success."""
    credit, n = pairwise_ranking(values, scores)
    return {"ranking_credit": credit, "ranking_pairs": n,
            "ranking_accuracy": credit / n if n else None,
            "best_value": best_of_n(values, scores), "best_success": best_of_n(successes, scores)}


def summarize_critics(states: list[dict], scores: dict[str, dict[str, list[float]]], *, resamples: int = 10000,
                      seed: int = 0) -> dict:
    """Means and 95 % bootstrap intervals over held-out tasks, per critic, and paired comparisons
    of ``sweet_with_info`` against each other critic.

    Args:
        states: ``{"task_id", "values", "successes"}`` per state (one state per task here).
        scores: ``{critic: {task_id: [score per candidate]}}``.

    Per task: ranking accuracy = credit / pairs over the task's states (tasks without a pair of
    differing values are left out of the ranking measure and counted), best-of-N value/success =
    mean over its states. The oracle and the mean candidate are reported as ``critics``-like rows.
    """
    import numpy as np

    from colbench.stats import bootstrap_mean, paired_bootstrap

    by_task: dict[str, list[dict]] = {}
    for st in states:
        by_task.setdefault(st["task_id"], []).append(st)
    tasks = sorted(by_task)
    rows: dict[str, dict] = {}
    per_task: dict[str, dict[str, dict]] = {}
    for critic, sc in scores.items():
        pt = {}
        for t in tasks:
            ms = [task_metrics(st["values"], st["successes"], sc[t]) for st in by_task[t]]
            n = sum(m["ranking_pairs"] for m in ms)
            pt[t] = {"ranking_accuracy": sum(m["ranking_credit"] for m in ms) / n if n else None, "ranking_pairs": n,
                     "best_value": float(np.mean([m["best_value"] for m in ms])),
                     "best_success": float(np.mean([m["best_success"] for m in ms]))}
        per_task[critic] = pt
    for name, pick in (("oracle", max), ("mean_candidate", lambda v: sum(v) / len(v))):
        per_task[name] = {t: {"ranking_accuracy": None, "ranking_pairs": 0,
                              "best_value": float(np.mean([pick(st["values"]) for st in by_task[t]])),
                              "best_success": float(np.mean([
                                  pick(st["successes"]) if name == "mean_candidate"
                                  else st["successes"][int(np.argmax(st["values"]))] for st in by_task[t]]))}
                          for t in tasks}
    ranked = [t for t in tasks if by_task[t] and any(pairwise_ranking(st["values"], st["values"])[1]
                                                     for st in by_task[t])]
    for name, pt in per_task.items():
        row: dict[str, Any] = {}
        for key in ("best_value", "best_success"):
            row[key] = bootstrap_mean([pt[t][key] for t in tasks], resamples=resamples, seed=seed).as_dict()
        if name in scores and ranked:
            row["ranking_accuracy"] = bootstrap_mean([pt[t]["ranking_accuracy"] for t in ranked], resamples=resamples,
                                                     seed=seed).as_dict()
            row["ranking_pairs"] = sum(pt[t]["ranking_pairs"] for t in ranked)
            row["ranking_accuracy_pooled"] = (sum(pt[t]["ranking_accuracy"] * pt[t]["ranking_pairs"] for t in ranked)
                                              / row["ranking_pairs"])
        rows[name] = row
    comparisons: dict[str, dict] = {}
    ref = "sweet_with_info"
    if ref in scores:
        for other in [c for c in per_task if c != ref]:
            comp = {}
            for key in ("best_value", "best_success"):
                comp[key] = paired_bootstrap([per_task[ref][t][key] for t in tasks],
                                             [per_task[other][t][key] for t in tasks], resamples=resamples,
                                             seed=seed).as_dict()
            if other in scores and ranked:
                comp["ranking_accuracy"] = paired_bootstrap(
                    [per_task[ref][t]["ranking_accuracy"] for t in ranked],
                    [per_task[other][t]["ranking_accuracy"] for t in ranked], resamples=resamples, seed=seed).as_dict()
            comparisons[f"{ref} - {other}"] = comp
    return {"rows": rows, "comparisons": comparisons, "n_tasks": len(tasks), "n_tasks_ranked": len(ranked),
            "per_task": per_task}


# ---- stages ------------------------------------------------------------------------------------------------
def _log(msg: str) -> None:
    print(f"[critic-ranking {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def _read_jsonl(path: Path) -> list[dict]:
    """The records of a stage's file (none when it does not exist yet); a partial last line from an
    interrupted run is left out (its record is made again)."""
    from colbench_env.trajectories import read_jsonl

    return [rec for _, rec in read_jsonl(path, tolerate_partial_last_line=True)] if path.exists() else []


def _append(path: Path, rec: dict) -> None:
    from colbench_env.trajectories import append_jsonl

    append_jsonl(path, [rec])


def _policy_path(cfg: RankingConfig) -> str:
    """The policy's loadable path, resolved as the pipeline resolves its base policy."""
    from colbench.runs import resolve_policy

    return resolve_policy(cfg.policy, served=bool(cfg.policy_base_url))


def split_tasks(cfg: RankingConfig) -> tuple[list, list]:
    """(training tasks of the own collection, held-out test tasks)."""
    from colbench_env.tasks import generated_spec, load_tasks

    train = load_tasks(generated_spec(cfg.train_offset + cfg.n_train_tasks, cfg.difficulty, cfg.family),
                       kind="backend", split="train")[cfg.train_offset:] if cfg.n_train_tasks else []
    test = load_tasks(generated_spec(cfg.n_test_tasks, cfg.difficulty, cfg.family), kind="backend", split="test")
    return train, test


def load_extra(paths: Sequence[str], test_ids: set) -> list[dict]:
    """Scored training rollouts from ``paths``; a record of a held-out task or without a reward is
    an error naming its file and line."""
    from colbench_env.trajectories import read_jsonl, validate_trajectory

    out = []
    for p in paths:
        for line, rec in read_jsonl(p):
            validate_trajectory(rec, source=str(p), line=line)
            if rec.get("reward") is None:
                raise ValueError(f"{p}:{line}: field 'reward': missing (score the file with 'colbench evaluate' first)")
            tid = rec["task"].get("task_id")
            if tid in test_ids:
                raise ValueError(f"{p}:{line}: field 'task.task_id': {tid!r} is a held-out task; critics must not "
                                 "train on it")
            out.append(rec)
    return out


def collect(cfg: RankingConfig, out: Path, train_tasks: list) -> list[dict]:
    """``rollouts_per_task`` rollouts of each training task at ``rollout_temperature`` (appended to
    ``train_rollouts.jsonl``, resumed)."""
    from colbench.runs import run_policy_episodes

    if not train_tasks:
        return []
    return run_policy_episodes("ColBench-Backend-v0", train_tasks,
                               lambda: make_agent(cfg, cfg.rollout_temperature, cfg.seed), out / "train_rollouts.jsonl",
                               repeats=cfg.rollouts_per_task, seed=cfg.seed, max_turns=cfg.max_turns,
                               episodes_in_flight=cfg.episodes_in_flight, semantics=cfg.semantics, desc="collect")


def make_agent(cfg: RankingConfig, temperature: float, seed: int):
    """The policy: here, or on ``cfg.policy_base_url`` (asked for by its name relative to ``out_dir``,
    as the pipeline's collection asks; :func:`colbench.runs.policy_agent`)."""
    from colbench.runs import policy_agent

    return policy_agent(_policy_path(cfg), max_turns=cfg.max_turns, prompt_style=cfg.prompt_style,
                        max_new_tokens=cfg.max_new_tokens, temperature=temperature, seed=seed,
                        base_url=cfg.policy_base_url, run_dir=cfg.out_dir)


def sample_candidates(cfg: RankingConfig, out: Path, test_tasks: list) -> dict[str, list[str]]:
    """``N`` candidate first actions per held-out task (appended to ``candidates.jsonl`` per task)."""
    from colbench.errors import StageFailed
    from colbench_env.lm.base import BackendError, SamplingParams, derived_seed

    path = out / "candidates.jsonl"
    have = {r["task_id"]: r["candidates"] for r in _read_jsonl(path)}
    todo = [t for t in test_tasks if t.task_id not in have]
    if todo:
        agent = make_agent(cfg, cfg.candidate_temperature, cfg.seed)
        try:
            per_call = max(1, cfg.episodes_in_flight // cfg.n_candidates)
            for s in range(0, len(todo), per_call):
                chunk = todo[s:s + per_call]
                msgs = [agent.messages({"problem_description": t.problem_description, "dialogue": "[]"}) for t in chunk]
                params = SamplingParams(max_new_tokens=cfg.max_new_tokens, temperature=cfg.candidate_temperature,
                                        n=cfg.n_candidates, seed=derived_seed(cfg.seed + 1, s))
                try:
                    gens = agent.lm.generate(msgs, params)
                except BackendError as e:  # the policy's server failed: the tasks done so far are kept
                    raise StageFailed(f"{path}: candidates of {len(have)} of {len(test_tasks)} tasks written; then "
                                      f"the policy failed: {str(e)[:300]}; run the same command again to "
                                      "continue") from None
                for k, t in enumerate(chunk):
                    cands = [g.text for g in gens[k * cfg.n_candidates:(k + 1) * cfg.n_candidates]]
                    _append(path, {"task_id": t.task_id, "turn": 0, "history": [], "candidates": cands})
                    have[t.task_id] = cands
                _log(f"candidates: {len(have)}/{len(test_tasks)} tasks")
        finally:
            agent.close()
    return {t.task_id: have[t.task_id] for t in test_tasks}


def continue_candidates(cfg: RankingConfig, out: Path, test_tasks: list, candidates: dict,
                        waves: Sequence[int] = (0, 1)) -> list[dict]:
    """Continuation episodes (appended to ``continuations.jsonl``, resumed by episode id): wave 0
    plays every candidate once, wave 1 the other ``M - 1`` continuations of those that did not end
    the episode themselves. Each is an episode whose first agent action is the candidate
    (:attr:`colbench_env.rollout.EpisodeSpec.forced_actions`); its record gets ``task_id``,
    ``candidate``, ``repeat`` and ``agent_turns`` (the candidate's turn included).

    Raises:
        StageFailed: episodes of a wave ended with an error (a server failed): they are not
            recorded (the others are) and are played on resume.
    """
    import gymnasium as gym

    import colbench_env  # noqa: F401
    from colbench.errors import StageFailed
    from colbench.runs import scoring_pool
    from colbench_env.rollout import EpisodeSpec, run_episodes
    from colbench_env.simulators import make_simulator

    path = out / "continuations.jsonl"
    done = {r["episode_id"]: r for r in _read_jsonl(path)}
    ended_at_once = {(r["task_id"], r["candidate"]) for r in done.values() if r["agent_turns"] == 1}

    def jobs(wave: int) -> dict[str, tuple[EpisodeSpec, dict]]:
        js = {}
        for t in test_tasks:
            for i, a in enumerate(candidates[t.task_id]):
                reps = [0] if wave == 0 else range(1, cfg.n_continuations)
                for m in reps:
                    if wave == 1 and (t.task_id, i) in ended_at_once:
                        continue  # the candidate answered: its value is deterministic, played once
                    eid = f"{t.task_id}/c{i}/m{m}"
                    if eid not in done:
                        js[eid] = (EpisodeSpec(eid, None, {"task_id": t.task_id}, forced_actions=(a,)),
                                   {"task_id": t.task_id, "candidate": i, "repeat": m})
        return js

    agent = None
    sim = make_simulator("scripted", kind="backend")
    try:
        with scoring_pool("backend", semantics=cfg.semantics) as shared:
            for wave in waves:
                js = jobs(wave)
                if not js:
                    continue
                _log(f"continue wave {wave}: {len(js)} episodes")
                if agent is None:
                    agent = make_agent(cfg, cfg.continue_temperature, cfg.seed + 2)
                count, failed = [0], []

                def keep(rec: dict) -> None:
                    if rec.get("error"):  # not recorded: played again on resume
                        failed.append(rec["error"])
                        return
                    rec.update(js[rec["episode_id"]][1])
                    rec["agent_turns"] = sum(1 for m in rec["dialogue_history"] if m["role"] == "assistant")
                    _append(path, rec)
                    done[rec["episode_id"]] = rec
                    if rec["agent_turns"] == 1:
                        ended_at_once.add((rec["task_id"], rec["candidate"]))
                    count[0] += 1
                    if count[0] % 8 == 0:
                        _log(f"continue wave {wave}: {count[0]}/{len(js)}")

                run_episodes(lambda: gym.make("ColBench-Backend-v0", tasks=test_tasks, simulator=sim,
                                              max_turns=cfg.max_turns, **shared),
                             agent, [spec for spec, _ in js.values()], episodes_in_flight=cfg.episodes_in_flight,
                             on_episode=keep)
                if failed:
                    raise StageFailed(f"{path}: {len(failed)} of {len(js)} continuation episodes of wave {wave} ended "
                                      f"with an error (first: {str(failed[0])[:300]}); they are not recorded: run "
                                      "the same command again to play them")
    finally:
        sim.close()
        if agent is not None:
            agent.close()
    return list(done.values())


def critic_states(cfg: RankingConfig, test_tasks: list, candidates: dict) -> list[dict]:
    """What the critics see of each held-out state: the task record, the candidates and, per
    candidate, the dialogue after it (the message the env records for it)."""
    from colbench_env.protocol import parse_agent_turn

    return [{"task_id": t.task_id, "task": t.to_record(), "candidates": candidates[t.task_id],
             "after_action": [[{"role": "assistant", "content": parse_agent_turn(a, last_turn=cfg.max_turns <= 1).message,
                                "output": a}] for a in candidates[t.task_id]]} for t in test_tasks]


def value_states(test_tasks: list, conts: list[dict], n: int) -> list[dict]:
    """Each held-out state's true candidate values from its continuations."""
    by: dict[str, list[dict]] = {}
    for r in conts:
        by.setdefault(r["task_id"], []).append(r)
    states = []
    for t in test_tasks:
        if not {r["candidate"] for r in by.get(t.task_id, [])} >= set(range(n)):
            continue  # not every candidate played yet (an interrupted run): left out, counted in the report
        values, succ, counts = candidate_values(by[t.task_id], n)
        states.append({"task_id": t.task_id, "values": values, "successes": succ, "continuations": counts})
    return states


SHORT_INSTRUCTION = ("A user asks an assistant for a Python function. The assistant may ask the user questions "
                     "before it answers with the code.")


def short_critic_formatter(task: dict, history: list) -> list[dict]:
    """The critics' short context (``critic_context="short"``): a one-line instruction, the problem,
    then the turns -- the agent's prompt without its instructions and worked example."""
    from colbench_env.prompting import dialogue_messages

    return [{"role": "system", "content": SHORT_INSTRUCTION}, {"role": "user", "content": task["problem_description"]},
            *dialogue_messages(history)]


def critic_formatter(cfg: RankingConfig):
    from colbench_env.prompting import record_messages

    if cfg.critic_context == "short":
        return short_critic_formatter
    return functools.partial(record_messages, max_turns=cfg.max_turns, style=cfg.prompt_style)


def critic_training_records(cfg: RankingConfig, train: Sequence[dict]) -> list[dict]:
    """The training rollouts as the critics see them: whole, or (``critic_turns="first"``) cut after
    their first agent action, keeping the episode's final reward."""
    if cfg.critic_turns == "all":
        return list(train)
    out = []
    for r in train:
        dh = r["dialogue_history"]
        k = next((i for i, m in enumerate(dh) if m.get("role") == "assistant"), None)
        if k is not None:
            out.append(dict(r, dialogue_history=dh[:k + 1]))
    return out


def _sweet_config(cfg: RankingConfig, use_info: bool, base: str):
    from colbench.agents.config import ModelConfig
    from colbench.agents.sweet_rl import CriticConfig, SweetRLConfig

    return SweetRLConfig(policy=ModelConfig(model_name_or_path=base, lora_r=4, lora_alpha=8),
                         critic=CriticConfig(learning_rate=cfg.critic_learning_rate, lora_r=cfg.critic_lora_r,
                                             lora_alpha=2 * cfg.critic_lora_r, pairs_per_batch=cfg.critic_batch_size,
                                             epochs=cfg.critic_epochs),
                         use_training_info=use_info, beta=cfg.beta, critic_pairs=cfg.critic_pairs,
                         pairs_per_batch=cfg.n_candidates,  # candidate actions scored per critic forward pass
                         seed=cfg.seed, train_policy=False, max_length=cfg.max_length, max_turns=cfg.max_turns,
                         prompt_style=cfg.prompt_style, max_new_tokens=cfg.max_new_tokens)


def value_examples(records: Sequence[dict]) -> list[tuple[dict, float]]:
    """``(record cut after agent action t, final reward)`` for every agent action of every rollout:
    the regression targets of the Q critic."""
    out = []
    for r in records:
        dh = r["dialogue_history"]
        for k, m in enumerate(dh):
            if m.get("role") == "assistant":
                out.append(({"task": r["task"], "dialogue_history": dh[:k + 1]}, float(r.get("reward") or 0.0)))
    return out


def train_and_score(cfg: RankingConfig, critic: str, train: list[dict], states: list[dict]) -> dict:
    """Train one critic on ``train`` and score every state's candidates: ``{"scores": {task_id: [..]}, ...}``."""
    import torch

    t0 = time.perf_counter()
    base = _policy_path(cfg)
    info: dict[str, Any] = {"critic": critic}
    if critic == "random":
        rng = random.Random(cfg.seed)
        info["scores"] = {st["task_id"]: [rng.random() for _ in st["candidates"]] for st in states}
    elif critic.startswith("sweet"):
        from colbench.agents.sweet_rl import SweetRL

        trainer = SweetRL(_sweet_config(cfg, critic == "sweet_with_info", base), formatter=critic_formatter(cfg))
        m = trainer.update_critic(train)
        info["train"] = m
        info["scores"] = {st["task_id"]: [float(x) for x in trainer.score_actions(st["task"], [], st["candidates"],
                                                                                   baseline="critic_reference")]
                          for st in states}
        del trainer
    else:
        from colbench.critics.analysis import ValueHeadCritic
        from colbench_env.lm.models import load_causal_lm, load_tokenizer, resolve_model

        source = resolve_model(base, option="--policy")
        tok = load_tokenizer(source)
        torch.manual_seed(cfg.seed)
        vh = ValueHeadCritic(load_causal_lm(source), tok, critic_formatter(cfg), info_fields=["ground_truth"],
                             lora_r=cfg.critic_lora_r, lora_alpha=2 * cfg.critic_lora_r,
                             learning_rate=cfg.critic_learning_rate, seed=cfg.seed, max_length=cfg.max_length,
                             head_init="zeros")  # PPO's value head starts at 0 (colbench.agents.ppo)
        ex = value_examples(pair_rollouts(cfg, train))
        m = vh.train_regression(ex, epochs=cfg.value_head_epochs or cfg.critic_epochs,
                                batch_size=2 * cfg.critic_batch_size, seed=cfg.seed)
        targets = [t for _, t in ex]
        mean = sum(targets) / len(targets)  # what a constant predictor would score: the bar a fitted head beats
        info["train"] = dict(m, mse_of_constant_mean=sum((t - mean) ** 2 for t in targets) / len(targets))
        scores = {}
        with torch.no_grad():
            for st in states:
                recs = [{"task": st["task"], "dialogue_history": h} for h in st["after_action"]]
                scores[st["task_id"]] = [float(x) for x in vh.values(recs)]
        info["scores"] = scores
        del vh
    info["seconds"] = time.perf_counter() - t0
    return info


def pair_rollouts(cfg: RankingConfig, train: list[dict]) -> list[dict]:
    """The rollouts that appear in the SWEET critics' pairs: the value head's training data (the same
    rollouts; a task whose rollouts all score the same teaches no ranking and is left out for all)."""
    from colbench.agents.sweet_rl import critic_pairs

    return list({id(r): r for p in critic_pairs(train, 0.0, cfg.critic_pairs) for r in p}.values())


def critic_data_sizes(cfg: RankingConfig, train: list[dict]) -> dict:
    from colbench.agents.sweet_rl import critic_pairs

    used = pair_rollouts(cfg, train)
    return {"n_train_rollouts": len(train), "n_train_tasks": len({r["task"]["task_id"] for r in train}),
            "n_sweet_pairs": len(critic_pairs(train, 0.0, cfg.critic_pairs)), "n_rollouts_in_pairs": len(used),
            "n_tasks_in_pairs": len({r["task"]["task_id"] for r in used}),
            "n_value_examples": len(value_examples(used))}


# ---- report ------------------------------------------------------------------------------------------------
LABELS = {"sweet_with_info": "SWEET-RL critic, with training-time info",
          "sweet_without_info": "SWEET-RL critic, without info",
          "value_head_with_info": "value head Q(s,a) (MSE), with info",
          "random": "random (seeded)", "oracle": "oracle (best true value)", "mean_candidate": "mean candidate"}


def _fmt(iv: dict | None, scale: float = 1.0, digits: int = 3) -> str:
    if not iv:
        return "--"
    return f"{iv['mean'] * scale:.{digits}f} [{iv['low'] * scale:.{digits}f}, {iv['high'] * scale:.{digits}f}]"


def markdown(result: dict) -> str:
    s = result["summary"]
    d = result["data"]
    lines = [f"Held-out states: the state before the first agent action of {s['n_tasks']} test tasks "
             f"({s['n_tasks_ranked']} with at least one candidate pair of different true values); "
             f"{d['n_candidates']} candidates per state (T={result['config']['candidate_temperature']}), "
             f"each continued {d['n_continuations']} times (T={result['config']['continue_temperature']}; "
             f"a candidate that answers at once is played once). Critics trained on {d['n_train_rollouts']} rollouts "
             f"of {d['n_train_tasks']} training tasks. Means with 95 % bootstrap intervals over tasks.", *(
                 [f"", f"**Warning: only {s['n_tasks_ranked']} task(s) with a ranked pair and {s['n_tasks']} with values: "
                  "the intervals and p-values over so few tasks are degenerate; this table supports no conclusion.**"]
                 if s["n_tasks_ranked"] < 5 else []), "",
             "| critic | pairwise ranking accuracy | pairs | best-of-N true value (% tests) | best-of-N true success (%) |",
             "|---|---|---|---|---|"]
    for name in (*[c for c in CRITICS if c in s["rows"]], *BASELINES):
        r = s["rows"][name]
        lines.append(f"| {LABELS[name]} | {_fmt(r.get('ranking_accuracy'))} | {r.get('ranking_pairs', '--')} | "
                     f"{_fmt(r['best_value'], 100, 1)} | {_fmt(r['best_success'], 100, 1)} |")
    lines += ["", "Paired bootstrap, SWEET-RL with info minus each other (difference [95 % interval], p):", "",
              "| comparison | ranking accuracy | best-of-N value (% tests) | best-of-N success (%) |", "|---|---|---|---|"]
    for name, c in s["comparisons"].items():
        def f(k, scale=1.0, digits=3):
            if k not in c:
                return "--"
            x = c[k]
            return (f"{x['diff_mean'] * scale:+.{digits}f} [{x['diff_low'] * scale:+.{digits}f}, "
                    f"{x['diff_high'] * scale:+.{digits}f}], p={x['p_value']:.2f}")
        lines.append(f"| {name} | {f('ranking_accuracy')} | {f('best_value', 100, 1)} | {f('best_success', 100, 1)} |")
    return "\n".join(lines) + "\n"


def plot(result: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    s = result["summary"]["rows"]
    fig, axes = plt.subplots(1, 2, figsize=(11.5, 4))
    crit = [c for c in CRITICS if c in s]
    ax = axes[0]
    ys = [c for c in crit if "ranking_accuracy" in s[c]]
    for k, c in enumerate(ys):
        iv = s[c]["ranking_accuracy"]
        ax.errorbar(iv["mean"], k, xerr=[[iv["mean"] - iv["low"]], [iv["high"] - iv["mean"]]], fmt="o", capsize=4)
    ax.axvline(0.5, color="grey", ls="--", lw=1)
    ax.set_yticks(range(len(ys)), [LABELS[c] for c in ys])
    ax.set_xlabel("pairwise ranking accuracy (95 % CI over tasks)")
    ax.set_xlim(0, 1)
    ax = axes[1]
    names = [*crit, *BASELINES]
    for k, c in enumerate(names):
        iv = s[c]["best_value"]
        ax.errorbar(100 * iv["mean"], k, xerr=[[100 * (iv["mean"] - iv["low"])], [100 * (iv["high"] - iv["mean"])]],
                    fmt="o", capsize=4, color="black" if c in BASELINES else None)
    ax.set_yticks(range(len(names)), [LABELS[c] for c in names])
    ax.set_xlabel("best-of-N: true value of the top-ranked\ncandidate (% tests, 95 % CI over tasks)")
    fig.suptitle("Turn-level critics on held-out first-turn states (SmolLM2-135M policy, rate tasks)")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def report(cfg: RankingConfig, out: Path, test_tasks: list, conts: list[dict], have: dict, train: list[dict],
           extra: list[dict], own: list[dict], times: dict, critics: Sequence[str]) -> dict:
    """Write ``results.json``, ``results.md`` and ``results.png`` from the continuations and the
    critics finished so far."""
    import platform

    states = value_states(test_tasks, conts, cfg.n_candidates)
    if not states:
        raise ValueError(f"{out}: no held-out task has a continuation of every candidate yet: nothing to report")
    summary = summarize_critics(states, {c: have[c]["scores"] for c in critics},
                                resamples=cfg.bootstrap_resamples, seed=cfg.seed)
    data = {**critic_data_sizes(cfg, train), "n_states": len(states), "n_candidates": cfg.n_candidates,
            "n_continuations": cfg.n_continuations, "n_continuation_episodes": len(conts),
            "n_candidates_answering_at_once": sum(1 for r in conts if r["repeat"] == 0 and r["agent_turns"] == 1),
            "min_continuations_per_candidate": min(c for st in states for c in st["continuations"]),
            "n_test_tasks_planned": len(test_tasks), "n_test_tasks_with_values": len(states),
            "n_extra_rollouts": len(extra), "n_collected_rollouts": len(own)}
    result = {"config": dataclasses.asdict(cfg), "data": data, "summary": summary,
              "critics_finished": list(critics),
              "critic_training": {c: {k: v for k, v in have[c].items() if k not in ("scores", "critic")}
                                  for c in critics},
              "states": states, "stage_seconds_this_invocation": dict(times),
              "machine": f"{platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}"}
    (out / "results.json").write_text(json.dumps(result, indent=2, allow_nan=False) + "\n")
    (out / "results.md").write_text(markdown(result))
    plot(result, out / "results.png")
    return result


# ---- the run -----------------------------------------------------------------------------------------------
_EPISODE = ("policy", "difficulty", "family", "prompt_style", "max_turns", "max_new_tokens", "semantics", "seed")
_COLLECT = ("train_offset", "n_train_tasks", "rollouts_per_task", "rollout_temperature")
_CANDIDATES = ("n_candidates", "candidate_temperature")
#: each stage's file -> the settings it was made with (a resume must not change them)
MADE_WITH = {"train_rollouts.jsonl": _EPISODE + _COLLECT,
             "candidates.jsonl": _EPISODE + _CANDIDATES,
             "continuations.jsonl": _EPISODE + _CANDIDATES + ("continue_temperature",),
             "scores.jsonl": _EPISODE + _COLLECT + _CANDIDATES + (
                 "n_test_tasks", "extra_trajectories", "critic_epochs", "value_head_epochs", "critic_learning_rate",
                 "critic_lora_r",
                 "critic_batch_size", "critic_pairs", "critic_turns", "critic_context", "beta", "max_length")}


def check_resume(cfg: RankingConfig) -> None:
    """Every stage resumes the files it finds in ``out_dir``: a run with another setting would report
    the old setting's candidates, continuations or critics as its own. ``config.json`` of the earlier
    invocation says what made them: a ValueError naming it, the field and the file; nothing is
    changed. Free to change: the critics and stages, more held-out tasks or continuations (until
    critics have scored), the episodes in flight, the policy server's URL and the bootstrap
    resamples; not: switching between a served and a local policy
    (:func:`colbench.resume.policy_server_changed`), which every file depends on."""
    from colbench.resume import changed_fields, policy_server_changed, read_json_object

    out = Path(cfg.out_dir)
    path = out / "config.json"
    made = [name for name in MADE_WITH if (out / name).exists() and (out / name).stat().st_size]
    if not path.exists() or not made:
        return
    old, want = read_json_object(path), dataclasses.asdict(cfg)
    for name in made:
        diffs = changed_fields(old, want, MADE_WITH[name]) + policy_server_changed(old, cfg.policy_base_url)
        if diffs:
            f, was, now = diffs[0]
            raise ValueError(f"{path}: field {f!r}: {was!r}, but this run asks {now!r} ({out / name} "
                             f"was made with the former): use another --out-dir")


def run(cfg: RankingConfig) -> dict:
    """Run (or resume) every stage; returns the result written to ``results.json``."""
    from colbench_env.lm.heap import limit_heap_retention, release_memory

    limit_heap_retention()
    check_resume(cfg)
    out = Path(cfg.out_dir)
    out.mkdir(parents=True, exist_ok=True)
    from colbench.provenance import record_invocation

    note = record_invocation(out, "critic-ranking")  # which code made the files: invocations.jsonl
    if note:
        print(note, file=sys.stderr)
    (out / "config.json").write_text(json.dumps(dataclasses.asdict(cfg), indent=2, allow_nan=False) + "\n")
    times: dict[str, float] = {}
    train_tasks, test_tasks = split_tasks(cfg)
    test_ids = {t.task_id for t in test_tasks}
    assert not test_ids & {t.task_id for t in train_tasks}
    extra = load_extra(cfg.extra_trajectories, test_ids)
    st = set(cfg.stages)
    t0 = time.perf_counter()
    own = collect(cfg, out, train_tasks) if "collect" in st else _read_jsonl(out / "train_rollouts.jsonl")
    times["collect"] = time.perf_counter() - t0
    train = own + extra
    _log(f"training rollouts: {len(own)} collected + {len(extra)} extra")
    t0 = time.perf_counter()
    if "candidates" in st:
        cands = sample_candidates(cfg, out, test_tasks)
    else:
        have_c = {r["task_id"]: r["candidates"] for r in _read_jsonl(out / "candidates.jsonl")}
        missing = [t.task_id for t in test_tasks if t.task_id not in have_c]
        if missing:
            raise ValueError(f"{out / 'candidates.jsonl'}: no candidates for {missing}; run the 'candidates' stage")
        cands = {t.task_id: have_c[t.task_id] for t in test_tasks}
    times["candidates"] = time.perf_counter() - t0
    conts = _read_jsonl(out / "continuations.jsonl")
    if "continue" in st:
        t0 = time.perf_counter()
        conts = continue_candidates(cfg, out, test_tasks, cands, waves=(0,))
        times["continue_wave_0"] = time.perf_counter() - t0
        release_memory()
    states = critic_states(cfg, test_tasks, cands)
    critic_train = critic_training_records(cfg, train)
    scores_path = out / "scores.jsonl"
    have = {r["critic"]: r for r in _read_jsonl(scores_path)}
    result: dict = {}
    can_report = "report" in st and bool(value_states(test_tasks, conts, cfg.n_candidates))
    for critic in cfg.critics if "critics" in st else ():  # a report after each critic
        if critic not in have:
            _log(f"critic {critic}: training on {len(critic_train)} rollouts")
            t0 = time.perf_counter()
            info = train_and_score(cfg, critic, critic_train, states)
            _append(scores_path, info)
            have[critic] = info
            times[f"critic_{critic}"] = time.perf_counter() - t0
            _log(f"critic {critic}: done in {info['seconds']:.0f} s")
            release_memory()
        if can_report:
            result = report(cfg, out, test_tasks, conts, have, critic_train, extra, own, times,
                            [c for c in cfg.critics if c in have])
    if "continue" in st and cfg.n_continuations > 1:
        t0 = time.perf_counter()
        conts = continue_candidates(cfg, out, test_tasks, cands, waves=(1,))
        times["continue_wave_1"] = time.perf_counter() - t0
    if "report" in st:
        result = report(cfg, out, test_tasks, conts, have, critic_train, extra, own, times,
                        [c for c in cfg.critics if c in have])
        _log(f"report: {out / 'results.md'}")
    return result
