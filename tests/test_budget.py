"""Training budgets (issue 48 parts 1-2): every trainer's metrics say what it really did, counted
independently here by hooking the torch optimiser; ``optimizer_steps`` and ``max_pairs`` match
budgets; the pair subsample is seeded and equal across reruns; the budget table is recomputed from
the metrics files by hand; the seed-level t-interval against a hand computation."""
from __future__ import annotations

import json
import math

import numpy as np
import pytest
from samples import BAD, GOOD, MID, TASK, traj

from colbench.agents import sharding
from colbench.agents.trainer_base import epoch_plan, plan_steps


# ---- pure helpers --------------------------------------------------------------------------------
@pytest.mark.parametrize("micro, epochs, accumulation, steps, plan", [
    (5, 2, 1, None, [5, 5]),            # epochs decide
    (5, 2, 1, 12, [5, 5, 2]),           # 12 steps: two whole passes of 5, then 2 micro-batches
    (5, 2, 1, 3, [3]),                  # fewer steps than one pass: the pass is cut short
    (5, 1, 2, 4, [5, 2]),               # a pass is 3 steps (2 + 2 + 1): 3 + 1 step = 5 + 2 micro-batches
    (4, 3, 2, 4, [4, 4]),               # a pass is 2 steps
])
def test_epoch_plan_gives_exactly_the_steps_asked(micro, epochs, accumulation, steps, plan):
    assert epoch_plan(micro, epochs, accumulation, steps) == plan
    expected = steps if steps is not None else epochs * math.ceil(micro / accumulation)
    assert plan_steps(plan, accumulation) == expected


def test_subsample_is_seeded_in_data_order_and_equal_across_reruns():
    from colbench.agents.mt_dpo import subsample_pairs
    from colbench_env.lm.base import derived_seed

    items = list(range(40))
    seed = derived_seed(3, 0x5AB5E, 0)
    a, b = subsample_pairs(items, 10, seed), subsample_pairs(list(items), 10, seed)
    assert a == b and len(a) == 10 and a == sorted(a) and set(a) <= set(items)
    assert subsample_pairs(items, 10, derived_seed(4, 0x5AB5E, 0)) != a  # another seed, another sample
    assert subsample_pairs(items, 40, seed) == items and subsample_pairs(items, None, seed) == items
    # uniform: over many seeds each item is kept about 10/40 of the time
    counts = np.zeros(40)
    for s in range(2000):
        counts[subsample_pairs(items, 10, s)] += 1
    assert np.all(np.abs(counts / 2000 - 0.25) < 0.05)


def test_seed_interval_by_hand_on_three_seeds():
    """Issue 48's example: frontend SWEET-RL - zero-shot by seed is +25.3 / +6.0 / +31.9; the
    t-interval across the 3 seeds is [-12.4, +54.5] (t_{2, 0.975} = 4.302653 from a t table)."""
    from colbench.stats import seed_interval

    diffs = [25.3, 6.0, 31.9]
    mean = sum(diffs) / 3
    sd = math.sqrt(sum((d - mean) ** 2 for d in diffs) / 2)
    half = 4.302653 * sd / math.sqrt(3)
    assert (round(mean - half, 1), round(mean + half, 1)) == (-12.4, 54.5)
    # paired (seeds x tasks) arrays whose per-seed mean differences are the three values
    b = np.array([[10.0, 20.0], [30.0, 40.0], [50.0, 60.0]])
    a = b + np.array(diffs)[:, None] + np.array([[1.0, -1.0]] * 3)
    r = seed_interval(a, b)
    assert r.per_seed == pytest.approx(tuple(diffs)) and r.mean == pytest.approx(mean)
    assert (r.low, r.high) == (pytest.approx(mean - half, abs=1e-4), pytest.approx(mean + half, abs=1e-4))
    assert r.signs() == "+++" and not r.excludes_zero
    one = seed_interval(a[:1], b[:1])
    assert one.low is None and one.high is None and one.mean == pytest.approx(25.3)


# ---- budget table from the metrics files ------------------------------------------------------------
def _run_dir(root, name, metrics_by_method):
    d = root / name
    for m, metrics in metrics_by_method.items():
        (d / "models" / m).mkdir(parents=True)
        (d / "models" / m / "pipeline_done.json").write_text(json.dumps({"method": m, "metrics": metrics}))
    return d


