# Issue 17 part 2 after the end-token fix: critics trained on the three seeds' T=0.1 collections of
# studies/pipeline_rate_fixed; 96 held-out states (candidates and continuations of the first 24 tasks are
# those of studies/critic_ranking, copied: generation did not change with the fix).
cd "$(git rev-parse --show-toplevel)"  # the repository root
R=studies/pipeline_rate_fixed
COMMON="--out-dir runs/critic_ranking_96 --n-train-tasks 0 --extra-trajectories $R/seed-0/rollouts.jsonl $R/seed-1/rollouts.jsonl $R/seed-2/rollouts.jsonl --n-test-tasks 96 --n-candidates 4 --n-continuations 1 --episodes-in-flight 16 --critic-epochs 1 --critic-learning-rate 1e-3 --critic-lora-r 8 --critic-batch-size 2 --critic-turns first --critic-context short"
stage=$1; shift
OMP_WAIT_POLICY=PASSIVE OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 /usr/bin/time -v "${PYTHON:-python}" -m colbench critic-ranking $COMMON --stages $stage "$@"
