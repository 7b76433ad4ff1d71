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
    """The installed configuration files: the ``accelerate launch --config_file`` configs, one per
    launch kind, each naming its command in its first line (README, "Multi-process training"):

    * ``accelerate/fsdp.yaml``: FSDP over 8 GPUs, bf16;
    * ``accelerate/deepspeed_zero3.yaml``: DeepSpeed ZeRO-3 over 8 GPUs, bf16 (the reference's);
    * ``accelerate/fsdp_cpu.yaml``, ``accelerate/deepspeed_zero3_cpu.yaml``: the same on 2 CPU
      processes, float32 (what the tests launch);
    * ``accelerate/ddp_cpu.yaml``: DDP over gloo on 2 CPU processes.

    E.g. ``accelerate launch --config_file "$(python -c 'import colbench; print(colbench.configs_dir())')/accelerate/fsdp.yaml" -m colbench train ...``."""
    from pathlib import Path

    return Path(__file__).resolve().parent / "configs"