def test_budget_table_and_differences_recomputed_from_the_metrics_files(tmp_path):
    from colbench.budgets import budget_differences, budget_markdown, budget_table

    a = {"optimizer_steps": 30.0, "examples": 60.0, "learning_rate": 1e-4, "nll_coef": 0.01, "epochs": 2.0}
    b = {"optimizer_steps": 2.0, "examples": 3.0, "learning_rate": 1e-4, "nll_coef": 0.01, "epochs": 2.0}
    old = {"loss": 0.1, "n_pairs": 16.0}  # trained before budgets were recorded: only the pair count
    s0 = _run_dir(tmp_path, "s0", {"mt-dpo": a, "sweet-rl": b})
    s1 = _run_dir(tmp_path, "s1", {"mt-dpo": dict(a, optimizer_steps=32.0), "sweet-rl": dict(b, optimizer_steps=31.0)})
    s2 = _run_dir(tmp_path, "s2", {"mt-dpo": old})
    table = budget_table([s0, s1, s2], ["zero-shot", "mt-dpo", "sweet-rl", "rft"])
    assert list(table) == ["mt-dpo", "sweet-rl"]  # zero-shot and rft trained nowhere
    assert [r["optimizer_steps"] if r else None for r in table["mt-dpo"]["seeds"]] == [30.0, 32.0, None]
    assert table["mt-dpo"]["seeds"][2]["examples"] == 16.0 and table["sweet-rl"]["seeds"][2] is None
    # 30 vs 2 steps and 60 vs 3 pairs differ (seed 0); 32 vs 31 steps do not (3 % < 10 %)
    diffs = budget_differences(table, [("sweet-rl", "mt-dpo"), ("sweet-rl", "zero-shot")])
    assert diffs == ["sweet-rl vs mt-dpo: optimiser steps 2 vs 30; examples 3 vs 60, 3 vs 60"]
    md = budget_markdown(table, 3)
    assert "| mt-dpo | 30 / 32 / n/r | 60 / 60 / 16 | 0.0001 / 0.0001 / n/r | 0.01 / 0.01 / n/r | 2 / 2 / n/r |" in md[2]
    assert md[3].startswith("| sweet-rl | 2 / 31 / n/r | 3 / 3 / n/r |")
    # a method not in EXAMPLE_UNITS: its metrics say step pairs (SWEET-RL's policy under a study arm's name) or not
    s3 = _run_dir(tmp_path, "s3", {"arm-c": dict(b, n_step_pairs=3.0), "arm-x": dict(b)})
    units = {m: t["unit"] for m, t in budget_table([s3], ["arm-c", "arm-x", "mt-dpo"]).items()}
    assert units == {"arm-c": "step pairs", "arm-x": "examples"}


