"""``colbench serve`` (:mod:`colbench.integrations.openenv`) driven by OpenEnv's own client from PyPI
(``openenv.GenericEnvClient``, sync and async) and by plain HTTP, against servers the tests start on
127.0.0.1: the command in a subprocess, or its app in a thread where a test reaches inside.

Episodes played over the server are rebuilt from the observations alone and scored by ``colbench
evaluate`` in a fresh process: the scores equal the rewards the server gave. Every response of a
session is walked for ground truths, test calls, the outputs only the evaluator computes and the
human's observation keys. OpenEnv's own validator (``validate_running_environment``) passes.
"""
from __future__ import annotations

import asyncio
import json
import time

import pytest
from samples import FEE_TASK, SCALE_TASK, colbench_evaluate, scripted_replies_hold, secrets
from serve_helpers import ServeProcess, ServeThread, write_tasks

from colbench_env.protocol import parse_agent_turn

openenv = pytest.importorskip("openenv")
from openenv import GenericEnvClient  # noqa: E402

TASKS = [SCALE_TASK, FEE_TASK]
SECRETS = secrets(TASKS)
HIDDEN_KEYS = ("hidden_information", "ground_truth", "test_cases", "eval_tests", "eval_reason", "target_render")
ASK = {"scale": "I should ask first. OUTPUT: What do I multiply x by?",
       "fee": "I should ask first. OUTPUT: How much is the fee per day?"}
RIGHT = {"scale": "OUTPUT: I WANT TO ANSWER: ```python\ndef scale(x):\n    return 7919 * x + 1\n```",
         "fee": "OUTPUT: I WANT TO ANSWER: ```python\ndef late_fee(days):\n    return 0.35 * days\n```"}  # 3 of 4
MAX_TURNS = 3


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """``colbench serve`` on the backend tasks; it also wrote OpenEnv's manifest to ``server.manifest``."""
    d = tmp_path_factory.mktemp("serve")
    tasks = write_tasks(d / "tasks.jsonl", TASKS)
    with ServeProcess("--tasks", tasks, "--max-sessions", "3", "--idle-timeout", "1", "--workers", "1",
                      "--max-turns", str(MAX_TURNS), "--manifest", str(d / "openenv.yaml")) as s:
        s.manifest = d / "openenv.yaml"
        yield s


def _walk_clean(payload) -> None:
    """No ground truth, test call, evaluator output or human-only key anywhere in ``payload``."""
    text = json.dumps(payload)
    assert [s for s in SECRETS if s in text] == []

    def keys(x):
        if isinstance(x, dict):
            for k, v in x.items():
                yield k
                yield from keys(v)
        elif isinstance(x, list):
            for v in x:
                yield from keys(v)
    assert not set(keys(payload)) & set(HIDDEN_KEYS)


def _record(task: dict, final_obs: dict) -> tuple[dict, list]:
    """The trajectory record of an episode rebuilt from its last observation alone (the dialogue the
    agent observed; the answer by ColBench's turn rule), and its ``(dialogue before reply, reply)`` pairs."""
    dialogue, replies, answer = [], [], ""
    for m in final_obs["dialogue"]:
        if m["role"] == "assistant":
            turn = parse_agent_turn(m["output"], last_turn=sum(x["role"] == "assistant" for x in dialogue) + 1 >= MAX_TURNS)
            dialogue.append({"role": "assistant", "content": turn.message, "output": turn.output})
            answer = turn.answer if turn.is_answer else answer
        else:
            replies.append(([dict(x) for x in dialogue], m["content"]))
            dialogue.append({"role": "user", "content": m["content"]})
    return {"task": task, "dialogue_history": dialogue, "answer": answer}, replies


def _play_sync(url: str, task: dict, plan: list[str]) -> list:
    """One episode through the sync client; every StepResult (reset's first)."""
    with GenericEnvClient(base_url=url).sync() as env:
        results = [env.reset(task_id=task["task_id"])]
        for action in plan:
            results.append(env.step({"message": action}))
            if results[-1].done:
                break
        results.append(env.state())
    return results


