"""``colbench pipeline --env ColBench-Frontend-v0``: the frontend pipeline end to end on a tiny random
Llama (a small tokenizer) in the real headless Chromium, its resume rules, the win rates over
zero-shot (against counts made here from the evaluation files) and the frontend statistics on
hand-made evaluation files (against hand-computed numbers)."""
import dataclasses
import json

import numpy as np
import pytest
from samples import answered_record
from test_pipeline import pipeline_cli

import colbench_env  # noqa: F401
from colbench.pipeline import PipelineConfig, analyse_runs, preset_settings, run_pipeline, task_split
from colbench.pipeline.resume import check_resume
from colbench.stats import bootstrap_indices, bootstrap_mean
from colbench_env.evaluation.trajectory_scoring import win_rate
from colbench_env.rollout import episode_specs
from colbench_env.trajectories import append_jsonl, read_trajectories

FRONTEND = "ColBench-Frontend-v0"
METHOD_NAMES = ["zero-shot", "rft", "mt-dpo", "ppo", "grpo", "sweet-rl"]


def frontend_config(out_dir, **kw) -> PipelineConfig:
    """The ``--small --env ColBench-Frontend-v0`` preset with ``kw`` over it."""
    return PipelineConfig(**{**preset_settings("small", FRONTEND), "out_dir": str(out_dir), **kw})


@pytest.fixture(scope="module")
def tiny_model(tiny_model_dir):
    """The suite's tiny random Llama over the small tokenizer (:func:`tiny_models.small_tokenizer`): the
    stages, their files and reports do not depend on the tokenizer, and its logits cost ~25x less than
    over SmolLM2's 49,152 ids."""
    return tiny_model_dir(0, 32, "small")


