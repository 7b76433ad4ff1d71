"""ColBench in verifiers v1 (:mod:`colbench.integrations.verifiers`, plug-in id ``colbench``),
run by verifiers' own evaluation entry point (``vf-eval``) against the project's stand-in
OpenAI-compatible server on 127.0.0.1 (``tests/openai_test_server.py``: its ``echo`` model repeats
the last user message).

The tasks make that echoing policy play three kinds of episode: a request that carries a right
answer (all tests pass), one that carries a partly right answer (3 of 4), and one where it talks:
its first turn is a thought, ``OUTPUT:`` and a question (the human sees only the question, and so
does the policy's next context), then it repeats the human's replies, and its third turn is taken
as the answer. The dialogues are rebuilt from vf-eval's saved traces alone and scored by ``colbench
evaluate`` in a fresh process: the scores equal the rewards verifiers recorded. The human's replies
equal a fresh scripted human's, every model call carried ColBench's own agent context, and nothing
sent to the model or saved holds a ground truth or a test.

The plug-in id is the package's own name: verifiers' loader imports ``colbench`` and takes the classes
it exports lazily (``import colbench`` alone imports no verifiers).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter

import pytest
from samples import FEE_TASK, SCALE_TASK, colbench_evaluate, scripted_replies_hold, secrets

from colbench_env.prompting import format_agent_messages
from colbench_env.protocol import parse_agent_turn

try:
    from openai_test_server import OpenAITestServer
except ImportError:  # run from the repository root
    from tests.openai_test_server import OpenAITestServer

pytest.importorskip("verifiers.v1")

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
#: verifiers' `vf-eval` console script (`verifiers.v1.cli.eval.main:main`), run with this interpreter
VF_EVAL = [sys.executable, "-c", "import sys; from verifiers.v1.cli.eval.main import main; sys.argv[0] = 'vf-eval'; main()"]


def vf_eval(server_url: str, out, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([*VF_EVAL, "colbench", "-m", "echo", "--client.base-url", server_url,
                           "--client.api-key-var", "OPENAI_API_KEY", "--no-push", "--no-rich", "-o", str(out), *args],
                          capture_output=True, text=True, timeout=600, env=dict(os.environ, OPENAI_API_KEY="local"))


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """``vf-eval`` on the three tasks, 2 rollouts each; its saved episodes and what the server was sent."""
    d = tmp_path_factory.mktemp("vf")
    (d / "tasks.jsonl").write_text("".join(json.dumps(t) + "\n" for t in TASKS))
    with OpenAITestServer() as server:
        p = vf_eval(server.url, d / "out", "--env.taskset.tasks", str(d / "tasks.jsonl"),
                    "--env.taskset.max-turns", str(MAX_TURNS), "-n", "3", "-r", "2")
        requests = list(server.state.requests)
    assert p.returncode == 0, (p.stdout + p.stderr)[-3000:]
    (traces,) = (d / "out").rglob("traces.jsonl")
    episodes = [json.loads(line) for line in traces.read_text().splitlines()]
    return {"episodes": episodes, "requests": requests, "saved": traces.read_text(), "dir": d}


def _text(content) -> str:
    if isinstance(content, str):
        return content
    return "".join(p.get("text", "") for p in content or [])


def _rebuild(trace: dict) -> tuple[dict, list[tuple[list, str]]]:
    """The ColBench episode of a saved agent trace, from the trace alone: its sampled assistant
    messages are the agent's raw turns; the human's replies are the user messages of the last model
    call's context after the request. Returns the trajectory record and ``(dialogue before the
    reply, reply)`` pairs."""
    task = next(t for t in TASKS if t["task_id"] == trace["task"]["data"]["task_id"])
    nodes = trace["nodes"]
    raw = [_text(n["message"]["content"]) for n in nodes if n.get("sampled")]
    path, k = [], max(i for i, n in enumerate(nodes) if n.get("sampled"))
    while k is not None:
        path.append(nodes[k]["message"])
        k = nodes[k].get("parent")
    users = [_text(m["content"]) for m in reversed(path) if m["role"] == "user"][1:]  # [0] is the request
    dialogue, replies, answer = [], [], ""
    for n, text in enumerate(raw, 1):
        turn = parse_agent_turn(text, last_turn=n >= MAX_TURNS)
        dialogue.append({"role": "assistant", "content": turn.message, "output": turn.output})
        if turn.is_answer:
            answer = turn.answer
            break
        replies.append(([dict(x) for x in dialogue], users[n - 1]))
        dialogue.append({"role": "user", "content": users[n - 1]})
    return {"task": task, "dialogue_history": dialogue, "answer": answer}, replies


def _agent_traces(run) -> list[dict]:
    return [t for e in run["episodes"] for t in e["traces"] if t["agent"]["name"] == "agent"]


def test_plugin_id_colbench_resolves_through_verifiers_loader():
    """verifiers' own loader maps the id ``colbench`` to the package ``colbench`` and finds in its
    ``__all__`` exactly ColBench's taskset, env and (default) harness classes."""
    from verifiers.v1.utils import loaders

    from colbench.integrations import verifiers as integration

    assert loaders.taskset_class("colbench") is integration.ColBenchTaskset
    assert loaders.environment_class("colbench") is integration.ColBenchVerifiersEnv
    assert loaders.default_harness_id("colbench") == "colbench"
    assert loaders.harness_class("colbench") is integration.ColBenchHarness


