# The value head with 8 regression epochs, on the parent directory's candidates, continuations and SWEET/random
# critic scores (setup: copy ../candidates.jsonl, ../continuations.jsonl, ../config.json and ../scores.jsonl without
# its value_head_with_info line into runs/critic_ranking_vh), then, from the repository root at c43358c:
#   bash command.sh critics --critics value_head_with_info --value-head-epochs 8
#   bash command.sh report --value-head-epochs 8
cd "$(git rev-parse --show-toplevel)"  # the repository root
R=studies/pipeline_rate_fixed
COMMON="--out-dir runs/critic_ranking_vh --n-train-tasks 0 --extra-trajectories $R/seed-0/rollouts.jsonl $R/seed-1/rollouts.jsonl $R/seed-2/rollouts.jsonl --n-test-tasks 96 --n-candidates 4 --n-continuations 1 --episodes-in-flight 16 --critic-epochs 1 --critic-learning-rate 1e-3 --critic-lora-r 8 --critic-batch-size 2 --critic-turns first --critic-context short"
stage=$1; shift
OMP_WAIT_POLICY=PASSIVE OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 /usr/bin/time -v "${PYTHON:-python}" -m colbench critic-ranking $COMMON --stages $stage "$@"