def test_sync_client_episodes_score_as_colbench_evaluate(server, tmp_path):
    played = {t["task_id"]: _play_sync(server.url, t, [ASK[t["task_id"]], RIGHT[t["task_id"]]]) for t in TASKS}
    rebuilt, rewards = [], []
    for task in TASKS:
        *steps, state = played[task["task_id"]]
        first, last = steps[0], steps[-1]
        assert first.observation["problem_description"] == task["problem_description"] and not first.done
        assert last.done and [s.done for s in steps] == [False, False, True]
        assert state["done"] and state["turn"] == 2 and state["task_id"] == task["task_id"] and state["step_count"] == 2
        for s in steps:
            _walk_clean({"observation": s.observation, "reward": s.reward, "metadata": s.metadata})
        _walk_clean(state)
        rebuilt.append(_record(task, last.observation))
        rewards.append(last.reward)
    assert scripted_replies_hold(rebuilt) == 2  # the human is ColBench's scripted human, server-side
    scored = colbench_evaluate([rec for rec, _ in rebuilt], tmp_path)
    assert [s["reward"] for s in scored] == pytest.approx(rewards, abs=1e-9) and rewards == [1.0, 0.75]
    finals = [played[t["task_id"]][-2].observation for t in TASKS]
    assert [(o["success"], o["tests_passed"], o["tests_total"]) for o in finals] == [(True, 4, 4), (False, 3, 4)]
    assert "7919" in json.dumps(played["scale"][2].observation)  # the human did tell the hidden fact


def test_async_clients_run_sessions_concurrently_up_to_the_cap(server):
    async def play(task: dict, plan: list[str]) -> list:
        async with GenericEnvClient(base_url=server.url) as env:
            out = [await env.reset(task_id=task["task_id"])]
            for action in plan:
                out.append(await env.step({"message": action}))
            return out

    async def main():
        # 3 sessions (the cap) at once; the third one talks until its last turn is taken as the answer
        runs = await asyncio.gather(play(SCALE_TASK, [ASK["scale"], RIGHT["scale"]]),
                                    play(FEE_TASK, [RIGHT["fee"]]),
                                    play(SCALE_TASK, ["OUTPUT: Hi", "OUTPUT: Anything else?", "def scale(x): return 0"]))
        return runs

    a, b, c = asyncio.run(main())
    assert [r.done for r in a] == [False, False, True] and a[-1].reward == 1.0
    assert [r.done for r in b] == [False, True] and b[-1].reward == 0.75
    assert [r.done for r in c] == [False, False, False, True] and c[-1].observation["turn"] == MAX_TURNS
    assert c[-1].reward == 0.0 and c[-1].observation["tests_passed"] == 0


def test_session_cap_refuses_one_more(server):
    from websockets.sync.client import connect

    async def main():
        clients = [GenericEnvClient(base_url=server.url) for _ in range(3)]
        try:
            for c in clients:
                await c.connect()
                await c.reset(task_id="fee")
            # a 4th connection is told why and closed (OpenEnv sends CAPACITY_REACHED right after accepting)
            with connect(server.url.replace("http://", "ws://") + "/ws") as extra:
                refused = json.loads(await asyncio.to_thread(extra.recv, timeout=60))
            assert refused["type"] == "error" and refused["data"]["code"] == "CAPACITY_REACHED"
            assert refused["data"]["max_sessions"] == 3
            assert not (await clients[0].step({"message": RIGHT["fee"]})).observation["success"]  # the 3 go on
        finally:
            for c in clients:
                await c.close()
    asyncio.run(main())


