"""studies/frontend_small/control (issue 48 part 4): the multi-turn DPO control ran the study's settings
but for one epoch with NLL 0.01 on each seed's committed rollouts; its reports recompute from its
episode files byte for byte, and it trained for what its training record says."""
from __future__ import annotations

import dataclasses
import json

import pytest

from colbench.pipeline import PipelineConfig
from studies.frontend_small import control

SEEDS = sorted((d.name for d in control.OUT.glob("seed-*") if (d / "stats.md").exists()), key=lambda n: int(n[5:]))


def test_the_control_is_the_study_but_for_multi_turn_dpos_epochs_and_nll(tmp_path):
    cfg = control.control_config(0, tmp_path)
    ran = json.loads((control.HERE / "seed-0" / "config.json").read_text())
    now = json.loads(json.dumps(dataclasses.asdict(dataclasses.replace(cfg, seeds=(), seed=0))))
    defaults = json.loads(json.dumps(dataclasses.asdict(PipelineConfig())))
    added = set(now) - set(ran)  # fields PipelineConfig gained after the run: at their defaults, as it ran
    assert added <= {"matched_budget", "strict_tokens"} and all(now[k] == defaults[k] for k in added), added
    differ = {k for k in set(ran) | set(now) if ran.get(k) != now.get(k)} - added
    assert differ == {"out_dir", "methods", "trainer_overrides", "human_version"}
    assert now["methods"] == ["mt-dpo"] and now["matched_budget"] is False and now["strict_tokens"] is False
    want = dict(ran["trainer_overrides"], **{"mt-dpo": dict(ran["trainer_overrides"]["mt-dpo"], epochs=1, nll_coef=0.01)})
    assert now["trainer_overrides"] == want


def test_seed_0_is_committed():
    assert "seed-0" in SEEDS


@pytest.mark.parametrize("name", SEEDS)
def test_a_control_seed_recomputes_from_its_files(name, tmp_path):
    from colbench.pipeline import analyse_runs

    d = control.OUT / name
    # the study's own zero-shot and SWEET-RL episodes and rollouts, unchanged
    for f in ("eval/zero-shot.jsonl", "eval/sweet-rl.jsonl"):
        assert (d / f).read_text() == (control.HERE / name / f).read_text(), f
    m = json.loads((d / "models" / "mt-dpo" / "pipeline_done.json").read_text())["metrics"]
    assert (m["epochs"], m["nll_coef"], m["examples"]) == (1, 0.01, m["n_pairs_available"])
    assert m["optimizer_steps"] == -(-m["examples"] // 2)  # 2 pairs a micro-batch, one pass
    analyse_runs([d], tmp_path, methods=["zero-shot", "mt-dpo", "sweet-rl"])  # the pipeline's: the seed's methods
    assert (tmp_path / "stats.md").read_text() == (d / "stats.md").read_text()


def test_the_pooled_control_recomputes(tmp_path):
    from colbench.pipeline import analyse_runs

    if not (control.OUT / "stats.md").exists():
        pytest.skip("no pooled control yet")
    analyse_runs([control.OUT / s for s in SEEDS], tmp_path, methods=["zero-shot", "mt-dpo", "sweet-rl"],
                 cluster="template")
    assert (tmp_path / "stats.md").read_text() == (control.OUT / "stats.md").read_text()
