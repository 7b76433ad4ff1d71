"""colbench's performance benchmarks (``colbench bench``, :mod:`colbench.benchmarks.bench`): one module per
measured pair (``bench_env``, ``bench_evaluator``, ``bench_render``, ``bench_generation``,
``bench_critic_memory``, ``bench_rollout``), their last results in ``benchmarks/results/``.
"""