def test_bad_input_gets_one_line_errors_and_leaves_other_sessions_alone(server):
    import requests
    from websockets.sync.client import connect

    ws_url = server.url.replace("http://", "ws://") + "/ws"
    with GenericEnvClient(base_url=server.url).sync() as other, connect(ws_url) as raw:
        other.reset(task_id="scale")
        other.step({"message": ASK["scale"]})
        # bad input on another session: malformed JSON, a step before reset, an action that is not a string,
        # an unknown reset option, a step after the end
        answers = []
        for msg in ("{not json", json.dumps({"type": "step", "data": {"message": "OUTPUT: hi"}}),
                    json.dumps({"type": "reset", "data": {"task_id": "scale"}}),
                    json.dumps({"type": "step", "data": {"message": 5}}),
                    json.dumps({"type": "reset", "data": {"task": "scale"}}),
                    json.dumps({"type": "step", "data": {"message": RIGHT["scale"]}}),
                    json.dumps({"type": "step", "data": {"message": "OUTPUT: more"}})):
            raw.send(msg)
            answers.append(json.loads(raw.recv(timeout=60)))
        kinds = [(a["type"], a["data"].get("code")) for a in answers]
        assert kinds == [("error", "INVALID_JSON"), ("error", "EXECUTION_ERROR"), ("observation", None),
                         ("error", "VALIDATION_ERROR"), ("error", "EXECUTION_ERROR"), ("observation", None),
                         ("error", "EXECUTION_ERROR")]
        assert "reset first" in answers[1]["data"]["message"] and "unknown reset option" in answers[4]["data"]["message"]
        assert "episode is over" in answers[6]["data"]["message"]
        # the same over plain HTTP: a 4xx whose body is one line of JSON {"error": ...}
        for method, path, body, status in (("post", "/step", {"action": {"message": "OUTPUT: hi"}}, 409),
                                           ("post", "/step", {"action": {"message": 5}}, 422),
                                           ("post", "/step", "{not json", 422),
                                           ("post", "/reset", {"task": "scale"}, 400),
                                           ("post", "/reset", {"task_id": "nope"}, 400),
                                           ("get", "/sessions/unknown", None, 404)):
            kw = {"data": body} if isinstance(body, str) else ({"json": body} if body is not None else {})
            r = getattr(requests, method)(server.url + path, timeout=60, **kw)
            assert r.status_code == status, (path, body, r.text)
            assert "\n" not in r.text.strip() and set(r.json()) == {"error"} and r.json()["error"], r.text
        # the other session was untouched: it finishes its episode as if nothing happened
        last = other.step({"message": RIGHT["scale"]})
        assert last.done and last.reward == 1.0


def test_idle_sessions_are_destroyed_and_free_their_slots(server):
    async def main():
        idle = [GenericEnvClient(base_url=server.url) for _ in range(3)]
        for c in idle:
            await c.connect()
            await c.reset(task_id="fee")
        await asyncio.sleep(7.5)  # idle timeout 1 s; OpenEnv's reaper looks every max(1/4, 5) s
        with pytest.raises(Exception, match="session was closed .idle timeout"):  # the server destroyed the session and closed its env
            await idle[0].step({"message": "OUTPUT: still there?"})
        fresh = [GenericEnvClient(base_url=server.url) for _ in range(3)]  # the cap's slots were freed
        try:
            for c in fresh:
                await c.connect()
                r = await c.reset(task_id="scale")
                assert not r.done
        finally:
            for c in idle + fresh:
                await c.close()
    asyncio.run(main())


def test_openenv_validator_schema_and_manifest(server):
    import requests
    from openenv.cli._validation import validate_running_environment

    report = validate_running_environment(server.url)
    assert report["passed"], report["criteria"]
    schema = requests.get(server.url + "/schema", timeout=30).json()
    assert schema["action"]["required"] == ["message"] and schema["action"]["properties"]["message"]["type"] == "string"
    assert not set(schema["observation"]["properties"]) & set(HIDDEN_KEYS)
    assert requests.get(server.url + "/metadata", timeout=30).json()["name"] == "ColBench-Backend-v0"
    import yaml

    spec = yaml.safe_load(server.manifest.read_text())
    port = int(server.url.rsplit(":", 1)[1])
    template = yaml.safe_load((__import__("pathlib").Path(openenv.__file__).parent / "cli" / "templates" / "openenv_env"
                               / "openenv.yaml").read_text())
    assert set(spec) == set(template) and spec["port"] == port and spec["runtime"] == "fastapi"


