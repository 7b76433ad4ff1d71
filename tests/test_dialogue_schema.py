"""docs/guides/dialogue-schema.md against the environment: its observation and record examples are
what the env gives for the actions the guide names, and every field the env writes on a message is in
the guide's field table (and nothing the table lists on the agent's observation is missing from it)."""
from __future__ import annotations

import json
import re
from pathlib import Path

import gymnasium as gym
import pytest

import colbench_env  # noqa: F401
from colbench_env.lm.base import GeneratedText
from colbench_env.trajectories import validate_trajectory

GUIDE = Path(__file__).resolve().parents[1] / "docs" / "guides" / "dialogue-schema.md"
ASK = "The rows skip letters? OUTPUT: Which letters do the rows skip?"
ANSWER = "OUTPUT: I WANT TO ANSWER:\ndef seat_label(row_index, seat_index):\n    return None"


def example(name: str):
    """The JSON block after ``<!-- dialogue-schema: NAME -->`` in the guide."""
    text = GUIDE.read_text(encoding="utf-8")
    after = text.split(f"<!-- dialogue-schema: {name} -->", 1)[1]
    return json.loads(re.search(r"```json\n(.*?)\n```", after, re.S).group(1))


def table_fields(heading: str) -> dict[str, str]:
    """Field -> the second column of the first table after ``heading`` (the backticked names of each
    row's first cell)."""
    lines = GUIDE.read_text(encoding="utf-8").split(heading, 1)[1].splitlines()
    first = next(i for i, ln in enumerate(lines) if ln.startswith("|"))
    table = []
    for ln in lines[first:]:
        if not ln.startswith("|"):
            break
        table.append(ln)
    out = {}
    for ln in table[2:]:  # the header and its separator first
        cells = [c.strip() for c in ln.strip("|").split("|")]
        for name in re.findall(r"`(\w+)`", cells[0]):
            out[name] = cells[1]
    assert out, heading
    return out


@pytest.fixture(scope="module")
def episode():
    """The guide's episode: task seed 0, a question, the scripted human's reply, an answer."""
    env = gym.make("ColBench-Backend-v0")
    try:
        env.reset(seed=0)
        obs, *_ = env.step(ASK)
        observed = json.loads(obs["dialogue"])
        human = json.loads(env.unwrapped.pz.observe("human")["dialogue"])
        env.step(GeneratedText(ANSWER, "stop"))  # what an LM agent's action carries
        record = env.unwrapped.trajectory_record()
    finally:
        env.close()
    return observed, human, record


def test_the_observation_example_is_what_the_agent_observes(episode):
    observed, human, _ = episode
    assert example("observation") == observed
    assert human == [{k: m[k] for k in ("role", "content")} for m in observed]  # the human sees no thoughts


def test_the_record_example_is_what_the_env_records(episode):
    _, _, record = episode
    validate_trajectory(record)
    shown = example("record")
    # the guide leaves the task record out, and its answer turn carries no finish_reason (a plain str action)
    got = {k: v for k, v in record.items() if k != "task"}
    got["dialogue_history"] = [{k: v for k, v in m.items() if k != "finish_reason"} for m in got["dialogue_history"]]
    assert shown == got
    assert record["dialogue_history"][-1]["finish_reason"] == "stop"
    assert [m["role"] for m in record["dialogue_history"]] == ["assistant", "user", "assistant"]


def test_every_message_field_the_env_writes_is_in_the_table(episode):
    observed, _, record = episode
    documented = table_fields("## Fields of a message")
    written = {k for m in record["dialogue_history"] for k in m} | {k for m in observed for k in m}
    assert written <= set(documented), written - set(documented)
    assert {k for k, on in documented.items() if on == "every message"} == {"role", "content"}
    record_fields = table_fields("Record fields beside `dialogue_history`:")
    assert set(record) - {"dialogue_history"} <= set(record_fields), set(record) - set(record_fields)
