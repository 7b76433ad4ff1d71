#!/bin/bash
# Matched-budget study, one seed, in two lanes of one thread each (2 cores): the script seed 2 ran
# (as /work/runs/mb_seed.sh, from /work/main; seed 1 ran the same from another checkout). It names
# this machine's folders. usage: setsid nohup bash lanes.sh SEED &
S=$1; cd /work/main || exit 1
D=studies/matched_budget/seed-$S; L=/work/runs/mb_lanes; mkdir -p $D $L
export OMP_WAIT_POLICY=PASSIVE OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
run() { .venv/bin/python -m studies.matched_budget.run --seed $S --work /work/runs/matched_budget \
        --policy /work/runs/ws/ask25_sorted/models/rft --stages "$@" || exit 1; }
waitfor() {  # file, partner lane's pid file
  while [ ! -e "$1" ]; do
    kill -0 "$(cat $2 2>/dev/null)" 2>/dev/null || { sleep 5; [ -e "$1" ] && return; echo "partner gone, $1 missing"; exit 1; }
    sleep 15; done; }
lane1() { echo $BASHPID > $L/lane1.pid; run critic; waitfor $D/oracle/values.jsonl $L/lane2.pid
          run pairs train-mt-dpo eval-mt-dpo train-sweet-rl eval-sweet-rl; }
lane2() { echo $BASHPID > $L/lane2.pid; run oracle; waitfor $D/pairs.json $L/lane1.pid
          run train-sweet-rl-oracle eval-sweet-rl-oracle train-sweet-rl-no-info eval-sweet-rl-no-info; }
rm -f $L/lane1.pid $L/lane2.pid
( lane1 ) >> $D/run_log.lane1.txt 2>&1 &
A=$!
sleep 40
( lane2 ) >> $D/run_log.lane2.txt 2>&1 &
B=$!
wait $A; ra=$?; wait $B; rb=$?
echo "lanes: $ra $rb" >> $D/run_log.lane1.txt
[ $ra = 0 ] && [ $rb = 0 ] && OMP_NUM_THREADS=2 run stats >> $D/run_log.lane1.txt 2>&1
