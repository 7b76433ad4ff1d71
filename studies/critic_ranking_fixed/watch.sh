# stop the first critics process before it trains the value head a second time (a separate process trains it)
while ! grep -q "critic value_head_with_info: training" log_3_critics.txt; do sleep 5; done
pkill -f "critics --critics random sweet_with_info sweet_without_info value_head_with_info"
echo "stopped at $(date -u +%H:%M:%S) after sweet_without_info (value head trained by log_4's process)" >> log_3_critics.txt
