"""The embedded default frontend tasks: the task folders colbench_env/data/authoring/frontend/tasks/ (which build
colbench_env/data/frontend/tasks.jsonl; that the packaged file is their build is tests/test_authoring_build.py's).

Checks every record against the ColBench frontend format: a complete HTML document linking exactly the
Tailwind 2.2.19 CDN stylesheet, balanced tags, no scripts, no external resources other than picsum id/48
images, only real Tailwind 2.2.19 classes (checked against the stylesheet itself when
``make assets`` has downloaded it), and a vague description that leaks no colour or class name.
"""
from __future__ import annotations

import itertools
import re

import pytest

from colbench_env.data.authoring import task_set
from colbench_env.tasks import FrontendTask, default_tasks
from html_checks import CDN, HEX_COLOUR, PICSUM, foreign_urls, leaked_classes, structure, stylesheet, tailwind_classes

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


# ---------------------------------------------------------------- the task sources

TASKS = task_set("frontend/tasks").tasks()


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