@pytest.mark.slow
@pytest.mark.browser
def test_frontend_pipeline_runs_every_stage_and_resumes(tmp_path, tiny_model):
    """2 training tasks x 2 rollouts (3 written here: the target page and the generic page on task A,
    the generic page on task B; the fourth collected by the tiny policy), 2 held-out tasks: every
    method trains with the frontend's rules, is evaluated in Chromium, and the report's win rates are
    the per-task counts of ``colbench evaluate --compare``'s rule with ties half."""
    from colbench_env.evaluation.render import Renderer

    small = {"max_length": 768}
    cfg = frontend_config(tmp_path / "f", policy=tiny_model, n_train_tasks=2, n_test_tasks=2, rollouts_per_task=2,
                          max_new_tokens=8, episodes_in_flight=4, bootstrap_resamples=200,
                          trainer_overrides={m: dict(small) for m in ("rft", "mt-dpo", "ppo", "grpo")}
                          # the critic sees the target page before the dialogue (~870 tokens) and the answered page
                          | {"sweet-rl": {"max_length": 1536, "n_candidates": 2, "candidate_max_new_tokens": 8}})
    train = task_split(cfg, "train")
    assert [t.task_id for t in train] == ["gen-frontend-mini-d1-1", "gen-frontend-mini-d1-2"]
    specs = episode_specs(4, n_tasks=2, repeats=2)
    by_task: dict[int, list] = {}
    for s in specs:
        by_task.setdefault(s.options["task_index"], []).append(s)
    a, b = train
    with Renderer(pool_size=1) as renderer:
        written = [answered_record(a, a.ground_truth, by_task[0][0].episode_id, renderer, cfg.max_turns),
                   answered_record(a, a.extra["generic_solution"], by_task[0][1].episode_id, renderer, cfg.max_turns),
                   answered_record(b, b.extra["generic_solution"], by_task[1][0].episode_id, renderer, cfg.max_turns)]
    append_jsonl(tmp_path / "f" / "rollouts.jsonl", written)
    target, generic_a, generic_b = (r["reward"] for r in written)
    assert target == pytest.approx(1.0) and 0.02 + generic_a < target and generic_b > 0.2

    report = run_pipeline(cfg, preset="test")
    out = tmp_path / "f"
    rollouts = read_trajectories(out / "rollouts.jsonl")
    assert len(rollouts) == 4 and all("success" not in r for r in rollouts)
    collected = [r for r in rollouts if r["episode_id"] == by_task[1][1].episode_id][0]
    assert collected["reward"] == 0.0  # 8 random tokens hold no page
    rows = {r["method"]: r for r in report["rows"]}
    assert list(rows) == METHOD_NAMES
    for m, row in rows.items():
        assert row["episodes"] == 2 and row["similarity_pct"] is not None, row
        assert "tests_passed_pct" not in row
    # the policy saw the frontend's prompt: zero-shot's greedy first turn is the tiny model's greedy
    # continuation of the compact frontend chat (two worked dialogues, then the request)
    from colbench_env.lm.base import SamplingParams
    from colbench_env.lm.hf import HFBackend
    from colbench_env.prompting import format_agent_messages

    first = read_trajectories(out / "eval" / "zero-shot.jsonl")[0]
    chat = format_agent_messages(first["task"]["problem_description"], [], kind="frontend", max_turns=cfg.max_turns,
                                 style="compact")
    lm = HFBackend(tiny_model)
    assert first["dialogue_history"][0]["output"] == lm.generate([chat], SamplingParams(max_new_tokens=8))[0].text
    lm.close()
    # the frontend's rules, recorded in each checkpoint, and what they kept (counted by hand above):
    # RFT: each task's best (the target page on A, the generic page on B); MT-DPO and the critic:
    # every pair of a task's rollouts more than 0.02 apart (A: target > generic, B: generic > none)
    trained = {m: json.loads((out / "ckpt" / m / "trainer.json").read_text())["config"] for m in rows if m != "zero-shot"}
    assert (trained["rft"]["selection"], trained["rft"]["success_threshold"]) == ("task_best", 0.01)
    assert (trained["mt-dpo"]["pairing"], trained["mt-dpo"]["min_reward_gap"]) == ("all_ordered", 0.02)
    assert (trained["sweet-rl"]["critic_pairs"], trained["sweet-rl"]["info_fields"]) == ("all_ordered", ["ground_truth"])
    assert report["train"]["rft"]["metrics"]["n_trajectories"] == 2
    assert report["train"]["mt-dpo"]["metrics"]["n_pairs"] == 2
    assert report["train"]["sweet-rl"]["metrics"]["n_critic_pairs"] == 2
    # win rates: per task, the method's similarity against zero-shot's, ties half -- counted here from
    # the two evaluation files with colbench evaluate --compare's per-task rule
    zs = read_trajectories(out / "eval" / "zero-shot.jsonl")
    stats = json.loads((out / "stats.json").read_text())
    assert stats["kind"] == "frontend"
    greedy = stats["modes"]["greedy"]
    for m in METHOD_NAMES[1:]:
        recs = read_trajectories(out / "eval" / f"{m}.jsonl")
        w = win_rate(recs, zs)
        want = 100 * (w["wins"] + w["ties"] / 2) / w["tasks"]
        assert w["tasks"] == 2 and rows[m]["win_rate_pct"] == pytest.approx(want)
        assert greedy["methods"][m]["win_rate_pct"]["mean"] == pytest.approx(want)
        assert greedy["methods"][m]["similarity_pct"]["mean"] == pytest.approx(100 * np.mean([r["reward"] for r in recs]))
    assert "win rate over zero-shot" in (out / "stats.md").read_text()
    for f in ("results.md", "results.csv", "results.png", "results.json", "stats.png", "config.json"):
        assert (out / f).exists(), f
    assert "similarity_pct" in (out / "results.md").read_text()
    html = (out / "report.html").read_text()
    assert "12 evaluation episodes of 6 method/mode runs" in html and "win rate of the first" in html
    assert json.loads((out / "config.json").read_text())["env"] == FRONTEND

    # rerun: nothing is collected, trained or evaluated again
    stamps = {p: p.stat().st_mtime_ns for p in out.rglob("*") if p.is_file() and p.suffix in (".jsonl", ".safetensors")
              and p.name != "invocations.jsonl"}
    again = run_pipeline(cfg, preset="test")
    assert [r["similarity_pct"] for r in again["rows"]] == [r["similarity_pct"] for r in report["rows"]]
    assert {p: p.stat().st_mtime_ns for p in stamps} == stamps
    # a resume that changes what made the files is refused, naming the field
    for change, field in (({"similarity": "clip"}, "similarity"), ({"family": "simple"}, "family"),
                          ({"env": "ColBench-Backend-v0", "family": "rate"}, "env")):
        with pytest.raises(ValueError, match=f"config.json: field '{field}'"):
            check_resume(dataclasses.replace(cfg, **change))


