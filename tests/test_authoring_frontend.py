"""The embedded default frontend tasks (colbench_env/data/authoring/frontend.py -> data/frontend/tasks.jsonl).

Checks every record against the ColBench frontend format: a complete HTML document linking exactly the
Tailwind 2.2.19 CDN stylesheet, balanced tags, no scripts, no external resources other than picsum id/48
images, only real Tailwind 2.2.19 classes (checked against the stylesheet itself when
``make assets`` has downloaded it), and a vague description that leaks no colour or class name.
"""
from __future__ import annotations

import itertools
import json
import re
from pathlib import Path

import pytest

from colbench_env.data.authoring import frontend as authoring
from colbench_env.tasks import FrontendTask, default_tasks, read_task_file
from html_checks import CDN, HEX_COLOUR, PICSUM, foreign_urls, leaked_classes, structure, stylesheet, tailwind_classes

REPO = Path(__file__).resolve().parents[1]
TASK_FILE = REPO / "colbench_env" / "data" / "frontend" / "tasks.jsonl"
# ---------------------------------------------------------------- the helpers catch what they must

def test_tailwind_class_parser_handles_escapes_variants_and_media():
    css = ("/*! tailwindcss v2.2.19 | MIT License | https://tailwindcss.com */"
           ".w-1\\/2{width:50%}.p-0\\.5{padding:.125rem}.hover\\:bg-red-500:hover{--tw-bg-opacity:1}"
           ".space-x-4>:not([hidden])~:not([hidden]){margin:0}.group:hover .group-hover\\:text-white{color:#fff}"
           "@media (min-width:768px){.md\\:grid-cols-3{grid-template-columns:repeat(3,minmax(0,1fr))}}"
           ".placeholder-gray-400::placeholder{color:#9ca3af}")
    names = tailwind_classes(css)
    assert {"w-1/2", "p-0.5", "hover:bg-red-500", "space-x-4", "group", "group-hover:text-white",
            "md:grid-cols-3", "placeholder-gray-400"} <= names
    assert "com" not in names and "125rem" not in names  # comments and declarations are not selectors


def test_structure_checker_flags_unbalanced_html():
    assert structure("<html><body><div><p>x</p><img src='a'><br></div></body></html>").errors == []
    assert structure("<div><span></div>").errors
    assert structure("<div><p>x</p>").errors
    assert structure("<p>x</p></br>").errors


def test_url_and_leak_checkers_flag_violations():
    ok = f'<link href="{CDN}" rel="stylesheet"><img src="https://picsum.photos/id/48/400/300">'
    assert foreign_urls(ok) == []
    assert foreign_urls('<img src="https://picsum.photos/id/12/400/300">') == ["https://picsum.photos/id/12/400/300"]
    assert foreign_urls('<img src="//example.com/a.png">') == ["//example.com/a.png"]
    assert leaked_classes("A bold grid of photos.", {"grid", "bg-red-500"}) == ["grid"]
    assert leaked_classes("Use bg-red-500 please", {"bg-red-500"}) == ["bg-red-500"]
    assert leaked_classes("a background of red", {"bg-red-500", "flex"}) == []


# ---------------------------------------------------------------- the packaged file

TASKS = read_task_file(TASK_FILE, kind="frontend")


def test_file_loads_with_enough_tasks_and_unique_ids():
    assert len(TASKS) >= 32
    assert all(isinstance(t, FrontendTask) for t in TASKS)
    ids = [t.task_id for t in TASKS]
    assert len(set(ids)) == len(ids)
    assert ids == [f"f{i:03d}" for i in range(1, len(TASKS) + 1)]


def test_splits_every_fourth_task_is_test():
    assert all(t.split in ("train", "test") for t in TASKS)
    for i, t in enumerate(TASKS, 1):
        assert t.split == ("test" if i % 4 == 0 else "train"), t.task_id
    assert sum(t.split == "test" for t in TASKS) >= 8


def test_default_tasks_serves_this_file():
    assert [t.task_id for t in default_tasks("frontend")] == [t.task_id for t in TASKS]
    assert [t.task_id for t in default_tasks("frontend", split="test")] == [t.task_id for t in TASKS if t.split == "test"]


def test_jsonl_is_exactly_what_write_jsonl_produces(tmp_path):
    out = authoring.write_jsonl(tmp_path / "frontend.jsonl")
    assert out == tmp_path / "frontend.jsonl"
    assert out.read_bytes() == TASK_FILE.read_bytes(), \
        "tasks.jsonl is stale: run `python -m colbench_env.data.authoring.frontend`"
    assert authoring.render_jsonl() == TASK_FILE.read_text(encoding="utf-8")
    first = json.loads(TASK_FILE.read_text(encoding="utf-8").splitlines()[0])
    assert list(first) == ["task_id", "split", "problem_description", "ground_truth"]


