"""What the deprecated alias modules of this package share (``benchmarks.pipeline``, ...): each
re-exports a module that moved, warns once on import and, run as ``python -m``, runs the
``colbench`` command that replaced it. The aliases go in the release after 0.1.0."""
from __future__ import annotations

import importlib
import sys
import warnings


def alias(namespace: dict, moved_to: str, *, cli: str | None = None, command: str | None = None,
          private: bool = False) -> None:
    """Fill the alias module's ``namespace`` (its ``globals()``) with the names of ``moved_to``
    (its ``__all__``; with ``private``, every name but dunders), and with ``add_arguments`` / ``main``
    of ``cli``; warn the importer; run as ``__main__``, exit with ``colbench COMMAND ARGS``."""
    module = importlib.import_module(moved_to)
    names = [k for k in vars(module) if not k.startswith("__")] if private else list(module.__all__)
    namespace.update({k: getattr(module, k) for k in names})
    exported = list(module.__all__)
    if cli is not None:
        parser = importlib.import_module(cli)
        namespace.update(add_arguments=parser.add_arguments, main=parser.main)
        exported += ["add_arguments", "main"]
    namespace["__all__"] = exported
    if namespace["__name__"] == "__main__" and command is not None:
        from colbench.cli import main

        sys.exit(main([command, *sys.argv[1:]]))
    old = namespace["__name__"]
    warnings.warn(f"{old} is deprecated: import from {moved_to}" + (f" (the command line is {cli})" if cli else "")
                  + "; this alias goes in the next release", DeprecationWarning, stacklevel=3)
