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


def test_parse_agent_turn():
    t = parse_agent_turn("I should ask. OUTPUT: What rate?")
    assert (t.message, t.is_answer, t.answer) == ("What rate?", False, None)
    t = parse_agent_turn("thinking OUTPUT: I WANT TO ANSWER: def f(): pass")
    assert t.is_answer and t.answer == "def f(): pass"
    t = parse_agent_turn("no marker at all")
    assert t.message == "no marker at all" and not t.is_answer
    t = parse_agent_turn("What rate?", last_turn=True)
    assert t.is_answer and t.answer == "What rate?"


def test_extract_code_and_html():
    assert extract_code("I WANT TO ANSWER: ```python\ndef f():\n    return 1\n```\nthanks") == "def f():\n    return 1"
    assert extract_code("```\ndef g(): return 2\n```") == "def g(): return 2"
    assert extract_code("def h(): return 3") == "def h(): return 3"
    assert extract_code(None) == ""
    page = "Here: <html><body><img src='https://picsum.photos/200/300'></body></html> done"
    assert extract_html(page) == "<html><body><img src='https://picsum.photos/id/48/200/300'></body></html>"
    assert extract_html("x <body class='a'>hi</body> y") == "<body class='a'>hi</body>"
    assert extract_html("no page") == ""
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
    history = [{"role": "assistant", "content": "q", "output": "t OUTPUT: q"}, {"role": "user", "content": "a"}]
    for rec, kind in ((backend, "backend"), (official_frontend, "frontend")):
        msgs = record_messages(rec, history, max_turns=4, style="compact")
        assert msgs == [{"role": "system", "content": agent_instructions(kind, 4, "compact")},
                        {"role": "user", "content": rec["problem_description"]},
                        {"role": "assistant", "content": "t OUTPUT: q"}, {"role": "user", "content": "a"}]
