"""Rollouts at serving scale (issue 33): independent episodes against real HTTP servers on 127.0.0.1
(tests/openai_test_server.py), the batching queue of batched policies and simulators, failures that
stay in their episode, Ctrl-C and resume through `colbench run`."""
import json
import os
import subprocess
import sys
import threading
import time

import gymnasium as gym
import pytest

import colbench_env  # noqa: F401
from colbench.agents import LMAgent
from colbench_env.evaluation.backend import BackendEvaluator
from colbench_env.lm.base import BackendError, SamplingParams
from colbench_env.phased import ColBenchWrapper
from colbench_env.rollout import EpisodeSpec, episode_specs, run_episodes
from colbench_env.simulators import Simulator
from colbench_env.simulators.scripted_backend import ScriptedBackendSimulator
from colbench_env.trajectories import read_trajectories
from colbench.wrappers import HiddenInfoWrapper, TrajectoryRecorder

from interrupting import interrupt_after_lines, terminal_like
from openai_test_server import OpenAITestServer

TEST_TASKS = colbench_env.default_tasks("backend", split="test")
MAX_TURNS = 3


@pytest.fixture(scope="module")
def evaluator():
    with BackendEvaluator(workers=2) as ev:
        yield ev


class StepLog(ColBenchWrapper):
    """Notes every step it sees: (seed of the episode, info["turn"], episode over)."""

    def __init__(self, env, log: list):
        super().__init__(env)
        self.log = log

    def step_result(self, obs, reward, terminated, truncated, info):
        self.log.append((self.env.unwrapped.pz.seed_used, info["turn"], terminated or truncated))
        return obs, reward, terminated, truncated, info


def served_env(url, evaluator, path, log, human="jitter:0.04"):
    env = gym.make("ColBench-Backend-v0", split="test", max_turns=MAX_TURNS, evaluator=evaluator,
                   simulator="openai", simulator_kwargs={"base_url": url, "model": human, "backoff_s": 0.01})
    return TrajectoryRecorder(StepLog(HiddenInfoWrapper(env), log), path)


def served_agent(url, model="jitter:0.04"):
    return LMAgent("openai", base_url=url, model=model, max_turns=MAX_TURNS, backoff_s=0.01,
                   sampling=SamplingParams(max_new_tokens=32))


def by_id(records):
    return sorted(records, key=lambda r: int(r["episode_id"]))


def without_human(records: dict) -> dict:
    """``records`` (id -> record) without ``human``, which names the simulator that answered."""
    return {k: {f: v for f, v in r.items() if f != "human"} for k, r in records.items()}


def step_one_by_one(env, agent, specs):
    """The reference: each episode stepped to its end with env.step before the next starts."""
    for s in specs:
        obs, _ = env.reset(seed=s.seed, options=dict(s.options, episode_id=s.episode_id))
        done = False
        while not done:
            obs, _, term, trunc, _ = env.step(agent.act(obs))
            done = term or trunc
    env.close()


def test_independent_episodes_equal_stepping_one_by_one_with_random_reply_times(tmp_path, evaluator):
    """Agent and human behind a server whose reply times vary with the request (0-40 ms): episodes
    finish in another order than they start, yet each trajectory, each recorded line (training info
    included) and each step the wrappers see equal those of a loop of env.step calls; the server
    never has more requests in flight than episodes in flight."""
    specs = episode_specs(12, n_tasks=len(TEST_TASKS), seed=3)
    with OpenAITestServer() as server:
        ref_log: list = []
        step_one_by_one(served_env(server.url, evaluator, tmp_path / "ref.jsonl", ref_log), served_agent(server.url),
                        specs)
        server.state.max_in_flight = 0
        log: list = []
        finished = []
        returned = run_episodes(lambda: served_env(server.url, evaluator, tmp_path / "run.jsonl", log),
                                served_agent(server.url), specs, episodes_in_flight=5, on_episode=finished.append)
        peak = server.state.max_in_flight
    assert [r["episode_id"] for r in returned] == [r["episode_id"] for r in finished]
    assert [r["episode_id"] for r in returned] != [s.episode_id for s in specs]  # completion order differs
    recorded, reference = read_trajectories(tmp_path / "run.jsonl"), read_trajectories(tmp_path / "ref.jsonl")
    assert by_id(recorded) == by_id(reference) and len(recorded) == len(specs)
    assert all("training_info" in r and "error" not in r for r in recorded)
    assert by_id(returned) == by_id([{k: v for k, v in r.items() if k != "training_info"} for r in reference])
    assert sorted(log) == sorted(ref_log)  # every step of every episode went through the wrappers
    assert len(log) == sum(sum(m["role"] == "assistant" for m in r["dialogue_history"]) for r in recorded)
    assert 2 <= peak <= 5


