#!/bin/bash
# part 5: peak RSS by stage of `colbench train sweet-rl` (issue 38's settings), before (main e32d6e1) and after (branch scale)
cd /tmp/scale_mem
export OMP_WAIT_POLICY=PASSIVE
for which in before after; do
  rm -rf ck_$which
  if [ $which = before ]; then export PYTHONPATH=/tmp/scale_base; else unset PYTHONPATH; fi
  /usr/bin/time -v nice -n 5 /work/wt/scale/.venv/bin/python -m colbench.benchmarks.bench_train_stages sweet-rl \
      --trajectories roll1.jsonl --model smollm2 --out ck_$which > $which.out 2> $which.err
done
