"""The pipeline end to end on a tiny random Llama (a small tokenizer): every stage runs, methods
that have nothing to learn from are reported as such, the report is written, and a rerun resumes."""
import argparse
import dataclasses
import json
import os

import gymnasium as gym
import pytest

import colbench_env  # noqa: F401
from colbench.pipeline import PRESETS, PipelineConfig, run_pipeline, task_split
from colbench_env.evaluation.backend import BackendEvaluator
from colbench_env.rollout import episode_specs
from colbench_env.trajectories import append_jsonl, read_trajectories


@pytest.fixture(scope="module")
def tiny_model(tiny_model_dir):
    """The suite's tiny random Llama over the small tokenizer (:func:`tiny_models.small_tokenizer`): the
    stages, their files and reports do not depend on the tokenizer, and its logits cost ~25x less than
    over SmolLM2's 49,152 ids."""
    return tiny_model_dir(0, 32, "small")


def pipeline_cli(*argv) -> int:
    """``colbench pipeline ARGV``'s exit status, in this process (its stderr in capsys)."""
    from colbench.cli.pipeline import add_arguments, main

    parser = argparse.ArgumentParser()
    add_arguments(parser)
    return main(parser.parse_args([str(a) for a in argv]))


def oracle_record(cfg, task, episode_id, evaluator):
    """A successful rollout (the ground truth as the answer), as collection would record it."""
    env = gym.make("ColBench-Backend-v0", tasks=[task], evaluator=evaluator, max_turns=cfg.max_turns)
    env.reset(seed=0)
    env.step(f"OUTPUT: I WANT TO ANSWER: ```python\n{task.ground_truth}\n```")
    rec = env.unwrapped.trajectory_record()
    rec["episode_id"] = episode_id
    return rec


def test_pipeline_runs_every_stage_and_resumes(tmp_path, tiny_model):
    small = {"n_candidates": 2, "candidate_max_new_tokens": 8, "critic": {"epochs": 1}, "max_length": 512}
    cfg = PipelineConfig(out_dir=str(tmp_path / "p"), policy=tiny_model, n_train_tasks=2, n_test_tasks=2,
                         rollouts_per_task=2, max_turns=1, max_new_tokens=8, episodes_in_flight=4,
                         trainer_overrides={"sweet-rl": small, "rft": {"max_length": 512},
                                            "mt-dpo": {"max_length": 512}, "ppo": {"max_length": 512},
                                            "grpo": {"max_length": 512}})
    # one successful rollout already in the file (as if collected before an interruption)
    train = task_split(cfg, "train")
    spec = episode_specs(4, n_tasks=2, repeats=2)[0]
    with BackendEvaluator(workers=1) as ev:
        append_jsonl(tmp_path / "p" / "rollouts.jsonl", [oracle_record(cfg, train[spec.options["task_index"]],
                                                                       spec.episode_id, ev)])
    report = run_pipeline(cfg, preset="test")
    rows = {r["method"]: r for r in report["rows"]}
    assert list(rows) == ["zero-shot", "rft", "mt-dpo", "ppo", "grpo", "sweet-rl"]
    for m in rows:
        assert rows[m]["episodes"] == 2 and rows[m]["tests_passed_pct"] is not None, rows[m]
    assert report["train"]["rft"]["metrics"] and report["train"]["sweet-rl"]["metrics"]
    out = tmp_path / "p"
    for f in ("results.md", "results.csv", "results.png", "results.json", "config.json"):
        assert (out / f).exists(), f
    # the viewer's report of the run: every method's evaluation episodes, 6 methods x 2 tasks
    assert "12 evaluation episodes of 6 method/mode runs" in (out / "report.html").read_text()
    for m in ("rft", "mt-dpo", "ppo", "grpo", "sweet-rl"):
        assert (out / "models" / m / "config.json").exists() and (out / "ckpt" / m / "trainer.json").exists()
        trained = json.loads((out / "ckpt" / m / "trainer.json").read_text())["config"]
        assert (trained["max_turns"], trained["prompt_style"]) == (cfg.max_turns, cfg.prompt_style), m
    rollouts = read_trajectories(out / "rollouts.jsonl")
    assert len(rollouts) == 4 and rollouts[0]["success"]
    # rerun: nothing is collected, trained or evaluated again
    stamps = {p: p.stat().st_mtime_ns for p in out.rglob("*") if p.is_file() and p.suffix in (".jsonl", ".safetensors")
              and p.name != "invocations.jsonl"}  # the log of invocations grows by one line
    again = run_pipeline(cfg, preset="test")
    assert [r["tests_passed_pct"] for r in again["rows"]] == [r["tests_passed_pct"] for r in report["rows"]]
    assert {p: p.stat().st_mtime_ns for p in stamps} == stamps


