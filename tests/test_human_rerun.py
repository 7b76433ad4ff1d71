"""studies.pipeline_rate_fixed.human_rerun: which recorded episodes a new human version answers differently."""
from __future__ import annotations

import dataclasses
import json

from studies.pipeline_rate_fixed.human_rerun import changed_episodes, load_run_config
from colbench.pipeline import PipelineConfig
from colbench_env.generator import generate_tasks
from colbench_env.simulators import make_simulator

REFUSAL_V2 = ("I can't share any code or tests; I only know what I want in plain words. "
              "Ask me about the specific rules or numbers you need.")


def _record(task, episode_id, turns):
    dialogue = []
    for agent, human in turns:
        dialogue.append({"role": "assistant", "content": agent})
        if human is not None:
            dialogue.append({"role": "user", "content": human})
    return {"task_id": task.task_id, "episode_id": episode_id, "dialogue_history": dialogue}


def test_only_episodes_with_a_reply_the_human_now_gives_differently_are_rerun():
    task = generate_tasks(1, difficulty=1, split="test", family="ask")[0]
    human = make_simulator("scripted", kind="backend")
    draft = ("Here it is:\n```python\ndef weekly_pay(hours):\n    return hours * 12\n```\n"
             "Use it like this:\n```python\nprint(weekly_pay(1))  # Output: 12\n```\nThis function pays by the hour.")
    question = "What is your hourly rate?"
    answer = human.reply(task, [{"role": "assistant", "content": question}])
    assert str(task.hidden_information).split()[-2] in answer  # the rate itself (sanity of the fixture)
    records = [
        _record(task, "0", [(question, answer), ("def weekly_pay(hours): ...", None)]),  # replayed word for word
        _record(task, "1", [(draft, REFUSAL_V2), ("def weekly_pay(hours): ...", None)]),  # version 2's refusal
        _record(task, "2", [(question, "My hourly rate is 99 dollars."), ("...", None)]),  # any other reply
    ]
    ids, diffs = changed_episodes(records, {task.task_id: task}, human)
    assert ids == ["1", "2"]
    assert diffs["1"] == [{"turn": 0, "recorded": REFUSAL_V2, "now": human.reply(task, records[1]["dialogue_history"][:1])}]
    assert "can't share" not in diffs["1"][0]["now"] and diffs["2"][0]["now"] == answer


def test_the_run_config_is_read_back_from_a_seed_directory(tmp_path):
    cfg = PipelineConfig(out_dir="elsewhere", family="ask", n_test_tasks=48, simulator_kwargs={"volunteer": False},
                         seed=2, methods=("rft",))
    (tmp_path / "config.json").write_text(json.dumps({**dataclasses.asdict(cfg), "human_version": 2,
                                                      "a_field_of_a_later_version": 1}))
    back = load_run_config(tmp_path, tmp_path / "out")
    assert back == dataclasses.replace(cfg, out_dir=str(tmp_path / "out"))


def test_a_sampled_evaluation_is_refused_in_one_line(tmp_path, capsys):
    from studies.pipeline_rate_fixed.human_rerun import main

    cfg = PipelineConfig(out_dir="x", eval_temperature=1.0)
    (tmp_path / "eval").mkdir()
    (tmp_path / "eval" / "rft.jsonl").write_text("")
    (tmp_path / "config.json").write_text(json.dumps(dataclasses.asdict(cfg)))
    assert main([str(tmp_path), "--method", "rft", "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"human_rerun: error: {tmp_path / 'config.json'}: eval_temperature 1; only a greedy evaluation "
                   "replays word for word"]
    assert not (tmp_path / "o").exists()
