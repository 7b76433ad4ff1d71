"""colbench's performance benchmarks (``colbench bench``, :mod:`benchmarks.bench`): one module per
measured pair (``bench_env``, ``bench_evaluator``, ``bench_render``, ``bench_generation``,
``bench_critic_memory``, ``bench_rollout``), their last results in ``benchmarks/results/``.

The pipeline, the critic studies and the command line used to live here too; they moved to
:mod:`colbench.pipeline`, :mod:`colbench.critics` and :mod:`colbench.cli`, and the research studies to
``studies/`` (not installed). ``benchmarks.pipeline``, ``benchmarks.pipeline_stats``,
``benchmarks.stats``, ``benchmarks.critic_analysis``, ``benchmarks.critic_ranking`` and
``benchmarks.cli`` are deprecated aliases of the new places, kept for one release.
"""