def test_pipeline_reports_methods_without_training_data(tmp_path, tiny_model):
    cfg = PipelineConfig(out_dir=str(tmp_path / "q"), policy=tiny_model, n_train_tasks=1, n_test_tasks=1,
                         rollouts_per_task=2, max_turns=1, max_new_tokens=4, episodes_in_flight=2, methods=("rft",))
    report = run_pipeline(cfg, preset="test")
    rft = report["rows"][1]
    assert rft["tests_passed_pct"] is None and "not trained" in rft["note"]
    # a 4-token random policy passes no test: every rollout scores 0, so RFT has nothing to imitate
    assert rft["note"] == "not trained: every rollout has reward 0 (no learning signal)"
    assert "not trained" in (tmp_path / "q" / "results.md").read_text()
    # the stage is done (a later invocation without rft reports it from the marker), and the
    # statistics say why rft has no row rather than that an evaluation is missing
    done = json.loads((tmp_path / "q" / "models" / "rft" / "pipeline_done.json").read_text())
    assert done["skipped"] == "every rollout has reward 0 (no learning signal)"
    assert "rft: left out (not trained in any run: every rollout has reward 0 (no learning signal))." in \
        (tmp_path / "q" / "stats.md").read_text()
    later = run_pipeline(dataclasses.replace(cfg, methods=("grpo",)), preset="test")
    assert [r["note"] for r in later["rows"] if r["method"] == "rft"] == [rft["note"]]
    with pytest.raises(ValueError, match="methods: unknown"):
        PipelineConfig(methods=("dqn",))


def test_policy_probe_runs(tiny_model):
    from studies.ask_family.probe_policy import run

    r = run(model=tiny_model, difficulty=1, n=2, max_new_tokens=4)
    assert r["n"] == 2 and len(r["per_task"]) == 2
    # the percentage is the mean per-task reward; 4 random tokens define no function: every task 0
    assert r["tests_passed_pct"] == 100 * sum(r["per_task"].values()) / 2
    assert set(r["per_task"].values()) == {0.0} and r["success_rate"] == 0.0
    assert r["unparsable"] <= 2
    r = run(model=tiny_model, difficulty=1, n=2, max_new_tokens=4, family="rate", prompt_style="compact")
    assert all(k.startswith("gen-rate-d1-") for k in r["per_task"]) and r["prompt_style"] == "compact"


def test_small_preset_is_what_the_docs_say():
    """--small: rate-family tasks, the compact prompt, sampled (not temperature-1 noise) rollouts; the
    trainers get the collection's turn budget and prompt style; bad fields name themselves."""
    cfg = PipelineConfig()
    assert (cfg.policy, cfg.tasks, cfg.family, cfg.difficulty, cfg.prompt_style) == \
        ("smollm2", "generated", "rate", 1, "compact")
    assert cfg.max_turns == 3 and 0 < cfg.rollout_temperature < 1
    small = PRESETS["small"]["trainer_overrides"]
    assert small["ppo"]["update_epochs"] == 1 and small["sweet-rl"]["pairs_per_state"] == 2
    assert all(t.task_id.startswith("gen-rate-d1-") and t.split == "test" for t in task_split(cfg, "test"))
    paper = PipelineConfig(**{k: v for k, v in PRESETS["paper"].items()})
    assert (paper.prompt_style, paper.max_turns, paper.tasks) == ("paper", 10, "default")
    with pytest.raises(ValueError, match="family must be one of"):
        PipelineConfig(family="easy")
    with pytest.raises(ValueError, match="prompt_style must be one of"):
        PipelineConfig(prompt_style="tiny")


def test_simulator_options_are_checked_before_anything_is_written(tmp_path, monkeypatch, capsys):
    """The human's options are checked when the config is made (the human itself is built only
    when the first episode runs), and ``--simulator X`` with a preset made for another human does
    not hand X that human's options (``--paper``'s model name to the scripted human)."""
    import colbench.cli.pipeline as pipeline

    with pytest.raises(ValueError, match=r"simulator_kwargs: simulator 'scripted' \(backend\) takes no 'model'; "
                                         r"its options: max_facts, volunteer"):
        PipelineConfig(simulator="scripted", simulator_kwargs={"model": "x"})
    PipelineConfig(simulator="scripted", simulator_kwargs={"volunteer": False})
    PipelineConfig(**PRESETS["paper"])  # the openai human takes model, temperature and max_new_tokens
    out = tmp_path / "p"
    assert pipeline_cli("--paper", "--simulator", "scripted", "--simulator-kwargs", '{"model": "x"}',
                        "--out-dir", out) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "takes no 'model'" in err and not out.exists()

    seen = {}

    class Resolved(Exception):
        pass

    def capture(cfg, preset):
        seen.update(cfg=cfg, preset=preset)
        raise Resolved

    monkeypatch.setattr(pipeline, "run_pipeline", capture)
    with pytest.raises(Resolved):
        pipeline_cli("--paper", "--simulator", "scripted", "--out-dir", out)
    assert (seen["preset"], seen["cfg"].simulator, seen["cfg"].simulator_kwargs) == ("paper", "scripted", {})
    with pytest.raises(Resolved):  # the preset's own human keeps its options, a given one is added
        pipeline_cli("--paper", "--simulator-kwargs", '{"base_url": "http://localhost:8000/v1"}',
                     "--out-dir", tmp_path / "q")
    assert seen["cfg"].simulator_kwargs == {**PRESETS["paper"]["simulator_kwargs"],
                                            "base_url": "http://localhost:8000/v1"}


