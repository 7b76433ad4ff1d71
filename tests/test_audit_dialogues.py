"""``colbench audit dialogues``: human turns with planted faults (code, a value the hidden information
does not hold, "I don't know" about what it holds) are flagged by the scripted checks; the scripted
human's own dialogues are not; an LLM judge through the stand-in server adds its flags; the viewer
shows the flags on the turns."""
import copy
import json

import gymnasium as gym
import pytest

import colbench_env  # noqa: F401
from colbench.agents import ScriptedAgent
from colbench.audit.dialogues import JUDGE_PROMPT, audit_dialogues, judge_prompt, parse_verdict, scripted_flags
from colbench_env.lm.openai_compat import OpenAICompatBackend
from colbench_env.records import task_from_record
from colbench_env.rollout import episode_specs, run_episodes

from cli_helpers import assert_user_error, colbench, last_json
from openai_test_server import OpenAITestServer

SPEC = "generated:6:1:rate"


@pytest.fixture(scope="module")
def episodes():
    """Real episodes: an agent asking each task's own question, then a generic one, then answering,
    with the scripted human (generated tasks: one hidden fact each)."""
    from colbench_env.tasks import load_tasks

    tasks = load_tasks(SPEC)
    recs = []
    for k, t in enumerate(tasks):
        q = t.extra["generator"]["facts"][0]["question"]
        agent = ScriptedAgent([f"OUTPUT: {q}", "OUTPUT: Anything else I should know?",
                               "OUTPUT: I WANT TO ANSWER: def f():\n    return 1"])
        recs += run_episodes(lambda: gym.make("ColBench-Backend-v0", tasks=[t], max_turns=4), agent,
                             episode_specs(1, seed=k), episodes_in_flight=1)
    return recs


def _plant(rec: dict, reply: str, question: str | None = None) -> dict:
    """``rec`` with its first human turn replaced by ``reply`` (and the agent's question before it)."""
    rec = copy.deepcopy(rec)
    j = next(i for i, m in enumerate(rec["dialogue_history"]) if m["role"] == "user")
    rec["dialogue_history"][j]["content"] = reply
    if question is not None:
        rec["dialogue_history"][j - 1]["content"] = question
    return rec


def _fact(rec):
    return rec["task"]["generator"]["facts"][0]


def test_the_scripted_humans_dialogues_are_clean(episodes):
    assert all(sum(m["role"] == "user" for m in r["dialogue_history"]) == 2 for r in episodes)
    for r in episodes:
        assert scripted_flags(task_from_record(r["task"]), r["dialogue_history"]) == [], r["dialogue_history"]


def planted(episodes) -> dict:
    num = next(r for r in episodes if isinstance(_fact(r)["value"], (int, float)))
    value = _fact(num)["value"]
    wrong = value * 3 + 7  # no form of it is in the task (checked below)
    longest = max(episodes, key=lambda r: max(len(x.strip()) for x in r["task"]["ground_truth"].splitlines()))
    gt_line = max((x.strip() for x in longest["task"]["ground_truth"].splitlines()), key=len)
    assert len(gt_line) > 20
    return {
        "gives_code": _plant(num, "Here you go:\n```python\ndef f(x):\n    return x * 2\n```"),
        "reads_code": _plant(longest, f"Sure. It is basically {gt_line} in my head."),
        "contradicts_information": _plant(num, _fact(num)["sentence"].replace(str(value), str(wrong))),
        "unknown_but_held": _plant(num, "I don't know, I have no preference on that.", _fact(num)["question"]),
        "unknown_not_held": _plant(num, "I don't know.", "What is your favourite colour for the dashboard?"),
    }


def test_planted_faults_are_flagged_by_the_right_check(episodes):
    plants = planted(episodes)
    got = {name: scripted_flags(task_from_record(r["task"]), r["dialogue_history"]) for name, r in plants.items()}
    assert [f["check"] for f in got["gives_code"]] == ["gives_code"]
    assert [f["check"] for f in got["reads_code"]] == ["gives_code"] and "reads the ground truth out" in got["reads_code"][0]["detail"]
    assert [f["check"] for f in got["contradicts_information"]] == ["contradicts_information"]
    assert _fact(plants["contradicts_information"])["sentence"][:40] in got["contradicts_information"][0]["detail"]
    assert [f["check"] for f in got["unknown_but_held"]] == ["unknown_but_held"]
    assert _fact(plants["unknown_but_held"])["sentence"] in got["unknown_but_held"][0]["detail"]
    assert got["unknown_not_held"] == []  # the information holds nothing about colours
    j = next(i for i, m in enumerate(plants["gives_code"]["dialogue_history"]) if m["role"] == "user")
    assert all(f["turn"] == j and f["by"] == "scripted" for fs in got.values() for f in fs)


def test_a_number_the_agent_said_first_is_not_a_contradiction(episodes):
    rec = next(r for r in episodes if isinstance(_fact(r)["value"], (int, float)))
    echo = _plant(rec, "You said 9999 but I did not follow.", "Is it 9999?")
    assert scripted_flags(task_from_record(echo["task"]), echo["dialogue_history"]) == []


