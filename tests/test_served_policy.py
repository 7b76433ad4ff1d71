"""A policy served by a real third-party server, `transformers serve` (issue 33, part 3): the
names a server knows models under, `colbench run --agent openai` against it compared with the
local SmolLM2 path, vLLM's LoRA-loading request."""
import json
import os
import subprocess
import sys

import pytest

from agents.served import load_lora_adapter, served_model_name, served_policy
from colbench_env.trajectories import read_trajectories

from openai_test_server import OpenAITestServer
from transformers_serve import TransformersServe, available


def test_served_model_names(tmp_path):
    out = tmp_path / "out"
    assert served_model_name(out / "models" / "sweet-rl", out) == "models/sweet-rl"
    assert served_model_name(str(out / "models" / "rft") + "/", str(out)) == "models/rft"
    assert served_model_name("meta-llama/Llama-3.1-8B-Instruct", out) == "meta-llama/Llama-3.1-8B-Instruct"
    assert served_model_name(tmp_path / "elsewhere", out) == str(tmp_path / "elsewhere")
    agent = served_policy("http://127.0.0.1:9/v1,http://127.0.0.1:10/v1", out / "models" / "sft", run_dir=out,
                          max_turns=3)
    assert agent.lm.model == "models/sft" and agent.lm.base_urls == ["http://127.0.0.1:9/v1", "http://127.0.0.1:10/v1"]
    assert agent.batched is False and agent.max_turns == 3


def test_load_lora_adapter_sends_vllms_request_to_every_server(tmp_path):
    adapter = tmp_path / "ckpt" / "sft" / "policy"
    adapter.mkdir(parents=True)
    with pytest.raises(FileNotFoundError, match="no adapter_config.json"):
        load_lora_adapter("http://127.0.0.1:9/v1", "models/sft", adapter)
    (adapter / "adapter_config.json").write_text("{}")
    with OpenAITestServer() as a, OpenAITestServer() as b:
        load_lora_adapter([a.url, b.url], "models/sft", adapter)
        for s in (a, b):
            assert s.state.requests[-1] == {"lora_name": "models/sft", "lora_path": str(adapter.resolve())}
        with pytest.raises(RuntimeError, match=r"/v2/load_lora_adapter refused to load adapter 'models/sft'.*HTTP 404"):
            load_lora_adapter(a.url.replace("/v1", "/v2"), "models/sft", adapter)


def colbench(*args):
    p = subprocess.run([sys.executable, "-m", "colbench", *map(str, args)], capture_output=True, text=True,
                       timeout=1200, env=dict(os.environ, OMP_NUM_THREADS="1"))
    assert p.returncode == 0, p.stderr[-3000:]
    return json.loads(p.stdout.strip().splitlines()[-1])


@pytest.mark.slow
@pytest.mark.skipif(not available(), reason="transformers serve needs the 'serve' extra (fastapi, uvicorn, openai)")
def test_colbench_run_through_transformers_serve_equals_the_local_policy(tmp_path):
    """SmolLM2 behind `transformers serve`, started in a run directory and asked for
    `models/base` (loaded on first request, by path), plays `colbench run --agent openai` with 2
    episodes in flight; the same episodes with the local SmolLM2 one at a time. Greedy decoding:
    where the agent's texts match, the whole record (reward included) matches."""
    from colbench_env.lm.smollm2 import smollm2_path

    run_dir = tmp_path / "out"
    (run_dir / "models").mkdir(parents=True)
    (run_dir / "models" / "base").symlink_to(smollm2_path(), target_is_directory=True)
    name = served_model_name(run_dir / "models" / "base", run_dir)
    common = ["run", "--tasks", "generated:4:1:rate", "--episodes", 4, "--max-turns", 2, "--max-new-tokens", 24,
              "--prompt-style", "compact", "--json"]
    with TransformersServe(cwd=run_dir) as server:
        served = colbench(*common, "--agent", "openai", "--agent-base-url", server.url, "--agent-model", name,
                          "--batch-size", 2, "--out", tmp_path / "served.jsonl")
    local = colbench(*common, "--agent", "smollm2", "--batch-size", 1, "--out", tmp_path / "local.jsonl")
    assert served["count"] == local["count"] == 4 and served["errors"] == 0
    by_id = {p: {r["episode_id"]: r for r in read_trajectories(tmp_path / f"{p}.jsonl")} for p in ("served", "local")}

    def texts(rec):
        return [m["output"] for m in rec["dialogue_history"] if m["role"] == "assistant"]

    same = [k for k in by_id["local"] if texts(by_id["served"][k]) == texts(by_id["local"][k])]
    assert len(same) >= 3, [(texts(by_id["served"][k]), texts(by_id["local"][k])) for k in by_id["local"]]
    for k in same:
        assert by_id["served"][k] == by_id["local"][k]
