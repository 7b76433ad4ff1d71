"""studies/frontend_small/pages.py against hand-counted episodes."""
import json
from pathlib import Path

import pytest

from studies.frontend_small import pages

PAGE = "<html><body><nav class='bg-red-500'>Shop</nav></body></html>"


def _rec(reward, turns, answer, hidden=("headline",)):
    task = {"generator": {"facts": [{"name": h} for h in hidden]}} if hidden else {}
    return {"task": task, "reward": reward, "answer": answer,
            "dialogue_history": [t for pair in turns for t in pair]}


def _ask(text="What colour?", reply="Red."):
    return ({"role": "assistant", "content": text, "finish_reason": "stop"}, {"role": "user", "content": reply})


def _answer(text, finish="stop"):
    return ({"role": "assistant", "content": text, "finish_reason": finish},)


def _write(seed_dir, method, records, config=None):
    (seed_dir / "eval").mkdir(parents=True, exist_ok=True)
    (seed_dir / "eval" / f"{method}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    if config is not None:
        (seed_dir / "config.json").write_text(json.dumps(config))


def test_columns_are_counted_as_by_hand(tmp_path):
    s0, s1 = tmp_path / "seed-0", tmp_path / "seed-1"
    cut = PAGE[:30]
    _write(s0, "zero-shot", [
        _rec(0.8, [_ask(), _answer("I WANT TO ANSWER: " + PAGE)], PAGE),              # asked, page
        _rec(0.0, [_ask(), _answer("I WANT TO ANSWER: " + cut, "length")], cut),      # asked, cut, no page
        _rec(0.5, [_answer("I WANT TO ANSWER: <body>x</body>")], "<body>x</body>", ("accent", "background")),
    ], config={"methods": ["rft", "mt-dpo"]})
    _write(s0, "mt-dpo", [_rec(0.6, [_ask(), _answer(PAGE)], PAGE)] * 3)
    _write(s1, "zero-shot", [_rec(0.2, [_ask(), _answer(PAGE)], PAGE, hidden=())])
    _write(s1, "mt-dpo", [_rec(0.0, [_ask(), _answer("no page here")], "no page here")])
    _write(s0, "rft", [_rec(1.0, [_ask(), _answer(PAGE)], PAGE)])  # only in seed-0: left out

    report = pages.analyse([s0, s1])
    assert list(report["methods"]) == ["zero-shot", "mt-dpo"]
    zs = report["methods"]["zero-shot"]["pooled"]
    assert zs["episodes"] == 4
    assert zs["asked_pct"] == pytest.approx(75.0)          # 3 of 4 asked first
    assert zs["page_pct"] == pytest.approx(75.0)           # the cut page holds no </html>
    assert zs["cut_pct"] == pytest.approx(25.0)
    assert zs["similarity_pct"] == pytest.approx(100 * (0.8 + 0.0 + 0.5 + 0.2) / 4)
    assert zs["page_similarity_pct"] == pytest.approx(100 * (0.8 + 0.5 + 0.2) / 3)
    dpo = report["methods"]["mt-dpo"]
    assert dpo["pooled"]["page_pct"] == pytest.approx(75.0)
    assert dpo["per_seed"]["seed-1"] == {"episodes": 1, "asked_pct": 100.0, "page_pct": 0.0, "cut_pct": 0.0,
                                         "similarity_pct": 0.0, "page_similarity_pct": None,
                                         "nav_as_target_pct": 0.0, "section_as_target_pct": 0.0,
                                         "headline_as_target_pct": 0.0, "same_as_zero_shot_pct": 0.0}
    assert report["methods"]["zero-shot"]["by_hidden_fact"] == {
        "(none recorded)": {"episodes": 1, "similarity_pct": pytest.approx(20.0)},
        "accent+background": {"episodes": 1, "similarity_pct": pytest.approx(50.0)},
        "headline": {"episodes": 2, "similarity_pct": pytest.approx(40.0)}}
    text = pages.markdown(report)
    assert "| mt-dpo | - | - | 45.0 (4) |" in text
    assert "| zero-shot | 4 | 75.0 | 75.0 | 25.0 | 37.5 | 50.0 |" in text
    assert "| mt-dpo | 100.0 / 60.0 | 0.0 / 0.0 |" in text


def test_cli_writes_both_files_and_bad_input_says_where(tmp_path, capsys):
    s0 = tmp_path / "seed-0"
    _write(s0, "zero-shot", [_rec(0.5, [_ask(), _answer(PAGE)], PAGE)])
    assert pages.main([str(s0), "--out", str(tmp_path / "out")]) == 0
    assert json.loads((tmp_path / "out" / "pages.json").read_text())["methods"]["zero-shot"]["pooled"]["page_pct"] == 100.0
    assert (tmp_path / "out" / "pages.md").read_text() == pages.markdown(pages.analyse([s0]))

    with (s0 / "eval" / "zero-shot.jsonl").open("a") as f:
        f.write('{"reward": 1.0}\n')
    with pytest.raises(SystemExit) as exc:
        pages.main([str(s0)])
    assert exc.value.code == 2
    assert f"{s0 / 'eval' / 'zero-shot.jsonl'}:2:" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exc:
        pages.main([str(tmp_path / "nothing")])
    assert exc.value.code == 2 and "no eval/ folder" in capsys.readouterr().err
    other = tmp_path / "other" / "seed-0"
    _write(other, "zero-shot", [_rec(0.5, [_ask(), _answer(PAGE)], PAGE)])
    with pytest.raises(SystemExit) as exc:
        pages.main([str(s0), str(other)])
    assert exc.value.code == 2 and "share a name (seed-0)" in capsys.readouterr().err


def test_markup_columns_compare_nav_section_and_headline_with_the_target(tmp_path):
    target = ('<html><body><nav class="bg-pink-500 text-white p-4">Shop</nav>'
              '<section class="p-16 text-center"><h1 class="text-4xl">Hello  there</h1></section></body></html>')
    assert pages.markup(target) == {"nav": ["bg-pink-500"], "section": [], "h1": "Hello there"}
    assert pages.markup("<body>x</body>") == {"nav": None, "section": None, "h1": None}
    right_section = target.replace("bg-pink-500", "bg-blue-500")                    # nav wrong, rest right
    right_nav = target.replace('class="p-16', "class='bg-green-700 p-16").replace('text-center">', "text-center'>")
    wrong_h1 = target.replace("Hello  there", "Welcome")

    def rec(task_id, answer):
        r = _rec(0.5, [_ask(), _answer(answer)], answer)
        r["task"]["ground_truth"], r["task_id"] = target, task_id
        return r

    s0 = tmp_path / "seed-0"
    _write(s0, "zero-shot", [rec("a", right_section), rec("b", right_nav), rec("c", "no page")])
    _write(s0, "rft", [rec("a", right_section), rec("b", wrong_h1), rec("c", target)])
    report = pages.analyse([s0])
    zs, rft = report["methods"]["zero-shot"]["pooled"], report["methods"]["rft"]["pooled"]
    # zero-shot: nav right on b only; section right on a only (b has a green one); headline on a and b
    assert (zs["nav_as_target_pct"], zs["section_as_target_pct"], zs["headline_as_target_pct"]) == \
        pytest.approx((100 / 3, 100 / 3, 200 / 3))
    # rft: a as zero-shot's answer; b all but the headline; c the target itself
    assert (rft["nav_as_target_pct"], rft["section_as_target_pct"], rft["headline_as_target_pct"]) == \
        pytest.approx((200 / 3, 100.0, 200 / 3))
    assert rft["same_as_zero_shot_pct"] == pytest.approx(100 / 3)
    assert report["methods"]["rft"]["per_seed"]["seed-0"]["same_as_zero_shot_pct"] == pytest.approx(100 / 3)
    assert "| rft | 66.7 | 100.0 | 66.7 | 33.3 |" in pages.markdown(report)


def test_hidden_fact_right_checks_the_part_each_fact_changes(tmp_path):
    target = ('<html><body><nav class="bg-pink-500 text-white p-4">Shop</nav>'
              '<section class="bg-blue-900 p-16"><h1 class="text-4xl">Hello there</h1></section></body></html>')
    wrong_nav = target.replace("bg-pink-500", "bg-red-500")
    wrong_section = target.replace("bg-blue-900", "bg-green-700")
    wrong_h1 = target.replace("Hello there", "Welcome")

    def rec(task_id, answer, hidden):
        r = _rec(0.5, [_ask(), _answer(answer)], answer, hidden)
        r["task"]["ground_truth"], r["task_id"] = target, task_id
        return r

    s0 = tmp_path / "seed-0"
    _write(s0, "zero-shot", [
        rec("a", wrong_section, ("accent",)),            # accent right (the section is not its part)
        rec("b", wrong_nav, ("accent",)),                # accent wrong
        rec("c", wrong_section, ("background",)),        # background wrong
        rec("d", target, ("background",)),               # background right
        rec("e", wrong_h1, ("headline",)),               # headline wrong
        rec("f", wrong_nav, ("accent", "headline")),     # accent wrong, headline right
        rec("g", "no page", ("headline",)),              # no page: wrong
        rec("h", target, ("cards",)),                    # a fact without a part: not counted
    ])
    right = pages.analyse([s0])["methods"]["zero-shot"]["hidden_fact_right"]
    assert right == {"accent": {"episodes": 3, "right_pct": pytest.approx(100 / 3)},
                     "background": {"episodes": 2, "right_pct": pytest.approx(50.0)},
                     "headline": {"episodes": 3, "right_pct": pytest.approx(100 / 3)}}
    assert "| zero-shot | 33.3 (3) | 50.0 (2) | 33.3 (3) |" in pages.markdown(pages.analyse([s0]))


STUDY = Path(pages.__file__).resolve().parent
COMMITTED_SEEDS = sorted(p.name for p in STUDY.glob("seed-*"))


def test_seed_0_is_committed():
    assert "seed-0" in COMMITTED_SEEDS


@pytest.mark.parametrize("seed", [*COMMITTED_SEEDS, "preset-1h"])
def test_the_committed_seed_reports_recompute_from_its_episode_files(tmp_path, seed):
    """studies/frontend_small/seed-N (and preset-1h, the 1 h preset's measured seed): pages.md from
    the eval files; stats.md (the pipeline's own, 10000 resamples) byte for byte by colbench
    pipeline-stats."""
    from colbench.pipeline import analyse_runs

    seed_dir = STUDY / seed
    assert (seed_dir / "pages.md").read_text() == pages.markdown(pages.analyse([seed_dir]))
    analyse_runs([seed_dir], tmp_path)
    assert (tmp_path / "stats.md").read_text() == (seed_dir / "stats.md").read_text()


def test_the_committed_pooled_reports_recompute_from_the_seed_folders(tmp_path):
    """studies/frontend_small/{stats,pages}.md: every committed seed pooled (pipeline-stats with
    whole templates resampled too, as the study README's command), byte for byte."""
    from colbench.pipeline import analyse_runs

    dirs = [STUDY / s for s in COMMITTED_SEEDS]
    assert (STUDY / "pages.md").read_text() == pages.markdown(pages.analyse(dirs))
    analyse_runs(dirs, tmp_path, cluster="template")
    assert (tmp_path / "stats.md").read_text() == (STUDY / "stats.md").read_text()


def study_argv(seed: int, out_dir) -> list[str]:
    """The study's command line today (the preset has since been cut to the 1 h budget):
    ``colbench pipeline --small --env ColBench-Frontend-v0`` with the study's settings spelled out."""
    from studies.frontend_small.settings import STUDY_SETTINGS as S

    return ["--small", "--env", "ColBench-Frontend-v0", "--seeds", str(seed), "--n-test-tasks", "48",
            "--n-train-tasks", str(S["n_train_tasks"]), "--rollouts-per-task", str(S["rollouts_per_task"]),
            "--trainer-overrides", json.dumps(S["trainer_overrides"]), "--out-dir", str(out_dir)]


def _assert_ran_with(cfg, seed_dir: Path, per_run: tuple) -> None:
    """``cfg`` (a PipelineConfig) as the pipeline writes it to config.json equals ``seed_dir``'s
    config.json, but for the ``per_run`` fields; a field PipelineConfig gained after the run (absent
    from the file) must be at its default, which is what the run did."""
    import dataclasses

    from colbench.pipeline import PipelineConfig

    now = json.loads(json.dumps(dataclasses.asdict(cfg)))
    ran = json.loads((seed_dir / "config.json").read_text())
    defaults = json.loads(json.dumps(dataclasses.asdict(PipelineConfig())))
    added = set(now) - set(ran)
    assert added <= {"matched_budget", "strict_tokens"} and all(now[k] == defaults[k] for k in added), added
    assert {k: v for k, v in now.items() if k not in per_run and k not in added} \
        == {k: v for k, v in ran.items() if k not in per_run}


@pytest.mark.parametrize("seed", COMMITTED_SEEDS)
def test_the_study_command_resolves_to_the_committed_seed_config(tmp_path, monkeypatch, seed):
    """The study README's command, parsed by colbench pipeline's own argument code, gives the
    settings every committed seed ran with (its config.json, written by the pipeline at the time):
    the seeds stay reproducible after the --small frontend preset changed."""
    from test_pipeline import pipeline_cli

    from colbench.cli import pipeline as cli

    captured = {}

    class Captured(Exception):
        pass

    def capture(cfg, preset=None):
        captured["cfg"] = cfg
        raise Captured

    monkeypatch.setattr(cli, "run_pipeline", capture)
    n = int(seed.split("-")[1])
    with pytest.raises(Captured):
        pipeline_cli(*study_argv(n, tmp_path))
    _assert_ran_with(captured["cfg"], STUDY / seed, ("out_dir", "seed", "seeds", "human_version"))
    assert list(captured["cfg"].seeds) == [n] and json.loads((STUDY / seed / "config.json").read_text())["seed"] == n


def test_the_study_settings_are_heavier_than_the_preset():
    """The study's settings change what the preset cut: more tasks and rollouts, two epochs."""
    from colbench.pipeline import PipelineConfig, preset_settings, trainer_config
    from studies.frontend_small.settings import STUDY_SETTINGS

    small = PipelineConfig(**preset_settings("small", "ColBench-Frontend-v0"))
    assert (small.n_train_tasks, small.rollouts_per_task, STUDY_SETTINGS["n_train_tasks"],
            STUDY_SETTINGS["rollouts_per_task"]) == (8, 3, 12, 4)
    for method in ("rft", "mt-dpo", "sweet-rl"):
        assert trainer_config(small, method, "m").epochs == 1
    assert trainer_config(small, "sweet-rl", "m").critic.epochs == 1


def test_the_measured_1h_seed_ran_the_current_preset():
    """studies/frontend_small/preset-1h (the <= 1 h, <= 3 GB measurement) ran exactly what
    ``colbench pipeline --small --env ColBench-Frontend-v0`` resolves to today: a change of the preset
    makes that measurement stale, and this test says so."""
    from colbench.pipeline import PipelineConfig, preset_settings

    _assert_ran_with(PipelineConfig(**preset_settings("small", "ColBench-Frontend-v0")), STUDY / "preset-1h",
                     ("out_dir", "human_version"))
