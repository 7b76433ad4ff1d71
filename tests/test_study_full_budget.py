"""The full-budget SWEET-RL study's committed report recomputes from its committed episode files."""
from pathlib import Path

from studies.ask_family import full_budget

HERE = Path(full_budget.__file__).resolve().parent / "warm_start" / "pipeline_full_budget"


def test_committed_report_recomputes_from_the_episode_files():
    committed = (HERE / "full_budget.md").read_text()
    report = full_budget.analyse()
    assert full_budget.markdown(report) == committed
    # the zero-shot and multi-turn DPO rows are the committed run's own (its stats.json, same bootstrap)
    greedy = report["modes"]["greedy"]["methods"]
    assert greedy["zero-shot"]["success_rate_pct"]["tasks"]["mean"] == 0.0
