"""The matched-budget study (issue 48 part 3): SWEET-RL against multi-turn DPO at one training budget,
on the committed warm-start data of ``studies/ask_family`` (sections 5b and 5c).

Four arms, each a LoRA policy DPO on the warm start ``--policy`` (sha256 checked), all with the same
settings (SWEET-RL's policy DPO, :func:`colbench.pipeline.budget.shared_preference_settings`:
learning rate 1e-4, beta 0.1, NLL 0.01, 4 pairs per micro-batch, 2 epochs) and on the same number of
pairs (each arm's pairs counted first, then every arm a seeded subsample of the smallest count,
:func:`colbench.agents.mt_dpo.subsample_pairs`), so the same number of optimiser steps:

* ``mt-dpo`` (A): multi-turn DPO on section 5b's rollouts of the seed (``rollouts.jsonl``).
* ``sweet-rl`` (B): SWEET-RL's policy stage on section 5c's step data: the same states and the 4
  candidates per state section 5c sampled, scored by 5c's critic (with training-time information),
  read from its committed ``candidates.jsonl``; pairs drawn as SWEET-RL draws them
  (:func:`colbench.agents.sweet_rl.draw_step_pairs`), then the subsample.
* ``sweet-rl-no-info`` (C): the same candidates scored by a critic trained here, as 5c's critic but
  without the training-time information (``use_training_info=False``); then as B.
* ``sweet-rl-oracle`` (D): the same candidates scored by their true continuation value: the mean
  reward of ``M`` Monte-Carlo continuations (the candidate played at its state, then the scripted
  human and the warm start sampling at the collection temperature 1.0 to the end of the episode;
  a candidate that ends the episode is played once: its value is deterministic). Identical
  (task, earlier agent turns, candidate) share their continuations. Then as B.

Evaluation as section 5b: the 48 held-out tasks, greedy and 2 sampled episodes per task at T = 1.0
(``eval/<arm>.jsonl``, ``eval/<arm>.sampled.jsonl``); zero-shot's files are 5b's (the same warm start,
tasks and seeds), copied. Then ``stats.{md,json,png}`` of the seed (colbench's pipeline statistics,
templates resampled too, the budget table beside) and the study-level ``budget.json``.

Stages (each resumable; a kill loses at most the stage in flight, and the episode stages only their
unfinished episodes): ``critic`` (C's critic and scores), ``oracle`` (D's continuations and values),
``pairs`` (the counts, the matched count), ``train-<arm>``, ``eval-<arm>``, ``stats``. Files of
seed ``N`` go to ``studies/matched_budget/seed-N/`` as each stage finishes; models and critic
weights to ``--work`` (not committed).

Run from the repository root::

    OMP_WAIT_POLICY=PASSIVE /usr/bin/time -v python -m studies.matched_budget.run --seed 0 \\
        --work runs/matched_budget
"""
from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import random
import shutil
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
WARM = HERE.parent / "ask_family" / "warm_start"
BASE = WARM / "pipeline"                  # section 5b: rollouts, zero-shot evaluations
FULL = WARM / "pipeline_full_budget"      # section 5c: SWEET-RL's candidates, scored by its critic
ARMS = ("mt-dpo", "sweet-rl", "sweet-rl-no-info", "sweet-rl-oracle")
STEP_ARMS = ARMS[1:]
#: the comparisons the study reads (first minus second)
COMPARISONS = (("sweet-rl", "mt-dpo"), ("sweet-rl", "sweet-rl-no-info"), ("sweet-rl-oracle", "mt-dpo"),
               ("sweet-rl-oracle", "sweet-rl"), ("sweet-rl-no-info", "mt-dpo"))
#: where `python -m studies.ask_family.warm_start ... --out runs/ws/ask25` (its README, section 5) puts the warm start
POLICY = "runs/ws/ask25/models/rft"
#: the warm start's weights (section 5: rebuilt bit-identical), sha256 of model.safetensors
POLICY_SHA256_PREFIX = "b663e41d"
MC_TEMPERATURE = 1.0