def test_a_crashing_scorer_ends_only_its_session():
    from colbench.integrations._common import EpisodeParts
    from colbench.integrations.openenv import create_colbench_app
    from colbench_env.evaluation.backend import BackendEvaluator

    class Faulty(BackendEvaluator):
        def score(self, task, answer):
            if "CRASH" in answer:
                raise RuntimeError("the evaluator broke\nsecond line")
            return super().score(task, answer)

    evaluator = Faulty(workers=1)
    parts = EpisodeParts("backend", TASKS, evaluator=evaluator, max_turns=MAX_TURNS)
    app = create_colbench_app("ColBench-Backend-v0", parts=parts, max_sessions=4, idle_timeout=60)
    try:
        with ServeThread(app) as srv:
            with GenericEnvClient(base_url=srv.url).sync() as a, GenericEnvClient(base_url=srv.url).sync() as b:
                a.reset(task_id="scale")
                b.reset(task_id="scale")
                assert app.state.colbench_sessions() == 2
                crashed = a.step({"message": "OUTPUT: I WANT TO ANSWER: CRASH"})
                assert crashed.done and crashed.reward == 0.0
                assert crashed.observation["error"] == "scoring failed: RuntimeError: the evaluator broke"
                with pytest.raises(Exception, match="episode is over"):
                    a.step({"message": "OUTPUT: again"})
                assert b.step({"message": RIGHT["scale"]}).reward == 1.0  # the other session and the server go on
                assert a.reset(task_id="fee").observation["task_id"] == "fee"  # the crashed session can start over
            deadline = time.monotonic() + 10
            while app.state.colbench_sessions() and time.monotonic() < deadline:
                time.sleep(0.05)
            assert app.state.colbench_sessions() == 0  # both clients left: their envs were closed
    finally:
        parts.close()
        evaluator.close()


def test_a_session_is_not_idle_while_its_step_runs():
    """A step longer than the idle timeout (an answer scored for 7 s; timeout 1 s, the reaper looks
    every 5 s) leaves its session alive: the next reset works. Idle afterwards, it is reaped."""
    from colbench.integrations._common import EpisodeParts
    from colbench.integrations.openenv import create_colbench_app
    from colbench_env.evaluation.backend import BackendEvaluator

    class Slow(BackendEvaluator):
        def score(self, task, answer):
            if "SLOW" in answer:
                time.sleep(7)
            return super().score(task, answer)

    evaluator = Slow(workers=1)
    parts = EpisodeParts("backend", TASKS, evaluator=evaluator, max_turns=MAX_TURNS)
    app = create_colbench_app("ColBench-Backend-v0", parts=parts, max_sessions=2, idle_timeout=1)
    try:
        with ServeThread(app) as srv, GenericEnvClient(base_url=srv.url).sync() as a:
            a.reset(task_id="scale")
            slow = a.step({"message": "OUTPUT: I WANT TO ANSWER: SLOW"})
            assert slow.done and slow.observation["error"] is None and slow.reward == 0.0
            assert a.reset(task_id="fee").observation["task_id"] == "fee"  # not reaped in the middle of the step
            deadline = time.monotonic() + 20
            while app.state.colbench_sessions() and time.monotonic() < deadline:
                time.sleep(0.1)
            assert app.state.colbench_sessions() == 0  # idle for real: reaped
    finally:
        parts.close()
        evaluator.close()


def test_cli_errors_are_one_line(tmp_path, capsys):
    """A bad task file through the installed entry point (a process of its own: exit status 2, one line
    on stderr); the other bad inputs through the same ``colbench.cli.main`` in this process."""
    import subprocess
    import sys

    from colbench.cli import main

    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"task_id": "x"}\n')
    p = subprocess.run([sys.executable, "-m", "colbench", "serve", "--port", "0", "--tasks", str(bad)],
                       capture_output=True, text=True, timeout=120)
    lines = p.stderr.strip().splitlines()
    assert p.returncode == 2 and len(lines) == 1 and lines[0].startswith("colbench serve: error:"), p.stderr
    assert "bad.jsonl" in lines[0]
    for args, needle in ((["--max-sessions", "0"], "--max-sessions"), (["--simulator", "openai"], "--simulator-base-url"),
                         (["--shutdown-timeout", "0"], "--shutdown-timeout")):
        assert main(["serve", "--port", "0", *args]) == 2
        out, err = capsys.readouterr()
        lines = err.strip().splitlines()
        assert not out and len(lines) == 1 and lines[0].startswith("colbench serve: error:"), err
        assert needle in lines[0]


