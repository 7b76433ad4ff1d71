"""OpenAICompatBackend against a real local HTTP server (tests/openai_test_server.py)."""
from __future__ import annotations

import base64
import io
import os
import re
import socket
import subprocess
import sys
import threading
import time

import pytest

from colbench_env.lm.base import BackendError, SamplingParams
from colbench_env.lm.openai_compat import OpenAICompatBackend, image_to_data_url

try:
    from openai_test_server import OpenAITestServer
except ImportError:  # tests/ imported as a package
    from tests.openai_test_server import OpenAITestServer


@pytest.fixture
def server():
    with OpenAITestServer() as s:
        yield s


def conv(text):
    return [{"role": "system", "content": "sys"}, {"role": "user", "content": text}]


def backend(server, model="echo", **kw):
    kw.setdefault("backoff_s", 0.01)
    kw.setdefault("timeout_s", 5)
    return OpenAICompatBackend(server.url, model, api_key="k", **kw)


def test_success_sends_standard_body(server):
    b = backend(server)
    params = SamplingParams(max_new_tokens=7, temperature=0.3, top_p=0.9, seed=11, stop=["STOP"])
    [g] = b.generate([conv("hello STOP world")], params)
    assert g.text == "ECHO[0] hello "
    assert g.finish_reason == "stop"
    body = server.state.requests[-1]
    assert body == {"model": "echo", "messages": conv("hello STOP world"), "max_tokens": 7, "temperature": 0.3,
                    "top_p": 0.9, "n": 1, "stop": ["STOP"], "seed": 11}
    assert server.state.headers[-1]["Authorization"] == "Bearer k"
    assert b.generate_one(conv("x")) == "ECHO[0] x"


def test_batch_keeps_order_and_n(server):
    b = backend(server)
    assert b.generated_tokens is None  # no reply yet: nothing counted
    gens = b.generate([conv("a"), conv("b"), conv("c")], SamplingParams(n=2, temperature=1.0))
    assert [g.text for g in gens] == ["ECHO[0] a", "ECHO[1] a", "ECHO[0] b", "ECHO[1] b", "ECHO[0] c", "ECHO[1] c"]
    assert server.state.counts["echo"] == 3
    assert b.generated_tokens == 0  # the sum of the replies' usage.completion_tokens (the stand-in says 0)
    b.close()


def test_server_ignoring_n_is_asked_again(server):
    b = backend(server, "onechoice")
    gens = b.generate([conv("q")], SamplingParams(n=3, temperature=1.0, seed=5))
    assert [g.text for g in gens] == ["ECHO[0] q"] * 3
    assert [r["n"] for r in server.state.requests] == [3, 2, 1]
    assert [r["seed"] for r in server.state.requests] == [5, 6, 7]


def test_logprobs_requested_and_parsed(server):
    b = backend(server)
    [g] = b.generate([conv("one two")], SamplingParams(return_logprobs=True))
    assert server.state.requests[-1]["logprobs"] is True
    assert g.meta["tokens"] == ["ECHO[0]", "one", "two"]
    assert g.logprobs == [-0.5, -1.0, -1.5]


def test_concurrency_is_bounded(server):
    b = backend(server, "slow:0.3", max_concurrency=3)
    t0 = time.perf_counter()
    gens = b.generate([conv(str(i)) for i in range(9)])
    elapsed = time.perf_counter() - t0
    assert [g.text for g in gens] == [f"ECHO[0] {i}" for i in range(9)]
    assert server.state.max_in_flight == 3
    assert elapsed >= 0.85  # 9 requests, 3 at a time, 0.3 s each
    b.close()


@pytest.mark.parametrize("mode", ["fail500:2", "fail429:2", "drop:2"])
def test_retries_then_success(server, mode):
    b = backend(server, mode, max_retries=3)
    assert b.generate_one(conv("hi")) == "ECHO[0] hi"
    assert server.state.counts[mode] == 3


@pytest.mark.parametrize("mode,reason", [("fail500:10", "HTTP 500"), ("fail429:10", "HTTP 429"),
                                         ("drop:10", "connection"), ("slow:2", "timed out")])
def test_retries_exhausted_names_url(server, mode, reason):
    b = backend(server, mode, max_retries=2, timeout_s=0.3)
    with pytest.raises(BackendError) as err:
        b.generate([conv("hi")])
    msg = str(err.value)
    assert f"{server.url}/chat/completions failed after 3 attempt(s)" in msg
    assert reason in msg
    assert server.state.counts[mode] == 3


def test_backoff_doubles(server):
    b = backend(server, "fail500:10", max_retries=3, backoff_s=0.1)
    t0 = time.perf_counter()
    with pytest.raises(BackendError):
        b.generate_one(conv("x"))
    assert time.perf_counter() - t0 >= 0.1 + 0.2 + 0.4


def test_unreachable_port_names_url():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed again when the block ends: nobody listens there
    url = f"http://127.0.0.1:{port}/v1"
    b = OpenAICompatBackend(url, "m", max_retries=1, backoff_s=0.01)
    with pytest.raises(BackendError, match=rf"http://127\.0\.0\.1:{port}/v1/chat/completions failed after 2 "
                                           r"attempt\(s\): connection failed"):
        b.generate_one(conv("x"))