def test_trainer_overrides_are_validated_like_colbench_train():
    """One validation path: the pipeline's per-method overrides go through config_from_dict (as
    `colbench train --config-json` does), so a typo is an error naming the field, not a silent drop."""
    from colbench.agents.trainer_base import ConfigError

    with pytest.raises(ConfigError, match=r"trainer_overrides\['rft'\]: unknown field\(s\) \['n_candidates'\] "
                                          r"for RFTConfig"):
        PipelineConfig(trainer_overrides={"rft": {"n_candidates": 4}})
    with pytest.raises(ConfigError, match=r"trainer_overrides\['sweet-rl'\]: field 'critic.epochs': must be a positive"):
        PipelineConfig(trainer_overrides={"sweet-rl": {"critic": {"epochs": 0}}})
    with pytest.raises(ValueError, match="trainer_overrides: unknown method 'dqn'"):
        PipelineConfig(trainer_overrides={"dqn": {}})
    # PPO has no epochs (its passes are update_epochs)
    with pytest.raises(ConfigError, match=r"trainer_overrides\['ppo'\]: unknown field\(s\) \['epochs'\] for PPOConfig"):
        PipelineConfig(trainer_overrides={"ppo": {"epochs": 1}})
    PipelineConfig(**{k: v for k, v in PRESETS["small"].items()})  # the shipped presets pass


def test_pipeline_evaluates_greedily_by_default_and_paper_samples():
    """One eval_temperature (it was declared twice, the second default 1.0 winning): --small
    evaluates greedily, --paper at the reference's 1.0; the k extra episodes have their own."""
    small, paper = PipelineConfig(**PRESETS["small"]), PipelineConfig(**PRESETS["paper"])
    assert (small.eval_temperature, paper.eval_temperature) == (0.0, 1.0)
    assert small.eval_samples_temperature == 1.0


def test_committed_pipeline_configs_load():
    """Every pipeline config.json under studies/ (each seed's too) loads as a PipelineConfig, every
    trainer override checked, and keeps its values."""
    from pathlib import Path

    paths = sorted((Path(__file__).resolve().parents[1] / "studies").rglob("config.json"))
    configs = [(p, json.loads(p.read_text())) for p in paths]
    configs = [(p, d) for p, d in configs if "trainer_overrides" in d]  # pipeline runs (not critic-ranking's)
    assert len(configs) >= 20
    fields = {f.name for f in dataclasses.fields(PipelineConfig)}
    for path, data in configs:
        assert set(data) - fields <= {"human_version"}, path  # the scripted human's version, written beside
        cfg = PipelineConfig(**{k: v for k, v in data.items() if k in fields})
        assert cfg.episodes_in_flight == data["episodes_in_flight"], path
        assert cfg.trainer_overrides == data["trainer_overrides"], path


def test_trainer_overrides_merge_field_by_field():
    """Overrides over the preset: a nested critic override changes that field only (the preset's
    other critic settings stay)."""
    from colbench.agents.config import merge_config_dicts
    from colbench.agents.sweet_rl import SweetRLConfig
    from colbench.pipeline import trainer_config

    preset = PRESETS["small"]["trainer_overrides"]["sweet-rl"]
    merged = merge_config_dicts(SweetRLConfig, preset, {"critic": {"lora_r": 4, "pairs_per_batch": 3},
                                                        "pairs_per_batch": 5})
    cfg = PipelineConfig(trainer_overrides={"sweet-rl": merged}, episodes_in_flight=3)
    sweet = trainer_config(cfg, "sweet-rl", "/base")
    # the preset's critic learning rate and epochs survive the nested override
    assert (sweet.critic.learning_rate, sweet.critic.epochs, sweet.critic.lora_r) == (1e-4, 2, 4)
    assert (sweet.critic.pairs_per_batch, sweet.pairs_per_batch) == (3, 5)
    assert sweet.policy.model_name_or_path == "/base" and sweet.policy.learning_rate == 1e-4


