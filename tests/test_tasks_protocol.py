"""Task records, loaders and the turn protocol."""
import json

import pytest

from colbench_env.protocol import extract_code, extract_html, normalize_picsum, parse_agent_turn
from colbench_env.spaces import UnicodeText
from colbench_env.tasks import BackendTask, TaskFormatError, load_tasks, read_task_file, task_from_record

REC = {"problem_description": "Tip. The signature of the function is: def tip(bill)",
       "ground_truth": "def tip(bill):\n    return round(bill * 0.15, 2)",
       "test_cases": {"test1": "tip(10)", "test2": "tip(20)"},
       "hidden_information": "I tip 15 percent."}


def write_lines(tmp_path, lines):
    p = tmp_path / "tasks.jsonl"
    p.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return p


def test_official_record_with_dict_or_string_test_cases(tmp_path):
    rec2 = dict(REC, test_cases=json.dumps(REC["test_cases"]))
    p = write_lines(tmp_path, [json.dumps(REC), "", json.dumps(rec2)])
    a, b = read_task_file(p)
    assert isinstance(a, BackendTask) and a.test_cases == b.test_cases == REC["test_cases"]
    assert a.task_id == "tasks.jsonl:1" and b.task_id == "tasks.jsonl:3"
    assert a.to_record()["test_cases"] == REC["test_cases"]


@pytest.mark.parametrize("mutate, field, message", [
    (lambda r: r.pop("ground_truth"), "ground_truth", "is missing"),
    (lambda r: r.update(test_cases="{not json"), "test_cases", "not valid JSON"),
    (lambda r: r.update(test_cases=[1, 2]), "test_cases", "must be a dict"),
    (lambda r: r.update(test_cases={}), "test_cases", "has no tests"),
    (lambda r: r.update(problem_description=3), "problem_description", "must be a string"),
    (lambda r: r.update(split="dev"), "split", "must be 'train' or 'test'"),
])
def test_malformed_record_error_names_file_line_field(tmp_path, mutate, field, message):
    bad = dict(REC)
    mutate(bad)
    p = write_lines(tmp_path, [json.dumps(REC), json.dumps(bad)])
    with pytest.raises(TaskFormatError) as e:
        read_task_file(p, kind="backend")
    assert str(e.value).startswith(f"{p}:2: field '{field}'")
    assert message in str(e.value)
    assert (e.value.line, e.value.field) == (2, field)


def test_invalid_json_line_named(tmp_path):
    p = write_lines(tmp_path, [json.dumps(REC), "{oops"])
    with pytest.raises(TaskFormatError, match=r"tasks.jsonl:2: invalid JSON"):
        read_task_file(p)


def test_load_tasks_specs():
    assert len(load_tasks([REC, REC])) == 2
    with pytest.raises(TypeError):
        load_tasks(42)
    with pytest.raises(FileNotFoundError, match="task file not found"):
        load_tasks("/nonexistent/tasks.jsonl")
    front = task_from_record({"problem_description": "A bakery page", "ground_truth": "<html></html>"})
    assert front.kind == "frontend"


