"""`colbench bench` and `colbench table` through the real command line."""
import csv
import json
import subprocess
import sys

from colbench.cli.table import parse_agent_spec


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
    assert float(rows[0]["tests_passed_pct"]) == 0.0 and float(rows[1]["similarity"]) == 0.0
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