def test_stats_md_prints_the_budget_table_and_flags_differences(tmp_path):
    """analyse_runs (stats.md of every pipeline report): the budget table, the > 10 % warning above
    the comparisons, and the per-seed differences with their t-interval and the verdict's interval."""
    from colbench.pipeline import analyse_runs

    def episodes(d, method, rewards):
        (d / "eval").mkdir(parents=True, exist_ok=True)
        with open(d / "eval" / f"{method}.jsonl", "w") as f:
            for i, r in enumerate(rewards):
                task = dict(TASK, task_id=f"t{i}")
                f.write(json.dumps(dict(traj(["I WANT TO ANSWER: x"], [], r, task=task), success=r == 1.0,
                                        episode_id=str(i))) + "\n")

    dirs = []
    for s, (lo, hi) in enumerate([(0.0, 1.0), (0.0, 1.0)]):
        d = _run_dir(tmp_path, f"seed-{s}", {
            "mt-dpo": {"optimizer_steps": 30, "examples": 60, "learning_rate": 1e-4, "nll_coef": 0.0, "epochs": 2},
            "sweet-rl": {"optimizer_steps": 2, "examples": 3, "learning_rate": 1e-4, "nll_coef": 0.01, "epochs": 2}})
        episodes(d, "zero-shot", [lo] * 4)
        episodes(d, "mt-dpo", [lo, lo, hi, hi])
        episodes(d, "sweet-rl", [hi, hi, hi, lo] if s == 0 else [hi, lo, lo, lo])
        dirs.append(d)
    report = analyse_runs(dirs, tmp_path / "out", resamples=200)
    md = (tmp_path / "out" / "stats.md").read_text()
    assert "| mt-dpo | 30 / 30 | 60 / 60 | 0.0001 / 0.0001 | 0 / 0 | 2 / 2 | trajectory pairs |" in md
    assert ("Budgets differ by more than 10 % between compared methods** (a difference below may be one of "
            "budgets): sweet-rl vs mt-dpo: optimiser steps 2 vs 30, 2 vs 30; examples 3 vs 60, 3 vs 60; "
            "NLL coef. 0.01 vs 0, 0.01 vs 0.") in md
    rows = {(c["method"], c["baseline"], c["metric"]): c for c in report["modes"]["greedy"]["comparisons"]}
    c = rows[("sweet-rl", "mt-dpo", "success_rate_pct")]
    # per seed: sweet-rl 75 % vs mt-dpo 50 % (+25), then 25 % vs 50 % (-25): t-interval mean 0 +- 12.706 * 35.36 / 1.414
    assert c["by_seed"]["per_seed"] == [25.0, -25.0] and c["by_seed"]["signs"] == "+-"
    assert c["by_seed"]["high"] == pytest.approx(12.7062 * 25.0 * math.sqrt(2) / math.sqrt(2), rel=1e-4)
    assert c["verdict"] == {"shown": False, "rests_on": "seeds t-interval"}
    assert "| sweet-rl - mt-dpo | success rate (%) | +0.0 [" in md and "| +25.0 / -25.0 | [-317.7, +317.7] | +- | no |" in md


# ---- trainers: budgets counted at the optimiser --------------------------------------------------
@pytest.fixture(scope="module")
def model_dir(tiny_model_dir):
    """The suite's tiny Llama (hidden size 64) over the small tokenizer (:func:`tiny_models.small_tokenizer`):
    budgets are counted the same over any tokenizer, and its logits cost ~25x less than
    over SmolLM2's 49,152 ids."""
    return tiny_model_dir(0, 64, "small")


class StepCounter:
    """Counts the torch optimiser's steps with its own post-step hook (independent of the trainers'
    counters)."""

    def __init__(self, lm):
        self.n = 0
        self.handle = sharding.torch_optimizer(lm.optimizer).register_step_post_hook(self._hook)

    def _hook(self, *_):
        self.n += 1


def _rollouts():
    tasks = [dict(TASK, task_id=f"t{k}") for k in range(3)]
    out = []
    for t in tasks:
        out += [dict(GOOD, task=t), dict(BAD, task=t), dict(MID, task=t)]
    return out  # per task: GOOD beats BAD and MID -> 6 trajectory pairs


def test_every_trainer_records_its_budget_counted_at_the_optimiser(model_dir):
    from colbench.agents.grpo import GRPO, GRPOConfig
    from colbench.agents.mt_dpo import MultiTurnDPO, MultiTurnDPOConfig
    from colbench.agents.ppo import PPO, PPOConfig
    from colbench.agents.rft import RejectionFineTuning, RFTConfig
    from colbench.agents.tokenize import tokenize_trajectory

    data = _rollouts()
    cases = [  # (trainer, its examples: what it trains on, per micro-batch, passes, NLL coefficient)
        (RejectionFineTuning(RFTConfig(policy={"model_name_or_path": model_dir, "learning_rate": 1e-3}, epochs=2, sequences_per_batch=2)),
         "sequences of the 3 successful trajectories", 2, 2, 1.0),
        (MultiTurnDPO(MultiTurnDPOConfig(policy={"model_name_or_path": model_dir, "learning_rate": 2e-3}, epochs=2, pairs_per_batch=4,
                                         nll_coef=0.05)), 6, 4, 2, 0.05),  # GOOD vs BAD and vs MID, 3 tasks
        (PPO(PPOConfig(policy={"model_name_or_path": model_dir, "learning_rate": 3e-3}, update_epochs=1, trajectories_per_batch=4,
                       gradient_accumulation_steps=2)), 9, 4, 1, 0.0),
        (GRPO(GRPOConfig(policy={"model_name_or_path": model_dir, "learning_rate": 1e-3}, update_epochs=3, sequences_per_batch=9)),
         "sequences of all 9 trajectories", 9, 3, 0.0),
    ]
    for trainer, examples, per_batch, passes, nll in cases:
        if isinstance(examples, str):  # a trajectory whose turns cannot share one sequence gives one per turn
            kept = [r for r in data if r["reward"] == 1.0] if trainer.algorithm == "rft" else data
            examples = sum(len(tokenize_trajectory(trainer.tokenizer, r, formatter=trainer.formatter,
                                                   max_length=trainer.config.max_length)) for r in kept)
        accumulation = trainer.config.gradient_accumulation_steps
        steps = passes * math.ceil(math.ceil(examples / per_batch) / accumulation)
        counter = StepCounter(trainer.policy)
        m = trainer.update(data)
        assert counter.n == steps == m["optimizer_steps"], trainer.algorithm
        assert (m["examples"], m["nll_coef"], m["epochs"]) == (examples, nll, passes), trainer.algorithm
        assert m["learning_rate"] == trainer.config.policy.learning_rate, trainer.algorithm


