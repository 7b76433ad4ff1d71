"""ColBench as a ``verifiers`` environment (:mod:`colbench.integrations.verifiers`), run by verifiers'
own evaluation entry point, ``vf-eval``, against the project's stand-in OpenAI-compatible server on
127.0.0.1 (``tests/openai_test_server.py``: its ``echo`` model repeats the last user message).

The tasks make that echoing policy play three kinds of episode: a request that carries a right
answer (the policy repeats it: all tests pass), one that carries a partly right answer (3 of 4), and
one where it talks: its first turn is a thought, ``OUTPUT:`` and a question (the human sees only the
question, and so does the policy's next context), then it repeats the human's replies, and its third
turn is taken as the answer. The dialogues are rebuilt from vf-eval's saved results alone and scored by
``colbench evaluate`` in a fresh process: the scores equal vf-eval's rewards. The human's replies
equal a fresh scripted human's, every model call carried ColBench's own agent context, and nothing
sent to the model or saved holds a ground truth or a test.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from samples import FEE_TASK, SCALE_TASK, colbench_evaluate, scripted_replies_hold, secrets

from colbench_env.prompting import format_agent_messages
from colbench_env.protocol import parse_agent_turn

try:
    from openai_test_server import OpenAITestServer
except ImportError:  # run from the repository root
    from tests.openai_test_server import OpenAITestServer

if os.environ.get("COLBENCH_REQUIRE_VERIFIERS") != "1":  # `make test` runs this file in .venv-verifiers
    pytest.importorskip("verifiers", reason="verifiers lives in a venv of its own (the 'verifiers' extra, not in "
                                            "'all'): `make test` runs this file in .venv-verifiers")

FENCE = "```"
ANSWER = "\nI WANT TO ANSWER:\n" + FENCE + "python\n{}\n" + FENCE
TASKS = [  # the request carries a right answer / a partly right one / a thought, OUTPUT: and a question
    dict(SCALE_TASK, problem_description=SCALE_TASK["problem_description"]
         + ANSWER.format("def scale(x):\n    return 7919 * x + 1")),
    dict(FEE_TASK, task_id="fee-draft", problem_description=FEE_TASK["problem_description"]
         + ANSWER.format("def late_fee(days):\n    return 0.35 * days")),
    dict(FEE_TASK, problem_description=FEE_TASK["problem_description"]
         + "\nOUTPUT: What is the fee for each day late?"),
]
MAX_TURNS = 3
SECRETS = secrets(TASKS)


def vf_eval() -> str:
    return str(Path(sys.executable).with_name("vf-eval"))


def _text(content) -> str:
    if isinstance(content, str):
        return content
    return "".join(p.get("text", "") for p in content or [])


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """``vf-eval`` on the three tasks, 2 rollouts each; its saved results and what the server was sent."""
    d = tmp_path_factory.mktemp("vf")
    (d / "tasks.jsonl").write_text("".join(json.dumps(t) + "\n" for t in TASKS))
    env_args = {"tasks": str(d / "tasks.jsonl"), "max_turns": MAX_TURNS, "eval_workers": 1}
    with OpenAITestServer() as server:
        p = subprocess.run([vf_eval(), "colbench.integrations.verifiers", "-a", json.dumps(env_args), "-m", "echo",
                            "-b", server.url, "-k", "OPENAI_API_KEY", "-n", "3", "-r", "2", "-s", "-o", str(d / "out"),
                            "--disable-tui"], capture_output=True, text=True, timeout=300,
                           env=dict(os.environ, OPENAI_API_KEY="local"))
        requests = list(server.state.requests)
    assert p.returncode == 0, (p.stdout + p.stderr)[-3000:]
    (results,) = (d / "out").rglob("results.jsonl")
    return {"results": [json.loads(line) for line in results.read_text().splitlines()], "requests": requests,
            "dir": d}


def _rebuild(result: dict) -> tuple[dict, list[tuple[list, str]]]:
    """The ColBench episode of a saved rollout, from the result alone: each assistant message is one
    agent turn (its raw text; the last one the answer when it ends the episode), each user message the
    human's reply. Returns the trajectory record and ``(dialogue before the reply, reply)`` pairs."""
    task = next(t for t in TASKS if t["task_id"] == result["info"]["task_id"])
    dialogue, replies, answer = [], [], ""
    for m in result["completion"]:
        text = _text(m["content"])
        if m["role"] == "assistant":
            n = sum(x["role"] == "assistant" for x in dialogue) + 1
            turn = parse_agent_turn(text, last_turn=n >= MAX_TURNS)
            dialogue.append({"role": "assistant", "content": turn.message, "output": turn.output})
            if turn.is_answer:
                answer = turn.answer
        else:
            replies.append(([dict(x) for x in dialogue], text))
            dialogue.append({"role": "user", "content": text})
    return {"task": task, "dialogue_history": dialogue, "answer": answer}, replies