def test_import_colbench_imports_no_verifiers():
    """``import colbench`` (and its version, ``configs_dir``) stays light: verifiers, the integration,
    torch and openai are not imported (a fresh process); a plug-in class asked of the package is the
    integration's (this process, which imported verifiers already: a fresh process importing verifiers
    costs ~15 s); an unknown name is an AttributeError as for any module."""
    import colbench
    from colbench.integrations import verifiers as integration

    code = ("import sys, colbench; colbench.configs_dir(); v = colbench.__version__\n"
            "heavy = ('verifiers', 'colbench.integrations.verifiers', 'torch', 'openai', 'pydantic')\n"
            "print([m for m in heavy if m in sys.modules])\n"
            "print(hasattr(colbench, 'NoSuchName'))\n")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    assert p.stdout.splitlines() == ["[]", "False"]
    assert [getattr(colbench, name) for name in ("ColBenchTaskset", "ColBenchVerifiersEnv", "ColBenchHarness")] == [
        integration.ColBenchTaskset, integration.ColBenchVerifiersEnv, integration.ColBenchHarness]


def test_vf_eval_rewards_are_colbench_evaluate_scores(run, tmp_path):
    episodes = run["episodes"]
    assert len(episodes) == 6 and all(e["ok"] and not e["errors"] for e in episodes)
    traces = _agent_traces(run)
    assert len(traces) == 6 and all(t["agent"]["trainable"] for t in traces)
    rebuilt = [_rebuild(t) for t in traces]
    n_replies = scripted_replies_hold(rebuilt)  # the human is ColBench's scripted human
    scored = colbench_evaluate([rec for rec, _ in rebuilt], tmp_path)
    rewards = [t["rewards"]["colbench_reward"]["score"] for t in traces]
    assert [s["reward"] for s in scored] == pytest.approx(rewards, abs=1e-9)
    assert [float(s["success"]) for s in scored] == [t["metrics"]["colbench_success"] for t in traces]
    by_task = {t["task"]["data"]["task_id"]: r for t, r in zip(traces, rewards)}
    assert by_task == {"scale": 1.0, "fee-draft": 0.75, "fee": 0.0} and n_replies == 4
    turns = {t["task"]["data"]["task_id"]: t["metrics"]["colbench_turns"] for t in traces}
    assert turns == {"scale": 1.0, "fee-draft": 1.0, "fee": float(MAX_TURNS)}


def test_every_model_call_saw_colbench_agent_context(run):
    """The messages of each request the server got are ColBench's agent chat for that point of a
    rebuilt dialogue (earlier turns as the human saw them), once per turn played."""
    expected = Counter()
    for t in _agent_traces(run):
        rec, _ = _rebuild(t)
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
    assert "7919" in sent and "0.35 dollars" in sent  # the human did tell the hidden facts
    assert [s for s in SECRETS if s in sent] == [] and [s for s in SECRETS if s in run["saved"]] == []
    assert "hidden_information" not in run["saved"] and "test_cases" not in run["saved"]


