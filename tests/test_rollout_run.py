"""Batched rollouts, trajectory recording and `colbench run` (resume, metrics)."""
import json
import os
import subprocess
import sys

import gymnasium as gym
import pytest

import colbench_env  # noqa: F401
from colbench.agents import CallableAgent
from colbench_env.evaluation.backend import BackendEvaluator
from colbench_env.rollout import episode_specs, run_episodes
from colbench_env.trajectories import read_trajectories
from colbench.wrappers import TrajectoryRecorder, completed_episode_ids

QUESTIONS = ["What are your rules?", "Any thresholds?", "How should I round the result?", "What about ties or edge cases?"]


def policy(obs):
    """Deterministic, observation-dependent: asks 1-4 questions depending on the task, then answers."""
    d = json.loads(obs["dialogue"])
    turn = sum(m["role"] == "assistant" for m in d)
    n_q = 1 + len(obs["problem_description"]) % 4
    if turn < n_q:
        return f"Thinking about turn {turn}. OUTPUT: {QUESTIONS[turn]}"
    sig = obs["problem_description"].rsplit("def ", 1)[-1].strip().rstrip(".")
    return f"OUTPUT: I WANT TO ANSWER: ```python\ndef {sig}:\n    return 0\n```"


@pytest.fixture(scope="module")
def evaluator():
    with BackendEvaluator(workers=2) as ev:
        yield ev


def test_progress_is_by_turn_and_its_total_shrinks_as_episodes_end_early(tmp_path, evaluator, capsys):
    """run_to_file shows turns: the bar ends at the turns the episodes took (each ended before its
    10th), with every episode counted; a policy that counts no tokens shows no tokens per second."""
    import re

    from colbench.runs import run_to_file

    records = run_to_file(lambda: gym.make("ColBench-Backend-v0", split="test", evaluator=evaluator),
                          lambda: CallableAgent(policy), episode_specs(5, seed=3), tmp_path / "p.jsonl",
                          episodes_in_flight=2, desc="probe", max_turns=10)
    turns = sum(m["role"] == "assistant" for r in records for m in r["dialogue_history"])
    assert len(records) == 5 and 5 < turns < 50  # 1-4 questions, then an answer: never 10 turns
    lines = [ln for ln in capsys.readouterr().err.replace("\r", "\n").splitlines() if ln.startswith("probe:")]
    assert re.search(rf"^probe: 100%\|.*\| {turns}/{turns} \[.*episodes 5/5\]$", lines[-1]), lines[-1]
    assert re.search(r"^probe:\s+0%\|.*\| 0/50 \[.*episodes 0/5\]$", lines[0]), lines[0]  # at most 5 x 10 left
    assert "tok/s" not in "".join(lines)


def test_turn_progress_rates_and_totals():
    """TurnProgress by hand: a 5-turn budget per episode, an episode ending at turn 2 gives back 3;
    tokens per second are the policy's new tokens over the time since the progress started."""
    import io

    from colbench.runs import TurnProgress

    class Counting:
        generated_tokens = 100  # before the run (a probe, earlier runs): not counted

    now = [0.0]
    progress = TurnProgress(2, 5, "t", Counting(), file=io.StringIO())
    progress._clock, progress.start = (lambda: now[0]), 0.0
    assert progress.tokens_per_second() is None  # no turn done yet
    Counting.generated_tokens, now[0] = 160, 4.0
    progress.turn(None, 1, False)
    progress.turn(None, 2, True)  # this episode never takes turns 3-5
    assert (progress.bar.n, progress.bar.total, progress.done) == (2, 7, 1)
    assert progress.tokens_per_second() == 15.0 and "episodes 1/2, 15.0 tok/s" in progress._postfix()
    for t in range(1, 6):
        progress.turn(None, t, t == 5)  # the other episode takes all 5
    progress.close()
    assert (progress.bar.n, progress.bar.total, progress.done) == (7, 7, 2)


def sequential(evaluator, specs):
    env = gym.make("ColBench-Backend-v0", split="test", evaluator=evaluator)
    out = []
    for s in specs:
        obs, _ = env.reset(seed=s.seed, options=dict(s.options))
        done = False
        while not done:
            obs, _, term, trunc, _ = env.step(policy(obs))
            done = term or trunc
        rec = env.unwrapped.trajectory_record()
        rec["episode_id"] = s.episode_id
        rec["env_id"] = "ColBench-Backend-v0"
        out.append(rec)
    return out


def test_batched_rollouts_equal_sequential(evaluator):
    n_tasks = len(colbench_env.default_tasks("backend", split="test"))
    specs = episode_specs(9, n_tasks=n_tasks, seed=5)
    seq = sequential(evaluator, specs)
    streamed = []
    batched = run_episodes(lambda: gym.make("ColBench-Backend-v0", split="test", evaluator=evaluator),
                           CallableAgent(policy), specs, episodes_in_flight=4, on_episode=streamed.append)
    assert streamed == batched
    by_id = {r["episode_id"]: r for r in batched}
    assert [by_id[s.episode_id] for s in specs] == seq
    # turns vary across episodes, so finished slots were refilled while others were live
    assert len({sum(m["role"] == "assistant" for m in r["dialogue_history"]) for r in seq}) > 1