def test_pipeline_seeds_sampled_evaluation_and_intervals(tmp_path, tiny_model, capsys):
    """--seeds: one whole run per seed; k sampled episodes per held-out task besides greedy; stats over
    tasks and seeds whose means are the plain means of the evaluation files."""
    import numpy as np

    from colbench.stats import bootstrap_mean

    cfg = PipelineConfig(out_dir=str(tmp_path / "s"), policy=tiny_model, n_train_tasks=2, n_test_tasks=2,
                         rollouts_per_task=2, max_turns=1, max_new_tokens=4, episodes_in_flight=4, methods=("grpo",),
                         seeds=(0, 1), eval_samples=2, eval_samples_temperature=1.0, bootstrap_resamples=500,
                         trainer_overrides={"grpo": {"max_length": 512}})
    train = task_split(cfg, "train")
    spec = episode_specs(4, n_tasks=2, repeats=2)[0]
    with BackendEvaluator(workers=1) as ev:
        for s in cfg.seeds:  # one successful rollout per seed: GRPO's first group has a reward difference
            append_jsonl(tmp_path / "s" / f"seed-{s}" / "rollouts.jsonl",
                         [oracle_record(cfg, train[spec.options["task_index"]], spec.episode_id, ev)])
    report = run_pipeline(cfg, preset="test")
    out = tmp_path / "s"
    # one report over both seeds, greedy and sampled: 2 seeds x (2 + 4) episodes of zero-shot and grpo
    assert "24 evaluation episodes of 4 method/mode runs over 2 seeds" in (out / "report.html").read_text()
    assert not (out / "seed-0" / "report.html").exists()
    for s in cfg.seeds:
        for m in ("zero-shot", "grpo"):
            assert len(read_trajectories(out / f"seed-{s}" / "eval" / f"{m}.jsonl")) == 2
            sampled = read_trajectories(out / f"seed-{s}" / "eval" / f"{m}.sampled.jsonl")
            assert len(sampled) == 4 and len({r["task"]["task_id"] for r in sampled}) == 2
        assert (out / f"seed-{s}" / "ckpt" / "grpo" / "trainer.json").exists()
        for m in ("zero-shot", "grpo"):  # the sampled file's settings, recorded beside it
            assert json.loads((out / f"seed-{s}" / "eval" / f"{m}.sampled.json").read_text()) == \
                {"samples": 2, "temperature": 1.0}
    # resuming the out-dir at another temperature would report T=1.0 episodes as T=0.3 ones: refused
    # before any stage runs (one line naming the file and field, exit 2), nothing written
    before = (out / "seed-0" / "eval" / "grpo.sampled.jsonl").read_bytes()
    with pytest.raises(ValueError, match=r"seed-0/eval/grpo\.sampled\.json: field 'temperature': 1\.0, but this run "
                                         r"asks --eval-samples-temperature 0\.3"):
        run_pipeline(dataclasses.replace(cfg, eval_samples_temperature=0.3), preset="test")
    with pytest.raises(ValueError, match="field 'samples': 2, but this run asks --eval-samples 3"):
        run_pipeline(dataclasses.replace(cfg, seeds=(), out_dir=str(out / "seed-1"), eval_samples=3), preset="test")
    capsys.readouterr()
    assert pipeline_cli("--small", "--out-dir", out, "--seeds", "0", "1", "--eval-samples", "2",
                        "--eval-samples-temperature", "0.3") == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "sampled.json: field 'temperature'" in err
    assert (out / "seed-0" / "eval" / "grpo.sampled.jsonl").read_bytes() == before
    stats = json.loads((out / "stats.json").read_text())
    assert stats["n_seeds"] == 2 and set(stats["modes"]) == {"greedy", "sampled"}
    for mode, suffix in (("greedy", ""), ("sampled", ".sampled")):
        e = stats["modes"][mode]
        assert set(e["methods"]) == {"zero-shot", "grpo"} and e["n_tasks"] == 2
        # independent: the plain mean over every episode of both seeds' files, and the interval of the
        # (seed, task) grid assembled here
        recs = {s: read_trajectories(out / f"seed-{s}" / "eval" / f"grpo{suffix}.jsonl") for s in cfg.seeds}
        allr = [100 * (r["reward"] or 0.0) for s in cfg.seeds for r in recs[s]]
        got = e["methods"]["grpo"]["tests_passed_pct"]
        assert got["mean"] == pytest.approx(np.mean(allr))
        ids = sorted({r["task"]["task_id"] for r in recs[0]})
        grid = [[np.mean([100 * (r["reward"] or 0.0) for r in recs[s] if r["task"]["task_id"] == t]) for t in ids]
                for s in cfg.seeds]
        ci = bootstrap_mean(grid, resamples=500, seed=0)
        assert (got["low"], got["high"]) == pytest.approx((ci.low, ci.high))
        assert {(c["method"], c["baseline"]) for c in e["comparisons"]} == {("grpo", "zero-shot")}
    assert (out / "stats.png").stat().st_size > 0 and "grpo - zero-shot" in (out / "stats.md").read_text()
    assert {r["seed"] for r in report["rows"]} == {0, 1}

    # --cluster template: the same grids with whole templates resampled; labels from the task generator
    from colbench.cli import main as colbench_main
    from colbench.pipeline import analyse_runs

    runs = [out / f"seed-{s}" for s in cfg.seeds]
    c = analyse_runs(runs, tmp_path / "c", resamples=500, cluster="template")["modes"]["greedy"]
    test = {t.task_id: t.extra["generator"]["template"] for t in task_split(cfg, "test")}
    ids = sorted(test)
    assert c["clusters"] == test and c["n_clusters"] == len(set(test.values()))
    grid = [[np.mean([100 * (r["reward"] or 0.0) for r in read_trajectories(d / "eval" / "grpo.jsonl")
                      if r["task"]["task_id"] == t]) for t in ids] for d in runs]
    want = bootstrap_mean(grid, resamples=500, seed=0, clusters=[test[t] for t in ids])
    got = c["methods"]["grpo"]["by_cluster"]["tests_passed_pct"]
    assert (got["low"], got["high"]) == pytest.approx((want.low, want.high))
    assert "templates resampled" in (tmp_path / "c" / "stats.md").read_text()
    # tasks without a template (official records): one line naming the file, exit 2
    bare = tmp_path / "bare" / "eval"
    bare.mkdir(parents=True)
    recs = read_trajectories(runs[0] / "eval" / "zero-shot.jsonl")
    for r in recs:
        r["task"].pop("generator", None)
    append_jsonl(bare / "zero-shot.jsonl", recs)
    capsys.readouterr()
    assert colbench_main(["pipeline-stats", str(bare.parent), "--out", str(tmp_path / "b"), "--cluster", "template"]) == 2
    err = capsys.readouterr().err
    assert "zero-shot.jsonl: task" in err and "has no template" in err and len(err.strip().splitlines()) == 1

    assert pipeline_cli("--seeds", "1", "1", "--out-dir", tmp_path / "bad") == 2
    assert "seeds must be distinct" in capsys.readouterr().err


