"""colbench: ColBench's agents, trainers, pipeline and the ``colbench`` command; the package's version
(its single source).

The environments are :mod:`colbench_env` (installed beside this package, importing nothing of it).
This package, bottom to top (each part imports only those before it; ``tests/test_layout.py``):

* :mod:`colbench.wrappers` (hidden-information access, trajectory recording) and :mod:`colbench.agents`
  (Agent, LMAgent, the trainers RFT, multi-turn DPO, PPO, GRPO, SWEET-RL): in the repository the
  folders ``wrappers/`` and ``agents/`` (pyproject.toml's package-dir), importing only colbench_env;
* the shared modules: :mod:`colbench.errors`, :mod:`colbench.stats` (bootstrap), :mod:`colbench.report`
  (result tables), :mod:`colbench.resume`, :mod:`colbench.plugins` (user agents and simulators:
  ``module:Name``, ``path/to/file.py:Name``, entry points), :mod:`colbench.provenance`;
* :mod:`colbench.runs`: episodes into a resumed trajectory file (the service of ``colbench run``);
* :mod:`colbench.table`, :mod:`colbench.viewer`, :mod:`colbench.integrations` (TRL, verifiers),
  :mod:`colbench.critics` (critic analyses a user runs on their own critics);
* :mod:`colbench.pipeline` (rollouts -> every trainer -> evaluation -> report and statistics);
* :mod:`colbench.benchmarks` (``colbench bench``; the folder ``benchmarks/``);
* :mod:`colbench.cli`: one module per command, each parsing its options and calling a typed function
  (:func:`colbench.runs.run`, :func:`colbench.pipeline.run_pipeline`, ...); nothing imports it but the
  ``__main__`` modules.
"""
__version__ = "0.1.0"
#: ``colbench`` is also ColBench's verifiers plug-in id (``vf-eval colbench ...``): verifiers imports the
#: module named by the id and takes the Taskset, Env and Harness subclasses it exports in ``__all__``.
#: They are :mod:`colbench.integrations.verifiers`'s, imported only when one of these names is asked
#: for (``import colbench`` imports neither verifiers nor anything else heavy).
_VERIFIERS_EXPORTS = ("ColBenchTaskset", "ColBenchVerifiersEnv", "ColBenchHarness")
__all__ = ["__version__", "configs_dir", *_VERIFIERS_EXPORTS]


def __getattr__(name: str):
    """The verifiers plug-in's classes, imported on first use (PEP 562); anything else is missing."""
    if name in _VERIFIERS_EXPORTS:
        try:
            from colbench.integrations import verifiers
        except ModuleNotFoundError as e:
            if (e.name or "").split(".")[0] != "verifiers":
                raise
            raise ModuleNotFoundError(f"colbench.{name} needs verifiers: pip install 'colbench[verifiers]'",
                                      name=e.name) from e
        value = getattr(verifiers, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'colbench' has no attribute {name!r}")


def configs_dir():
    """The installed configuration files: the ``accelerate launch --config_file`` configs, one per
    launch kind, each naming its command in its first line (docs/guides/scale-out.md, "Multi-process training"):

    * ``accelerate/fsdp.yaml``: FSDP over 8 GPUs, bf16;
    * ``accelerate/deepspeed_zero3.yaml``: DeepSpeed ZeRO-3 over 8 GPUs, bf16 (the reference's);
    * ``accelerate/fsdp_cpu.yaml``, ``accelerate/deepspeed_zero3_cpu.yaml``: the same on 2 CPU
      processes, float32 (what the tests launch);
    * ``accelerate/ddp_cpu.yaml``: DDP over gloo on 2 CPU processes.

    E.g. ``accelerate launch --config_file "$(python -c 'import colbench; print(colbench.configs_dir())')/accelerate/fsdp.yaml" -m colbench train ...``."""
    from pathlib import Path

    return Path(__file__).resolve().parent / "configs"
