"""``colbench view`` at scale: a report of 1,000 backend episodes, its size and how fast a headless
Chromium makes it interactive (goals: <= 3 s, <= 25 MB).

``python -m colbench.benchmarks.bench_view [--episodes 1000] [--rounds 3] [--json]``

The episodes are real committed ones: the evaluation episodes of the warm-start pipeline
(``studies/ask_family/warm_start/pipeline/seed-*/eval/*.jsonl``: 3 seeds x 6 methods,
greedy and sampled, 2,592 episodes of the generated "rate" family), taken in file order; each gets
its own ``episode_id`` (the files reuse ids across methods and seeds). They carry no per-test
outcomes, so the report scores every answer in the sandbox, as ``colbench view`` does.

Measured: the time :func:`colbench.viewer.write_view` takes (``view_write_s``; scoring included),
the file's size (``view_file_mb``), then ``rounds`` loads of the file in a headless Chromium with
the network off (:mod:`colbench.viewer.browser`), each in a fresh tab: the time from navigation
start until the report's script has finished (``window.colbench.ready``: the index is in place,
sorting, filters, search and views work), the median of the rounds (``view_load_interactive_s``,
the headline; each round in ``view_load_interactive_s_rounds``), the time until the episodes'
compressed block is decoded, so that any episode opens at once (``view_data_decoded_s``, median),
and in the last round the time
of a first search over every episode's text (``view_search_ms``: its text index is built then),
of a filter change (``view_filter_ms``), of a column sort (``view_sort_ms``) and of opening an
episode (``view_open_episode_ms``).
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "benchmarks" / "results" / "ask_family" / "warm_start" / "pipeline"

__all__ = ["build_episodes", "run", "main"]


def build_episodes(path: str | os.PathLike, n: int = 1000) -> int:
    """Write ``n`` committed backend episodes to ``path`` (see the module docstring; the committed
    files are cycled when ``n`` exceeds them); returns ``n``."""
    from colbench_env.trajectories import atomic_write_jsonl, read_trajectories

    files = sorted(SOURCE.glob("seed-*/eval/*.jsonl"))
    if not files:
        raise FileNotFoundError(f"no committed evaluation episodes under {SOURCE}")
    pool = [(f, rec) for f in files for rec in read_trajectories(f)]
    out = []
    for k in range(n):
        f, rec = pool[k % len(pool)]
        rec = dict(rec, episode_id=f"{f.parent.parent.name}/{f.stem}/{rec.get('episode_id', k)}#{k // len(pool)}")
        out.append(rec)
    atomic_write_jsonl(path, out)
    return n


_INTERACT_JS = """
return (async function () {
  var t0 = performance.now();
  document.querySelector('#f-search').value = arguments[0];
  await window.colbench.applyFilters();
  var t1 = performance.now();
  var shownSearch = +document.querySelector('#n-shown').textContent;
  document.querySelector('#f-search').value = '';
  var sel = document.querySelector('#f-outcome'); sel.value = 'solved';
  var t2 = performance.now();
  await window.colbench.applyFilters();
  var t3 = performance.now();
  var shownSolved = +document.querySelector('#n-shown').textContent;
  sel.value = ''; await window.colbench.applyFilters();
  var t4 = performance.now();
  document.querySelectorAll('#index th')[3].click();
  var t5 = performance.now();
  history.replaceState(null, '', '#/episode/' + arguments[1]);
  var t6 = performance.now();
  await window.colbench.route();
  var t7 = performance.now();
  return {search_ms: t1 - t0, shown_search: shownSearch, filter_ms: t3 - t2, shown_solved: shownSolved,
          sort_ms: t5 - t4, open_episode_ms: t7 - t6,
          opened_rows: document.querySelectorAll('#episode-body table.tests-table tbody tr').length};
}).apply(null, arguments);
"""


def run(n_episodes: int = 1000, rounds: int = 3, workdir: str | None = None) -> dict:
    """Build the episodes, write the report, load it ``rounds`` times; print and return the figures
    (see the module docstring)."""
    from colbench.viewer import write_view
    from colbench.viewer.browser import console_errors, network_requests, offline_browser, open_report

    with tempfile.TemporaryDirectory(prefix="colbench-bench-view-", dir=workdir) as tmp:
        src, out = Path(tmp) / "episodes.jsonl", Path(tmp) / "report.html"
        build_episodes(src, n_episodes)
        res = write_view([src], out, progress=False)
        loads, decoded = [], []
        with offline_browser() as driver:
            for _ in range(rounds):
                driver.switch_to.new_window("tab")
                loads.append(open_report(driver, out) / 1000.0)
                while driver.execute_script("return window.colbench.dataReady") is None:
                    time.sleep(0.01)
                decoded.append(driver.execute_script("return window.colbench.dataReady") / 1000.0)
            inter = driver.execute_script(_INTERACT_JS, "loyalty_points", n_episodes // 2)
            errors, requests = console_errors(driver), network_requests(driver)
    result = {
        "view_episodes": res.episodes,
        "view_write_s": round(res.seconds, 2),
        "view_scored_answers": res.scored,
        "view_file_mb": round(res.bytes / 2**20, 2),
        "view_load_interactive_s": round(statistics.median(loads), 3),
        "view_load_interactive_s_rounds": [round(x, 3) for x in loads],
        "view_data_decoded_s": round(statistics.median(decoded), 3),
        "view_search_ms": round(inter["search_ms"], 1),
        "view_filter_ms": round(inter["filter_ms"], 1),
        "view_sort_ms": round(inter["sort_ms"], 1),
        "view_open_episode_ms": round(inter["open_episode_ms"], 1),
        "view_console_errors": len(errors),
        "view_network_requests": len(requests),
        "view_goal_met": statistics.median(loads) <= 3.0 and res.bytes <= 25 * 2**20,
        "load_average_1min": round(os.getloadavg()[0], 2),
    }
    print(f"colbench view, {res.episodes} backend episodes: file {result['view_file_mb']} MB (goal <= 25), "
          f"written in {result['view_write_s']} s ({res.scored} answers scored); interactive after "
          f"{result['view_load_interactive_s']} s (median of {rounds}; goal <= 3 s), episodes decoded after "
          f"{result['view_data_decoded_s']} s; search "
          f"{result['view_search_ms']} ms, filter {result['view_filter_ms']} ms, sort {result['view_sort_ms']} ms, "
          f"open an episode {result['view_open_episode_ms']} ms; load average {result['load_average_1min']}")
    return result


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--episodes", type=int, default=1000)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--json", action="store_true", help="one JSON object as the last line")
    args = p.parse_args(argv)
    r = run(args.episodes, args.rounds)
    if args.json:
        print(json.dumps(r, allow_nan=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
