"""The task sources (colbench_env/data/authoring/<kind>/<set>/<task>/) and their one build script.

The build rewrites the packaged jsonl byte for byte; the record rules are checked against the source
files read here independently; each broken source is one error naming its file and field."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from colbench_env.data.authoring import TaskSourceError, build, load_records, signature_of, task_set, task_sets
from colbench_env.data.authoring.build import main

REPO = Path(__file__).resolve().parents[1]
DATA = REPO / "colbench_env" / "data"
SOURCES = DATA / "authoring"
SHIPPED = sorted(str(p.relative_to(DATA)) for p in DATA.glob("*/*.jsonl"))


def test_every_packaged_file_has_sources():
    assert SHIPPED == ["backend/part_a.jsonl", "backend/part_b.jsonl", "frontend/tasks.jsonl"]
    assert sorted(str(s.target) for s in task_sets()) == SHIPPED


def test_the_build_rewrites_the_packaged_files_byte_for_byte(tmp_path):
    written = build(tmp_path / "out")
    assert sorted(str(p.relative_to(tmp_path / "out")) for p in written) == SHIPPED
    for name in SHIPPED:
        assert (tmp_path / "out" / name).read_bytes() == (DATA / name).read_bytes(), \
            f"{name} is stale: run `python -m colbench_env.data.authoring.build`"


def test_the_command_builds_and_checks(tmp_path, capsys):
    assert main(["--out", str(tmp_path)]) == 0
    assert capsys.readouterr().out.count("wrote ") == 3
    assert main(["--check", "--out", str(tmp_path)]) == 0
    (tmp_path / "frontend" / "tasks.jsonl").write_text("{}\n")
    assert main(["--check", "--out", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert "stale: " in out and "tasks.jsonl" in out and "part_a" not in out
    # the packaged files are up to date, as the real command says
    p = subprocess.run([sys.executable, "-m", "colbench_env.data.authoring.build", "--check"], capture_output=True,
                       text=True, timeout=120, cwd=REPO)
    assert p.returncode == 0, p.stdout + p.stderr


def test_records_follow_the_source_files():
    """Each record is its folder's files, read here without the build's code: the id and split
    from the folder's place, prose on one line, code and page as written, the signature sentence."""
    import yaml

    for s in task_sets():
        folders = sorted(p for p in s.path.iterdir() if p.is_dir())
        records = load_records(s)
        assert [r["task_id"] for r in records] == [f.name[:4] for f in folders]
        every = 5 if s.kind == "backend" else 4
        for i, (rec, folder) in enumerate(zip(records, folders), 1):
            fields = yaml.safe_load((folder / "task.yaml").read_text())
            prose = " ".join(fields["description"].split())
            assert rec["split"] == ("test" if i % every == 0 else "train")
            if s.kind == "frontend":
                assert list(rec) == ["task_id", "split", "problem_description", "ground_truth"]
                assert rec["problem_description"] == prose
                assert rec["ground_truth"] + "\n" == (folder / "ground_truth.html").read_text()
                continue
            assert list(rec) == ["task_id", "split", "problem_description", "ground_truth", "test_cases",
                                 "hidden_information", "generic_solution"]
            code = (folder / "ground_truth.py").read_text()
            def_line = next(ln for ln in code.splitlines() if ln.startswith("def "))
            assert rec["problem_description"] == f"{prose} The signature of the function is: {def_line[:-1]}"
            assert rec["ground_truth"] + "\n" == code
            assert rec["generic_solution"] + "\n" == (folder / "generic_solution.py").read_text()
            assert rec["test_cases"] == {f"test{k}": c for k, c in enumerate(fields["test_cases"], 1)}
            assert rec["hidden_information"] == " ".join(fields["hidden_information"].split())
    first = load_records(task_set("backend/part_a"))[0]
    assert first["problem_description"].endswith("The signature of the function is: def calculate_tip(bill, service_quality)")
    assert first["test_cases"]["test1"] == "calculate_tip(47.3, 'good')"
    assert json.loads((DATA / "backend" / "part_a.jsonl").read_text().splitlines()[0]) == first


def test_signature_of():
    assert signature_of("def f(a, b=1):\n    return a") == "def f(a, b=1)"
    assert signature_of("import math\ndef g(x):\n    return x") == "def g(x)"
    with pytest.raises(ValueError, match="no top-level 'def name"):
        signature_of("x = 1")


@pytest.fixture
def root(tmp_path) -> Path:
    """A copy of three backend tasks (a001-a003) and two frontend pages (f001-f002) to break."""
    root = tmp_path / "src"
    for kind, name, ids in (("backend", "part_a", ("a001", "a002", "a003")), ("frontend", "tasks", ("f001", "f002"))):
        for folder in sorted((SOURCES / kind / name).iterdir()):
            if folder.name[:4] in ids:
                shutil.copytree(folder, root / kind / name / folder.name)
    return root


def _folder(root: Path, task_id: str) -> Path:
    return next(p for p in root.glob(f"*/*/{task_id}_*"))


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, (path, old)
    path.write_text(text.replace(old, new, 1))


