"""ColBench inside other RL libraries' training and evaluation loops.

* :mod:`colbench.integrations.trl`: ColBench as an ``environment_factory`` of TRL's ``GRPOTrainer``
  (extra ``trl``).
* :mod:`colbench.integrations.verifiers`: ColBench as a ``verifiers`` ``MultiTurnEnv`` with a
  ``load_environment(...)`` entry point for ``vf-eval`` and prime-rl (extra ``verifiers``).

Both drive :class:`colbench_env.gym_env.ColBenchEnv` -- its turn protocol, its human simulator and
its scorer -- and show the policy only what ColBench's agent sees. Importing this package imports
neither library.
"""
__all__: list[str] = []