# The reference's rule, written out from its description (colbench_env/protocol.py docstring):
# the message is what lies between the FIRST "OUTPUT:" and the next one (the whole text without the
# marker); the recorded output is the generation cut before its second "OUTPUT:"; a message with
# "I WANT TO ANSWER:" is an answer, and the answer is what lies between the FIRST marker and the next
# one, unstripped; on a forced last turn the whole unstripped message is the answer. The expected
# values below are worked out by hand from that rule.
PARSE_CASES = [
    # (raw, last_turn, message, is_answer, answer, output)
    ("I should ask. OUTPUT: What rate?", False, "What rate?", False, None, "I should ask. OUTPUT: What rate?"),
    ("thinking OUTPUT: I WANT TO ANSWER: def f(): pass", False,
     "I WANT TO ANSWER: def f(): pass", True, " def f(): pass", "thinking OUTPUT: I WANT TO ANSWER: def f(): pass"),
    ("no marker at all", False, "no marker at all", False, None, "no marker at all"),
    ("  What rate?\n", True, "What rate?", True, "  What rate?\n", "  What rate?\n"),
    # the answer marker twice: the part between the two markers is the answer (not the last part)
    ("OUTPUT: I WANT TO ANSWER: A1 I WANT TO ANSWER: A2", False,
     "I WANT TO ANSWER: A1 I WANT TO ANSWER: A2", True, " A1 ", "OUTPUT: I WANT TO ANSWER: A1 I WANT TO ANSWER: A2"),
    # three markers: still only the first segment
    ("I WANT TO ANSWER:x I WANT TO ANSWER:y I WANT TO ANSWER:z", False,
     "I WANT TO ANSWER:x I WANT TO ANSWER:y I WANT TO ANSWER:z", True, "x ",
     "I WANT TO ANSWER:x I WANT TO ANSWER:y I WANT TO ANSWER:z"),
    # text before the marker is not part of the answer
    ("OUTPUT: Thanks, that is all I need. I WANT TO ANSWER:\ndef f(): return 1", False,
     "Thanks, that is all I need. I WANT TO ANSWER:\ndef f(): return 1", True, "\ndef f(): return 1",
     "OUTPUT: Thanks, that is all I need. I WANT TO ANSWER:\ndef f(): return 1"),
    # OUTPUT: twice: only the first segment is the message; the answer marker after the second
    # OUTPUT: is dropped with it, so this is a question, and the record is cut there too
    ("plan OUTPUT: What rate? OUTPUT: I WANT TO ANSWER: def f(): pass", False,
     "What rate?", False, None, "plan OUTPUT: What rate? "),
    # the answer marker in the thought (before OUTPUT:) does not count
    ("I WANT TO ANSWER: not yet OUTPUT: What rate?", False, "What rate?", False, None,
     "I WANT TO ANSWER: not yet OUTPUT: What rate?"),
    # two markers with nothing between them: an empty answer
    ("OUTPUT: I WANT TO ANSWER: I WANT TO ANSWER: def f(): pass", False,
     "I WANT TO ANSWER: I WANT TO ANSWER: def f(): pass", True, " ",
     "OUTPUT: I WANT TO ANSWER: I WANT TO ANSWER: def f(): pass"),
    # forced last turn with a second OUTPUT:: the first segment, unstripped
    ("t OUTPUT: def f(): pass\nOUTPUT: extra", True, "def f(): pass", True, " def f(): pass\n",
     "t OUTPUT: def f(): pass\n"),
]


@pytest.mark.parametrize("raw,last_turn,message,is_answer,answer,output", PARSE_CASES)
def test_parse_agent_turn_follows_the_reference_rule(raw, last_turn, message, is_answer, answer, output):
    t = parse_agent_turn(raw, last_turn=last_turn)
    assert (t.raw, t.message, t.is_answer, t.answer, t.output) == (raw, message, is_answer, answer, output)


def test_extract_code_and_html():
    assert extract_code("I WANT TO ANSWER: ```python\ndef f():\n    return 1\n```\nthanks") == "def f():\n    return 1"
    assert extract_code("```\ndef g(): return 2\n```") == "def g(): return 2"
    assert extract_code("def h(): return 3") == "def h(): return 3"
    assert extract_code(None) == ""
    # the answer marker twice: the first segment (as parse_agent_turn)
    assert extract_code("I WANT TO ANSWER: ```python\ndef a(): return 1\n``` I WANT TO ANSWER: def b(): return 2") \
        == "def a(): return 1"
    # code right after the marker on the same line: dedented/stripped (python semantics is tolerant)
    ns = {}
    exec(extract_code(" def f(x):\n    return x + 1"), ns)
    assert ns["f"](2) == 3
    assert extract_code("    def g():\n        return 1\n") == "def g():\n    return 1"
    assert extract_code("```py\ndef k(): return 4\n```") == "def k(): return 4"
    page = "Here: <html><body><img src='https://picsum.photos/200/300'></body></html> done"
    assert extract_html(page) == "<html><body><img src='https://picsum.photos/id/48/200/300'></body></html>"
    assert extract_html("x <body class='a'>hi</body> y") == "<body class='a'>hi</body>"
    assert extract_html("no page") == ""
    # the page is searched in the whole text, marker or not; the first page wins
    assert extract_html("<html>draft</html> I WANT TO ANSWER: that one") == "<html>draft</html>"
    assert extract_html("I WANT TO ANSWER: <html>a</html> I WANT TO ANSWER: <html>b</html>") == "<html>a</html>"
    assert normalize_picsum("https://picsum.photos/id/12/40/50") == "https://picsum.photos/id/48/40/50"


