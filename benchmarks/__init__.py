"""colbench benchmark scripts and the ``colbench`` command line (see :mod:`benchmarks.cli`)."""