def test_a_failing_request_fails_its_episode_only(tmp_path, evaluator):
    """The agent's server refuses the requests about one task, the human's about another: those two
    episodes end with an error naming the server; every other one equals its run on a healthy server."""
    names = {t.task_id: t.problem_description.rsplit("def ", 1)[1].split("(")[0] for t in TEST_TASKS}
    agent_fails, human_fails = names["a010"], names["a040"]
    specs = episode_specs(len(TEST_TASKS), n_tasks=len(TEST_TASKS))
    with OpenAITestServer() as server:
        healthy = run_episodes(lambda: served_env(server.url, evaluator, tmp_path / "ok.jsonl", [], human="echo"),
                               served_agent(server.url, "echo"), specs, episodes_in_flight=4)
        failing = run_episodes(lambda: served_env(server.url, evaluator, tmp_path / "f.jsonl", [],
                                                  human=f"failon:{human_fails}("),
                               served_agent(server.url, f"failon:{agent_fails}"), specs, episodes_in_flight=4)
    failing, healthy = {r["task_id"]: r for r in failing}, {r["task_id"]: r for r in healthy}
    assert failing["a010"]["error"].startswith(f"agent failed: {server.url}/chat/completions answered HTTP 400")
    assert failing["a010"]["reward"] == 0.0 and len(failing["a010"]["dialogue_history"]) == 0
    assert failing["a040"]["error"].startswith("simulator failed: ") and server.url in failing["a040"]["error"]
    assert [m["role"] for m in failing["a040"]["dialogue_history"]] == ["assistant"]
    assert all("error" not in r for r in healthy.values())
    # the same dialogues; only the human's name differs (failon:... vs echo, each the served model's name)
    assert without_human({k: v for k, v in failing.items() if k not in ("a010", "a040")}) == \
        without_human({k: v for k, v in healthy.items() if k not in ("a010", "a040")})
    assert {r["human"]["model_requested"] for r in healthy.values()} == {"echo"}
    # the records on file carry the errors too: `colbench run` retries these two on resume
    from colbench.wrappers import completed_episode_ids

    assert len(completed_episode_ids(tmp_path / "f.jsonl")) == len(TEST_TASKS) - 2


class BatchedPolicy:
    """A deterministic policy the runner must call in batches (``batched``): logs each call's size,
    refuses (BackendError) any batch holding an observation of ``fail_on``, and notices overlapping calls."""

    batched = True

    def __init__(self, fail_on: str | None = None, delay_s: float = 0.0):
        self.sizes: list[int] = []
        self.fail_on, self.delay_s = fail_on, delay_s
        self.busy = threading.Lock()
        self.overlapped = False

    def act_batch(self, observations):
        if not self.busy.acquire(blocking=False):
            self.overlapped = True
            self.busy.acquire()
        try:
            self.sizes.append(len(observations))
            time.sleep(self.delay_s)
            if self.fail_on and any(self.fail_on in o["problem_description"] for o in observations):
                raise BackendError(f"refused a batch holding {self.fail_on!r}")
            return [self.act(o) for o in observations]
        finally:
            self.busy.release()

    @staticmethod
    def act(obs):
        d = json.loads(obs["dialogue"])
        turn = sum(m["role"] == "assistant" for m in d)
        if turn < len(obs["problem_description"]) % 3:
            return f"OUTPUT: What about rule {turn}?"
        sig = obs["problem_description"].rsplit("def ", 1)[-1].strip().rstrip(".")
        return f"OUTPUT: I WANT TO ANSWER: ```python\ndef {sig}:\n    return 0\n```"


class BatchedHuman(Simulator):
    """The scripted human, called in batches (``batched``): logs each reply_batch's size."""

    kind = "backend"
    batched = True

    def __init__(self):
        self.inner = ScriptedBackendSimulator()
        self.sizes: list[int] = []

    def reply(self, task, dialogue, renders=None):
        return self.inner.reply(task, dialogue, renders)

    def reply_batch(self, items):
        self.sizes.append(len(items))
        time.sleep(0.01)
        return [self.reply(*it) for it in items]


