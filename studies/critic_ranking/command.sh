# Invocation 1 (13:15:48-13:44, killed after the candidates stage; batch 96 made all 96 continuations move in lockstep):
#   the same as below with --stages (all) --n-continuations 2 --episodes-in-flight 96 --critic-epochs 2 --critic-learning-rate 5e-4
# Invocations 2 and 3, in parallel (continuations, critics), then 4 (report). Run from a checkout of the
# commit the README names, with the rollouts the critics trained on (then benchmarks/results/pipeline_small/,
# now studies/pipeline_small/rollouts.jsonl); PYTHON: the interpreter of that checkout's environment.
cd "$(git rev-parse --show-toplevel)"
COMMON="--out-dir runs/critic_ranking --n-train-tasks 0 --extra-trajectories studies/pipeline_small/rollouts.jsonl --n-test-tasks 24 --n-candidates 4 --n-continuations 1 --episodes-in-flight 16 --critic-epochs 1 --critic-learning-rate 1e-3 --critic-lora-r 8 --critic-batch-size 2 --critic-turns first --critic-context short"
run() { OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 /usr/bin/time -v "${PYTHON:-python}" -m colbench critic-ranking $COMMON "$@"; }
case "$1" in
  continue) run --stages continue ;;
  critics) run --stages critics ;;
  report) run --stages report ;;
esac