@pytest.mark.parametrize("mode,match", [("garbage", "body that is not JSON"),
                                        ("nochoices", "JSON without 'choices'"),
                                        ("empty", "choice 0 has empty content")])
def test_garbage_answers_raise(server, mode, match):
    b = backend(server, mode)
    with pytest.raises(BackendError, match=match) as err:
        b.generate_one(conv("x"))
    assert server.url in str(err.value)
    assert server.state.counts[mode] == 1  # not retried


def test_client_error_not_retried(server):
    b = OpenAICompatBackend(server.url.replace("/v1", "/v2"), "echo", backoff_s=0.01)
    with pytest.raises(BackendError, match=r"/v2/chat/completions answered HTTP 404"):
        b.generate_one(conv("x"))


def test_multimodal_parts_pass_through(server):
    from PIL import Image

    img = Image.new("RGB", (4, 3), (255, 0, 0))
    url = image_to_data_url(img)
    assert url.startswith("data:image/png;base64,")
    assert Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1]))).size == (4, 3)
    message = {"role": "user", "content": [{"type": "text", "text": "look"},
                                            {"type": "image_url", "image_url": {"url": url}},
                                            {"type": "image_url", "image_url": {"url": url}}]}
    b = backend(server)
    assert b.generate_one([message]) == "ECHO[0] look [2 images]"
    assert server.state.requests[-1]["messages"] == [message]
    with pytest.raises(TypeError, match="needs a PIL.Image"):
        image_to_data_url(b"png")


def test_api_key_from_env_and_bad_arguments(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "from-env")
    assert OpenAICompatBackend("http://x/v1", "m").api_key == "from-env"
    with pytest.raises(ValueError, match="base_url must be an http"):
        OpenAICompatBackend("localhost:8000", "m")
    with pytest.raises(ValueError, match="max_concurrency"):
        OpenAICompatBackend("http://x/v1", "m", max_concurrency=0)


