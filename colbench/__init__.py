"""colbench: the ``colbench`` command and the package's version (the single source of it).

The library itself is :mod:`colbench_env` (environments), :mod:`wrappers` and :mod:`agents`; this
package sits above them: :mod:`colbench.cli` parses the command line and calls typed functions
(:func:`colbench.cli.run.run`, :func:`colbench.cli.table.table`, ...), :mod:`colbench.plugins` loads
user agents and simulators (``module:Name``, ``path/to/file.py:Name``, entry points),
:mod:`colbench.report` writes result tables.
"""
__version__ = "0.1.0"
__all__ = ["__version__", "configs_dir"]


def configs_dir():
    """The installed configuration files (``accelerate/deepspeed_zero3.yaml``, ``accelerate/fsdp.yaml``):
    pass ``colbench.configs_dir() / "accelerate" / "fsdp.yaml"`` to ``accelerate launch --config_file``."""
    from pathlib import Path

    return Path(__file__).resolve().parent / "configs"
