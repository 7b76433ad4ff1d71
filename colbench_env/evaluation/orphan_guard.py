"""Process trees that must not outlive this process, however it ends (SIGKILL included).

::

    from colbench_env.evaluation import orphan_guard
    orphan_guard.register(driver_pid, remove=[profile_dir])  # chromedriver: it and everything under it
                                                             # die with us, then its profile is deleted
    ...
    orphan_guard.unregister(driver_pid)    # closed normally: forget it

Why: a process killed with SIGKILL runs no clean-up, and its children are re-parented to init. A
chromedriver started by the render pool does not exit when its parent dies, nor does Chromium when
chromedriver dies, so a ``colbench serve`` (or any renderer's process) killed hard left ~10
Chromium processes per driver running.

Semantics:

* The first :func:`register` of a process starts one **guard**: a small Python process (this file
  run as a script, isolated mode, importing only the standard library and psutil) whose stdin is a
  pipe from this process. It ignores SIGINT, SIGTERM and SIGHUP (a Ctrl-C or a ``kill`` of the
  process group must not take it down before its owner) and reads registrations until the pipe
  closes, which the kernel does when this process exits, by any means.
* Then it SIGKILLs every registered process that is still the one registered (same pid and same
  creation time, so a recycled pid is never hit) together with all its descendants at that moment,
  waits up to 5 s for them to die, deletes the folders registered with each killed process (a
  browser's profile: a killed ``colbench serve`` left one per browser in the temporary folder), and
  exits. A process unregistered before is left alone, and so are its folders.
* A child made by ``fork`` without ``exec`` closes its copy of the pipe (it does not inherit the
  guard); one made by ``exec`` never sees the pipe (it is close-on-exec). At a normal interpreter
  exit the pipe is closed and the guard waited for (it finds nothing registered and exits).
* Best effort on the registering side: if the guard cannot be started or has died, registering does
  nothing (the processes are then cleaned up only by a normal close, as before).
"""
from __future__ import annotations

import atexit
import json
import os
import subprocess
import sys
import threading

__all__ = ["register", "unregister", "guard_pid"]

_lock = threading.Lock()
_guard: subprocess.Popen | None = None


def _start() -> subprocess.Popen | None:
    global _guard
    if _guard is not None and _guard.poll() is None:
        return _guard
    try:
        _guard = subprocess.Popen([sys.executable, "-I", "-B", os.path.abspath(__file__)], stdin=subprocess.PIPE,
                                  stdout=subprocess.DEVNULL, close_fds=True)
    except OSError:
        _guard = None
    return _guard


def _send(line: str) -> bool:
    guard = _guard
    if guard is None or guard.stdin is None:
        return False
    try:
        guard.stdin.write(line.encode())
        guard.stdin.flush()
        return True
    except (OSError, ValueError):  # the guard died (or its pipe was closed)
        return False


def register(pid: int, remove: list[str] | tuple[str, ...] = ()) -> bool:
    """Kill ``pid`` and its descendants if this process ends before :func:`unregister` (pid), then
    delete the folders ``remove``; ``False`` when no guard could take it (or the process is already
    gone)."""
    import psutil

    try:
        created = psutil.Process(pid).create_time()
    except psutil.Error:
        return False
    folders = json.dumps([os.path.abspath(os.fspath(f)) for f in remove])
    with _lock:
        return _start() is not None and _send(f"+ {pid} {created!r} {folders}\n")


def unregister(pid: int) -> None:
    """Forget ``pid`` (it was closed normally)."""
    with _lock:
        if _guard is not None:
            _send(f"- {pid}\n")


def guard_pid() -> int | None:
    """The guard's process id (``None`` before the first registration)."""
    return _guard.pid if _guard is not None and _guard.poll() is None else None


def _after_fork_in_child() -> None:
    global _guard, _lock
    _lock = threading.Lock()
    guard, _guard = _guard, None
    if guard is not None and guard.stdin is not None:
        try:
            guard.stdin.close()  # this copy only: the parent's guard keeps watching the parent
        except OSError:
            pass
        guard.returncode = 0  # not this process's child to wait for


@atexit.register
def _close() -> None:
    with _lock:
        guard = _guard
        if guard is None:
            return
        try:
            guard.stdin.close()
            guard.wait(timeout=10)
        except (OSError, ValueError, subprocess.TimeoutExpired):
            pass


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


def _main() -> None:  # the guard process
    import shutil
    import signal

    import psutil

    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, signal.SIG_IGN)
    watched: dict[int, tuple[float, list[str]]] = {}
    for line in sys.stdin.buffer:  # until EOF: the owner is gone
        fields = line.split(maxsplit=3)
        if len(fields) == 4 and fields[0] == b"+":
            watched[int(fields[1])] = (float(fields[2]), json.loads(fields[3]))
        elif len(fields) == 2 and fields[0] == b"-":
            watched.pop(int(fields[1]), None)
    procs: list = []
    folders: list[str] = []
    for pid, (created, remove) in watched.items():
        try:
            root = psutil.Process(pid)
            if root.create_time() == created:
                procs += [root, *root.children(recursive=True)]
                folders += remove
        except psutil.Error:
            pass
    for p in procs:
        try:
            p.kill()
        except psutil.Error:
            pass
    psutil.wait_procs(procs, timeout=5)
    for folder in folders:  # after the processes that write into them are gone
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    _main()
