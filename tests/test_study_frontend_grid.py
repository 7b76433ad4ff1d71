"""``python -m studies.frontend_small.grid``: the picture grid of a frontend pipeline run. On an
evaluation directory made here in the pipeline's on-disk format (episodes played and scored by the
frontend env in Chromium), each cell of the PNG is compared pixel for pixel with a screenshot of its
page taken here and shrunk here, and each caption's similarity and frame with the records and the
outcomes known from how the pages were chosen; then the bad out-dirs, one line and exit 2."""
import json

import numpy as np
import pytest
from PIL import Image
from samples import answered_record

import colbench_env  # noqa: F401
from colbench.pipeline import PipelineConfig, preset_settings, task_split
from colbench_env.trajectories import append_jsonl
from studies.frontend_small import grid as G

MAX_TURNS = 3


def held_out(n: int) -> list:
    return task_split(PipelineConfig(**{**preset_settings("small", "ColBench-Frontend-v0"), "n_test_tasks": n}), "test")


def no_page_record(task, episode_id: str) -> dict:
    """An evaluation episode whose answer holds no page (reward 0 by rule: nothing is rendered)."""
    return {"task": task.to_record(), "dialogue_history": [{"role": "assistant", "content": "I WANT TO ANSWER: a page"}],
            "answer": "", "reward": 0.0, "task_id": task.task_id, "episode_id": episode_id}


def write_eval(run_dir, records: dict[str, list[dict]]) -> None:
    for method, recs in records.items():
        append_jsonl(run_dir / "eval" / f"{method}.jsonl", recs)


def test_choose_tasks_takes_evenly_spaced_ranks_of_zero_shot_similarity():
    """10 tasks, 4 rows: ranks 0, 3, 6, 9 of the order by similarity then task id (hand-counted)."""
    rewards = {"a": 0.5, "b": 0.1, "c": 0.9, "d": 0.3, "e": 0.3, "f": 0.7, "g": 0.0, "h": 0.2, "i": 1.0, "j": 0.6}
    recs = {t: {"reward": r} for t, r in rewards.items()}
    # sorted: g .0, b .1, h .2, d .3, e .3, a .5, j .6, f .7, c .9, i 1.0
    assert G.choose_tasks(recs, 4) == ["g", "d", "j", "i"]
    assert G.choose_tasks(recs, 2) == ["g", "i"]
    assert G.choose_tasks(recs, 1) == ["a"]  # the median rank, 10 // 2 = 5
    assert G.choose_tasks(recs, 12) == ["g", "b", "h", "d", "e", "a", "j", "f", "c", "i"]


@pytest.mark.slow
@pytest.mark.browser
def test_grid_cells_are_the_pages_renders_and_captions_the_recorded_similarities(tmp_path):
    """Three held-out tasks; zero-shot answers the generic page on task 0, the target on task 1 and no
    page on task 2; RFT the target, the generic page, the generic page; SWEET-RL the same as zero-shot
    (a resumed episode: an earlier record of it ended with an error). Two rows: zero-shot's lowest
    (task 2) and highest (task 1) similarity."""
    from colbench_env.evaluation.render import Renderer

    t0, t1, t2 = tasks = held_out(3)
    run = tmp_path / "run"
    with Renderer(pool_size=1) as renderer:
        def ans(task, page, method):
            return answered_record(task, page, f"{method}/{task.task_id}", renderer, MAX_TURNS)

        generic = {t.task_id: t.extra["generic_solution"] for t in tasks}
        zs = [ans(t0, generic[t0.task_id], "zs"), ans(t1, t1.ground_truth, "zs"), no_page_record(t2, "zs/2")]
        rft = [ans(t0, t0.ground_truth, "rft"), ans(t1, generic[t1.task_id], "rft"), ans(t2, generic[t2.task_id], "rft")]
        failed = dict(zs[1], reward=0.0, error="policy server failed")
        write_eval(run, {"zero-shot": zs, "rft": rft, "sweet-rl": [failed, *zs]})
        assert zs[1]["reward"] == pytest.approx(1.0) and 0 < rft[1]["reward"] < zs[1]["reward"] and rft[2]["reward"] > 0

        out = tmp_path / "figs" / "g.png"
        assert G.main([str(run), "--tasks", "2", "--out", str(out)]) == 0
        layout = json.loads(out.with_suffix(".json").read_text())
        png = np.asarray(Image.open(out).convert("RGB"))
        assert layout["columns"] == ["target", "zero-shot", "rft", "sweet-rl"]
        assert layout["tasks"] == [t2.task_id, t1.task_id] and list(png.shape[1::-1]) == layout["size"]
        want = {t2.task_id: [("zero-shot", zs[2], None, None), ("rft", rft[2], "win", generic[t2.task_id]),
                             ("sweet-rl", zs[2], "tie", None)],
                t1.task_id: [("zero-shot", zs[1], None, t1.ground_truth), ("rft", rft[1], "loss", generic[t1.task_id]),
                             ("sweet-rl", zs[1], "tie", t1.ground_truth)]}
        target_pages = {t2.task_id: t2.ground_truth, t1.task_id: t1.ground_truth}
        for task_id, row in zip(layout["tasks"], layout["rows"]):
            pages = [("target", None, None, target_pages[task_id]), *want[task_id]]
            assert [c["method"] for c in row] == [p[0] for p in pages]
            assert row[0]["caption"] == f"target: {task_id}"
            for cell, (method, rec, outcome, page) in zip(row, pages):
                left, top, right, bottom = cell["box"]
                got = png[top:bottom, left:right]
                if method != "target":
                    assert cell["similarity"] == rec["reward"] and cell["outcome"] == outcome
                    assert cell["caption"].startswith(f"{method}: {rec['reward']:.3f}")
                frame = tuple(png[top - 1, left - 1])
                assert frame == G.COLOURS[outcome], (task_id, method, frame)
                if page is None:  # no page: a grey cell, no render
                    assert not cell["has_page"] and cell["rendered_similarity"] is None
                    assert tuple(got[0, 0]) == (200, 200, 200)
                    continue
                shot = renderer.render(page)  # independently: render, shrink to the cell width, keep the top
                small = shot.resize((G.CELL_WIDTH, round(shot.height * G.CELL_WIDTH / shot.width)), Image.LANCZOS)
                expected = np.asarray(small)[:G.CELL_MAX_HEIGHT]
                assert got.shape == expected.shape and np.array_equal(got, expected), (task_id, method)
                if method != "target":  # this run's metric is "visual" (no config.json): recomputed from the renders
                    assert cell["rendered_similarity"] == pytest.approx(rec["reward"], abs=1e-6)

    # the seeds' layout: seed-<N>/eval, --seed picks it; the default out is <run dir>/grid.png
    (tmp_path / "multi").mkdir()
    run.rename(tmp_path / "multi" / "seed-3")
    assert G.main([str(tmp_path / "multi"), "--tasks", "1", "--methods", "rft"]) == 0
    layout = json.loads((tmp_path / "multi" / "seed-3" / "grid.json").read_text())
    assert layout["columns"] == ["target", "zero-shot", "rft"] and layout["tasks"] == [t0.task_id]  # the median


