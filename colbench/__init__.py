"""colbench: the ``colbench`` command, the SWEET-RL pipeline and the package's version (its single source).

The environments are :mod:`colbench_env`, with :mod:`wrappers` and :mod:`agents` (LM agents,
trainers); this package sits above them: :mod:`colbench.pipeline` (rollouts -> every trainer ->
evaluation -> report and statistics), :mod:`colbench.critics` (critic analyses a user runs on their
own critics), :mod:`colbench.cli` (one module per command: each parses its options and calls a typed
function, e.g. :func:`colbench.cli.run.run`, :func:`colbench.pipeline.run_pipeline`),
:mod:`colbench.plugins` (user agents and simulators: ``module:Name``, ``path/to/file.py:Name``, entry
points), :mod:`colbench.provenance` and :mod:`colbench.resume` (which code and which settings made a
run's files), :mod:`colbench.report` (result tables).
"""
__version__ = "0.1.0"
__all__ = ["__version__", "configs_dir"]


def configs_dir():
    """The installed configuration files (``accelerate/deepspeed_zero3.yaml``, ``accelerate/fsdp.yaml``):
    pass ``colbench.configs_dir() / "accelerate" / "fsdp.yaml"`` to ``accelerate launch --config_file``."""
    from pathlib import Path

    return Path(__file__).resolve().parent / "configs"
