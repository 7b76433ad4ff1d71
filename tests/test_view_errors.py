"""`colbench view`: bad input gets one line `colbench view: error: ...`, exit 2, nothing written; and the
reading rules (retried episodes, several episodes per task, frontend wins/losses/ties) on hand-made
records. No browser: a backend view needs no Chromium."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from colbench.cli import main as colbench_main
from colbench.viewer.data import compare_runs, load_runs

REPO = Path(__file__).resolve().parents[1]
SMALL = REPO / "studies/pipeline_small"
FRONT = REPO / "tests/data/view_frontend_a.jsonl"

BACK_TASK = {"task_id": "t1", "problem_description": "Write f(x).", "ground_truth": "def f(x):\n    return x + 1",
             "hidden_information": "add one", "test_cases": {"test1": "f(1)", "test2": "f(2)"}}
FRONT_TASK = {"problem_description": "A page.", "ground_truth": "<html><body>hi</body></html>"}


def rec(task, reward, *, success=None, episode_id=None, error=None, task_id=None, answer="x"):
    r = {"task": dict(task, **({"task_id": task_id} if task_id else {})),
         "dialogue_history": [{"role": "assistant", "content": "I WANT TO ANSWER: x", "output": "OUTPUT: I WANT TO ANSWER: x"}],
         "answer": answer, "reward": reward}
    if success is not None:
        r["success"] = success
    if episode_id is not None:
        r["episode_id"] = episode_id
    if error is not None:
        r["error"] = error
    return r


def write(path: Path, recs) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in recs))
    return path


def view(capsys, *args) -> tuple[int, str]:
    rc = colbench_main(["view", *map(str, args), "--no-progress"])
    return rc, capsys.readouterr().err.strip()


def assert_one_line_error(rc: int, err: str, *parts: str) -> None:
    assert rc == 2 and "Traceback" not in err, err
    assert len(err.splitlines()) == 1 and err.startswith("colbench view: error: "), err
    for p in parts:
        assert p in err, err


@pytest.fixture
def out(tmp_path):
    """An existing report that a failing command must leave as it is."""
    p = tmp_path / "report.html"
    p.write_text("earlier report")
    return p


def test_missing_file(capsys, tmp_path, out):
    rc, err = view(capsys, SMALL / "eval/rft.jsonl", tmp_path / "nope.jsonl", "--out", out)
    assert_one_line_error(rc, err, f"file not found: {tmp_path / 'nope.jsonl'}")
    assert out.read_text() == "earlier report" and sorted(tmp_path.iterdir()) == [out]


@pytest.mark.parametrize("what", ["task file", "binary", "bad json", "empty", "list line", "bad task", "bad role"])
def test_not_trajectories(capsys, tmp_path, out, what):
    src = tmp_path / "x.jsonl"
    if what == "task file":  # the embedded frontend tasks: records, not trajectories
        src.write_text((REPO / "colbench_env/data/frontend/tasks.jsonl").read_text())
        want = f"{src}:1: field 'task' is missing"
    elif what == "binary":
        src.write_bytes((SMALL / "stats.png").read_bytes())
        want = f"{src}: not UTF-8 text"
    elif what == "bad json":
        src.write_text("\n".join((SMALL / "eval/rft.jsonl").read_text().splitlines()[:2]) + "\n{\"task\": \n")
        want = f"{src}:3: invalid JSON"
    elif what == "empty":
        src.write_text("\n")
        want = f"{src}: the file is empty"
    elif what == "list line":
        src.write_text("[1, 2]\n")
        want = f"{src}:1: a trajectory must be a JSON object"
    elif what == "bad role":
        bad = rec(BACK_TASK, 1.0)
        bad["dialogue_history"].insert(0, {"role": "system", "content": "be brief"})
        write(src, [rec(BACK_TASK, 1.0), bad])
        want = f"{src}:2: field 'dialogue_history': dialogue message role must be 'assistant' or 'user', got 'system'"
    else:
        write(src, [rec(BACK_TASK, 1.0), {"task": {"problem_description": "x", "hidden_information": "y"},
                                          "dialogue_history": [], "answer": ""}])
        want = f"{src}:2: field 'test_cases' is missing"
    rc, err = view(capsys, src, "--out", out)
    assert_one_line_error(rc, err, want)
    assert out.read_text() == "earlier report"


def test_two_kinds(capsys, tmp_path, out):
    rc, err = view(capsys, SMALL / "eval/rft.jsonl", FRONT, "--out", out)
    assert_one_line_error(rc, err, f"{FRONT}: frontend trajectories, but {SMALL / 'eval/rft.jsonl'} holds backend ones")
    mixed = write(tmp_path / "mixed.jsonl", [rec(BACK_TASK, 0.0), rec(FRONT_TASK, 0.5)])
    rc, err = view(capsys, mixed, "--out", out)
    assert_one_line_error(rc, err, f"{mixed}:2: a frontend trajectory in a file whose line 1 is a backend one")
    assert out.read_text() == "earlier report"


def test_bad_options(capsys, tmp_path, out):
    src = SMALL / "eval/rft.jsonl"
    assert_one_line_error(*view(capsys, src), "--out report.html is required")
    assert_one_line_error(*view(capsys, "--out", out), "give one or more RUN.jsonl files")
    assert_one_line_error(*view(capsys, src, "--out", tmp_path), f"--out {tmp_path}: not a regular file")
    copy = write(tmp_path / "copy.jsonl", [rec(BACK_TASK, 0.0)])
    assert_one_line_error(*view(capsys, copy, "--out", copy), "is one of the trajectory files read")
    assert_one_line_error(*view(capsys, src, src, "--labels", "a", "--out", out), "--labels: 1 labels for 2 runs")
    assert_one_line_error(*view(capsys, src, "--workers", "0", "--out", out), "--workers must be >= 1")
    assert_one_line_error(*view(capsys, "--pipeline", tmp_path, "--out", out), "not a pipeline out-dir")
    assert_one_line_error(*view(capsys, "--pipeline", SMALL, src), "not both")
    assert out.read_text() == "earlier report" and json.loads(copy.read_text())["reward"] == 0.0


def test_the_real_command_line(tmp_path):
    """Through `python -m colbench`: a good run writes the file; a bad one exits 2 with one line."""
    out = tmp_path / "r.html"
    p = subprocess.run([sys.executable, "-m", "colbench", "view", str(SMALL / "eval/zero-shot.jsonl"), "--out", str(out),
                        "--no-progress"], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr[-2000:]
    assert p.stdout.strip().startswith(f"wrote {out}: 16 episodes of 1 run") and "<!doctype html>" in out.read_text()[:20]
    p = subprocess.run([sys.executable, "-m", "colbench", "view", str(tmp_path / "none.jsonl"), "--out", str(out)],
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 2 and p.stderr.strip() == f"colbench view: error: file not found: {tmp_path / 'none.jsonl'}"


@pytest.mark.parametrize("blocked, extra", [("matplotlib", "view"), ("jinja2", "view"), ("selenium", "frontend")])
def test_a_missing_extra_is_one_line_before_any_page_is_rendered(tmp_path, blocked, extra):
    """A frontend run viewed without one module of the 'view' extra (matplotlib draws the summary's
    charts) or of the 'frontend' extra (Chromium renders the pages): one line naming that extra, exit
    2, before any page is rendered (no progress bar, no Chromium) and nothing written."""
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "sitecustomize.py").write_text(f"import sys\nsys.modules[{blocked!r}] = None\n")
    out = tmp_path / "r.html"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path / "site"), os.environ.get("PYTHONPATH", "")]))
    p = subprocess.run([sys.executable, "-m", "colbench", "view", str(FRONT), "--out", str(out)], capture_output=True,
                       text=True, timeout=300, env=env)
    assert p.returncode == 2 and not out.exists(), p.stderr[-2000:]
    assert p.stderr.strip() == (f"colbench view: error: this needs the '{extra}' extra (No module named "
                                f"{blocked!r}): pip install 'colbench[{extra}]'")
    from colbench_env.evaluation.offline_assets import find_tailwind_css

    css = find_tailwind_css(fetch=False)  # the checkout's copy (make assets): setup verifies it, no network
    (tmp_path / "assets").mkdir()
    (tmp_path / "assets" / css.name).write_bytes(css.read_bytes())
    p = subprocess.run([sys.executable, "-m", "colbench", "setup", "--assets-dir", str(tmp_path / "assets")],
                       capture_output=True, text=True, timeout=300, env=env)
    assert p.returncode == 0, p.stderr[-2000:]
    lines = {ln.split(":")[0]: ln for ln in p.stdout.splitlines() if ln.startswith("extra ")}
    assert lines[f"extra {extra}"].startswith(f"extra {extra}: not installed (pip install colbench[{extra}])")
    assert "colbench view" in lines["extra view"]


def test_the_extras_table_names_pyprojects_extras():
    """colbench.extras' table (what colbench setup reports and the commands check) against pyproject.toml:
    each extra exists there and installs a distribution of each module listed for it."""
    import importlib.metadata
    import re
    import tomllib

    from colbench.extras import EXTRA_MODULES, EXTRA_USES

    declared = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["optional-dependencies"]

    def names(extra: str) -> set[str]:  # distribution names of an extra, colbench[...] followed
        out = set()
        for req in declared[extra]:
            name = re.match(r"[A-Za-z0-9_.-]+", req).group(0).lower()
            nested = re.match(r"colbench\[([^]]+)\]", req)
            out |= set().union(*(names(e) for e in nested.group(1).split(","))) if nested else {name}
        return out

    assert set(EXTRA_MODULES) == set(EXTRA_USES) and set(EXTRA_MODULES) <= set(declared)
    dists = importlib.metadata.packages_distributions()
    for extra, modules in EXTRA_MODULES.items():
        for module in modules:
            assert {d.lower() for d in dists[module]} & names(extra), (extra, module, dists[module])


# -- reading rules ----------------------------------------------------------------------------------
def test_a_retried_episode_counts_once_other_lines_all_count(tmp_path):
    src = write(tmp_path / "run.jsonl", [
        rec(BACK_TASK, 0.0, success=False, episode_id="0", error="simulator: connection refused"),
        rec(BACK_TASK, 1.0, success=True, episode_id="1"),
        rec(BACK_TASK, 0.5, success=False, episode_id="0"),  # the retry of episode 0
        rec(BACK_TASK, 1.0, success=True, episode_id="1"),  # a second line of episode 1 without error: kept
    ])
    (run,) = load_runs([src])
    assert [ep.line for ep in run.episodes] == [2, 3, 4] and run.superseded == 1
    assert [ep.reward for ep in run.episodes] == [1.0, 0.5, 1.0]


def test_backend_comparison_solved_at_least_once(tmp_path):
    a = write(tmp_path / "a.jsonl", [rec(BACK_TASK, 0.5, success=False, task_id="t1"),
                                     rec(BACK_TASK, 1.0, success=True, task_id="t1"),   # t1 solved once of two
                                     rec(BACK_TASK, 0.0, success=False, task_id="t2"),
                                     rec(BACK_TASK, 1.0, success=True, task_id="t3")])
    b = write(tmp_path / "b.jsonl", [rec(BACK_TASK, 0.0, success=False, task_id="t1"),
                                     rec(BACK_TASK, 1.0, success=True, task_id="t2"),
                                     rec(BACK_TASK, 1.0, success=True, task_id="t4")])
    runs = load_runs([a, b])
    c = compare_runs(runs, 0, 1)
    assert {r["task_id"]: r["category"] for r in c.rows} == {"t1": "a_only", "t2": "b_only", "t3": "only_a",
                                                             "t4": "only_b"}
    assert c.counts == {"a_only": 1, "b_only": 1, "both": 0, "neither": 0, "only_a": 1, "only_b": 1}
    assert [r["a"] for r in c.rows if r["task_id"] == "t1"] == [[0, 1]]


def test_frontend_comparison_by_mean_similarity(tmp_path):
    """As `colbench evaluate --compare`: per task the mean similarity; higher wins, equal ties."""
    from colbench_env.evaluation.trajectory_scoring import win_rate

    ra = [rec(FRONT_TASK, 0.5, task_id="p1"), rec(FRONT_TASK, 0.3, task_id="p2"), rec(FRONT_TASK, 0.5, task_id="p2"),
          rec(FRONT_TASK, 0.2, task_id="p3")]
    rb = [rec(FRONT_TASK, 0.4, task_id="p1"), rec(FRONT_TASK, 0.4, task_id="p2"), rec(FRONT_TASK, 0.6, task_id="p3")]
    runs = load_runs([write(tmp_path / "a.jsonl", ra), write(tmp_path / "b.jsonl", rb)])
    c = compare_runs(runs, 0, 1)
    # p1: 0.5 > 0.4 win; p2: mean 0.4 = 0.4 tie; p3: 0.2 < 0.6 loss
    assert {r["task_id"]: r["category"] for r in c.rows} == {"p1": "win", "p2": "tie", "p3": "loss"}
    wr = win_rate(ra, rb)
    assert (c.counts["win"], c.counts["loss"], c.counts["tie"]) == (wr["wins"], wr["losses"], wr["ties"]) == (1, 1, 1)


def _episodes_block(html: str) -> dict:
    """The page's compressed block of episode views, decoded."""
    import base64
    import gzip
    import re

    b64 = re.search(r'<script type="application/octet-stream" id="colbench-data"[^>]*>([^<]*)</script>', html)[1]
    return json.loads(gzip.decompress(base64.b64decode(b64)))


def test_same_runs_same_page_and_unscored_tables_said(tmp_path):
    """The page is a function of its input (no time stamps, no random ids; one id per element);
    without scoring a file's tables say so."""
    import re

    from colbench.viewer import write_view

    src = [SMALL / "eval/rft.jsonl", SMALL / "eval/ppo.jsonl"]
    one, two = write_view(src, tmp_path / "1.html", progress=False), write_view(src, tmp_path / "2.html", progress=False)
    html = (tmp_path / "1.html").read_text()
    assert html == (tmp_path / "2.html").read_text() and one.scored == two.scored == 32  # distinct (task, answer) pairs
    ids = re.findall(r'\bid="([^"]+)"', html)
    assert len(ids) == len(set(ids)) and ids
    block = _episodes_block(html)
    assert len(block["episodes"]) == 32 and all("tests-table" in e for e in block["episodes"])
    res = write_view(src, tmp_path / "3.html", score=False, progress=False)
    block = _episodes_block((tmp_path / "3.html").read_text())
    assert res.scored == 0 and all("not scored" in e and "tests-table" not in e for e in block["episodes"])
