"""The verifiers plug-in id of ColBench: ``vf-eval colbench-verifiers ...`` (verifiers imports a taskset,
its env and its default harness from a top-level module named by the id; the code is
:mod:`colbench.integrations.verifiers`)."""
from colbench.integrations.verifiers import ColBenchHarness, ColBenchTaskset, ColBenchVerifiersEnv

__all__ = ["ColBenchTaskset", "ColBenchVerifiersEnv", "ColBenchHarness"]