def test_pipeline_cli_bad_options_exit_2_with_one_line(tmp_path, capsys):
    for argv, msg in ((["--seeds", "1", "1"], "seeds must be distinct"),
                      (["--eval-samples", "-1"], "eval_samples must be an integer >= 0"),
                      (["--eval-samples-temperature", "0"], "eval_samples_temperature must be > 0"),
                      (["--eval-temperature", "-1"], "eval_temperature must be >= 0"),
                      (["--trainer-overrides", '{"sweet-rl": {"critic_lr": 1}}'], "unknown field(s) ['critic_lr']"),
                      (["--trainer-overrides", '{"sweet-rl": {"critic": {"lr": 1}}}'],
                       "unknown field(s) ['critic.lr']"),
                      (["--simulator-kwargs", "{volunteer: no}"], "--simulator-kwargs: invalid JSON"),
                      (["--simulator-kwargs", "[1]"], "--simulator-kwargs: must be a JSON object"),
                      (["--trainer-overrides", "{rft: 1}"], "--trainer-overrides: invalid JSON"),
                      (["--trainer-overrides", '{"rft": 1}'], "--trainer-overrides: must be a JSON object"),
                      (["--trainer-overrides", '{"rft": {"n_candidates": 4}}'], "unknown field(s) ['n_candidates']")):
        assert pipeline_cli(*argv, "--out-dir", tmp_path / "bad") == 2
        err = capsys.readouterr().err
        assert msg in err and err.count("\n") == 1 and "Traceback" not in err, err
        assert err.startswith("colbench pipeline: error: "), err
    assert not (tmp_path / "bad").exists()
def test_pipeline_config_selects_the_scoring_semantics():
    assert PipelineConfig().semantics == "reference" and PipelineConfig(semantics="python").semantics == "python"
    with pytest.raises(ValueError, match="semantics must be 'reference' or 'python', got 'js'"):
        PipelineConfig(semantics="js")


