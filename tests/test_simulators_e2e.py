"""Backend episodes end to end with every kind of human: an OpenAI-compatible server (the real test
server), record/replay, local SmolLM2; a server going down mid-run; LMAgent over HTTP."""
import json
import subprocess
import sys

import gymnasium as gym
import pytest

import colbench_env  # noqa: F401
from colbench.agents import LMAgent, ScriptedAgent
from colbench_env.evaluation.backend import BackendEvaluator
from colbench_env.rollout import episode_specs, run_episodes
from colbench_env.trajectories import read_trajectories

from openai_test_server import OpenAITestServer

AGENT = ScriptedAgent(["OUTPUT: What are your rules?", "OUTPUT: Any thresholds?",
                       "OUTPUT: I WANT TO ANSWER: def f():\n    return 1"])


@pytest.fixture(scope="module")
def evaluator():
    with BackendEvaluator(workers=1) as ev:
        yield ev


def episodes(env_fn, n=3, batch_size=2):
    recs = run_episodes(env_fn, AGENT, episode_specs(n, seed=7), episodes_in_flight=batch_size)
    return sorted(recs, key=lambda r: r["episode_id"])


def test_openai_simulator_then_offline_replay(tmp_path, evaluator):
    cache = tmp_path / "sim.jsonl"
    with OpenAITestServer() as server:
        kw = {"inner": "openai", "inner_kwargs": {"base_url": server.url, "model": "echo"}, "path": str(cache)}
        live = episodes(lambda: gym.make("ColBench-Backend-v0", simulator="record", simulator_kwargs=kw,
                                         evaluator=evaluator))
        bodies = list(server.state.requests)
    assert len(bodies) == 6  # two questions per episode, batched across episodes
    # the human's prompt carries the hidden information; the reply is the server's
    task = live[0]["task"]
    assert any(task["hidden_information"] in json.dumps(b) for b in bodies)
    replies = [m["content"] for r in live for m in r["dialogue_history"] if m["role"] == "user"]
    assert all(x.startswith("ECHO[0]") and len(x) <= 400 for x in replies)
    # the server is gone: replay reproduces the run exactly, offline
    replayed = episodes(lambda: gym.make("ColBench-Backend-v0", simulator="replay",
                                         simulator_kwargs={"path": str(cache)}, evaluator=evaluator))
    without_human = [[{k: v for k, v in r.items() if k != "human"} for r in rs] for rs in (replayed, live)]
    assert without_human[0] == without_human[1]
    # each record names its human: the replay stands for the served human it recorded
    assert all(r["human"] == {**r["human"], "kind": "replay", "of": lv["human"]} for r, lv in zip(replayed, live))
    assert live[0]["human"]["kind"] == "served" and live[0]["human"]["model"] == "echo"
    # a dialogue the cache has never seen fails loudly: the episode ends with the error recorded
    env = gym.make("ColBench-Backend-v0", simulator="replay", simulator_kwargs={"path": str(cache)},
                   evaluator=evaluator)
    env.reset(seed=0)
    obs, r, term, trunc, info = env.step("OUTPUT: a question nobody asked before")
    assert trunc and not term and str(cache) in info["error"]
    assert str(cache) in env.unwrapped.trajectory_record()["error"]


