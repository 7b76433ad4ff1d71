"""Append-only and atomic jsonl I/O."""
import json

import pytest

from colbench_env.trajectories import (TrajectoryFormatError, append_jsonl, atomic_write_jsonl, read_jsonl,
                                       read_trajectories)


def test_append_drops_only_a_partial_last_line(tmp_path):
    p = tmp_path / "t.jsonl"
    append_jsonl(p, [{"a": 1}, {"a": 2}])
    with open(p, "a") as f:
        f.write('{"a": 3, "trunc')
    assert [r for _, r in read_jsonl(p, tolerate_partial_last_line=True)] == [{"a": 1}, {"a": 2}]
    with pytest.raises(TrajectoryFormatError, match=r"t.jsonl:3: invalid JSON"):
        list(read_jsonl(p))
    append_jsonl(p, [{"a": 4}])
    assert p.read_text().splitlines() == ['{"a": 1}', '{"a": 2}', '{"a": 4}']


def test_atomic_write_never_half_written(tmp_path):
    p = tmp_path / "out.jsonl"
    atomic_write_jsonl(p, [{"x": 1}])

    def boom():
        yield {"x": 2}
        raise RuntimeError("crash mid-write")

    with pytest.raises(RuntimeError):
        atomic_write_jsonl(p, boom())
    assert p.read_text() == '{"x": 1}\n' and [q.name for q in tmp_path.iterdir()] == ["out.jsonl"]


def test_trajectory_validation_names_line_and_field(tmp_path):
    p = tmp_path / "traj.jsonl"
    p.write_text(json.dumps({"task": {}, "dialogue_history": [], "answer": ""}) + "\n"
                 + json.dumps({"dialogue_history": []}) + "\n")
    with pytest.raises(TrajectoryFormatError, match=r"traj.jsonl:2: field 'task' is missing"):
        read_trajectories(p)
    p.write_text(json.dumps({"task": {}, "dialogue_history": [{"role": "user"}]}) + "\n")
    with pytest.raises(TrajectoryFormatError, match=r"traj.jsonl:1: field 'dialogue_history\[0\]'"):
        read_trajectories(p)
