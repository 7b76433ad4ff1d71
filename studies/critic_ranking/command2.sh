# Session 20 resume: same options as command.sh, from /work/wt-cr (main at f79cb7c with the
# T=0.3 rollouts the finished critics trained on restored at benchmarks/results/pipeline_small/rollouts.jsonl)
# setup: git worktree add --detach /work/wt-cr f79cb7c && cd /work/wt-cr &&
#        git show cfc0f98:benchmarks/results/pipeline_small/rollouts.jsonl > benchmarks/results/pipeline_small/rollouts.jsonl
# then: bash command2.sh continue; bash command2.sh critics --critics sweet_without_info (and, in parallel,
#       --critics value_head_with_info); bash command2.sh report
cd /work/wt-cr
COMMON="--out-dir /work/runs/critic_ranking --n-train-tasks 0 --extra-trajectories benchmarks/results/pipeline_small/rollouts.jsonl --n-test-tasks 24 --n-candidates 4 --n-continuations 1 --batch-size 16 --critic-epochs 1 --critic-learning-rate 1e-3 --critic-lora-r 8 --critic-batch-size 2 --critic-turns first --critic-context short"
run() { OMP_WAIT_POLICY=PASSIVE OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 PYTHONPATH=/work/wt-cr /usr/bin/time -v .venv/bin/python -m benchmarks.critic_ranking $COMMON "$@"; }
case "$1" in
  continue) run --stages continue ;;
  critics) shift; run --stages critics "$@" ;;
  report) run --stages report ;;
esac
