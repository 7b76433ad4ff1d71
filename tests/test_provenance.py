"""invocations.jsonl: which code made a run directory, one line per invocation."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from colbench.provenance import code_version, record_invocation

ROOT = Path(__file__).resolve().parents[1]


def test_code_version_is_the_checkouts_commit():
    v = code_version()
    if (ROOT / ".git").exists():
        head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True, text=True,
                              check=True).stdout.strip()
        assert v["git_commit"] == head and len(head) == 40
        changed = subprocess.run(["git", "-C", str(ROOT), "diff", "HEAD", "--name-only"], capture_output=True,
                                 text=True, check=True).stdout.strip()
        assert v["git_dirty"] is bool(changed)
    else:
        assert v["git_commit"] is None and v["git_dirty"] is None
    import colbench
    import torch

    assert v["colbench"] == colbench.__version__ and v["torch"] == torch.__version__


def test_each_invocation_is_logged_and_a_code_change_is_noted(tmp_path):
    assert record_invocation(tmp_path, "pipeline") is None  # the first one: nothing to compare with
    second = record_invocation(tmp_path, "pipeline")
    if code_version()["git_dirty"]:
        assert "(with uncommitted changes)" in second
    else:
        assert second is None
    log = tmp_path / "invocations.jsonl"
    lines = [json.loads(x) for x in log.read_text().splitlines()]
    assert len(lines) == 2 and lines[0]["argv"] == sys.argv and lines[0]["command"] == "pipeline"
    # an earlier invocation of another commit, then a line cut by an interruption
    with open(log, "a") as f:
        f.write(json.dumps({**lines[-1], "git_commit": "0" * 40, "git_dirty": False}) + "\n" + '{"time": "20')
    note = record_invocation(tmp_path, "pipeline")
    now = code_version()["git_commit"]
    this = f"commit {now[:12]}" if now else "a copy that is not a git checkout"
    assert note.startswith(f"note: {log}: the last invocation ran commit 000000000000, this one runs {this}")
    assert len(log.read_text().splitlines()) == 5 and json.loads(log.read_text().splitlines()[-1])["git_commit"] == now


def test_colbench_run_logs_each_invocation_next_to_its_trajectory_file(tmp_path):
    out = tmp_path / "a.jsonl"
    for episodes in ("1", "2"):  # a second invocation extends (resumes) the run
        done = subprocess.run([sys.executable, "-m", "colbench", "run", "--agent", "scripted", "--episodes", episodes,
                               "--out", str(out)], capture_output=True, text=True, cwd=tmp_path)
        assert done.returncode == 0, done.stderr
    lines = [json.loads(x) for x in (tmp_path / "a.jsonl.invocations.jsonl").read_text().splitlines()]
    now = code_version()
    assert [x["command"] for x in lines] == ["run", "run"]
    assert [x["argv"][x["argv"].index("--episodes") + 1] for x in lines] == ["1", "2"]
    assert all(x["git_commit"] == now["git_commit"] and x["torch"] == now["torch"] for x in lines)
    assert not (tmp_path / "invocations.jsonl").exists()  # trajectory files sharing a directory keep theirs apart