def test_optimizer_steps_overrides_the_passes(model_dir):
    from colbench.agents.ppo import PPO, PPOConfig
    from colbench.agents.rft import RejectionFineTuning, RFTConfig

    rft = RejectionFineTuning(RFTConfig(policy={"model_name_or_path": model_dir}, epochs=1, sequences_per_batch=2, optimizer_steps=5))
    counter = StepCounter(rft.policy)
    m = rft.update(_rollouts())  # 6 sequences (3 GOOD, each one per turn), 3 micro-batches a pass: 3 + 2 steps
    assert m["examples"] == 6 and counter.n == 5 == m["optimizer_steps"] and m["epochs"] == pytest.approx(5 / 3)
    ppo = PPO(PPOConfig(policy={"model_name_or_path": model_dir}, update_epochs=4, trajectories_per_batch=4, optimizer_steps=2))
    counter = StepCounter(ppo.policy)
    m = ppo.update(_rollouts())  # 3 micro-batches a pass, cut after 2
    assert counter.n == 2 == m["optimizer_steps"] and m["epochs"] == pytest.approx(2 / 3)


def test_matched_preference_methods_take_equal_pairs_and_steps(model_dir, tmp_path):
    """Multi-turn DPO (6 trajectory pairs) and SWEET-RL's policy (step pairs from given candidates)
    with the same max_pairs, batch and epochs train on the same number of pairs for the same number
    of optimiser steps, counted at each optimiser; the subsample is the same on a rerun."""
    from colbench.agents.mt_dpo import MultiTurnDPO, MultiTurnDPOConfig
    from colbench.agents.sweet_rl import SweetRL, SweetRLConfig
    from colbench.agents.tokenize import agent_turns

    data = _rollouts()
    common = dict(policy={"model_name_or_path": model_dir, "learning_rate": 1e-3}, epochs=2, pairs_per_batch=2, nll_coef=0.01, max_pairs=3)
    cands = [[t.action, "no", "I WANT TO ANSWER: pass", "OUTPUT: ok"] for r in data for t in agent_turns(r)]
    sweet = SweetRL(SweetRLConfig(**common, dpo_beta=0.1, state_fraction=1.0, n_candidates=4, pairs_per_state=2,
                                  seed=0, critic={"epochs": 1}))
    available = sweet.step_pair_count(data, stage_dir=tmp_path / "st", candidates=cands)
    assert available > 3
    mt = MultiTurnDPO(MultiTurnDPOConfig(**common, beta=0.1))
    runs = {}
    for name, trainer, kw in (("mt-dpo", mt, {}), ("sweet-rl", sweet, {"stage_dir": tmp_path / "st", "candidates": cands})):
        counter = StepCounter(trainer.policy)
        m = trainer.update(data, **kw)
        runs[name] = (counter.n, m)
    (n_mt, m_mt), (n_sw, m_sw) = runs["mt-dpo"], runs["sweet-rl"]
    assert n_mt == n_sw == m_mt["optimizer_steps"] == m_sw["optimizer_steps"] == 2 * 2
    assert m_mt["examples"] == m_sw["examples"] == 3
    assert (m_mt["n_pairs_available"], m_sw["n_pairs_available"]) == (6, available)
    assert m_mt["learning_rate"] == m_sw["learning_rate"] and m_mt["nll_coef"] == m_sw["nll_coef"]
    assert m_sw["critic_optimizer_steps"] == 6 // 2  # the critic: 6 rollout pairs, 2 a micro-batch, 1 epoch
    # the same subsample on a rerun: a fresh trainer draws and keeps the same pairs, so trains the same
    again = MultiTurnDPO(MultiTurnDPOConfig(**common, beta=0.1))
    m_again = again.update(data)
    assert m_again["loss"] == pytest.approx(m_mt["loss"], abs=1e-6)


