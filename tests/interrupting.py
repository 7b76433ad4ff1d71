"""Ctrl-C for a command the tests start: the signal disposition a terminal gives it, and an
interrupt sent once its output file holds enough lines."""
from __future__ import annotations

import signal
import subprocess
import time
from pathlib import Path

__all__ = ["terminal_like", "interrupt_after_lines"]


def terminal_like() -> None:
    """``preexec_fn``: SIGINT at its default disposition and not blocked, as a terminal gives it.
    A subprocess inherits an ignored SIGINT from its parent, and a non-interactive shell ignores
    SIGINT in what it starts with ``&`` (``nohup make test &`` does: the child then ran on through
    the interrupt); Python installs no KeyboardInterrupt handler over an inherited SIG_IGN."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def interrupt_after_lines(proc: subprocess.Popen, out: Path, lines: int, *, start_s: float = 300,
                          stop_s: float = 60) -> str:
    """Send SIGINT to ``proc`` once ``out`` has ``lines`` lines (generous ``start_s``: a loaded
    machine can take a minute to start a run); its stderr once it has exited (``AssertionError``
    when it does not stop within ``stop_s``)."""
    deadline = time.time() + start_s
    while time.time() < deadline and (not out.exists() or len(out.read_text().splitlines()) < lines):
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    try:
        return proc.communicate(timeout=stop_s)[1]
    except subprocess.TimeoutExpired:
        proc.kill()
        _, err = proc.communicate()
        here = (signal.getsignal(signal.SIGINT), signal.pthread_sigmask(signal.SIG_BLOCK, []))
        raise AssertionError(f"the interrupt did not stop the run within {stop_s:g} s (this process's SIGINT "
                             f"handler and blocked signals: {here}); its stderr ends: {err[-1500:]}") from None