def test_batched_policy_and_human_go_through_the_batching_queue(evaluator):
    """A batched policy and a batched human are called from one thread each, with what is pending:
    the first call holds every episode in flight, no call overlaps another, every turn is served
    exactly once, and the trajectories equal the one-by-one run (the scripted human, in one thread)."""
    specs = episode_specs(14, n_tasks=len(TEST_TASKS), seed=1)
    human = BatchedHuman()

    def env_fn(sim):
        return gym.make("ColBench-Backend-v0", split="test", max_turns=MAX_TURNS, evaluator=evaluator, simulator=sim)

    ref = run_episodes(lambda: env_fn("scripted"), BatchedPolicy.act, specs, episodes_in_flight=1)
    policy = BatchedPolicy(delay_s=0.01)
    got = run_episodes(lambda: env_fn(human), policy, specs, episodes_in_flight=4)
    assert [r["human"]["class"] for r in got] == ["BatchedHuman"] * len(specs)  # who answered, named
    assert without_human({r["episode_id"]: r for r in got}) == without_human({r["episode_id"]: r for r in ref})
    turns = sum(sum(m["role"] == "assistant" for m in r["dialogue_history"]) for r in ref)
    replies = sum(sum(m["role"] == "user" for m in r["dialogue_history"]) for r in ref)
    assert sum(policy.sizes) == turns and sum(human.sizes) == replies and replies > 0
    assert policy.sizes[0] == 4 and max(policy.sizes) == 4 and max(human.sizes) <= 4
    assert len(policy.sizes) < turns  # batches were formed, not one call per turn
    assert not policy.overlapped


def test_a_failing_batch_is_retried_item_by_item(evaluator):
    """A batched call that fails with a BackendError is made again one observation at a time: only
    the episode whose observation fails ends with the error."""
    specs = [EpisodeSpec(str(k), k, {"task_index": k}) for k in range(4)]
    bad = TEST_TASKS[2].problem_description
    policy = BatchedPolicy(fail_on=bad)
    recs = {r["task_id"]: r for r in run_episodes(
        lambda: gym.make("ColBench-Backend-v0", split="test", max_turns=MAX_TURNS, evaluator=evaluator),
        policy, specs, episodes_in_flight=4)}
    assert recs[TEST_TASKS[2].task_id]["error"] == f"agent failed: refused a batch holding {bad!r}"
    assert all("error" not in recs[t.task_id] for k, t in enumerate(TEST_TASKS[:4]) if k != 2)
    assert policy.sizes[:5] == [4, 1, 1, 1, 1]  # the failing batch, then each of its observations alone


def test_forced_first_actions_then_the_policy(evaluator):
    """EpisodeSpec.forced_actions: the first turns are played as given, then the policy takes over."""
    forced = ("OUTPUT: Which rounding do you want?",)
    specs = [EpisodeSpec("0", 0, {"task_index": 0}, forced), EpisodeSpec("1", 1, {"task_index": 1})]
    recs = by_id(run_episodes(lambda: gym.make("ColBench-Backend-v0", split="test", evaluator=evaluator),
                              BatchedPolicy(), specs, episodes_in_flight=2))
    first = recs[0]["dialogue_history"]
    assert first[0]["output"] == forced[0] and first[2]["output"].startswith("OUTPUT: ")
    assert recs[1]["dialogue_history"][0]["output"] != forced[0]


def test_episodes_in_flight_is_checked(evaluator):
    env_fn = lambda: gym.make("ColBench-Backend-v0", split="test", evaluator=evaluator)  # noqa: E731
    assert len(run_episodes(env_fn, BatchedPolicy(), 3, episodes_in_flight=2)) == 3
    with pytest.raises(ValueError, match="episodes_in_flight must be an int >= 1, got 0"):
        run_episodes(env_fn, BatchedPolicy(), 3, episodes_in_flight=0)


def test_an_error_that_is_not_an_episodes_stops_the_run(evaluator):
    def broken(obs):
        raise ZeroDivisionError("a bug in the policy")

    broken.batched = False
    with pytest.raises(ZeroDivisionError, match="a bug in the policy"):
        run_episodes(lambda: gym.make("ColBench-Backend-v0", split="test", evaluator=evaluator), broken, 6,
                     episodes_in_flight=3)