def test_first_turn_probe_counts_what_the_scripted_human_does(tiny_model):
    """The ask probe's counts, checked by hand on real "ask" tasks and the real scripted human: only a
    question about the hourly rate draws the hidden fact from a volunteer=False human; an answer ends
    the episode; a draft that asks nothing gets the fact only from a volunteering human."""
    from studies.ask_family.probe_policy import first_turn_stats, run_first_turn
    from colbench_env.generator import generate_tasks
    from colbench_env.protocol import ANSWER_MARKER

    tasks = generate_tasks(2, difficulty=1, split="train", family="ask")
    rate = [f["value"] for f in tasks[0].extra["generator"]["facts"] if f["name"] == "rate"][0]
    texts = [["What is your hourly rate?", "Do you like Python?", f"{ANSWER_MARKER} def weekly_pay(hours): return hours",
              "Here is a draft: def weekly_pay(hours): return hours * 15 (my guess of an hourly rate)"],
             ["How much do you earn per hour, what is your hourly rate?"]]
    r = first_turn_stats(tasks, texts)
    assert (r["turns"], r["answers"]) == (5, 1)
    assert r["asks"] == 3  # the draft asks nothing
    assert r["reveals"] == 2 and r["tasks_with_a_reveal"] == 2
    assert r["per_task"] == {tasks[0].task_id: 0.25, tasks[1].task_id: 1.0}
    assert str(rate) in r["reveal_examples"][0]["reply"] and r["reveal_examples"][0]["message"] == texts[0][0]
    # the same turns to a volunteering human: the draft's words ("hourly rate") now draw the fact too
    assert first_turn_stats(tasks, texts, volunteer=True)["reveals"] == 3
    with pytest.raises(ValueError, match="one list per task"):
        first_turn_stats(tasks, texts[:1])
    # wiring with a random 4-token policy: every sampled turn is counted once
    r = run_first_turn(model=tiny_model, n=2, k=3, max_new_tokens=4)
    assert r["turns"] == 6 and set(r["per_task"]) == {t.task_id for t in tasks}


def test_resuming_with_settings_that_made_the_files_is_refused(tmp_path, capsys):
    """Every stage resumes what it finds: resuming an out-dir with another rollout temperature (or
    policy, family, ...) would train and report on the old setting's episodes under the new one's
    name. The earlier config.json decides; one line naming it and the field, exit 2, nothing written."""
    from colbench.pipeline import check_resume
    from colbench_env.simulators.scripted_backend import VERSION

    out = tmp_path / "r"
    old = PipelineConfig(out_dir=str(out), seeds=(0, 1), methods=("rft", "sweet-rl"),
                         trainer_overrides={"rft": {"epochs": 2}, "sweet-rl": {"critic": {"learning_rate": 1e-4}}})
    for s in old.seeds:
        d = out / f"seed-{s}"
        (d / "models" / "rft").mkdir(parents=True)
        (d / "config.json").write_text(json.dumps({**dataclasses.asdict(dataclasses.replace(old, seeds=(), seed=s)),
                                                   "human_version": VERSION}))
        (d / "rollouts.jsonl").write_text('{"episode_id": "x"}\n')
        (d / "models" / "rft" / "pipeline_done.json").write_text("{}")
    # an older config.json: no eval_temperature field
    legacy = json.loads((out / "seed-1" / "config.json").read_text())
    del legacy["eval_temperature"]
    (out / "seed-1" / "models" / "sweet-rl").mkdir()
    (out / "seed-1" / "models" / "sweet-rl" / "pipeline_done.json").write_text("{}")
    (out / "seed-1" / "config.json").write_text(json.dumps(legacy))

    check_resume(old)  # the same settings
    # free to change: methods, seeds, held-out tasks, batch, resamples, sampled evaluation, an untrained
    # method's overrides; an older file's missing field is not compared
    check_resume(dataclasses.replace(old, methods=("rft", "mt-dpo"), seeds=(1, 2), n_test_tasks=48,
                                     episodes_in_flight=2, bootstrap_resamples=7, eval_samples=2, eval_temperature=0.5,
                                     trainer_overrides={**old.trainer_overrides, "mt-dpo": {"epochs": 9}}))
    with pytest.raises(ValueError, match=r"seed-0/config\.json: field 'rollout_temperature': 0\.1, but this run asks "
                                         r"0\.3 \(its episodes and trained rft were made with the former\)"):
        check_resume(dataclasses.replace(old, rollout_temperature=0.3))
    with pytest.raises(ValueError, match=r"seed-0/config\.json: field 'eval_temperature'"):
        check_resume(dataclasses.replace(old, eval_temperature=0.5))
    for change, field in (({"family": "all"}, "'family'"), ({"policy": "/elsewhere"}, "'policy'"),
                          ({"simulator_kwargs": {"volunteer": False}}, "'simulator_kwargs'"),
                          ({"trainer_overrides": {"rft": {"epochs": 3}}}, r"'trainer_overrides\.rft': \{'epochs': 2\}, but this run asks \{'epochs': 3\}")):
        with pytest.raises(ValueError, match=field):
            check_resume(dataclasses.replace(old, seeds=(1,), **change))
    with pytest.raises(ValueError, match=r"\(1 more field\(s\) differ\)"):
        check_resume(dataclasses.replace(old, max_turns=5, max_new_tokens=5))
    # seed-1's trained sweet-rl vs a new critic learning rate
    with pytest.raises(ValueError, match=r"seed-1/config\.json: field 'trainer_overrides\.sweet-rl': \{'critic': \{'learning_rate': 0\.0001\}\}"):
        check_resume(dataclasses.replace(old, seeds=(1,), trainer_overrides={
            "rft": {"epochs": 2}, "sweet-rl": {"critic": {"learning_rate": 1e-3}}}))
    # what run_pipeline and the CLI do with it: refused before any stage, one line, exit 2, files as they were
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    with pytest.raises(ValueError, match="'rollout_temperature'"):
        run_pipeline(dataclasses.replace(old, rollout_temperature=0.3), preset="test")
    capsys.readouterr()
    assert pipeline_cli("--small", "--out-dir", out, "--seeds", "0", "1", "--methods", "rft",
                        "--rollout-temperature", "0.3") == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "config.json: field 'rollout_temperature'" in err, err
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before
    # an empty out-dir, or one with a config.json but nothing made yet, is not checked
    (out / "seed-0" / "rollouts.jsonl").write_text("")
    (out / "seed-0" / "models" / "rft" / "pipeline_done.json").unlink()
    check_resume(dataclasses.replace(old, seeds=(0,), rollout_temperature=0.3))
    # the scripted human's replies changed (version 3): files made by an earlier version (a config.json
    # without the field predates it) are not resumed with the new one; another simulator is not concerned
    cfg1 = json.loads((out / "seed-1" / "config.json").read_text())
    (out / "seed-1" / "config.json").write_text(json.dumps({k: v for k, v in cfg1.items() if k != "human_version"}))
    with pytest.raises(ValueError, match=rf"seed-1/config\.json: field 'human_version': '2 or earlier', but this run "
                                         rf"asks {VERSION} \(its episodes and trained rft, sweet-rl were made"):
        check_resume(dataclasses.replace(old, seeds=(1,)))
    (out / "seed-1" / "config.json").write_text(json.dumps({**cfg1, "human_version": VERSION - 1}))
    with pytest.raises(ValueError, match=rf"'human_version': {VERSION - 1}, but this run asks {VERSION}"):
        check_resume(dataclasses.replace(old, seeds=(1,)))
    served = {"simulator": "openai", "simulator_kwargs": {"model": "m"}}
    (out / "seed-1" / "config.json").write_text(json.dumps({**cfg1, **served}))
    check_resume(dataclasses.replace(old, seeds=(1,), **served))