def test_pipeline_matched_budget_trains_every_method_for_the_same_steps(tmp_path, monkeypatch, tiny_model_dir):
    """``colbench pipeline --matched-budget`` on a tiny model: the preference methods train on the
    same number of pairs (the smaller count), every method for the same number of optimiser steps,
    counted by a hook on each trainer's policy optimiser; stats.md's budget table is the one computed
    here from the metrics files; a rerun keeps the plan (budget_plan.json)."""
    import gymnasium as gym

    from colbench.agents.trainer_base import LMTrainer
    from colbench.pipeline import PipelineConfig, run_pipeline, task_split
    from colbench.budgets import BUDGET_COLUMNS, fmt_budget
    from colbench_env.evaluation.backend import BackendEvaluator
    from colbench_env.rollout import episode_specs
    from colbench_env.trajectories import append_jsonl

    model = tiny_model_dir(0, 32, "small")
    small = {"max_length": 512}
    cfg = PipelineConfig(out_dir=str(tmp_path / "m"), policy=model, n_train_tasks=2, n_test_tasks=1,
                         rollouts_per_task=3, max_turns=1, max_new_tokens=8, episodes_in_flight=4, matched_budget=True,
                         trainer_overrides={"sweet-rl": {**small, "n_candidates": 2, "candidate_max_new_tokens": 8,
                                                         "state_fraction": 1.0, "pairs_per_state": 2,
                                                         "pairs_per_batch": 2, "epochs": 2, "critic": {"epochs": 1}},
                                            "rft": small, "mt-dpo": small, "ppo": small, "grpo": small})
    # the first rollout of each task succeeds (the ground truth as its answer): 2 trajectory pairs a task
    specs = episode_specs(6, n_tasks=2, repeats=3)
    with BackendEvaluator(workers=1) as ev:
        for spec in (specs[0], specs[3]):
            task = task_split(cfg, "train")[spec.options["task_index"]]
            env = gym.make("ColBench-Backend-v0", tasks=[task], evaluator=ev, max_turns=1)
            env.reset(seed=0)
            env.step(f"OUTPUT: I WANT TO ANSWER: ```python\n{task.ground_truth}\n```")
            append_jsonl(tmp_path / "m" / "rollouts.jsonl", [dict(env.unwrapped.trajectory_record(),
                                                                  episode_id=spec.episode_id)])
    steps: dict[str, int] = {}
    make_lm = LMTrainer._make_lm

    def counted(self, *args, **kwargs):
        lm = make_lm(self, *args, **kwargs)
        if not hasattr(self, "policy"):  # the trainer's first model is its policy (SWEET-RL's critic comes after)
            name = self.algorithm

            def hook(*_):
                steps[name] = steps.get(name, 0) + 1
            sharding.torch_optimizer(lm.optimizer).register_step_post_hook(hook)
        return lm

    monkeypatch.setattr(LMTrainer, "_make_lm", counted)
    run_pipeline(cfg, preset="test")
    out = tmp_path / "m"
    plan = json.loads((out / "budget_plan.json").read_text())["plan"]
    n = plan["matched_pairs"]
    assert plan["pairs"]["mt-dpo"] == 4 and n == min(plan["pairs"].values())
    expected_steps = 2 * math.ceil(n / 2)  # SWEET-RL's 2 epochs of 2 pairs a micro-batch, shared by all
    metrics = {m: json.loads((out / "models" / m / "pipeline_done.json").read_text())["metrics"]
               for m in ("rft", "mt-dpo", "ppo", "grpo", "sweet-rl")}
    assert steps == {m: expected_steps for m in metrics}
    for m, met in metrics.items():
        assert met["optimizer_steps"] == expected_steps, m
    assert metrics["mt-dpo"]["examples"] == metrics["sweet-rl"]["examples"] == n
    assert (metrics["mt-dpo"]["nll_coef"], metrics["mt-dpo"]["epochs"]) == (0.01, 2) == \
        (metrics["sweet-rl"]["nll_coef"], metrics["sweet-rl"]["epochs"])
    # the budget table of stats.md, from the files by hand
    md = (out / "stats.md").read_text()
    for m, met in metrics.items():
        cells = [fmt_budget(met[k]) for k in BUDGET_COLUMNS]
        assert f"| {m} | " + " | ".join(cells) + " |" in md, m
    assert "Budgets differ by more than 10 %" not in md
    html = (out / "report.html").read_text()  # the viewer's report prints the same table
    assert "<h3>training budgets</h3>" in html and "seeds t-interval" in html
    assert f'<tr><td>mt-dpo</td><td class="num">{expected_steps}</td><td class="num">{n}</td>' in html
    # a rerun finds every stage done and keeps the plan
    stamp = (out / "budget_plan.json").stat().st_mtime_ns
    run_pipeline(cfg, preset="test")
    assert (out / "budget_plan.json").stat().st_mtime_ns == stamp