def test_server_runs_as_a_subprocess():
    path = os.path.join(os.path.dirname(__file__), "openai_test_server.py")
    proc = subprocess.Popen([sys.executable, path], stdout=subprocess.PIPE, text=True)
    try:
        url = proc.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:")
        assert OpenAICompatBackend(url, "echo").generate_one(conv("sub")) == "ECHO[0] sub"
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_no_api_key_sends_no_authorization(server, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    OpenAICompatBackend(server.url, "echo").generate_one(conv("x"))
    assert "Authorization" not in server.state.headers[-1]


def test_identical_conversations_in_one_call_get_distinct_seeds(server):
    """k rollouts of one task ask with the same prompt in one call: with a shared seed a vLLM server
    would return k identical samples. Each conversation owns its own seeds."""
    b = backend(server)
    b.generate([conv("same"), conv("same"), conv("other")], SamplingParams(n=2, temperature=1.0, seed=100))
    assert sorted(r["seed"] for r in server.state.requests) == [100, 102, 104]
    b.close()


def test_lm_agent_draws_a_fresh_seed_every_call(server):
    """A seeded LMAgent must not reuse one seed on every turn (correlated samples across turns), and
    two agents with the same settings replay the same seeds."""
    from colbench.agents.base import LMAgent
    from colbench_env.lm.base import derived_seed

    obs = {"problem_description": "Write f(x).", "dialogue": "[]"}

    def seeds_of_three_calls():
        agent = LMAgent(backend(server), sampling=SamplingParams(max_new_tokens=8, temperature=0.7, seed=9))
        start = len(server.state.requests)
        for _ in range(3):
            agent.act(obs)
        return [r["seed"] for r in server.state.requests[start:]]

    first = seeds_of_three_calls()
    assert first == [derived_seed(9, c) for c in range(3)]
    assert len(set(first)) == 3
    assert seeds_of_three_calls() == first
    import numpy as np  # the derivation is numpy's SeedSequence hash, computed here independently
    assert first[1] == int(np.random.SeedSequence([9, 1]).generate_state(1)[0]) & 0x7FFFFFFF
    greedy = LMAgent(backend(server), sampling=SamplingParams(max_new_tokens=8, temperature=0.0, seed=9))
    greedy.act(obs)
    assert server.state.requests[-1]["seed"] == 9  # greedy: the seed is passed through unchanged


# ------------------------------------------------------------------------------------ several servers
def closed_port_url():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed again when the block ends: nobody listens there
    return f"http://127.0.0.1:{port}/v1"


def test_base_url_lists_and_comma_separated():
    from colbench_env.lm.openai_compat import split_base_urls

    assert split_base_urls("http://a/v1") == ["http://a/v1"]
    assert split_base_urls("http://a/v1/, http://b/v1") == ["http://a/v1", "http://b/v1"]
    assert split_base_urls(["http://a/v1", "http://b/v1,http://c/v1"]) == ["http://a/v1", "http://b/v1", "http://c/v1"]
    for bad, shown in (("http://a/v1,localhost:8000", "'localhost:8000'"), ("", "''"), ([], "[]"), (3, "3")):
        with pytest.raises(ValueError, match=re.escape(f"got {shown}")):
            split_base_urls(bad)
    with pytest.raises(ValueError, match="names a server twice"):
        split_base_urls("http://a/v1,http://a/v1/")
    b = OpenAICompatBackend("http://a/v1,http://b/v1", "m")
    assert b.base_urls == ["http://a/v1", "http://b/v1"] and b.config()["base_url"] == ["http://a/v1", "http://b/v1"]
    assert OpenAICompatBackend("http://a/v1/", "m").config()["base_url"] == "http://a/v1"  # one server: as before


def test_requests_go_to_the_server_with_fewest_in_flight():
    """Six concurrent requests over two servers: three each. A long request holds the first server:
    the requests sent meanwhile go to the other one (not round-robin); once it is back, to the first
    listed again."""
    with OpenAITestServer() as a, OpenAITestServer() as b:
        both = OpenAICompatBackend([a.url, b.url], "slow:0.3", backoff_s=0.01)
        gens = both.generate([conv(str(i)) for i in range(6)])
        assert [g.text for g in gens] == [f"ECHO[0] {i}" for i in range(6)]
        assert a.state.counts["slow:0.3"] == 3 and b.state.counts["slow:0.3"] == 3
    with OpenAITestServer(mode="slow:1") as a, OpenAITestServer() as b:
        both = OpenAICompatBackend([a.url, b.url], "echo")
        hold = threading.Thread(target=both.generate_one, args=(conv("held"),))
        hold.start()  # both idle: the first listed takes it, for 1 s
        time.sleep(0.2)
        assert [both.generate_one(conv(x)) for x in "pq"] == ["ECHO[0] p", "ECHO[0] q"]
        hold.join()
        assert both.generate_one(conv("r")) == "ECHO[0] r"
        assert [r["messages"][-1]["content"] for r in a.state.requests] == ["held", "r"]
        assert [r["messages"][-1]["content"] for r in b.state.requests] == ["p", "q"]


def test_a_refused_or_timed_out_request_is_retried_on_another_server():
    down = closed_port_url()
    with OpenAITestServer(mode="slow:2") as stuck, OpenAITestServer() as up:
        # refused: retried at once on the other server (no backoff between servers)
        b = OpenAICompatBackend([down, up.url], "echo", backoff_s=30, max_retries=1)
        t0 = time.perf_counter()
        assert b.generate_one(conv("x")) == "ECHO[0] x"
        assert time.perf_counter() - t0 < 15 and up.state.counts["echo"] == 1  # a backoff would have waited 30 s
        # the refusing server is passed over while the other one works
        assert b.generate_one(conv("y")) == "ECHO[0] y" and up.state.counts["echo"] == 2
        # timed out: likewise
        b = OpenAICompatBackend([stuck.url, up.url], "echo", timeout_s=0.3, backoff_s=30, max_retries=1)
        assert b.generate_one(conv("z")) == "ECHO[0] z"
        assert stuck.state.counts["echo"] == 1 and up.state.counts["echo"] == 3


def test_the_error_names_every_server_tried():
    down1, down2 = closed_port_url(), closed_port_url()
    with OpenAITestServer(mode="fail500:99") as failing:
        b = OpenAICompatBackend([down1, failing.url, down2], "m", backoff_s=0.01, max_retries=3)
        with pytest.raises(BackendError) as err:
            b.generate_one(conv("x"))
    msg = str(err.value)
    assert msg.startswith("every server tried failed (4 attempts): ")
    for url, why in ((down1, "connection failed"), (failing.url, "HTTP 500"), (down2, "connection failed")):
        assert f"{url}/chat/completions: {why}" in msg
    # each server once, in order (the least busy untried one, the first listed on a tie), then back off
    # and start over with the first listed: all three failed just now, none is preferred
    assert failing.state.counts["m"] == 1
    assert msg.index(failing.url) < msg.index(down2) < msg.index(down1)  # in the order last tried


def test_cli_base_url_repeated_or_comma_separated(tmp_path):
    import argparse

    from colbench.cli.run import add_arguments, config_from_args
    from colbench.runs import RunConfig
    from colbench.errors import UsageError

    p = argparse.ArgumentParser()
    add_arguments(p)
    args = p.parse_args(["--out", str(tmp_path / "o.jsonl"), "--agent", "openai", "--agent-model", "m",
                         "--agent-base-url", "http://a/v1", "--agent-base-url", "http://b/v1,http://c/v1",
                         "--simulator-base-url", "http://h/v1"])
    cfg = config_from_args(args)
    assert cfg.agent_base_url == "http://a/v1,http://b/v1,http://c/v1" and cfg.simulator_base_url == "http://h/v1"
    with pytest.raises(UsageError, match="--agent-base-url: base_url must be an http"):
        RunConfig(out="o.jsonl", agent="openai", agent_model="m", agent_base_url="http://a/v1,localhost:1")