# ------------------------------------------------------------------------------------------ colbench run
def test_ctrl_c_with_episodes_in_flight_then_resume(tmp_path):
    """`colbench run` with 4 episodes in flight against a slow server, interrupted: exit 130, every
    line on file a complete record; the same command resumes, and the file then holds each episode
    once, equal to an uninterrupted run's."""
    with OpenAITestServer() as server:
        def cmd(out, model):
            return [sys.executable, "-m", "colbench", "run", "--agent", "openai", "--agent-base-url", server.url,
                    "--agent-model", model, "--split", "test", "--episodes", "24", "--episodes-in-flight", "4",
                    "--max-turns", "2", "--out", str(out)]

        out = tmp_path / "run.jsonl"
        env = dict(os.environ, PYTHONUNBUFFERED="1")
        proc = subprocess.Popen(cmd(out, "slow:0.25"), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                env=env, preexec_fn=terminal_like)
        err = interrupt_after_lines(proc, out, 4)
        assert proc.returncode == 130, err[-2000:]
        assert "Traceback" not in err
        saved = read_trajectories(out)  # strict: no partial line
        assert 4 <= len(saved) < 24
        assert f"colbench run: interrupted: {len(saved)} episodes saved in {out}" in err
        p = subprocess.run(cmd(out, "slow:0.25"), capture_output=True, text=True, env=env, timeout=300)
        assert p.returncode == 0 and f"resuming: {len(saved)} episodes already" in p.stderr, p.stderr[-2000:]
        whole = tmp_path / "whole.jsonl"
        subprocess.run(cmd(whole, "slow:0.25"), capture_output=True, text=True, env=env, timeout=300, check=True)
    recs = read_trajectories(out)
    assert sorted(int(r["episode_id"]) for r in recs) == list(range(24))
    assert by_id(recs) == by_id(read_trajectories(whole))


@pytest.mark.slow
def test_smollm2_batching_queue_keeps_greedy_texts(evaluator):
    """The embedded SmolLM2 as a batched policy (its calls logged): with 3 episodes in flight the
    first generation batches all three and later ones batch what is pending (the fourth episode's
    first turn beside the others' second); every trajectory (its greedy texts included) equals the
    one-at-a-time run's."""
    import torch

    torch.set_num_threads(1)
    agent = LMAgent("smollm2", max_turns=2, prompt_style="compact", sampling=SamplingParams(max_new_tokens=12))
    sizes = []

    class Logged:
        batched = agent.batched

        @staticmethod
        def act_batch(observations):
            sizes.append(len(observations))
            return agent.act_batch(observations)

    tasks = colbench_env.load_tasks("generated:4:1:rate", kind="backend")
    specs = episode_specs(4, n_tasks=len(tasks))

    def env_fn():
        return gym.make("ColBench-Backend-v0", tasks=tasks, max_turns=2, evaluator=evaluator)

    one = run_episodes(env_fn, agent, specs, episodes_in_flight=1)
    batched = run_episodes(env_fn, Logged, specs, episodes_in_flight=3)
    assert Logged.batched is True
    assert by_id(batched) == by_id(one)
    turns = sum(sum(m["role"] == "assistant" for m in r["dialogue_history"]) for r in one)
    assert sum(sizes) == turns and sizes[0] == 3 and max(sizes) == 3 and len(sizes) < turns


@pytest.mark.slow
def test_ctrl_c_while_a_local_model_generates_for_episodes_in_flight(tmp_path):
    """Ctrl-C while SmolLM2 generates a batch for 4 episodes in flight: exit 130 with the resume hint
    (the batched generation runs in the main thread: an interpreter exiting while another thread is
    inside torch aborts instead), every line on file a complete record."""
    out = tmp_path / "run.jsonl"
    proc = subprocess.Popen([sys.executable, "-m", "colbench", "run", "--agent", "smollm2", "--tasks",
                             "generated:12:1:rate", "--prompt-style", "compact", "--max-turns", "2",
                             "--max-new-tokens", "8", "--episodes-in-flight", "4", "--out", str(out)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=terminal_like,
                            env=dict(os.environ, OMP_NUM_THREADS="1"))
    err = interrupt_after_lines(proc, out, 1, stop_s=120)
    assert proc.returncode == 130, err[-2000:]
    assert "Traceback" not in err and "terminate called" not in err
    saved = read_trajectories(out)
    assert 1 <= len(saved) < 12 and f"interrupted: {len(saved)} episodes saved in {out}" in err