def _reviewer(body):
    """The stand-in judge: flags a turn under review that holds PLANTED as contradicting; answers
    garbage for one holding GARBAGE; else a clean verdict."""
    prompt = body["messages"][-1]["content"]
    turn = prompt.split("The human's turn under review:\n", 1)[1].split("\n\nCheck the turn", 1)[0]
    if "GARBAGE" in turn:
        return "I think it is fine."
    return json.dumps({"gives_code": False, "contradicts": "PLANTED" in turn, "unknown_but_held": False,
                       "explanation": "the judge saw PLANTED" if "PLANTED" in turn else "fine"})


def test_the_judge_reviews_every_human_turn_through_the_server(episodes):
    recs = [episodes[0], _plant(episodes[1], "PLANTED: the rule is the other way round."),
            _plant(episodes[2], "GARBAGE")]
    with OpenAITestServer(answer=_reviewer) as server:
        judge = OpenAICompatBackend(server.url, "judge-model")
        audits = audit_dialogues(list(enumerate(recs, 1)), judge=judge)
        bodies = list(server.state.requests)
    assert len(bodies) == sum(a.human_turns for a in audits) == 6
    task = task_from_record(recs[1]["task"])
    j = next(i for i, m in enumerate(recs[1]["dialogue_history"]) if m["role"] == "user")
    assert judge_prompt(task, recs[1]["dialogue_history"], j) in [b["messages"][0]["content"] for b in bodies]
    assert all(b["temperature"] == 0.0 and b["model"] == "judge-model" for b in bodies)
    assert audits[0].flags == [] and audits[0].judge_errors == 0
    assert audits[1].flags == [{"turn": j, "check": "contradicts_information", "detail": "the judge saw PLANTED",
                                "by": "judge"}]
    assert audits[2].judge_errors == 1 and audits[2].flags == []


def test_verdicts_are_parsed_strictly():
    assert parse_verdict('x {"gives_code": true, "contradicts": false, "unknown_but_held": false} y')["gives_code"]
    assert parse_verdict('{"gives_code": "yes", "contradicts": false, "unknown_but_held": false}') is None
    assert parse_verdict("no json here") is None
    assert "{problem_description}" in JUDGE_PROMPT and "{turn}" in JUDGE_PROMPT


def test_cli_writes_the_flags_and_the_viewer_shows_them(tmp_path, episodes):
    plants = planted(episodes)
    recs = [episodes[0], plants["gives_code"], plants["unknown_but_held"]]
    run = tmp_path / "run.jsonl"
    run.write_text("".join(json.dumps(r) + "\n" for r in recs))
    p = colbench("audit", "dialogues", run, "--out", tmp_path / "flagged.jsonl", "--json")
    j = last_json(p)
    assert j["episodes"] == 3 and j["flagged_episodes"] == 2 and j["human_turns"] == 6
    assert j["by_check"] == {"gives_code": 1, "contradicts_information": 0, "unknown_but_held": 1}
    out = [json.loads(ln) for ln in (tmp_path / "flagged.jsonl").read_text().splitlines()]
    assert [len(r["human_flags"]) for r in out] == [0, 1, 1]
    assert [{k: v for k, v in r.items() if k != "human_flags"} for r in out] == recs
    pytest.importorskip("jinja2")
    from colbench.viewer import write_view

    write_view([tmp_path / "flagged.jsonl"], tmp_path / "v.html", progress=False, score=False)
    page = (tmp_path / "v.html").read_text()
    assert "2 human turns flagged" in page  # the summary; the episodes' own views are in the compressed block
    from colbench.viewer.data import load_runs

    (run_,) = load_runs([tmp_path / "flagged.jsonl"])
    flagged = [(ep.index, t.flags[0]["check"]) for ep in run_.episodes for t in ep.turns if t.flags]
    assert flagged == [(1, "gives_code"), (2, "unknown_but_held")]
    from colbench.viewer.html import environment

    html = environment().get_template("episode.html.j2").render(ep=run_.episodes[1], run=run_, kind="backend")
    assert '<li class="human-flag flag-gives_code"><b>gives code</b> (scripted): code in the turn' in html


def test_cli_bad_input_is_one_line_exit_2(tmp_path, episodes):
    run = tmp_path / "run.jsonl"
    run.write_text(json.dumps(episodes[0]) + "\n")
    assert_user_error(colbench("audit", "dialogues", tmp_path / "none.jsonl"), "audit", "none.jsonl: no such file")
    assert_user_error(colbench("audit", "dialogues", run, "--judge-base-url", "http://127.0.0.1:9/v1"), "audit",
                      "--judge-base-url and --judge-model go together")
    assert_user_error(colbench("audit", "dialogues", run, "--out", run), "audit", "is the file being audited")
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"task": 3}\n')
    assert_user_error(colbench("audit", "dialogues", bad), "audit", "bad.jsonl:1")
