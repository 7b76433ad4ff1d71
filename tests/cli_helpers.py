"""Running the installed ``colbench`` command as a user does, for the command-line tests (a plain
helper module like ``samples``; test modules never import each other)."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest


def colbench_exe() -> str:
    """The console script installed next to the test's Python (``.venv/bin/colbench``)."""
    exe = Path(sys.executable).parent / "colbench"
    if exe.exists():
        return str(exe)
    found = shutil.which("colbench")
    if not found:
        pytest.fail("the colbench console script is not installed (pip install -e .)")
    return found


def colbench(*args, cwd=None, env_extra=None, timeout=300):
    """``colbench ARGS`` in a subprocess; its ``CompletedProcess`` (text output captured)."""
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    env.update(env_extra or {})
    return subprocess.run([colbench_exe(), *map(str, args)], capture_output=True, text=True, cwd=cwd, env=env,
                          timeout=timeout)


def colbench_here(capfd, *args) -> subprocess.CompletedProcess:
    """``colbench ARGS`` through the console script's entry point (:func:`colbench.cli.main`) in this
    process, its output taken from ``capfd`` (pytest's fixture: Python's and the C level's); the same
    ``CompletedProcess`` as :func:`colbench`, without starting an interpreter and importing torch
    again for each command. For commands whose outcome does not depend on a fresh process (the
    environment is this one's, read when its libraries were imported: ``HF_HUB_OFFLINE`` needs
    :func:`colbench`)."""
    from colbench.cli import main

    argv = [str(a) for a in args]
    capfd.readouterr()  # what came before is not this command's
    try:
        code = main(argv)
    except SystemExit as e:  # argparse: --help (0), a malformed command line (2)
        code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    out, err = capfd.readouterr()
    return subprocess.CompletedProcess(["colbench", *argv], code, out, err)


def assert_user_error(p, command: str, *needles: str) -> str:
    """Exit 2, no traceback, one line ``colbench <command>: error: ...`` containing every needle."""
    assert p.returncode == 2, (p.returncode, p.stderr[-2000:])
    assert "Traceback" not in p.stderr, p.stderr[-2000:]
    lines = [ln for ln in p.stderr.splitlines() if ln.startswith(f"colbench {command}: error: ")]
    assert len(lines) == 1, p.stderr[-2000:]
    for n in needles:
        assert n in lines[0], (n, lines[0])
    return lines[0]


def last_json(p) -> dict:
    """The JSON object on the last stdout line of a successful command."""
    assert p.returncode == 0, p.stderr[-3000:]
    return json.loads(p.stdout.strip().splitlines()[-1])