def test_cli_writes_to_the_given_path(tmp_path, capsys):
    target = tmp_path / "sub" / "out.jsonl"
    assert authoring.main([str(target)]) == 0
    assert target.read_bytes() == TASK_FILE.read_bytes()
    assert f"wrote {len(TASKS)} frontend tasks" in capsys.readouterr().out
    assert authoring.main(["a", "b"]) == 2


def test_ids_splits_and_pages_reject_bad_input():
    assert authoring.task_id(1) == "f001" and authoring.split_of(8) == "test" and authoring.split_of(7) == "train"
    with pytest.raises(ValueError, match="1-based"):
        authoring.task_id(0)
    with pytest.raises(ValueError, match="1-based"):
        authoring.split_of(0)
    with pytest.raises(ValueError, match="AuthoredPage.body must be a non-empty string"):
        authoring.AuthoredPage(description="d", title="t", body_class="bg-white", body="  ")


@pytest.mark.parametrize("task", TASKS, ids=[t.task_id for t in TASKS])
def test_ground_truth_is_a_clean_tailwind_document(task):
    html = task.ground_truth
    assert html.startswith("<html") and html.rstrip().endswith("</html>")
    assert 40 <= html.count("\n") + 1 <= 150, "a ground truth has 40-150 lines"
    doc = structure(html)
    assert doc.errors == []
    assert doc.tags.count("body") == 1 and doc.tags.count("head") == 1
    # exactly one stylesheet: the Tailwind 2.2.19 CDN, inside <head>
    assert len(doc.links) == 1
    link, open_elements = doc.links[0]
    assert link.get("href") == CDN and link.get("rel") == "stylesheet" and "head" in open_elements
    assert html.count(CDN) == 1
    # nothing executable, no other resources
    assert not {"script", "iframe", "object", "embed", "style", "base"} & set(doc.tags)
    assert "<script" not in html.lower() and "@import" not in html and "url(" not in html
    assert not any(name.startswith("on") or name == "style" for _, name, _ in doc.attrs)
    assert foreign_urls(html) == []
    images = [v for tag, name, v in doc.attrs if tag == "img" and name == "src"]
    assert all(PICSUM.fullmatch(v) for v in images)
    assert all(value.strip() for tag, name, value in doc.attrs if tag == "img" and name == "alt")
    # no Tailwind 3-only syntax: arbitrary values, important modifier, negative-prefix variants
    assert not [c for c in doc.classes if "[" in c or c.startswith("!")]


@pytest.mark.parametrize("task", TASKS, ids=[t.task_id for t in TASKS])
def test_every_class_exists_in_tailwind_2_2_19(task, tailwind):
    unknown = sorted(structure(task.ground_truth).classes - tailwind)
    assert unknown == [], f"{task.task_id}: not Tailwind 2.2.19 classes: {unknown}"


@pytest.fixture(scope="module")
def tailwind() -> set[str]:
    path = stylesheet()
    if path is None:
        pytest.skip("tailwind-2.2.19.min.css not found in $COLBENCH_ASSETS or ./assets (run `make assets`)")
    names = tailwind_classes(path.read_text(encoding="utf-8"))
    assert {"md:grid-cols-3", "w-1/2", "hover:bg-blue-700", "bg-green-500"} <= names and "bg-sky-500" not in names
    return names


@pytest.mark.parametrize("task", TASKS, ids=[t.task_id for t in TASKS])
def test_description_is_vague_and_leaks_nothing(task):
    text = task.problem_description
    assert "\n" not in text and 200 <= len(text) <= 900
    assert HEX_COLOUR.search(text) is None
    assert leaked_classes(text, structure(task.ground_truth).classes) == []
    assert "<" not in text and "tailwind" not in text.lower() and "http" not in text.lower()


def test_pages_are_distinct():
    class_sets = [structure(t.ground_truth).classes for t in TASKS]
    for (a, ca), (b, cb) in itertools.combinations(zip(TASKS, class_sets), 2):
        jaccard = len(ca & cb) / len(ca | cb)
        assert jaccard < 0.6, f"{a.task_id} and {b.task_id} share {jaccard:.0%} of their classes"
    titles = [re.search(r"<title>(.*?)</title>", t.ground_truth).group(1) for t in TASKS]
    assert len(set(titles)) == len(titles)
    assert len({t.problem_description for t in TASKS}) == len(TASKS)
    body_styles = [re.search(r'<body class="([^"]*)"', t.ground_truth).group(1) for t in TASKS]
    assert len(set(body_styles)) >= len(TASKS) // 3
