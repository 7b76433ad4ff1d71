#!/bin/bash
# part 5: peak RSS by stage of `colbench train sweet-rl` (issue 38's settings), before and after the
# change, each a checkout of its own.
# usage: studies/scale_out/measure.sh WORKDIR BEFORE_CHECKOUT [PYTHON]
#   WORKDIR holds roll1.jsonl (the trajectories); BEFORE_CHECKOUT is a checkout of the commit before
#   (main e32d6e1 in the README's run), put first on PYTHONPATH; PYTHON runs the checkout after
#   (default: python).
set -eu
work=$1 before=$2 py=${3:-python}
cd "$work"
export OMP_WAIT_POLICY=PASSIVE
for which in before after; do
  rm -rf "ck_$which"
  if [ "$which" = before ]; then export PYTHONPATH=$before; else unset PYTHONPATH; fi
  /usr/bin/time -v nice -n 5 "$py" -m colbench.benchmarks.bench_train_stages sweet-rl \
      --trajectories roll1.jsonl --model smollm2 --out "ck_$which" > "$which.out" 2> "$which.err"
done
