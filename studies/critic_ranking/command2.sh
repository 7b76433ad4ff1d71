# Session 20 resume: same options as command.sh, from a checkout of f79cb7c (then main) with the T=0.3 rollouts the
# finished critics trained on restored in place of the pipeline_small rollouts:
# setup: git worktree add --detach ../colbench-f79cb7c f79cb7c && cd ../colbench-f79cb7c &&
#        git show cfc0f98:benchmarks/results/pipeline_small/rollouts.jsonl > benchmarks/results/pipeline_small/rollouts.jsonl
# then: bash command2.sh continue; bash command2.sh critics --critics sweet_without_info (and, in parallel,
#       --critics value_head_with_info); bash command2.sh report
# (at f79cb7c the command was `python -m benchmarks.critic_ranking` and the rollouts lived under benchmarks/results/;
# since issue 40: `colbench critic-ranking` and studies/.) PYTHON: the interpreter of that checkout's environment.
cd "$(git rev-parse --show-toplevel)"
ROLLOUTS=benchmarks/results/pipeline_small/rollouts.jsonl
[ -f "$ROLLOUTS" ] || ROLLOUTS=studies/pipeline_small/rollouts.jsonl
COMMON="--out-dir runs/critic_ranking --n-train-tasks 0 --extra-trajectories $ROLLOUTS --n-test-tasks 24 --n-candidates 4 --n-continuations 1 --episodes-in-flight 16 --critic-epochs 1 --critic-learning-rate 1e-3 --critic-lora-r 8 --critic-batch-size 2 --critic-turns first --critic-context short"
run() { OMP_WAIT_POLICY=PASSIVE OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 /usr/bin/time -v "${PYTHON:-python}" -m colbench critic-ranking $COMMON "$@"; }
case "$1" in
  continue) run --stages continue ;;
  critics) shift; run --stages critics "$@" ;;
  report) run --stages report ;;
esac
