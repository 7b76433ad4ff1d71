"""RecordReplaySimulator: record, replay, misses, partial lines, config keys."""
from __future__ import annotations

import json

import pytest

from colbench_env.lm import OpenAICompatBackend
from colbench_env.simulators.base import Simulator, SimulatorError
from colbench_env.simulators.llm import LLMSimulator
from colbench_env.simulators.replay import RecordReplaySimulator, replay_key
from colbench_env.tasks import BackendTask

try:
    from openai_test_server import OpenAITestServer
except ImportError:  # tests/ imported as a package
    from tests.openai_test_server import OpenAITestServer

TASK = BackendTask(problem_description="Write f(x).", ground_truth="def f(x):\n    return x + 1",
                   test_cases={"test1": "f(1)"}, hidden_information="f adds one.", task_id="t1")
TASK2 = BackendTask(problem_description="Write g(x).", ground_truth="def g(x):\n    return 2 * x",
                    test_cases={"test1": "g(1)"}, hidden_information="g doubles.", task_id="t2")
D1 = [{"role": "assistant", "content": "What should f do?"}]
D2 = D1 + [{"role": "user", "content": "Add one."}, {"role": "assistant", "content": "To ints only?"}]


class CountingHuman(Simulator):
    """A deterministic human whose replies carry a call counter (so replays are recognisable)."""

    kind = "backend"

    def __init__(self, tag="v1"):
        self.calls, self.tag = 0, tag

    def reply(self, task, dialogue, renders=None):
        self.calls += 1
        return f"{self.tag}:{task.task_id}:{len(dialogue)}:call{self.calls}"

    def config(self):
        return {"class": "CountingHuman", "tag": self.tag}


def test_record_then_replay_round_trip(tmp_path):
    path = tmp_path / "store.jsonl"
    human = CountingHuman()
    rec = RecordReplaySimulator(human, path, "record")
    first = rec.reply_batch([(TASK, D1, None), (TASK2, D1, None), (TASK, D2, None)])
    assert first == ["v1:t1:1:call1", "v1:t2:1:call2", "v1:t1:3:call3"]
    lines = [json.loads(l) for l in path.read_text().splitlines()]
    assert [l["reply"] for l in lines] == first
    assert lines[0]["key"] == replay_key(human.config(), TASK, D1)
    assert lines[0]["task_id"] == "t1" and lines[2]["turn"] == 3 and lines[0]["config"] == human.config()

    replay = RecordReplaySimulator(None, path, "replay")  # config taken from the store
    assert replay.reply(TASK2, D1) == "v1:t2:1:call2"
    assert replay.reply_batch([(TASK, D2, None), (TASK, D1, None)]) == ["v1:t1:3:call3", "v1:t1:1:call1"]
    assert replay.config() == human.config() and len(replay) == 3
    assert human.calls == 3


def test_replay_miss_names_path_and_key(tmp_path):
    path = tmp_path / "store.jsonl"
    RecordReplaySimulator(CountingHuman(), path, "record").reply(TASK, D1)
    replay = RecordReplaySimulator(None, path, "replay")
    key = replay_key(CountingHuman().config(), TASK, D2)
    with pytest.raises(SimulatorError, match=rf"{path}: no recorded reply for key {key} \(task_id='t1', turn 3\)"):
        replay.reply(TASK, D2)
    # another simulator config is another key: its replies are never served from this store
    other = RecordReplaySimulator(CountingHuman("v2"), path, "replay")
    with pytest.raises(SimulatorError, match="no recorded reply"):
        other.reply(TASK, D1)


def test_record_always_asks_cache_reuses(tmp_path):
    path = tmp_path / "store.jsonl"
    human = CountingHuman()
    rec = RecordReplaySimulator(human, path, "record")
    assert rec.reply(TASK, D1) == "v1:t1:1:call1"
    assert rec.reply(TASK, D1) == "v1:t1:1:call2"  # record: asks again, latest wins
    cache = RecordReplaySimulator(human, path, "cache")
    assert cache.reply(TASK, D1) == "v1:t1:1:call2"
    assert cache.reply(TASK2, D1) == "v1:t2:1:call3"  # a miss goes to the human and is stored
    assert human.calls == 3
    assert RecordReplaySimulator(None, path, "replay").reply(TASK2, D1) == "v1:t2:1:call3"


def test_partial_last_line_is_ignored_and_closed(tmp_path):
    path = tmp_path / "store.jsonl"
    RecordReplaySimulator(CountingHuman(), path, "record").reply(TASK, D1)
    with open(path, "a") as f:
        f.write('{"key": "abc", "rep')  # an interrupted write
    human = CountingHuman()
    rec = RecordReplaySimulator(human, path, "cache")
    assert len(rec) == 1
    rec.reply(TASK2, D1)
    lines = path.read_text().split("\n")
    assert lines[1] == '{"key": "abc", "rep'
    assert json.loads(lines[2])["task_id"] == "t2"
    # once followed by more lines, the broken line is a real error naming the file and line
    with pytest.raises(SimulatorError, match=rf"{path}:2: malformed replay record"):
        RecordReplaySimulator(None, path, "replay")


def test_bad_arguments(tmp_path):
    with pytest.raises(ValueError, match="mode must be one of"):
        RecordReplaySimulator(CountingHuman(), tmp_path / "s.jsonl", "play")
    with pytest.raises(ValueError, match="needs an inner simulator"):
        RecordReplaySimulator(None, tmp_path / "s.jsonl", "record")
    with pytest.raises(SimulatorError, match="store is empty or missing"):
        RecordReplaySimulator(None, tmp_path / "missing.jsonl", "replay")
    path = tmp_path / "two.jsonl"
    RecordReplaySimulator(CountingHuman("a"), path, "record").reply(TASK, D1)
    RecordReplaySimulator(CountingHuman("b"), path, "record").reply(TASK, D1)
    with pytest.raises(SimulatorError, match="2 simulator configs; pass config="):
        RecordReplaySimulator(None, path, "replay")
    assert RecordReplaySimulator(None, path, "replay", config={"class": "CountingHuman", "tag": "b"}).reply(TASK, D1) \
        == "b:t1:1:call1"


def test_records_an_llm_human_over_http_and_replays_offline(tmp_path):
    path = tmp_path / "llm.jsonl"
    with OpenAITestServer() as server:
        sim = LLMSimulator(OpenAICompatBackend(server.url, "echo", max_retries=0))
        recorded = RecordReplaySimulator(sim, path, "record").reply_batch([(TASK, D1, None), (TASK, D2, None)])
        assert server.state.counts["echo"] == 2
        config = sim.config()
    # the server is gone: replay still answers, keyed by the LLM simulator's config
    replay = RecordReplaySimulator(None, path, "replay", config=config)
    assert replay.reply_batch([(TASK, D1, None), (TASK, D2, None)]) == recorded
    assert "f adds one." in recorded[0]