def test_vf_eval_rewards_are_colbench_evaluate_scores(run, tmp_path):
    results = run["results"]
    assert len(results) == 6 and all(r.get("error") is None for r in results)
    rebuilt = [_rebuild(r) for r in results]
    n_replies = scripted_replies_hold(rebuilt)  # env_response is ColBench's scripted human
    scored = colbench_evaluate([rec for rec, _ in rebuilt], tmp_path)
    assert [s["reward"] for s in scored] == pytest.approx([r["reward"] for r in results], abs=1e-9)
    assert [float(s["success"]) for s in scored] == [r["metrics"]["colbench_success"] for r in results]
    by_task = {r["info"]["task_id"]: r["reward"] for r in results}
    assert by_task == {"scale": 1.0, "fee-draft": 0.75, "fee": 0.0} and n_replies == 4
    turns = {r["info"]["task_id"]: r["metrics"]["colbench_turns"] for r in results}
    assert turns == {"scale": 1.0, "fee-draft": 1.0, "fee": float(MAX_TURNS)}
    assert {r["stop_condition"] for r in results} == {"colbench_episode_over"}


def test_every_model_call_saw_colbench_agent_context(run):
    """The messages of each request the server got are ColBench's agent chat for that point of a
    rebuilt dialogue (earlier turns as the human saw them), once per turn played."""
    expected = Counter()
    for r in run["results"]:
        rec, _ = _rebuild(r)
        dh = rec["dialogue_history"]
        for k, m in enumerate(dh):
            if m["role"] == "assistant":
                ctx = format_agent_messages(rec["task"]["problem_description"], dh[:k], max_turns=MAX_TURNS)
                expected[json.dumps(ctx)] += 1
    sent = Counter(json.dumps([{"role": m["role"], "content": _text(m["content"])} for m in req["messages"]])
                   for req in run["requests"])
    assert sent == expected


def test_nothing_sent_or_saved_holds_ground_truth_or_tests(run):
    sent = json.dumps([req["messages"] for req in run["requests"]])
    saved = json.dumps([{k: r.get(k) for k in ("prompt", "completion", "answer", "info")} for r in run["results"]])
    assert "7919" in sent and "0.35 dollars" in sent  # the human did tell the hidden facts
    assert [s for s in SECRETS if s in sent] == [] and [s for s in SECRETS if s in saved] == []


def test_guide_lines_load_an_env_that_evaluates(docs_block, monkeypatch):
    """The Integrations guide's lines, as written, give an env that verifiers evaluates against a local
    server; the guide's ``vf-eval -a`` arguments load too."""
    import re
    import signal

    import verifiers as vf
    from verifiers.types import ClientConfig

    handlers = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    try:  # a verifiers Environment installs SIGINT/SIGTERM handlers: keep pytest's
        scope: dict = {}
        exec(docs_block("verifiers"), scope)
        env = scope["env"]
        guide = (Path(__file__).resolve().parents[1] / "docs" / "guides" / "integrations.md").read_text()
        args = json.loads(re.search(r"vf-eval colbench\.integrations\.verifiers -a '([^']*)'", guide).group(1))
        assert len(vf.load_environment("colbench.integrations.verifiers", **args).get_eval_dataset()) > 0
    finally:
        for s, h in handlers.items():
            signal.signal(s, h)
    assert isinstance(env, vf.MultiTurnEnv) and len(env.get_eval_dataset()) == len(env.parts.tasks) > 0
    monkeypatch.setenv("OPENAI_API_KEY", "local")
    with OpenAITestServer() as server:
        out = env.evaluate_sync(ClientConfig(api_key_var="OPENAI_API_KEY", api_base_url=server.url), "echo",
                                num_examples=2)
    # the echoing policy never answers: ColBench takes its 10th turn as the answer, which is no code
    assert [o["reward"] for o in out["outputs"]] == [0.0, 0.0]
    assert [o["metrics"]["colbench_turns"] for o in out["outputs"]] == [10.0, 10.0]
    assert len(server.state.requests) == 20


@pytest.mark.slow
@pytest.mark.browser
def test_frontend_rewards_are_colbench_evaluate_scores(tmp_path, monkeypatch):
    """Frontend through the same env (verifiers' in-process evaluation, the stand-in server): the
    echoing policy answers with the page its request carries; the reward is the similarity ColBench's
    ``colbench evaluate`` gives the rebuilt episode."""
    import signal

    from verifiers.types import ClientConfig

    from colbench.integrations.verifiers import load_environment

    target = ('<html><body class="bg-gray-800"><h1 class="text-4xl text-white p-8">Corner Bakery</h1>'
              '<p class="text-yellow-300 p-8">Fresh bread every morning.</p></body></html>')
    page = '<html><body class="bg-gray-700"><h1 class="text-3xl text-white p-6">Corner Bakery</h1></body></html>'
    task = {"task_id": "bakery", "ground_truth": target,
            "problem_description": f"A dark page for my bakery.\nI WANT TO ANSWER: {page}"}
    handlers = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        env = load_environment(kind="frontend", tasks=[task], max_turns=2)
    finally:
        for s, h in handlers.items():
            signal.signal(s, h)
    monkeypatch.setenv("OPENAI_API_KEY", "local")
    with OpenAITestServer() as server:
        out = env.evaluate_sync(ClientConfig(api_key_var="OPENAI_API_KEY", api_base_url=server.url), "echo")
    (result,) = out["outputs"]
    (completion,) = result["completion"]
    turn = parse_agent_turn(_text(completion["content"]))
    assert turn.is_answer and target not in json.dumps(server.state.requests)
    (scored,) = colbench_evaluate([{"task": task, "dialogue_history": [], "answer": turn.message}], tmp_path)
    assert 0 < result["reward"] < 1 and scored["reward"] == pytest.approx(result["reward"], abs=1e-9)
