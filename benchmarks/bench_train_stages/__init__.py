"""Peak memory of ``colbench train ALGORITHM`` by stage: the command runs in this process while a
thread samples its resident set size every 0.25 s, labelled with the trainer method running then
(SWEET-RL: model build, critic training, each candidate generation call, candidate scoring, the
policy's DPO; other algorithms: the whole update). Prints one line per stage entered and left, and a
JSON object of the peak per stage (GB = 10^9 bytes) on stderr; run it under ``/usr/bin/time -v`` for
the whole run's maximum resident set size::

    OMP_WAIT_POLICY=PASSIVE /usr/bin/time -v python -m colbench.benchmarks.bench_train_stages sweet-rl \\
        --trajectories roll1.jsonl --model smollm2 --out ck

Every argument after the algorithm is ``colbench train``'s (benchmarks/README.md, "Measured here": issue 38's row).
The code is this package's ``__main__`` (it runs the ``colbench`` command line in-process).
"""