def test_server_down_mid_run_is_recorded_and_resumable(tmp_path):
    out = tmp_path / "run.jsonl"
    server = OpenAITestServer().start()
    url = server.url
    def cmd(n):
        return [sys.executable, "-m", "colbench", "run", "--agent", "scripted", "--split", "test",
                "--episodes", str(n), "--episodes-in-flight", "1", "--simulator", "openai", "--simulator-base-url", url,
                "--simulator-model", "echo", "--out", str(out), "--json"]

    p = subprocess.run(cmd(2), capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr[-2000:]
    server.stop()  # the simulator's server goes down
    p = subprocess.run(cmd(3), capture_output=True, text=True, timeout=300)
    assert p.returncode == 1, p.stderr[-2000:]  # the run is written, then it says an episode failed
    recs = read_trajectories(out)
    assert [r["episode_id"] for r in recs] == ["0", "1", "2"]
    assert "error" not in recs[0] and url in recs[2]["error"]  # the error names the server
    assert json.loads(p.stdout.strip().splitlines()[-1])["errors"] == 1
    errors = [ln for ln in p.stderr.splitlines() if ln.startswith("colbench run: error: ")]
    assert len(errors) == 1 and "Traceback" not in p.stderr
    assert errors[0].startswith(f"colbench run: error: {out}: 1 of 3 episodes ended with an error (first: simulator "
                                "failed: ") and url in errors[0] and "run the same command again to retry" in errors[0]
    # back up on the same port: resuming retries only the failed episode
    with OpenAITestServer(port=int(url.rsplit(":", 1)[1].split("/")[0])):
        p = subprocess.run(cmd(3), capture_output=True, text=True, timeout=300)
    assert p.returncode == 0 and "retrying 1 episodes" in p.stderr, p.stderr[-2000:]
    recs = read_trajectories(out)
    assert [r["episode_id"] for r in recs] == ["0", "1", "2", "2"] and "error" not in recs[-1]
    assert json.loads(p.stdout.strip().splitlines()[-1])["errors"] == 0


def test_a_run_whose_agent_server_answers_500_exits_1_naming_the_error_and_resumes(tmp_path):
    """Every request of the first run gets HTTP 500 from the stand-in server: every episode is
    written with its error, the summary says so, and the command exits 1 with one line naming the
    first error and how to retry; the same command, once the server answers, retries exactly them."""
    out = tmp_path / "run.jsonl"
    with OpenAITestServer() as server:
        cmd = [sys.executable, "-m", "colbench", "run", "--agent", "openai", "--agent-base-url", server.url,
               "--agent-model", "fail500:3", "--agent-kwargs", '{"max_retries": 0}', "--split", "test",
               "--episodes", "3", "--max-turns", "2", "--out", str(out), "--json"]
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
        assert p.returncode == 1 and "Traceback" not in p.stderr, p.stderr[-2000:]
        assert server.state.counts["fail500:3"] == 3  # one request per episode, each answered 500
        recs = read_trajectories(out)
        assert sorted(r["episode_id"] for r in recs) == ["0", "1", "2"]
        assert all(r["error"].startswith("agent failed: ") and "HTTP 500" in r["error"] for r in recs)
        metrics = json.loads(p.stdout.strip().splitlines()[-1])  # --json: the metrics are still the last line
        assert (metrics["count"], metrics["errors"], metrics["tests_passed_pct"]) == (3, 3, 0.0)
        assert "episodes 3  errors 3" in p.stdout
        errors = [ln for ln in p.stderr.splitlines() if ln.startswith("colbench run: error: ")]
        assert len(errors) == 1, p.stderr[-2000:]
        assert errors[0].startswith(f"colbench run: error: {out}: 3 of 3 episodes ended with an error (first: agent "
                                    f"failed: ") and "HTTP 500" in errors[0]
        assert errors[0].endswith("run the same command again to retry them (it resumes: the 0 finished episodes "
                                  "are kept)")
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)  # the server answers from now on
        assert p.returncode == 0 and "retrying 3 episodes that ended with an error" in p.stderr, p.stderr[-2000:]
        assert json.loads(p.stdout.strip().splitlines()[-1])["errors"] == 0
        assert server.state.counts["fail500:3"] > 3


def test_lm_agent_over_openai_compatible_server():
    with OpenAITestServer() as server:
        agent = LMAgent("openai", base_url=server.url, model="echo")
        env = gym.make("ColBench-Backend-v0", split="test")
        obs = [env.reset(seed=s)[0] for s in range(3)]
        actions = agent.act_batch(obs)
        bodies = list(server.state.requests)
    assert len(actions) == 3 and all(a.startswith("ECHO[0] ") for a in actions)
    msgs = bodies[0]["messages"]
    assert msgs[0]["role"] == "system" and "I WANT TO ANSWER:" in msgs[0]["content"]
    assert msgs[1]["content"] in {o["problem_description"] for o in obs}


def test_lm_agent_prompt_styles_reach_the_server():
    from colbench_env.prompting import agent_instructions

    with OpenAITestServer() as server:
        env = gym.make("ColBench-Backend-v0", split="test", max_turns=3)
        obs, _ = env.reset(seed=0)
        for style in ("paper", "compact"):
            LMAgent("openai", base_url=server.url, model="echo", max_turns=3, prompt_style=style).act(obs)
        paper, compact = (b["messages"][0]["content"] for b in server.state.requests)
    assert paper == agent_instructions("backend", 3, "paper") and "at most 3 turns" in paper
    assert compact == agent_instructions("backend", 3, "compact") and "at most 3 turns" in compact
    assert "def ticket_total(count):" in compact and "def ticket_total" not in paper
    with pytest.raises(ValueError, match="prompt_style must be one of"):
        LMAgent("openai", base_url=server.url, model="echo", prompt_style="tiny")


@pytest.mark.slow
def test_smollm2_plays_the_human(evaluator):
    env = gym.make("ColBench-Backend-v0", split="test", simulator="smollm2",
                   simulator_kwargs={"max_new_tokens": 48}, evaluator=evaluator, max_turns=2)
    obs, _ = env.reset(seed=1)
    obs, r, term, trunc, info = env.step("OUTPUT: What exactly do you want the function to do?")
    reply = json.loads(obs["dialogue"])[-1]["content"]
    assert not trunc and 0 < len(reply) <= 400
    obs, r, term, trunc, info = env.step("OUTPUT: I WANT TO ANSWER: def f():\n    return 1")
    assert term and r == 0.0
    env.close()
