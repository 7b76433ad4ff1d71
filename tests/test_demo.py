"""The demo's table is informative: its bounds really are 0 % and 100 % on the demo's tasks, and a
recorded dialogue prints turn by turn with its score (the SmolLM2 row itself is `make demo`)."""
from __future__ import annotations

from colbench.cli.demo import HiddenInfoOracle, demo_tasks, print_dialogue
from colbench.runs import RunConfig, run
from colbench_env.trajectories import atomic_write_jsonl, read_trajectories


def test_bounds_and_dialogue(tmp_path, capsys):
    from colbench.agents.base import ScriptedAgent

    tasks = demo_tasks(7)
    assert len({t.problem_description for t in tasks}) == 7
    atomic_write_jsonl(tmp_path / "tasks.jsonl", [t.to_record() for t in tasks])
    common = dict(tasks=str(tmp_path / "tasks.jsonl"), max_turns=3, episodes_in_flight=7)
    upper = run(RunConfig(out=str(tmp_path / "up.jsonl"), agent="colbench.cli.demo:HiddenInfoOracle", **common),
                agent=HiddenInfoOracle(tasks))
    lower = run(RunConfig(out=str(tmp_path / "low.jsonl"), agent="scripted", **common), agent=ScriptedAgent())
    assert (upper["tests_passed_pct"], upper["success_rate"], upper["mean_turns"]) == (100.0, 1.0, 2.0)
    assert (lower["tests_passed_pct"], lower["success_rate"], lower["mean_turns"]) == (0.0, 0.0, 3.0)
    capsys.readouterr()
    rec = next(r for r in read_trajectories(tmp_path / "up.jsonl") if r["episode_id"] == "0")  # the file is in finishing order
    print_dialogue(rec)
    out = capsys.readouterr().out
    lines = [ln.strip() for ln in out.splitlines() if ln.strip()]
    assert lines[0] == f"task {rec['task_id']}: {tasks[0].problem_description}"
    assert lines[1] == "AGENT 1 Could you tell me exactly how it should work?"
    assert lines[2].startswith("HUMAN ") and lines[2][6:].strip() == rec["dialogue_history"][1]["content"].splitlines()[0]
    assert any(ln.startswith("AGENT 2 [answer] ") for ln in lines)
    total = len(tasks[0].test_cases)
    assert lines[-1] == f"score: {total}/{total} hidden tests passed (reward 1.00, success True)"