def test_frontend_preset_and_its_errors(capsys):
    """--small --env ColBench-Frontend-v0: mini pages at difficulty 1, two turns, the compact prompt;
    --semantics is the backend's and the family a backend one: one line, exit 2 (``--paper``'s frontend
    setting: tests/test_paper_settings.py)."""
    cfg = PipelineConfig(**preset_settings("small", FRONTEND))
    assert (cfg.kind, cfg.tasks, cfg.family, cfg.difficulty, cfg.max_turns, cfg.prompt_style, cfg.similarity) == \
        ("frontend", "generated", "mini", 1, 2, "compact", "visual")
    assert all(t.task_id.startswith("gen-frontend-mini-d1-") and t.split == "test" for t in task_split(cfg, "test"))
    # the backend's --small is unchanged by the frontend's
    assert preset_settings("small") == {**__import__("colbench.pipeline", fromlist=["PRESETS"]).PRESETS["small"],
                                        "env": "ColBench-Backend-v0"}
    for argv, msg in ((["--env", FRONTEND, "--semantics", "python"], "only backend runs have scoring semantics"),
                      (["--env", FRONTEND, "--family", "rate"], "family must be one of ['all', 'mini', 'simple']")):
        assert pipeline_cli(*argv) == 2
        err = capsys.readouterr().err
        assert len(err.strip().splitlines()) == 1 and msg in err and err.startswith("colbench pipeline: error:"), err
    with pytest.raises(ValueError, match="env must be one of"):
        PipelineConfig(env="ColBench-Backend-v1")
    with pytest.raises(ValueError, match="preset must be one of"):
        preset_settings("tiny", FRONTEND)


def _record(task_id: str, reward: float, episode: str) -> dict:
    return {"task": {"problem_description": f"page {task_id}", "ground_truth": "<html></html>", "task_id": task_id},
            "dialogue_history": [{"role": "assistant", "content": "I WANT TO ANSWER: <html></html>"}],
            "answer": "<html></html>", "reward": reward, "episode_id": episode}


def test_frontend_statistics_on_hand_made_files(tmp_path):
    """Two seeds x three tasks of zero-shot and rft similarities chosen here: the win rate, its
    interval (the same draws, counted in plain Python) and the paired difference."""
    sims = {"zero-shot": [[0.5, 0.8, 0.6], [0.5, 0.7, 0.9]], "rft": [[0.7, 0.8, 0.4], [0.6, 0.7, 0.9]]}
    runs = []
    for s in range(2):
        d = tmp_path / f"seed-{s}"
        (d / "eval").mkdir(parents=True)
        for m, grid in sims.items():
            append_jsonl(d / "eval" / f"{m}.jsonl", [_record(f"t{i}", grid[s][i], f"e{i}") for i in range(3)])
        runs.append(d)
    report = analyse_runs(runs, tmp_path / "out", methods=["zero-shot", "rft"], resamples=400)
    e = report["modes"]["greedy"]
    # by hand: seed 0 win, tie, loss; seed 1 win, tie, tie -> (1 + .5 + 0 + 1 + .5 + .5) / 6 = 3.5 / 6
    rate = e["methods"]["rft"]["win_rate_pct"]
    assert rate["mean"] == pytest.approx(100 * 3.5 / 6)
    outcome = [[1.0, 0.5, 0.0], [1.0, 0.5, 0.5]]
    seeds, tasks = bootstrap_indices(2, 3, 400, 0)
    reps = sorted(100 * sum(outcome[si][ti] for si in seeds[r] for ti in tasks[r]) / 6 for r in range(400))
    want = np.percentile(reps, [2.5, 97.5])
    assert (rate["low"], rate["high"]) == pytest.approx(tuple(want))
    assert e["methods"]["zero-shot"]["similarity_pct"]["mean"] == pytest.approx(100 * np.mean(sims["zero-shot"]))
    assert "win_rate_pct" not in e["methods"]["zero-shot"]
    (c,) = e["comparisons"]
    assert (c["method"], c["baseline"], c["metric"]) == ("rft", "zero-shot", "similarity_pct")
    assert c["diff_mean"] == pytest.approx(100 * (np.mean(sims["rft"]) - np.mean(sims["zero-shot"])))
    assert c["win_rate"] == rate
    want_ci = bootstrap_mean(100 * np.array(outcome), resamples=400, seed=0)
    assert (rate["low"], rate["high"]) == pytest.approx((want_ci.low, want_ci.high))
    md = (tmp_path / "out" / "stats.md").read_text()
    assert "| rft | 68.3 [" in md and f"{100 * 3.5 / 6:.1f} [" in md