def test_recorder_appends_official_format_and_resumes(tmp_path, evaluator):
    path = tmp_path / "traj.jsonl"
    env = TrajectoryRecorder(gym.make("ColBench-Backend-v0", evaluator=evaluator), path)
    for k in range(3):
        obs, _ = env.reset(seed=k, options={"episode_id": f"ep{k}"})
        done = False
        while not done:
            obs, _, term, trunc, _ = env.step(policy(obs))
            done = term or trunc
    recs = read_trajectories(path)
    assert [r["episode_id"] for r in recs] == ["ep0", "ep1", "ep2"]
    for r in recs:
        assert set(r) >= {"task", "dialogue_history", "answer", "reward", "success"}
        assert r["dialogue_history"][0]["role"] == "assistant"
    with open(path, "a") as f:
        f.write('{"episode_id": "ep3", "task": {')  # an interrupted write
    assert completed_episode_ids(path) == {"ep0", "ep1", "ep2"}
    obs, _ = env.reset(seed=9, options={"episode_id": "ep3"})
    while not env.step(policy(obs))[2]:
        pass
    assert [r["episode_id"] for r in read_trajectories(path)] == ["ep0", "ep1", "ep2", "ep3"]


def colbench(*args, check=True):
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    p = subprocess.run([sys.executable, "-m", "colbench", *args], capture_output=True, text=True, env=env,
                       timeout=300)
    if check and p.returncode != 0:
        raise AssertionError(p.stderr[-3000:])
    return p


def test_cli_run_scripted_resumes(tmp_path):
    out = tmp_path / "run.jsonl"
    p = colbench("run", "--agent", "scripted", "--split", "test", "--episodes", "4", "--episodes-in-flight", "2",
                 "--out", str(out), "--json")
    metrics = json.loads(p.stdout.strip().splitlines()[-1])
    assert metrics["count"] == 4 and metrics["tests_passed_pct"] == 0.0 and metrics["success_rate"] == 0.0
    assert "% tests passed 0.0  success rate 0.0%" in p.stdout
    assert metrics["mean_turns"] == 3.0  # two questions, then the (None-returning) answer
    # interrupt: a partial line; then ask for more episodes: only the missing ones run
    with open(out, "a") as f:
        f.write('{"task": {"problem')
    p = colbench("run", "--agent", "scripted", "--split", "test", "--episodes", "6", "--episodes-in-flight", "2",
                 "--out", str(out), "--json")
    assert "resuming: 4 episodes already" in p.stderr
    ids = [r["episode_id"] for r in read_trajectories(out, tolerate_partial_last_line=True)]
    assert sorted(ids, key=int) == [str(k) for k in range(6)] and len(ids) == 6
    assert json.loads(p.stdout.strip().splitlines()[-1])["count"] == 6


def test_cli_errors_are_clear(tmp_path):
    p = colbench("run", "--agent", "hf", "--out", str(tmp_path / "x.jsonl"), check=False)
    assert p.returncode != 0 and "--agent hf needs --agent-model" in p.stderr
    p = colbench("nonsense", check=False)
    assert p.returncode == 2 and "invalid choice" in p.stderr


def test_batched_run_through_wrappers_records_every_episode_with_training_info(tmp_path, evaluator):
    """run_episodes drives the wrapped env (reset through the stack, the phased step forwarded), so
    TrajectoryRecorder(HiddenInfoWrapper(env)) writes every episode, with the training-time info, and
    the file equals what a loop of env.step calls through the same stack writes."""
    from colbench.wrappers import HiddenInfoWrapper

    n_tasks = len(colbench_env.default_tasks("backend", split="test"))
    specs = episode_specs(7, n_tasks=n_tasks, seed=3)
    tasks = {t.task_id: t for t in colbench_env.default_tasks("backend", split="test")}
    built = []

    def env_fn(path):
        env = TrajectoryRecorder(HiddenInfoWrapper(gym.make("ColBench-Backend-v0", split="test", evaluator=evaluator)),
                                 path)
        built.append(env)
        return env

    batched_path = tmp_path / "batched.jsonl"
    returned = run_episodes(lambda: env_fn(batched_path), CallableAgent(policy), specs, episodes_in_flight=3)
    recorded = read_trajectories(batched_path)
    assert sorted(r["episode_id"] for r in recorded) == sorted(s.episode_id for s in specs)
    for rec in recorded:
        task = tasks[rec["task_id"]]
        assert rec["training_info"] == {"ground_truth": task.ground_truth,
                                        "hidden_information": task.hidden_information,
                                        "test_cases": task.test_cases}
    # the record written by the recorder is the runner's record plus the training info
    by_id = {r["episode_id"]: r for r in returned}
    assert all({k: v for k, v in r.items() if k != "training_info"} == by_id[r["episode_id"]] for r in recorded)
    # one simulator answered for all slots: the other envs never built theirs
    assert [e.unwrapped.simulator_built for e in built] == [True, False, False]

    loop_path = tmp_path / "loop.jsonl"
    env = env_fn(loop_path)
    for s in specs:
        obs, info = env.reset(seed=s.seed, options=dict(s.options, episode_id=s.episode_id))
        assert info["training_info"]["ground_truth"] == tasks[info["task_id"]].ground_truth
        done = False
        while not done:
            obs, _, term, trunc, info = env.step(policy(obs))
            done = term or trunc
    env.close()
    assert sorted(read_trajectories(loop_path), key=lambda r: r["episode_id"]) == \
        sorted(recorded, key=lambda r: r["episode_id"])


def test_batched_run_refuses_a_wrapper_that_skips_the_phased_step(evaluator):
    env_fn = lambda: gym.wrappers.TransformReward(gym.make("ColBench-Backend-v0", evaluator=evaluator),  # noqa: E731
                                                  lambda r: 2 * r)
    with pytest.raises(TypeError, match="TransformReward does not forward the phased step"):
        run_episodes(env_fn, CallableAgent(policy), 2, episodes_in_flight=2)
