"""studies/matched_budget (issue 48 part 3): what every committed seed reports recomputes from its
files -- the pair counts from the committed warm-start data, the oracle's values from its
continuation episodes, the budgets (equal across the four arms, as the trainers counted them),
budget.json, and stats.md byte for byte."""
from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from studies.matched_budget import run

STUDY = Path(run.__file__).resolve().parent
SEEDS = sorted((d.name for d in STUDY.glob("seed-*") if (d / "stats.md").exists()), key=lambda n: int(n[5:]))


def _seed(name: str, tmp_path) -> run.Seed:
    conf = json.loads((STUDY / name / "config.json").read_text())
    return run.Seed(int(name[5:]), tmp_path, conf["policy"], conf["mc_continuations"], out=STUDY)


def test_the_step_pairs_drawn_here_are_section_5cs_and_multi_turn_dpos_are_5bs(tmp_path):
    """Arm B draws its pairs from 5c's committed scores as SWEET-RL does: 5c's own 71 / 61 / 73; arm
    A's rule finds 5b's 60 / 28 / 54 trajectory pairs."""
    from colbench.agents.mt_dpo import MultiTurnDPO
    from colbench.agents.sweet_rl import draw_step_pairs

    for seed, (mt, step) in enumerate([(60, 71), (28, 61), (54, 73)]):
        s = run.Seed(seed, tmp_path, run.POLICY, 8, out=tmp_path)
        records = s.rollouts()
        drawn = draw_step_pairs(s.entries_5c(records), random.Random(s.sweet.seed), s.sweet.pairs_per_state)
        assert (MultiTurnDPO.count_pairs(records, s.mt_dpo), len(drawn)) == (mt, step)
        # the arms' shared settings: SWEET-RL's policy DPO
        assert (s.mt_dpo.policy.learning_rate, s.mt_dpo.beta, s.mt_dpo.nll_coef, s.mt_dpo.pairs_per_batch,
                s.mt_dpo.epochs) == (1e-4, 0.1, 0.01, 4, 2) == (s.sweet.policy.learning_rate, s.sweet.dpo_beta,
                                                                   s.sweet.nll_coef, s.sweet.pairs_per_batch, s.sweet.epochs)


@pytest.mark.parametrize("name", SEEDS)
def test_a_committed_seed_recomputes_from_its_files(name, tmp_path):
    from colbench.agents.mt_dpo import MultiTurnDPO
    from colbench.agents.sweet_rl import draw_step_pairs
    from colbench.pipeline import analyse_runs
    from colbench.pipeline.budget import steps_for_pairs

    d = STUDY / name
    s = _seed(name, tmp_path)
    records = s.rollouts()
    pairs = json.loads((d / "pairs.json").read_text())
    counts = {"mt-dpo": MultiTurnDPO.count_pairs(records, s.mt_dpo)}
    for arm in run.STEP_ARMS:
        counts[arm] = len(draw_step_pairs(s.arm_entries(arm, records), random.Random(s.sweet.seed),
                                          s.sweet.pairs_per_state))
    assert pairs["pairs"] == counts and pairs["matched_pairs"] == min(counts.values())
    # the oracle's values are the means of its continuation episodes; each candidate continued once
    # (it ended the episode) or M times
    keys, per_state = s.mc_keys(records)
    conts = run.read_jsonl(d / "oracle" / "continuations.jsonl")
    assert run.oracle_entries(s.entries_5c(records), per_state, conts) == run.read_jsonl(d / "oracle" / "values.jsonl")
    per_key = {}
    for r in conts:
        per_key.setdefault(r["key"], []).append(r)
    assert set(per_key) == {k["key"] for k in keys} and all(r["replay_ok"] for r in conts)
    assert all(len(v) == (1 if v[0]["agent_turns"] == len(keys[k]["earlier"]) + 1 else s.mc) for k, v in per_key.items())
    # every arm trained on the matched pairs for the same optimiser steps, as the trainers counted them
    n = pairs["matched_pairs"]
    steps = steps_for_pairs(n, s.sweet.pairs_per_batch, s.sweet.gradient_accumulation_steps, s.sweet.epochs)
    for arm in run.ARMS:
        m = json.loads((d / "models" / arm / "pipeline_done.json").read_text())["metrics"]
        assert (m["examples"], m["optimizer_steps"], m["learning_rate"], m["nll_coef"], m["epochs"]) == \
            (n, steps, 1e-4, 0.01, 2), arm
    analyse_runs([d], tmp_path, methods=["zero-shot", *run.ARMS], cluster="template", comparisons=run.COMPARISONS,
                 title=f"matched budget, seed {s.seed}")
    assert (tmp_path / "stats.md").read_text() == (d / "stats.md").read_text()


@pytest.mark.skipif(not SEEDS, reason="no seed of the study is finished yet (studies/matched_budget/README.md)")
def test_budget_json_is_the_seeds_training_records():
    assert json.loads((STUDY / "budget.json").read_text()) == run.budget_json(STUDY)
    for arms in run.budget_json(STUDY).values():
        assert set(arms) == set(run.ARMS)
        assert len({json.dumps(b, sort_keys=True) for b in arms.values()}) == 1  # one budget for all four


def test_a_seed_resumes_past_trainer_settings_added_at_their_default_and_refuses_a_changed_one():
    """A setting added to a trainer config after a seed started (``rows_per_forward``) is at its
    default: the seed ran as it does now and resumes; a changed setting, or an added one that is not
    at its default, refuses."""
    from colbench.agents.mt_dpo import MultiTurnDPOConfig

    now = run._as_json(MultiTurnDPOConfig(rows_per_forward=None).to_dict())
    default = run._as_json(MultiTurnDPOConfig().to_dict())
    old = {k: v for k, v in now.items() if k != "rows_per_forward"}
    assert run._without_added(old, now, default) == old
    assert run._without_added(old, {**now, "rows_per_forward": 2}, default) != old
    assert run._without_added({**old, "beta": 0.5}, now, default) != {**old, "beta": 0.5}
    nested = {"policy": dict(now["policy"])}
    assert "learning_rate" in nested["policy"]
    less = {"policy": {k: v for k, v in now["policy"].items() if k != "learning_rate"}}
    assert run._without_added(less, nested, {"policy": default["policy"]}) == \
        (less if now["policy"]["learning_rate"] == default["policy"]["learning_rate"] else nested)