def _set_field(path: Path, name: str, value) -> None:
    import yaml

    fields = yaml.safe_load(path.read_text())
    if value is None:
        del fields[name]
    else:
        fields[name] = value
    path.write_text(yaml.safe_dump(fields))


BROKEN = {
    "missing ground truth": (lambda r: (_folder(r, "a002") / "ground_truth.py").unlink(),
                             "a002_budget_split/ground_truth.py: missing"),
    "empty page": (lambda r: (_folder(r, "f002") / "ground_truth.html").write_text("\n\n"),
                   "f002_law_firm/ground_truth.html: empty"),
    "no def line": (lambda r: (_folder(r, "a001") / "ground_truth.py").write_text("rates = {}\n"),
                    "a001_calculate_tip/ground_truth.py: no top-level 'def name(...):' line"),
    "unknown field": (lambda r: _edit(_folder(r, "a003") / "task.yaml", "theme:", "hidden: x\ntheme:"),
                      "a003_loyalty_points/task.yaml: hidden: unknown field"),
    "missing field": (lambda r: _set_field(_folder(r, "f001") / "task.yaml", "description", None),
                      "f001_bakery/task.yaml: description: missing"),
    "a field of another kind": (lambda r: _edit(_folder(r, "f001") / "task.yaml", "description:", "story:"),
                                "f001_bakery/task.yaml: story: unknown field"),
    "nine tests": (lambda r: _edit(_folder(r, "a001") / "task.yaml", "  - calculate_tip(47.3, 'good')\n", ""),
                   "a001_calculate_tip/task.yaml: test_cases: needs a list of exactly 10 calls, got 9"),
    "a test that is no string": (lambda r: _edit(_folder(r, "a002") / "task.yaml", "  - budget_split(3000)", "  - 3000"),
                                 "task.yaml: test_cases: item 1 must be a non-empty string, got 3000"),
    "empty prose": (lambda r: _set_field(_folder(r, "a002") / "task.yaml", "hidden_information", " "),
                    "a002_budget_split/task.yaml: hidden_information: must be a non-empty string, got ' '"),
    "a note that is no string": (lambda r: _set_field(_folder(r, "a002") / "task.yaml", "theme", ["a", "b"]),
                                 "a002_budget_split/task.yaml: theme: must be a non-empty string, got ['a', 'b']"),
    "not a mapping": (lambda r: (_folder(r, "f001") / "task.yaml").write_text("- a\n- b\n"),
                      "f001_bakery/task.yaml: must be a mapping of fields, got list"),
    "not YAML": (lambda r: (_folder(r, "f001") / "task.yaml").write_text("description: [unclosed\n"),
                 "f001_bakery/task.yaml: not YAML"),
    "a gap in the ids": (lambda r: _folder(r, "a002").rename(_folder(r, "a002").with_name("a004_budget_split")),
                         "a003_loyalty_points: expected task a002 here"),
    "two letters in a set": (lambda r: _folder(r, "a003").rename(_folder(r, "a003").with_name("b003_loyalty_points")),
                             "b003_loyalty_points: expected task a003 here"),
    "a bad folder name": (lambda r: _folder(r, "f002").rename(_folder(r, "f002").with_name("F002-law")),
                          "F002-law: a task folder is named <letter><3 digits>_<name>"),
}


@pytest.mark.parametrize("case", sorted(BROKEN))
def test_a_broken_source_is_one_error_naming_it_and_nothing_is_written(case, root, tmp_path):
    assert [r["task_id"] for r in load_records(task_set("backend/part_a", root))] == ["a001", "a002", "a003"]
    breaks, message = BROKEN[case]
    breaks(root)
    with pytest.raises(TaskSourceError) as info:
        build(tmp_path / "out", root=root)
    assert message in str(info.value)
    assert "\n" not in str(info.value)
    assert not (tmp_path / "out").exists()


def test_the_command_reports_a_broken_source_in_one_line(root, tmp_path):
    (_folder(root, "a001") / "generic_solution.py").unlink()
    p = subprocess.run([sys.executable, "-m", "colbench_env.data.authoring.build", "--sources", str(root),
                        "--out", str(tmp_path / "out")], capture_output=True, text=True, timeout=120, cwd=REPO)
    assert p.returncode == 2 and p.stdout == ""
    assert p.stderr.startswith("build: error: ") and p.stderr.endswith("a001_calculate_tip/generic_solution.py: missing\n")
    assert p.stderr.count("\n") == 1 and not (tmp_path / "out").exists()


def test_a_task_set_reads_as_the_packaged_file():
    from colbench_env.tasks import read_task_file

    for s in task_sets():
        shipped = read_task_file(DATA / s.target, kind=s.kind)
        assert [t.to_record() for t in s.tasks()] == [t.to_record() for t in shipped]
    with pytest.raises(KeyError, match="no task set 'backend/part_c'"):
        task_set("backend/part_c")
