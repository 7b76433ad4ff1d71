"""`colbench bench` and `colbench table` through the real command line."""
import csv
import json
import subprocess
import sys

import pytest

from colbench.table import parse_agent_spec


def colbench(*args, timeout=600):
    p = subprocess.run([sys.executable, "-m", "colbench", *args], capture_output=True, text=True, timeout=timeout)
    assert p.returncode == 0, p.stderr[-3000:]
    return p


def test_bench_env_json_last_line(tmp_path):
    p = colbench("bench", "--only", "env", "--json", "--out", str(tmp_path / "bench.json"))
    result = json.loads(p.stdout.strip().splitlines()[-1])
    assert result["env_steps_per_s"] > 0 and result["steps"] > 0
    assert json.loads((tmp_path / "bench.json").read_text()) == result
    assert "[env] env_steps_per_s" in p.stdout


def test_table_backend_and_frontend(tmp_path):
    p = colbench("table", "--agents", "scripted", "--envs", "ColBench-Backend-v0", "ColBench-Frontend-v0",
                 "--episodes", "2", "--out-dir", str(tmp_path))
    rows = list(csv.DictReader(open(tmp_path / "table.csv")))
    assert [(r["agent"], r["env"]) for r in rows] == [("scripted", "ColBench-Backend-v0"),
                                                     ("scripted", "ColBench-Frontend-v0")]
    assert float(rows[0]["tests_passed_pct"]) == 0.0
    # the scripted agent's frontend answer is the plain page written from the request (a lower bound):
    # its similarity, rendered and compared here, averaged over the two episodes' targets
    from colbench.agents import ScriptedAgent
    from colbench_env.evaluation.similarity import similarity
    from colbench_env.evaluation.render import Renderer

    episodes = [json.loads(line) for line in open(tmp_path / "scripted__ColBench-Frontend-v0.jsonl")]
    with Renderer(pool_size=1) as r:
        expected = [similarity(r.render(ScriptedAgent.plain_page(e["task"]["problem_description"])),
                               r.render(e["task"]["ground_truth"])) for e in episodes]
    assert len(expected) == 2 and min(expected) > 0.05
    assert float(rows[1]["similarity"]) == pytest.approx(sum(expected) / 2, abs=1e-6)
    assert float(rows[1]["win_rate_pct"]) == 0.0  # against itself: every task a tie
    assert (tmp_path / "table.png").stat().st_size > 1000 and "| scripted |" in p.stdout


def test_agent_specs():
    assert parse_agent_spec("hf:/ckpt/sweet")["agent_model"] == "/ckpt/sweet"
    s = parse_agent_spec("openai:meta-llama/Llama-3.1-8B-Instruct@http://localhost:8000/v1")
    assert (s["agent"], s["agent_base_url"], s["name"]) == ("openai", "http://localhost:8000/v1", "Llama-3.1-8B-Instruct")
    import pytest

    with pytest.raises(ValueError, match="--agents 'gpt': expected smollm2, scripted"):
        parse_agent_spec("gpt")
    s = parse_agent_spec("my_pkg.agents:Oracle")  # a plug-in, named after its class
    assert (s["agent"], s["name"]) == ("my_pkg.agents:Oracle", "Oracle")


def test_table_with_a_served_lm_agent_and_the_compact_prompt(tmp_path):
    """An OpenAI-compatible policy (the local test server) in the table, with the prompt options."""
    from openai_test_server import OpenAITestServer

    from colbench_env.prompting import agent_instructions

    with OpenAITestServer() as server:
        colbench("table", "--agents", f"openai:echo@{server.url}", "--episodes", "2", "--max-turns", "2",
                 "--max-new-tokens", "16", "--prompt-style", "compact", "--out-dir", str(tmp_path))
        systems = {b["messages"][0]["content"] for b in server.state.requests}
    rows = list(csv.DictReader(open(tmp_path / "table.csv")))
    assert [(r["agent"], r["episodes"]) for r in rows] == [("echo", "2")]
    assert systems == {agent_instructions("backend", 2, "compact")}


def test_bench_serving_runs_both_runners_on_one_stand_in_server():
    """The serving benchmark, small: both runners give the same trajectories; the reply times it
    recomputes from them add up to the server's own total (else it raises); the numbers hang together."""
    from colbench.benchmarks.bench_rollout import run_serving

    r = run_serving(episodes=12, in_flight=4)
    assert r["serving_same_trajectories"] and r["serving_independent_errors"] == 0
    assert r["serving_independent_requests"] == r["serving_lockstep_requests"] > 12
    assert r["serving_independent_bound_s"] == pytest.approx(r["serving_lockstep_bound_s"])
    for name in ("independent", "lockstep"):
        assert r[f"serving_{name}_wall_s"] == pytest.approx(r["serving_independent_bound_s"] /
                                                             r["rollout_serving_efficiency" + ("" if name == "independent"
                                                                                                else "_lockstep")])
    # no runner beats the in-order schedule without overhead, which no schedule makes shorter than
    # the longest episode or the bound
    assert r["serving_fifo_bound_s"] <= r["serving_independent_wall_s"]
    assert r["serving_fifo_bound_s"] >= max(r["serving_longest_episode_s"], r["serving_independent_bound_s"]) - 1e-9


def test_fifo_makespan_by_hand():
    from colbench.benchmarks.bench_rollout import fifo_makespan

    # 2 slots: 3 | 1 -> the 2nd slot frees at 1: +2 -> 3; the first slot frees at 3: +4 -> 7
    assert fifo_makespan([3, 1, 2, 4], 2) == 7
    assert fifo_makespan([1, 1, 1], 5) == 1 and fifo_makespan([2, 3], 1) == 5