@pytest.mark.slow
@pytest.mark.browser
def test_frontend_episode_scores_as_colbench_evaluate(tmp_path):
    target = ('<html><body class="bg-gray-800"><h1 class="text-4xl text-white p-8">Corner Bakery</h1>'
              '<p class="text-yellow-300 p-8">Fresh bread every morning.</p></body></html>')
    draft = '<html><body class="bg-gray-700"><h1 class="text-3xl text-white p-6">Corner Bakery</h1></body></html>'
    task = {"task_id": "bakery", "problem_description": "A dark page for my bakery.", "ground_truth": target}
    tasks = write_tasks(tmp_path / "front.jsonl", [task])
    with ServeProcess("--env", "ColBench-Frontend-v0", "--tasks", tasks, "--max-turns", "3") as s:
        steps = _play_sync(s.url, task, [f"OUTPUT: How is this? {draft}", f"OUTPUT: I WANT TO ANSWER: {draft}"])
    *steps, _ = steps
    assert steps[-1].done and 0 < steps[-1].reward < 1
    assert target not in json.dumps([x.observation for x in steps])
    dialogue = steps[-1].observation["dialogue"]
    assert dialogue[1]["role"] == "user" and dialogue[1]["content"]  # the scripted human looked at the draft
    (scored,) = colbench_evaluate([{"task": task, "dialogue_history": [], "answer": draft}], tmp_path)
    assert scored["reward"] == pytest.approx(steps[-1].reward, abs=1e-9)


@pytest.mark.slow
@pytest.mark.browser
def test_sigterm_stops_a_busy_frontend_server_and_its_browsers():
    """SIGTERM while 16 sessions are stepping (renders in flight; draining them took ~18 s before): the
    server exits within a few seconds (its --shutdown-timeout is 5 s), every client gets a closed
    connection, and no chromedriver or Chromium process it started survives it."""
    import signal

    import psutil

    page = '<html><body class="bg-{}-100"><h1 class="text-3xl p-6">Draft {}</h1></body></html>'
    stepped, stop_at = asyncio.Event(), 16

    with ServeProcess("--env", "ColBench-Frontend-v0", "--render-pool", "2") as s:
        async def client(k: int, counts: list, errors: list) -> None:
            env = GenericEnvClient(base_url=s.url, message_timeout_s=120)
            try:
                await env.connect()
                await env.reset()
                for turn in range(100):
                    r = await env.step({"message": f"OUTPUT: How is this? {page.format('blue', turn)}"})
                    counts[k] += 1
                    if min(counts) > 0:
                        stepped.set()
                    if r.done:
                        await env.reset()
            except Exception as e:  # noqa: BLE001 - what each client got is checked below
                errors.append(e)

        async def scenario() -> tuple[list, list, float, list]:
            counts, errors = [0] * stop_at, []
            tasks = [asyncio.create_task(client(k, counts, errors)) for k in range(stop_at)]
            await asyncio.wait_for(stepped.wait(), timeout=300)  # every session has stepped; more are in flight
            started = {}
            for proc in psutil.Process(s.proc.pid).children(recursive=True):
                try:
                    started[proc] = proc.name()
                except psutil.NoSuchProcess:  # Chromium ends short-lived helpers on its own
                    pass
            t0 = time.monotonic()
            s.proc.send_signal(signal.SIGTERM)
            while s.proc.poll() is None and time.monotonic() - t0 < 30:
                await asyncio.sleep(0.05)
            took = time.monotonic() - t0
            await asyncio.wait_for(asyncio.gather(*tasks), timeout=60)
            return started, errors, took, counts

        started, errors, took, counts = asyncio.run(scenario())
        rc = s.proc.poll()
    assert rc is not None and took < 10, (took, s.stderr[-2000:])  # exited, and well before the old 20 s drain
    names = list(started.values())
    assert names.count("chromedriver") == 2 and sum("chrom" in n for n in names) > 4
    _, alive = psutil.wait_procs(list(started), timeout=10)
    assert [p for p in alive if p.status() != psutil.STATUS_ZOMBIE] == []
    from websockets.exceptions import ConnectionClosed

    assert len(errors) == stop_at and all(isinstance(e, (ConnectionClosed, ConnectionError)) for e in errors), errors
    assert "Traceback" not in s.stderr, s.stderr[-2000:]  # a quiet shutdown: no handler tracebacks
