"""Which code made a run directory: one line per invocation in ``<out-dir>/invocations.jsonl``.

Long runs (``colbench pipeline``, ``colbench critic-ranking``; ``colbench run`` per trajectory file in
``<out>.invocations.jsonl``) resume stage by stage and are often
extended by several invocations, days apart. Their resume checks compare *settings*; this log
records the *code* of every invocation (colbench's version, the git commit of the checkout it runs
from and whether that checkout had uncommitted changes, torch and transformers versions) with its
command line, so a reader can tell which files a code change could have touched. A resume with
another commit than the last invocation's is reported in one line; it is not refused (most commits
do not change what a stage produces).
"""
from __future__ import annotations

import datetime
import json
import os
import platform
import subprocess
import sys
from pathlib import Path
from typing import Any

__all__ = ["code_version", "record_invocation", "log_invocation"]

LOG_NAME = "invocations.jsonl"


def _git(root: Path, *args: str) -> str | None:
    try:
        done = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def code_version() -> dict[str, Any]:
    """colbench's version; the commit of the git checkout colbench is imported from and whether it
    has uncommitted changes to tracked files (both ``None`` for an installed copy); the versions of
    torch and transformers when they are installed."""
    import importlib.metadata

    import colbench

    root = Path(colbench.__file__).resolve().parents[1]
    commit = _git(root, "rev-parse", "HEAD") if (root / ".git").exists() else None
    dirty = None
    if commit:
        status = _git(root, "status", "--porcelain", "--untracked-files=no")
        dirty = None if status is None else bool(status)
    info: dict[str, Any] = {"colbench": colbench.__version__, "git_commit": commit, "git_dirty": dirty}
    for dist in ("torch", "transformers"):
        try:
            info[dist] = importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            info[dist] = None
    return info


def record_invocation(out_dir: str | os.PathLike, command: str) -> str | None:
    """:func:`log_invocation` to ``out_dir/invocations.jsonl``."""
    return log_invocation(Path(out_dir) / LOG_NAME, command)


def log_invocation(path: str | os.PathLike, command: str) -> str | None:
    """Append this invocation (time, ``command`` name, ``sys.argv``, :func:`code_version`, machine)
    to the log ``path`` (``colbench run`` keeps one per trajectory file, ``<out>.invocations.jsonl``,
    since several share a directory); returns a one-line note when the previous invocation recorded
    there ran another commit (or a checkout with uncommitted changes), else ``None``."""
    path = Path(path)
    previous, text = None, path.read_text() if path.exists() else ""
    if text:
        for line in text.splitlines():
            try:
                rec = json.loads(line)
            except json.JSONDecodeError:
                continue  # a line cut by an interruption: the log is informative, never fatal
            if isinstance(rec, dict):
                previous = rec
    now = code_version()
    entry = {"time": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
             "command": command, "argv": list(sys.argv), **now,
             "machine": f"{platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}"}
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a") as f:  # after a cut last line, on a line of its own
        f.write(("\n" if text and not text.endswith("\n") else "") + json.dumps(entry, allow_nan=False) + "\n")
    if previous is None:
        return None
    was, dirty = previous.get("git_commit"), previous.get("git_dirty") or now["git_dirty"]
    if was != now["git_commit"] or dirty:
        what = (f"commit {str(was)[:12]}" if was else "a copy that is not a git checkout")
        this = (f"commit {now['git_commit'][:12]}" if now["git_commit"] else "a copy that is not a git checkout")
        extra = " (with uncommitted changes)" if dirty else ""
        return (f"note: {path}: the last invocation ran {what}, this one runs {this}{extra}; files made "
                f"before and after a code change may differ in ways the resume check does not see")
    return None
