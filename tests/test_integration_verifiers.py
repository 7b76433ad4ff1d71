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

from colbench_env.prompting import format_agent_messages
from colbench_env.protocol import parse_agent_turn
from colbench_env.simulators.scripted_backend import ScriptedBackendSimulator
from colbench_env.tasks import load_tasks

try:
    from openai_test_server import OpenAITestServer
except ImportError:  # run from the repository root
    from tests.openai_test_server import OpenAITestServer

pytest.importorskip("verifiers")

FENCE = "```"
TASKS = [
    {"task_id": "scale", "problem_description": "I want a function that scales a number the way my lab does. "
     f"The signature of the function is: def scale(x)\nI WANT TO ANSWER:\n{FENCE}python\ndef scale(x):\n"
     f"    return 7919 * x + 1\n{FENCE}", "hidden_information": "Multiply x by the prime 7919, then add one.",
     "ground_truth": "def scale(x):\n    return x * 7919 + 1",
     "test_cases": {"test1": "scale(3)", "test2": "scale(11)", "test3": "scale(-2)", "test4": "scale(5)"}},
    {"task_id": "fee-draft", "problem_description": "I want a function for the late fee on a library book. "
     f"The signature of the function is: def late_fee(days)\nI WANT TO ANSWER:\n{FENCE}python\n"
     f"def late_fee(days):\n    return 0.35 * days\n{FENCE}",
     "hidden_information": "The fee is 0.35 dollars for each day late. The fee is capped at 5 dollars.",
     "ground_truth": "def late_fee(days):\n    return min(days * 0.35, 5)",
     "test_cases": {"test1": "late_fee(2)", "test2": "late_fee(10)", "test3": "late_fee(30)", "test4": "late_fee(0)"}},
    {"task_id": "fee", "problem_description": "I want a function for the late fee on a library book. "
     "The signature of the function is: def late_fee(days)\nOUTPUT: What is the fee for each day late?",
     "hidden_information": "The fee is 0.35 dollars for each day late. The fee is capped at 5 dollars.",
     "ground_truth": "def late_fee(days):\n    return min(days * 0.35, 5)",
     "test_cases": {"test1": "late_fee(2)", "test2": "late_fee(10)", "test3": "late_fee(30)", "test4": "late_fee(0)"}},
]
MAX_TURNS = 3
SECRETS = sorted({t["ground_truth"] for t in TASKS} | {c for t in TASKS for c in t["test_cases"].values()}
                 | {"23758", "87110", "15837", "39596"})


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
    tasks = {t.task_id: t for t in load_tasks(TASKS)}
    human, records, n_replies = ScriptedBackendSimulator(), [], 0
    for r in results:
        rec, replies = _rebuild(r)
        for dialogue, reply in replies:  # env_response is ColBench's scripted human
            assert reply == human.reply(tasks[rec["task"]["task_id"]], dialogue)[:400]
        n_replies += len(replies)
        records.append(rec)
    path = tmp_path / "rebuilt.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    p = subprocess.run([sys.executable, "-m", "colbench", "evaluate", str(path), "--out", str(tmp_path / "s.jsonl"),
                        "--workers", "1", "--no-progress"], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr[-2000:]
    scored = [json.loads(line) for line in (tmp_path / "s.jsonl").read_text().splitlines()]
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
    sent = json.dumps(run["requests"])
    saved = "\n".join(p.read_text() for p in (run["dir"] / "out").rglob("*.json*"))
    assert "7919" in sent and "0.35 dollars" in sent  # the human did tell the hidden facts
    assert [s for s in SECRETS if s in sent] == [] and [s for s in SECRETS if s in saved] == []


def test_readme_lines_load_an_env_that_evaluates(readme_block, monkeypatch):
    """The README's lines, as written, give an env that verifiers evaluates against a local server;
    the README's ``vf-eval -a`` arguments load too."""
    import re
    import signal

    import verifiers as vf
    from verifiers.types import ClientConfig

    handlers = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    try:  # a verifiers Environment installs SIGINT/SIGTERM handlers: keep pytest's
        scope: dict = {}
        exec(readme_block("verifiers"), scope)
        env = scope["env"]
        readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
        args = json.loads(re.search(r"vf-eval colbench\.integrations\.verifiers -a '([^']*)'", readme).group(1))
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