def test_an_invocation_with_some_methods_or_seeds_reports_the_whole_directory(tmp_path, tiny_model, capsys):
    """Long runs are resumed as several invocations, each with a subset of --methods / --seeds. The
    report and config.json describe the directory: a method trained by an earlier invocation is
    reported from its files (nothing of it runs again), an unfinished evaluation says so, and the
    statistics pool every seed made with the same settings."""
    from colbench_env.metrics import summarize

    base = PipelineConfig(out_dir=str(tmp_path / "w"), policy=tiny_model, n_train_tasks=2, n_test_tasks=2,
                          rollouts_per_task=2, max_turns=1, max_new_tokens=4, episodes_in_flight=4, seeds=(0, 1),
                          bootstrap_resamples=200, methods=("rft",),
                          trainer_overrides={m: {"max_length": 512} for m in ("rft", "grpo")})
    train = task_split(base, "train")
    spec = episode_specs(4, n_tasks=2, repeats=2)[0]
    with BackendEvaluator(workers=1) as ev:
        for s in base.seeds:  # one successful rollout per seed: RFT and GRPO have something to learn from
            append_jsonl(tmp_path / "w" / f"seed-{s}" / "rollouts.jsonl",
                         [oracle_record(base, train[spec.options["task_index"]], spec.episode_id, ev)])
    run_pipeline(base, preset="test")
    out = tmp_path / "w"
    rft_files = {p: p.read_bytes() for s in base.seeds for p in (out / f"seed-{s}").rglob("*")
                 if p.is_file() and ("rft" in p.parts or p.name.startswith("rft"))}
    assert any(p.suffix == ".safetensors" for p in rft_files)

    # second invocation: GRPO only, seed 1 only
    report = run_pipeline(dataclasses.replace(base, methods=("grpo",), seeds=(1,)), preset="test")
    assert {p: p.read_bytes() for p in rft_files} == rft_files  # RFT not retrained nor re-evaluated
    rows = {r["method"]: r for r in report["rows"]}
    assert list(rows) == ["zero-shot", "rft", "grpo"]
    rft = summarize(read_trajectories(out / "seed-1" / "eval" / "rft.jsonl"))  # independent of the report
    assert rows["rft"]["tests_passed_pct"] == pytest.approx(rft["tests_passed_pct"]) and rows["rft"]["episodes"] == 2
    assert "earlier invocation" in rows["rft"]["note"]
    results = json.loads((out / "seed-1" / "results.json").read_text())
    assert [r["method"] for r in results["rows"]] == ["zero-shot", "rft", "grpo"]
    assert json.loads((out / "seed-1" / "config.json").read_text())["methods"] == ["rft", "grpo"]
    top = json.loads((out / "config.json").read_text())
    assert (top["seeds"], top["methods"]) == ([0, 1], ["rft", "grpo"])
    stats = json.loads((out / "stats.json").read_text())
    assert stats["n_seeds"] == 2  # seed 0 is still pooled
    greedy = stats["modes"]["greedy"]
    assert set(greedy["methods"]) == {"zero-shot", "rft"}  # GRPO has no seed-0 evaluation yet: said so
    assert greedy["skipped"] == {"grpo": "greedy evaluation in 1 of 2 runs"}
    want = [100 * (r["reward"] or 0.0) for s in base.seeds for r in read_trajectories(out / f"seed-{s}" / "eval" / "rft.jsonl")]
    assert greedy["methods"]["rft"]["tests_passed_pct"]["mean"] == pytest.approx(sum(want) / len(want))

    # an unfinished evaluation of an earlier method is reported as unfinished, and not run now
    ev_file = out / "seed-1" / "eval" / "rft.jsonl"
    ev_file.write_text(ev_file.read_text().splitlines(keepends=True)[0])
    cut = ev_file.read_bytes()
    report = run_pipeline(dataclasses.replace(base, methods=("grpo",), seeds=(1,)), preset="test")
    rft_row = next(r for r in report["rows"] if r["method"] == "rft")
    assert rft_row["tests_passed_pct"] is None
    assert rft_row["note"] == "evaluation unfinished: 1 of 2 episodes missing (resume with --methods rft)"
    assert ev_file.read_bytes() == cut

    # a seed directory made with other settings is left out of the statistics (and said so)
    cfg0 = json.loads((out / "seed-0" / "config.json").read_text())
    (out / "seed-0" / "config.json").write_text(json.dumps({**cfg0, "max_new_tokens": 99}))
    capsys.readouterr()
    run_pipeline(dataclasses.replace(base, methods=("grpo",), seeds=(1,)), preset="test")
    assert json.loads((out / "stats.json").read_text())["n_seeds"] == 1
    assert "seed-0 left out of the statistics: made with max_new_tokens = 99, this run 4" in capsys.readouterr().err
    assert json.loads((out / "config.json").read_text())["seeds"] == [1]
    # an unreadable top-level config.json only loses the pooling of earlier seeds (said so), not the run
    (out / "config.json").write_text("{not json")
    capsys.readouterr()
    run_pipeline(dataclasses.replace(base, methods=("grpo",), seeds=(1,)), preset="test")
    assert f"earlier seeds not pooled: {out / 'config.json'}: invalid JSON" in capsys.readouterr().err
    assert json.loads((out / "config.json").read_text())["seeds"] == [1]  # rewritten
    # each invocation left a line saying which code ran (colbench.provenance)
    log = [json.loads(x) for x in (out / "invocations.jsonl").read_text().splitlines()]
    assert [x["command"] for x in log] == ["pipeline"] * 5 and all("git_commit" in x for x in log)


def test_a_stage_whose_episodes_are_all_written_starts_no_scoring_pool(tmp_path, monkeypatch):
    """run_policy_episodes starts its scoring pool (a frontend's Chromium drivers, a backend's
    sandbox) with the first episode it runs: a resumed stage with nothing left starts none, and
    returns the same records."""
    import colbench.runs as runs
    from colbench.agents.base import ScriptedAgent
    from colbench_env.tasks import load_tasks

    pools = []
    real = runs.scoring_pool

    def counted(*a, **k):
        pools.append(a)
        return real(*a, **k)

    monkeypatch.setattr(runs, "scoring_pool", counted)
    tasks, out = load_tasks("generated:2:1:rate"), tmp_path / "e.jsonl"

    def stage(only=None):
        return runs.run_policy_episodes("ColBench-Backend-v0", tasks, ScriptedAgent, out, max_turns=2,
                                        episodes_in_flight=2, desc="eval", only=only)

    first = stage(only={"0"})  # one of the two episodes
    assert len(first) == 1 and len(pools) == 1
    both = stage()  # the other one runs: a pool again
    assert len(both) == 2 and len(pools) == 2 and both[0] == first[0]
    assert stage() == both and len(pools) == 2  # nothing left: no pool
