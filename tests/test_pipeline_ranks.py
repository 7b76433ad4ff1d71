"""The pipeline's episode stages on 2 accelerate processes (issue 49, part 2): each process runs its
share of the episodes not yet in the stage's file into its own part file, the main process merges
them in episode order, and every process gets every episode -- the records one process makes, here
with a greedy served policy (the project's stand-in OpenAI server) and the scripted human. An
interrupted run's part file is merged first, and its episodes are not run again."""
from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
from pathlib import Path

from openai_test_server import OpenAITestServer
from test_distributed import _free_port

from colbench.pipeline import PipelineConfig, run_stage_episodes, task_split
from colbench.pipeline.stages import episode_part, merge_episode_parts
from colbench_env.rollout import episode_specs
from colbench_env.trajectories import read_trajectories

HERE = Path(__file__).resolve().parent


def _by_id(records):
    return {r["episode_id"]: r for r in records}


def test_two_processes_split_an_episode_stage_and_merge_it_in_order(tmp_path):
    with OpenAITestServer() as server:
        cfg = PipelineConfig(out_dir=str(tmp_path / "one"), seed=1, policy="org/base-model", policy_base_url=server.url,
                             methods=("rft",), max_turns=2, n_test_tasks=3, episodes_in_flight=2)
        tasks = task_split(cfg, "test")[:3]
        one = run_stage_episodes(cfg, tasks, "org/base-model", tmp_path / "one" / "eval.jsonl", repeats=2,
                                 temperature=0.0, desc="eval", run_dir=str(tmp_path / "one"))
        assert len(one) == 6
        # the 2-process run starts from an interrupted one: episode 0 in the file, episode 3 in a part file
        out = tmp_path / "two" / "eval.jsonl"
        out.parent.mkdir()
        out.write_text(json.dumps(_by_id(one)["0"]) + "\n")
        episode_part(out, 1).write_text(json.dumps(_by_id(one)["3"]) + "\n")
        two_cfg = dataclasses.replace(cfg, out_dir=str(tmp_path / "two"))
        n_before = len(server.state.requests)
        cmd = [sys.executable, "-m", "accelerate.commands.launch", "--multi_gpu", "--num_processes", "2",
               "--main_process_port", str(_free_port()), str(HERE / "pipeline_ranks.py"),
               json.dumps(dataclasses.asdict(two_cfg)), str(out), str(tmp_path / "two"), str(tmp_path / "result")]
        env = dict(os.environ, ACCELERATE_USE_CPU="1", OMP_NUM_THREADS="1",
                   PYTHONPATH=os.pathsep.join([str(HERE.parent), str(HERE)]))
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=600, env=env)
        assert p.returncode == 0, p.stderr[-4000:]
        assert "rank 0 of 2 done" in p.stdout and "rank 1 of 2 done" in p.stdout
        turns = sum(sum(1 for m in r["dialogue_history"] if m["role"] == "assistant") for r in one if r["episode_id"]
                    not in ("0", "3"))
        assert len(server.state.requests) - n_before == turns  # only the 4 missing episodes were run
    ranks = [json.loads((tmp_path / f"result.rank{k}.json").read_text()) for k in (0, 1)]
    # each process ran every other missing episode, and returned all 6, as one process made them
    assert [r["ran"] for r in ranks] == [["1", "4"], ["2", "5"]]
    for r in ranks:
        assert _by_id(r["records"]) == _by_id(one)
    # the file: the earlier episode, the interrupted run's, then the new ones in episode order; no part left
    assert [r["episode_id"] for r in read_trajectories(out)] == ["0", "3", "1", "2", "4", "5"]
    assert not list(out.parent.glob("eval.jsonl.part-*"))


def test_merging_part_files_twice_appends_nothing_twice(tmp_path):
    """An interrupted merge (parts appended, not yet removed) is merged again without duplicates; a
    part's later record of an episode (a retried error) supersedes the file's."""
    rec = lambda k, **kw: {"task": {"task_id": "t"}, "dialogue_history": [], "answer": "", "reward": 0.0,  # noqa: E731
                           "episode_id": str(k), **kw}
    out = tmp_path / "e.jsonl"
    out.write_text(json.dumps(rec(0, error="agent failed: x")) + "\n")
    episode_part(out, 0).write_text(json.dumps(rec(0)) + "\n" + json.dumps(rec(2)) + "\n")
    episode_part(out, 1).write_text(json.dumps(rec(1)) + "\n")
    specs = episode_specs(3)
    merge_episode_parts(out, specs)
    assert [(r["episode_id"], "error" in r) for r in read_trajectories(out)] == \
        [("0", True), ("0", False), ("1", False), ("2", False)]
    episode_part(out, 0).write_text(json.dumps(rec(2)) + "\n")  # as if the merge was cut before the removal
    merge_episode_parts(out, specs)
    assert len(read_trajectories(out)) == 4 and not list(tmp_path.glob("e.jsonl.part-*"))