def test_cli_matched_budget_flag_reaches_the_config(tmp_path, monkeypatch):
    from test_pipeline import pipeline_cli

    from colbench.cli import pipeline as cli

    seen = []

    class Captured(Exception):
        pass

    def capture(cfg, preset=None):
        seen.append(cfg)
        raise Captured

    monkeypatch.setattr(cli, "run_pipeline", capture)
    for argv in (("--matched-budget",), ()):
        with pytest.raises(Captured):
            pipeline_cli("--small", *argv, "--out-dir", tmp_path / str(len(seen)))
    assert [c.matched_budget for c in seen] == [True, False]
    # matched: multi-turn DPO takes SWEET-RL's policy-DPO settings (the --small preset's)
    from colbench.pipeline import trainer_config

    mt, sw = trainer_config(seen[0], "mt-dpo", "m"), trainer_config(seen[0], "sweet-rl", "m")
    assert (mt.policy.learning_rate, mt.beta, mt.nll_coef, mt.pairs_per_batch, mt.epochs) == \
        (sw.policy.learning_rate, sw.dpo_beta, sw.nll_coef, sw.pairs_per_batch, sw.epochs) == (1e-4, 0.1, 0.01, 4, 2)
    plain = trainer_config(seen[1], "mt-dpo", "m")
    assert (plain.nll_coef, plain.pairs_per_batch) == (0.0, 2)


def test_sweet_rl_policy_stage_from_given_scores_equals_its_own(model_dir, tmp_path):
    """update_from_scores with the entries of a stage directory's candidates.jsonl (SWEET-RL's own
    critic's scores) trains on the same pairs with the same budget as update does on them (the order
    of its micro-batches is its own: update's shuffles continue after the critic's); entries that
    are not the states are refused."""
    from colbench.agents.sweet_rl import SweetRL, SweetRLConfig
    from colbench.agents.tokenize import agent_turns

    data = _rollouts()
    cands = [[t.action, "no", "I WANT TO ANSWER: pass", "OUTPUT: ok"] for r in data for t in agent_turns(r)]
    conf = SweetRLConfig(policy={"model_name_or_path": model_dir, "learning_rate": 1e-3}, epochs=1, pairs_per_batch=2, state_fraction=1.0,
                         n_candidates=4, pairs_per_state=2, seed=0, critic={"epochs": 1}, max_pairs=4)
    own = SweetRL(conf).update(data, stage_dir=tmp_path / "st", candidates=cands)
    lines = [json.loads(x) for x in (tmp_path / "st" / "candidates.jsonl").read_text().splitlines()][1:]
    given = SweetRL(conf).update_from_scores(data, lines, scorer={"kind": "the stage file's"})
    for k in ("optimizer_steps", "examples", "learning_rate", "nll_coef", "epochs", "n_step_pairs",
              "n_pairs_available", "mean_advantage_gap"):
        assert given[k] == pytest.approx(own[k], abs=1e-9), k
    assert given["scorer"] == {"kind": "the stage file's"}
    with pytest.raises(ValueError, match="entry 1 scores"):
        SweetRL(conf).update_from_scores(data, [lines[0], lines[0], *lines[2:]])
    with pytest.raises(ValueError, match="scored entries for"):
        SweetRL(conf).update_from_scores(data, lines[:-1])