def test_unicode_text_space_contains_any_text():
    space = UnicodeText(100)
    for s in ["", " ", "a b\nc\td", "émoji 😀 ✓", "def f():\n    return {'a': [1, 2]}"]:
        assert space.contains(s), s
    assert not space.contains(3) and not space.contains("x" * 101)
    assert all(space.contains(space.sample()) for _ in range(20))


def test_record_kind_is_one_rule_and_record_messages_follow_it():
    from colbench_env.prompting import agent_instructions, record_messages
    from colbench_env.records import record_kind

    backend = {"problem_description": "p", "ground_truth": "def f(): pass", "test_cases": {"test1": "f()"},
               "hidden_information": "h"}
    official_frontend = {"problem_description": "a page", "ground_truth": "<html></html>"}
    assert record_kind(backend) == "backend" and record_kind({"hidden_information": "h"}) == "backend"
    assert record_kind(official_frontend) == "frontend"
    assert record_kind(task_from_record(official_frontend)) == "frontend"
    from colbench_env.prompting import COMPACT_FRONTEND_EXAMPLE

    history = [{"role": "assistant", "content": "q", "output": "t OUTPUT: q"}, {"role": "user", "content": "a"}]
    # the compact frontend prompt shows its worked dialogues as chat turns before the request
    for rec, kind, example in ((backend, "backend", []), (official_frontend, "frontend", list(COMPACT_FRONTEND_EXAMPLE))):
        msgs = record_messages(rec, history, max_turns=4, style="compact")
        assert msgs == [{"role": "system", "content": agent_instructions(kind, 4, "compact")}, *example,
                        {"role": "user", "content": rec["problem_description"]},
                        {"role": "assistant", "content": " q"}, {"role": "user", "content": "a"}]


def reference_history_content(response: str) -> str:
    """The reference env's ``content`` of an agent turn, written from its description: the text after
    the first "OUTPUT:" up to the next one, as is, or the whole response without the marker."""
    return response.split("OUTPUT:")[1] if "OUTPUT:" in response else response


@pytest.mark.parametrize("env_id", ["ColBench-Backend-v0", "ColBench-Frontend-v0"])
def test_the_agent_sees_its_earlier_messages_not_its_thoughts_as_the_reference_does(env_id):
    """The reference's agent prompt is built from ``get_dialogue_history`` (role and ``content`` only):
    an earlier turn shows its message, not the thought before OUTPUT: (the trainers train on the raw
    ``output``, and their contexts are built the same way as the agent's)."""
    import gymnasium as gym

    import colbench_env  # noqa: F401
    from colbench_env.prompting import observation_to_messages, record_messages, trajectory_turns

    turns = ["I should ask about the rate first. OUTPUT: What is your rate?\n",
             "no marker here, a plain question?",
             "thinking OUTPUT: first message OUTPUT: a second marker and what follows are dropped"]
    env = gym.make(env_id, max_turns=5, simulator="scripted")
    obs, _ = env.reset(seed=0)
    kind = "backend" if "Backend" in env_id else "frontend"
    for t in turns:
        obs, *_ = env.step(t)
    msgs = observation_to_messages(obs, kind=kind, max_turns=5)
    assert [m["content"] for m in msgs if m["role"] == "assistant"] == [reference_history_content(t) for t in turns]
    assert msgs[-1]["role"] == "user"  # the human's reply to the last turn
    # the trainers' contexts are the agent's; their actions the raw generations (cut at a second OUTPUT:)
    record = {"task": env.unwrapped.trajectory_record()["task"], "dialogue_history": json.loads(obs["dialogue"])}
    pairs = trajectory_turns(record, max_turns=5)
    assert [a for _, a in pairs] == [turns[0], turns[1], "thinking OUTPUT: first message "]
    assert pairs[2][0] == record_messages(record["task"], record["dialogue_history"][:4], max_turns=5)
    assert [m["content"] for m in pairs[2][0] if m["role"] == "assistant"] == \
        [reference_history_content(t) for t in turns[:2]]