def test_model_human_is_a_non_trainable_agent_given_colbench_human_prompt(tmp_path):
    """``--env.human-simulator model``: the human is verifiers' ``human`` agent on its own model; each of
    its calls is ColBench's human prompt for the dialogue so far; it is not trainable."""
    from colbench_env.simulators.llm import human_messages
    from colbench_env.tasks import task_from_record

    task = dict(FEE_TASK, problem_description=FEE_TASK["problem_description"] + "\nOUTPUT: What is the fee?")
    (tmp_path / "t.jsonl").write_text(json.dumps(task) + "\n")
    with OpenAITestServer() as agent_server, OpenAITestServer() as human_server:
        p = vf_eval(agent_server.url, tmp_path / "out", "--env.taskset.tasks", str(tmp_path / "t.jsonl"),
                    "--env.taskset.max-turns", "2", "--env.human-simulator", "model", "--env.human.model", "echo",
                    "--env.human.client.type", "eval", "--env.human.client.base-url", human_server.url,
                    "--env.human.client.api-key-var",
                    "OPENAI_API_KEY")
        human_requests = list(human_server.state.requests)
    assert p.returncode == 0, (p.stdout + p.stderr)[-3000:]
    (traces,) = (tmp_path / "out").rglob("traces.jsonl")
    (episode,) = [json.loads(line) for line in traces.read_text().splitlines()]
    roles = {t["agent"]["name"]: t for t in episode["traces"]}
    assert set(roles) == {"agent", "human"} and not roles["human"]["agent"]["trainable"]
    assert roles["agent"]["agent"]["trainable"]
    first = parse_agent_turn(f"ECHO[0] {task['problem_description']}")
    dialogue = [{"role": "assistant", "content": first.message, "output": first.output}]
    (request,) = human_requests
    assert request["messages"] == human_messages("backend", task_from_record(task), dialogue)


@pytest.mark.slow
@pytest.mark.browser
def test_frontend_rewards_are_colbench_evaluate_scores(tmp_path):
    """``--env.taskset.kind frontend`` through vf-eval: the echoing policy answers with the page its
    request carries; the reward is the similarity ``colbench evaluate`` gives the same answer, and
    the target page was never sent to the model nor saved."""
    target = ('<html><body class="bg-gray-800"><h1 class="text-4xl text-white p-8">Corner Bakery</h1>'
              '<p class="text-yellow-300 p-8">Fresh bread every morning.</p></body></html>')
    page = '<html><body class="bg-gray-700"><h1 class="text-3xl text-white p-6">Corner Bakery</h1></body></html>'
    task = {"task_id": "bakery", "ground_truth": target,
            "problem_description": f"A dark page for my bakery.\nI WANT TO ANSWER: {page}"}
    (tmp_path / "front.jsonl").write_text(json.dumps(task) + "\n")
    with OpenAITestServer() as server:
        p = vf_eval(server.url, tmp_path / "out", "--env.taskset.kind", "frontend", "--env.taskset.tasks",
                    str(tmp_path / "front.jsonl"), "--env.taskset.max-turns", "2", "-n", "1", "-r", "1")
        sent = json.dumps(list(server.state.requests))
    assert p.returncode == 0, (p.stdout + p.stderr)[-3000:]
    (traces,) = (tmp_path / "out").rglob("traces.jsonl")
    (episode,) = [json.loads(line) for line in traces.read_text().splitlines()]
    (trace,) = [t for t in episode["traces"] if t["agent"]["name"] == "agent"]
    (raw,) = [_text(n["message"]["content"]) for n in trace["nodes"] if n.get("sampled")]
    turn = parse_agent_turn(raw)
    assert turn.is_answer and page in turn.answer
    assert target not in sent and target not in traces.read_text()
    (scored,) = colbench_evaluate([{"task": task, "dialogue_history": [], "answer": turn.answer}], tmp_path)
    reward = trace["rewards"]["colbench_reward"]["score"]
    assert 0 < reward < 1 and scored["reward"] == pytest.approx(reward, abs=1e-9)
