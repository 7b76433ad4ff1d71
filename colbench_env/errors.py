"""Errors shared by every layer."""
from __future__ import annotations

__all__ = ["UsageError"]


class UsageError(ValueError):
    """Bad user input (a file, an option, a plug-in spec). The ``colbench`` command prints it as one
    line ``colbench <command>: error: <message>`` and exits with status 2, never with a traceback;
    the message names the file, line and field where there is one."""
