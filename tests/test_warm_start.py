"""The warm-start demonstrations are real episodes (env, offline human, scorer) whose rewards are
known by hand; the SFT runs end to end on a tiny random model."""
import json

import pytest

from studies.ask_family.warm_start import build, demonstrations, main
from colbench_env.generator import generate_tasks


def test_demonstrations_ask_on_the_drawn_fraction_and_score_as_the_env_does():
    tasks = generate_tasks(6, difficulty=1, split="train", family="rate")
    demos = demonstrations(tasks, 0.5, seed=3)
    assert len(demos) == 6
    asking = [r for r in demos if len(r["dialogue_history"]) > 1]
    direct = [r for r in demos if len(r["dialogue_history"]) == 1]
    assert len(asking) == 3 and len(direct) == 3
    for r in asking:  # the fact's own question, the human's facts, the ground truth: all tests pass
        fact = r["task"]["generator"]["facts"][0]
        assert [m["content"] for m in r["dialogue_history"][:2]] == [fact["question"], fact["sentence"]]
        assert r["task"]["ground_truth"] in r["dialogue_history"][2]["content"] and r["reward"] == 1.0
    for r in direct:  # the generic guess passes only where the task's number is the template default
        fact = r["task"]["generator"]["facts"][0]
        assert r["task"]["generic_solution"] in r["dialogue_history"][0]["content"]
        assert r["reward"] == (1.0 if fact["value"] == fact["default"] else 0.0)
    # the draw is the seed's: the same seed asks on the same tasks
    again = demonstrations(tasks, 0.5, seed=3)
    assert sorted(r["task"]["task_id"] for r in again if len(r["dialogue_history"]) > 1) == \
        sorted(r["task"]["task_id"] for r in asking)
    # in episode order ("<round>-<k>": the asking round first), whatever order the episodes finished in:
    # the SFT's batches follow the data order, so the model is rebuilt bit for bit only from this order
    assert [r["episode_id"] for r in demos] == [r["episode_id"] for r in again] == \
        sorted((r["episode_id"] for r in demos), key=lambda e: tuple(int(x) for x in e.split("-")))
    assert [r["episode_id"].split("-")[0] for r in demos] == ["0"] * 3 + ["1"] * 3
    assert all(len(r["dialogue_history"]) == 1 for r in demonstrations(tasks[:2], 0.0))
    with pytest.raises(ValueError, match="ask_fraction"):
        demonstrations(tasks, 1.5)


def test_build_trains_on_every_demonstration_and_refuses_an_old_out(tmp_path, capsys, tiny_model_dir):
    tiny = tiny_model_dir()
    out = tmp_path / "ws"
    r = build(out, n=2, ask_fraction=0.5, epochs=1, policy=str(tiny))
    assert (r["demonstrations"], r["asking"], r["asking_solved"]) == (2, 1, 1)
    # success_threshold 0: the failed direct answer is trained on too (both trajectories kept)
    assert r["training"]["metrics"]["n_trajectories"] == 2
    assert (out / "models" / "rft" / "config.json").exists()
    assert json.loads((out / "warm_start.json").read_text())["ask_fraction"] == 0.5
    assert len((out / "demos.jsonl").read_text().splitlines()) == 2
    capsys.readouterr()
    assert main(["--out", str(out), "--n", "2", "--policy", str(tiny)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "already holds a warm start" in err