def log(msg: str) -> None:
    print(f"[matched-budget {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def sha256_of(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def check_policy(policy: str) -> str:
    """The warm start's ``model.safetensors`` sha256; SystemExit unless it is the study's model."""
    weights = Path(policy) / "model.safetensors"
    if not weights.exists():
        raise SystemExit(f"{weights}: missing; build the warm start first (studies/ask_family/README.md section 5)")
    digest = sha256_of(weights)
    if not digest.startswith(POLICY_SHA256_PREFIX):
        raise SystemExit(f"{weights}: sha256 {digest[:16]}..., not the warm start's {POLICY_SHA256_PREFIX}...")
    return digest


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def append_jsonl(path: Path, rec: dict) -> None:
    from colbench_env.trajectories import append_jsonl as _append

    _append(path, [rec])


def here_relative(path: Path) -> Path:
    """``path`` relative to the working directory when inside it, else as given: the run folders a
    committed ``stats.json`` names, run from the repository root, do not name the checkout's folder."""
    try:
        return Path(path).resolve().relative_to(Path.cwd().resolve())
    except ValueError:
        return Path(path)


def write_json(path: Path, data) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(json.dumps(data, indent=2, default=str) + "\n", encoding="utf-8")
    tmp.replace(path)


def _as_json(value):
    return json.loads(json.dumps(value, default=str))


def _without_added(old, now, default):
    """``now`` without the settings ``old`` lacks whose value is ``default``'s: a field added to a
    trainer config after a seed started, at its default, ran as the seed did (it did not exist)."""
    if not (isinstance(old, dict) and isinstance(now, dict) and isinstance(default, dict)):
        return now
    return {k: _without_added(old[k], v, default.get(k)) if k in old else v
            for k, v in now.items() if k in old or k not in default or v != default[k]}

class Seed:
    """Everything one seed of the study reads and writes."""

    def __init__(self, seed: int, work: Path, policy: str, mc: int, out: Path = HERE):
        from colbench.agents.config import config_from_dict
        from colbench.agents.mt_dpo_config import MultiTurnDPOConfig
        from colbench.agents.config import merge_config_dicts
        from colbench.pipeline import PipelineConfig, trainer_config
        from colbench.pipeline.budget import shared_preference_settings

        self.seed, self.policy, self.mc = seed, policy, mc
        self.dir = out / f"seed-{seed}"
        self.work = work / f"seed-{seed}"
        self.base, self.full = BASE / f"seed-{seed}", FULL / f"seed-{seed}"
        for need in (self.base / "rollouts.jsonl", self.full / "stages" / "sweet-rl" / "candidates.jsonl"):
            if not need.exists():
                raise SystemExit(f"{need}: missing (the committed warm-start data of seed {seed})")
        fields = {f.name for f in dataclasses.fields(PipelineConfig)}

        def pipeline_config(path: Path) -> PipelineConfig:
            d = json.loads(path.read_text())
            return PipelineConfig(**{k: v for k, v in d.items() if k in fields and k not in ("out_dir", "policy")},
                                  out_dir=str(self.dir), policy=policy)

        #: section 5b's run (evaluation settings, tasks) and 5c's (SWEET-RL's settings)
        self.cfg = pipeline_config(self.base / "config.json")
        self.sweet = trainer_config(pipeline_config(self.full / "config.json"), "sweet-rl", policy)
        shared = shared_preference_settings(self.sweet)
        mt = trainer_config(self.cfg, "mt-dpo", policy)
        self.mt_dpo = config_from_dict(MultiTurnDPOConfig, merge_config_dicts(MultiTurnDPOConfig, mt.to_dict(), shared))
        self.no_info = dataclasses.replace(self.sweet, use_training_info=False)

    # --- data ---------------------------------------------------------------------------------
    def rollouts(self) -> list[dict]:
        from colbench.agents.trainer_base import load_trajectories

        return load_trajectories(self.base / "rollouts.jsonl")

    def states(self, records: list[dict]) -> list[tuple[dict, object]]:
        """SWEET-RL's stage-2 states at ``state_fraction`` 1.0 (every agent turn, in data order), as
        :meth:`colbench.agents.sweet_rl.SweetRL.select_states` lists them (checked against 5c's file)."""
        import functools

        from colbench.agents.tokenize import agent_turns
        from colbench_env.prompting import record_messages

        c = self.sweet
        assert c.state_selection == "first_trajectories" and c.state_fraction == 1.0
        fmt = functools.partial(record_messages, max_turns=c.max_turns, style=c.prompt_style)
        return [(rec, t) for rec in records for t in agent_turns(rec, fmt)]

    def entries_5c(self, records: list[dict]) -> list[dict]:
        """Section 5c's scored states (after the header), checked to be this seed's states in order."""
        from colbench.agents.trainer_base import task_key

        lines = read_jsonl(self.full / "stages" / "sweet-rl" / "candidates.jsonl")[1:]
        states = self.states(records)
        if len(lines) != len(states):
            raise SystemExit(f"{self.full}: {len(lines)} scored states, the rollouts give {len(states)}")
        for k, ((rec, turn), e) in enumerate(zip(states, lines)):
            if (e["state"], e["task"], e["turn"]) != (k, task_key(rec["task"]), turn.index):
                raise SystemExit(f"{self.full}: state {k} is {e['task']} turn {e['turn']}, the rollouts' "
                                 f"{task_key(rec['task'])} turn {turn.index}")
        return lines

    def candidates(self, records: list[dict]) -> list[list]:
        from colbench_env.lm.base import GeneratedText

        return [[GeneratedText(a, r) for a, r in zip(e["actions"], e["finish_reasons"])] for e in self.entries_5c(records)]

    # --- stage: C's critic and its scores --------------------------------------------------------
    def stage_critic(self) -> None:
        dest = self.dir / "no_info"
        if (dest / "candidates.jsonl").exists() and (dest / "critic.json").exists():
            return
        from colbench.agents.sweet_rl import SweetRL
        from colbench_env.lm.heap import release_memory

        records = self.rollouts()
        log(f"critic without training-time information: train, then score 5c's candidates")
        t0 = time.perf_counter()
        trainer = SweetRL(self.no_info)
        stage_dir = self.work / "stages" / "sweet-rl-no-info"
        n = trainer.step_pair_count(records, stage_dir=stage_dir, candidates=self.candidates(records))
        del trainer
        release_memory()
        dest.mkdir(parents=True, exist_ok=True)
        shutil.copy(stage_dir / "critic.json", dest / "critic.json")
        shutil.copy(stage_dir / "candidates.jsonl", dest / "candidates.jsonl")
        write_json(dest / "stage.json", {"step_pairs": n, "seconds": time.perf_counter() - t0})
        log(f"critic without information: {n} step pairs, {time.perf_counter() - t0:.0f} s")

    # --- stage: D's Monte-Carlo values ---------------------------------------------------------
    def mc_keys(self, records: list[dict]) -> tuple[list[dict], list[list[int]]]:
        """The distinct (task, earlier agent turns, candidate) of 5c's states, and per state the key
        index of each candidate."""
        states = self.states(records)
        entries = self.entries_5c(records)
        keys: list[dict] = []
        index: dict[tuple, int] = {}
        per_state = []
        for (rec, turn), e in zip(states, entries):
            earlier = [str(m.get("output", m["content"])) for m in rec["dialogue_history"][:turn.index]
                       if m["role"] == "assistant"]
            row = []
            for a in e["actions"]:
                k = (rec["task"]["task_id"], tuple(earlier), a)
                if k not in index:
                    index[k] = len(keys)
                    keys.append({"key": len(keys), "task_id": k[0], "earlier": earlier, "action": a,
                                 "history": rec["dialogue_history"][:turn.index]})
                row.append(index[k])
            per_state.append(row)
        return keys, per_state

    def stage_oracle(self) -> None:
        out = self.dir / "oracle"
        if (out / "values.jsonl").exists():
            return
        out.mkdir(parents=True, exist_ok=True)
        records = self.rollouts()
        keys, per_state = self.mc_keys(records)
        conts = self._continue(keys, out / "continuations.jsonl")
        rows = oracle_entries(self.entries_5c(records), per_state, conts)
        tmp = out / "values.jsonl.tmp"
        tmp.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
        tmp.replace(out / "values.jsonl")
        log(f"oracle: {len(keys)} distinct candidates, {len(conts)} continuation episodes")

    def _continue(self, keys: list[dict], path: Path) -> list[dict]:
        """Wave 0 plays every key once; wave 1 the other ``M - 1`` continuations of the keys whose
        candidate did not end the episode. Episodes are appended as they end; a rerun plays only the
        missing ones. Each record gets ``key``, ``repeat`` and ``replay_ok`` (the human's replies
        before the candidate equal the rollout's: the scripted human is deterministic)."""
        import gymnasium as gym

        import colbench_env  # noqa: F401
        from colbench.agents.base import LMAgent
        from colbench.pipeline import task_split
        from colbench_env.evaluation.backend import BackendEvaluator
        from colbench_env.lm.base import SamplingParams, derived_seed
        from colbench_env.rollout import EpisodeSpec, run_episodes
        from colbench_env.simulators import make_simulator

        done = {r["episode_id"]: r for r in read_jsonl(path)} if path.exists() else {}
        tasks = task_split(self.cfg, "train")
        by_key = {k["key"]: k for k in keys}

        def ended(k: dict) -> bool:
            r = done.get(f"k{k['key']}/m0")
            return r is not None and r["agent_turns"] == len(k["earlier"]) + 1

        cfg = self.cfg
        sim = make_simulator(cfg.simulator, kind=cfg.kind, **cfg.simulator_kwargs)
        agent = None
        try:
            with BackendEvaluator(workers=2, semantics=cfg.semantics) as ev:
                for wave in (0, 1):
                    specs = []
                    for k in keys:
                        reps = [0] if wave == 0 else ([] if ended(k) else range(1, self.mc))
                        for m in reps:
                            eid = f"k{k['key']}/m{m}"
                            if eid not in done:
                                specs.append(EpisodeSpec(eid, derived_seed(self.seed, k["key"], m),
                                                         {"task_id": k["task_id"]},
                                                         forced_actions=(*k["earlier"], k["action"])))
                    if not specs:
                        continue
                    log(f"oracle wave {wave}: {len(specs)} continuation episodes")
                    if agent is None:
                        agent = LMAgent("hf", model=self.policy, kind=cfg.kind, max_turns=cfg.max_turns,
                                        prompt_style=cfg.prompt_style,
                                        sampling=SamplingParams(max_new_tokens=cfg.max_new_tokens,
                                                                temperature=MC_TEMPERATURE,
                                                                seed=derived_seed(self.seed, 0x0AC1E, wave)))
                    count, failed, t0 = [0], [], time.perf_counter()

                    def keep(rec: dict) -> None:
                        if rec.get("error"):
                            failed.append(rec["error"])
                            return
                        key, m = rec["episode_id"][1:].split("/m")
                        k = by_key[int(key)]
                        hist = rec["dialogue_history"]
                        rec.update(key=k["key"], repeat=int(m),
                                   agent_turns=sum(1 for x in hist if x["role"] == "assistant"),
                                   replay_ok=[x["content"] for x in hist[:len(k["history"])]]
                                   == [x["content"] for x in k["history"]])
                        append_jsonl(path, rec)
                        done[rec["episode_id"]] = rec
                        count[0] += 1
                        if count[0] % 20 == 0:
                            rate = (time.perf_counter() - t0) / count[0]
                            log(f"oracle wave {wave}: {count[0]}/{len(specs)} ({rate:.1f} s per episode)")

                    run_episodes(lambda: gym.make(cfg.env, tasks=tasks, simulator=sim, evaluator=ev,
                                                  max_turns=cfg.max_turns),
                                 agent, specs, episodes_in_flight=cfg.episodes_in_flight, on_episode=keep)
                    if failed:
                        raise SystemExit(f"{path}: {len(failed)} continuation episodes failed ({failed[0][:200]}); rerun")
        finally:
            sim.close()
            if agent is not None:
                agent.close()
        bad = [r["episode_id"] for r in done.values() if not r["replay_ok"]]
        if bad:
            raise SystemExit(f"{path}: {len(bad)} continuations did not replay the rollout's dialogue ({bad[:3]})")
        return list(done.values())

    # --- stage: pair counts ------------------------------------------------------------------------
    def arm_entries(self, arm: str, records: list[dict]) -> list[dict]:
        if arm == "sweet-rl":
            return self.entries_5c(records)
        if arm == "sweet-rl-no-info":
            return read_jsonl(self.dir / "no_info" / "candidates.jsonl")[1:]
        if arm == "sweet-rl-oracle":
            return read_jsonl(self.dir / "oracle" / "values.jsonl")
        raise ValueError(arm)

    def stage_pairs(self) -> dict:
        path = self.dir / "pairs.json"
        if path.exists():
            return json.loads(path.read_text())
        from colbench.agents.mt_dpo import MultiTurnDPO
        from colbench.agents.sweet_rl import draw_step_pairs

        records = self.rollouts()
        counts = {"mt-dpo": MultiTurnDPO.count_pairs(records, self.mt_dpo)}
        for arm in STEP_ARMS:
            counts[arm] = len(draw_step_pairs(self.arm_entries(arm, records), random.Random(self.sweet.seed),
                                              self.sweet.pairs_per_state))
        recorded = json.loads((self.full / "models" / "sweet-rl" / "pipeline_done.json").read_text())
        if counts["sweet-rl"] != recorded["metrics"]["n_step_pairs"]:
            raise SystemExit(f"sweet-rl: {counts['sweet-rl']} step pairs drawn here, section 5c drew "
                             f"{recorded['metrics']['n_step_pairs']}: the drawing is not 5c's")
        data = {"pairs": counts, "matched_pairs": min(counts.values()),
                "note": "pairs each arm's rule gives before the subsample; every arm trains on matched_pairs"}
        write_json(path, data)
        log(f"pairs {counts}: every arm trains on {data['matched_pairs']}")
        return data

    # --- stage: training -------------------------------------------------------------------------
    def stage_train(self, arm: str) -> None:
        from colbench.pipeline.stages import export_merged, mark_finished
        from colbench_env.lm.heap import release_memory

        marker = self.dir / "models" / arm / "pipeline_done.json"
        if marker.exists() and (self.work / "models" / arm / "config.json").exists():
            return
        n = self.stage_pairs()["matched_pairs"]
        records = self.rollouts()
        t0 = time.perf_counter()
        if arm == "mt-dpo":
            from colbench.agents.mt_dpo import MultiTurnDPO

            trainer = MultiTurnDPO(dataclasses.replace(self.mt_dpo, max_pairs=n))
            log(f"train {arm}: {trainer.config.to_dict()}")
            metrics = trainer.update(records)
        else:
            from colbench.agents.sweet_rl import SweetRL

            conf = self.no_info if arm == "sweet-rl-no-info" else self.sweet
            trainer = SweetRL(dataclasses.replace(conf, max_pairs=n))
            scorer = {"sweet-rl": "section 5c's critic (with training-time information)",
                      "sweet-rl-no-info": "a critic without training-time information (no_info/)",
                      "sweet-rl-oracle": f"Monte-Carlo continuation value, {self.mc} continuations (oracle/)"}[arm]
            log(f"train {arm} on scores of {scorer}: {trainer.config.to_dict()}")
            metrics = trainer.update_from_scores(records, self.arm_entries(arm, records), scorer=scorer)
        trainer.save(self.work / "ckpt" / arm)
        del trainer
        release_memory()
        export_merged(self.work / "ckpt" / arm, self.work / "models" / arm)
        mark_finished(self.dir, arm, {"method": arm, "metrics": metrics, "train_seconds": time.perf_counter() - t0})
        log(f"{arm}: {metrics}")

    # --- stage: evaluation ------------------------------------------------------------------------
    def copy_zero_shot(self) -> None:
        (self.dir / "eval").mkdir(parents=True, exist_ok=True)
        for name in ("zero-shot.jsonl", "zero-shot.sampled.jsonl", "zero-shot.sampled.json"):
            if not (self.dir / "eval" / name).exists():
                shutil.copy(self.base / "eval" / name, self.dir / "eval" / name)

    def stage_eval(self, arm: str) -> None:
        from colbench.pipeline import run_stage_episodes, task_split

        cfg = self.cfg
        tests = task_split(cfg, "test")
        model = str(self.work / "models" / arm)
        run_stage_episodes(cfg, tests, model, self.dir / "eval" / f"{arm}.jsonl", repeats=1,
                           temperature=cfg.eval_temperature, desc=f"eval {arm}", run_dir=str(self.work))
        meta = self.dir / "eval" / f"{arm}.sampled.json"
        if not meta.exists():
            write_json(meta, {"samples": cfg.eval_samples, "temperature": cfg.eval_samples_temperature})
        run_stage_episodes(cfg, tests, model, self.dir / "eval" / f"{arm}.sampled.jsonl", repeats=cfg.eval_samples,
                           temperature=cfg.eval_samples_temperature, desc=f"eval {arm} x{cfg.eval_samples} sampled",
                           run_dir=str(self.work))

    # --- stage: statistics ----------------------------------------------------------------------------
    def stage_stats(self) -> None:
        from colbench.pipeline import analyse_runs

        analyse_runs([here_relative(self.dir)], self.dir, methods=["zero-shot", *ARMS], cluster="template",
                     comparisons=COMPARISONS, title=f"matched budget, seed {self.seed}")
        write_budget_json(HERE)

    def run(self, stages: list[str]) -> None:
        self.dir.mkdir(parents=True, exist_ok=True)
        self.work.mkdir(parents=True, exist_ok=True)
        conf = {"seed": self.seed, "policy": self.policy, "policy_sha256": check_policy(self.policy),
                "mc_continuations": self.mc, "mc_temperature": MC_TEMPERATURE,
                "rollouts": str((self.base / "rollouts.jsonl").relative_to(HERE.parent.parent)),
                "candidates": str((self.full / "stages" / "sweet-rl" / "candidates.jsonl").relative_to(HERE.parent.parent)),
                "mt-dpo": self.mt_dpo.to_dict(), "sweet-rl": self.sweet.to_dict()}
        path = self.dir / "config.json"
        if path.exists():
            old = json.loads(path.read_text())
            defaults = {"mt-dpo": type(self.mt_dpo)().to_dict(), "sweet-rl": type(self.sweet)().to_dict()}
            for k in ("seed", "policy_sha256", "mc_continuations", "mt-dpo", "sweet-rl"):
                now = _as_json(conf[k])
                if k in defaults:  # a setting added to the trainer since the seed started: at its default
                    now = _without_added(_as_json(old.get(k)), now, _as_json(defaults[k]))
                if _as_json(old.get(k)) != now:
                    raise SystemExit(f"{path}: field {k!r} differs from this run's; use another seed folder")
        else:
            write_json(path, conf)
        self.copy_zero_shot()
        for stage in stages:
            t0 = time.perf_counter()
            log(f"stage {stage}")
            if stage == "critic":
                self.stage_critic()
            elif stage == "oracle":
                self.stage_oracle()
            elif stage == "pairs":
                self.stage_pairs()
            elif stage.startswith("train-"):
                self.stage_train(stage[len("train-"):])
            elif stage.startswith("eval-"):
                self.stage_eval(stage[len("eval-"):])
            elif stage == "stats":
                self.stage_stats()
            log(f"stage {stage} done in {time.perf_counter() - t0:.0f} s")


def oracle_entries(entries: list[dict], per_state: list[list[int]], continuations: list[dict]) -> list[dict]:
    """Each state's candidates scored by their true continuation value: per candidate the mean reward
    (fraction of tests passed) of its key's continuation episodes (``continuations``, each with
    ``key``), also their mean success and count; ``entries``: 5c's states, ``per_state``: each
    candidate's key (:meth:`Seed.mc_keys`)."""
    by_key: dict[int, list[dict]] = {}
    for r in continuations:
        by_key.setdefault(r["key"], []).append(r)

    def mean(rs, f):
        return sum(f(r) for r in rs) / len(rs)

    out = []
    for e, row in zip(entries, per_state):
        rs = [by_key[k] for k in row]
        out.append({"state": e["state"], "task": e["task"], "turn": e["turn"], "actions": e["actions"],
                    "finish_reasons": e["finish_reasons"],
                    "scores": [mean(r, lambda x: float(x.get("reward") or 0.0)) for r in rs],
                    "successes": [mean(r, lambda x: 1.0 if x.get("success") else 0.0) for r in rs],
                    "continuations": [len(r) for r in rs], "keys": row})
    return out


STAGES = ["critic", "oracle", "pairs", *(f"train-{a}" for a in ARMS), *(f"eval-{a}" for a in ARMS), "stats"]


def write_budget_json(study: Path = HERE) -> dict:
    """Write :func:`budget_json` to ``study/budget.json``; returns it."""
    out = budget_json(study)
    write_json(study / "budget.json", out)
    return out


def budget_json(study: Path = HERE) -> dict:
    """``{"seed-N": {arm: {optimizer_steps, examples, learning_rate, nll_coef}}}`` from every seed
    folder's training markers (``models/<arm>/pipeline_done.json``: what each trainer counted)."""
    out = {}
    for d in sorted(study.glob("seed-*"), key=lambda p: int(p.name.split("-")[1])):
        arms = {}
        for arm in ARMS:
            marker = d / "models" / arm / "pipeline_done.json"
            if marker.exists():
                m = json.loads(marker.read_text())["metrics"]
                arms[arm] = {"optimizer_steps": int(m["optimizer_steps"]), "examples": int(m["examples"]),
                             "learning_rate": float(m["learning_rate"]), "nll_coef": float(m["nll_coef"])}
        if arms:
            out[d.name] = arms
    return out


def pool(study: Path = HERE) -> dict:
    """The seeds done (their four arms evaluated) pooled: ``stats.{md,json,png}`` in the study folder,
    templates resampled too, the study's comparisons; and ``budget.json``."""
    from colbench.pipeline import analyse_runs

    dirs = [d for d in sorted(study.glob("seed-*"), key=lambda p: int(p.name.split("-")[1]))
            if all((d / "eval" / f"{a}.sampled.jsonl").exists() for a in ARMS) and (d / "stats.md").exists()]
    if not dirs:
        raise SystemExit(f"{study}: no seed is done yet")
    write_budget_json(study)
    return analyse_runs([here_relative(d) for d in dirs], study, methods=["zero-shot", *ARMS], cluster="template",
                        comparisons=COMPARISONS,
                        title=f"matched budget, seeds {', '.join(d.name[5:] for d in dirs)}")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--pool", action="store_true", help="pool the seeds done into the study folder's stats.*")
    p.add_argument("--seed", type=int)
    p.add_argument("--work", default="runs/matched_budget", help="models, checkpoints, critic weights (not committed)")
    p.add_argument("--policy", default=POLICY)
    p.add_argument("--mc-continuations", type=int, default=8, help="Monte-Carlo continuations per candidate (M; the study: 8)")
    p.add_argument("--stages", nargs="+", default=STAGES, choices=STAGES)
    args = p.parse_args(argv)
    if args.pool:
        pool()
        return 0
    if args.seed is None:
        p.error("--seed is required (or --pool)")
    Seed(args.seed, Path(args.work), args.policy, args.mc_continuations).run(args.stages)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