@pytest.fixture
def bad_run(tmp_path):
    """An out-dir in the pipeline's format (no browser needed: the errors come before any render)."""
    t0, t1 = held_out(2)
    run = tmp_path / "run"
    write_eval(run, {"zero-shot": [no_page_record(t0, "a"), no_page_record(t1, "b")],
                     "rft": [no_page_record(t0, "a"), dict(no_page_record(t1, "b"), error="server failed")]})
    return run, t1


@pytest.mark.parametrize("case", ["no-dir", "no-eval", "no-zero-shot", "method-file", "task-missing",
                                  "bad-line", "seed-on-run", "no-seed", "not-png", "tasks-0"])
def test_a_bad_out_dir_is_one_line_and_exit_2_and_nothing_written(bad_run, tmp_path, capsys, case):
    run, t1 = bad_run
    args, expect = [str(run)], None
    if case == "no-dir":
        args, expect = [str(tmp_path / "nope")], f"{tmp_path / 'nope'}: no such directory"
    elif case == "no-eval":
        (tmp_path / "empty").mkdir()
        args, expect = [str(tmp_path / "empty")], "no eval/ and no seed-<N>/eval/"
    elif case == "no-zero-shot":
        (run / "eval" / "zero-shot.jsonl").unlink()
        expect = f"{run / 'eval' / 'zero-shot.jsonl'}: no such evaluation file"
    elif case == "method-file":
        args, expect = [str(run), "--methods", "ppo"], f"{run / 'eval' / 'ppo.jsonl'}: no such evaluation file"
    elif case == "task-missing":  # rft's episode of t1 ended with an error: it has no finished episode of it
        expect = f"{run / 'eval' / 'rft.jsonl'}: no finished episode of task(s) {t1.task_id}"
    elif case == "bad-line":
        with open(run / "eval" / "rft.jsonl", "a") as f:
            f.write('{"answer": ""}\n')
        expect = f"{run / 'eval' / 'rft.jsonl'}:3: field 'task' is missing"
    elif case == "seed-on-run":
        args, expect = [str(run), "--seed", "0"], "drop --seed 0"
    elif case == "no-seed":
        run.rename(tmp_path / "seed-1")
        args, expect = [str(tmp_path), "--seed", "2"], f"{tmp_path}: no seed-2/eval/ (seeds there: 1)"
    elif case == "not-png":
        args, expect = [str(run), "--out", str(tmp_path / "g.jpg")], "--out must be a .png file"
    elif case == "tasks-0":
        args, expect = [str(run), "--tasks", "0"], "--tasks must be >= 1, got 0"
    before = sorted(p for p in tmp_path.rglob("*"))
    assert G.main(args) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("grid: error: ") and expect in err, err
    assert sorted(p for p in tmp_path.rglob("*")) == before
