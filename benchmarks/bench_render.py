"""Renderer throughput: the driver pool vs one sequential driver, on the same pages, in one run.

``python -m colbench.benchmarks.bench_render [--pages N] [--pool-size K] [--rounds R]`` prints pages/s of
``Renderer(pool_size=K).render_many(pages)`` and of ``Renderer(pool_size=1)`` rendering the same pages
one after the other, and their ratio ``render_pool_ratio`` (goal: >= 2 with 2 drivers). Driver start-up
is timed separately and excluded from both rates (drivers are long-lived); each renderer renders one
warm-up page first. With ``rounds`` > 1 the two modes alternate (pool, sequential, pool, ...) so that
load from other processes hits both alike; rates are totals over the rounds.

The pages are realistic Tailwind pages (nav bar, hero with a picsum image, card grid, footer),
varied by colour, text and number of cards, linking the CDN stylesheet as ColBench pages do.
"""
from __future__ import annotations

import argparse
import json
import os
import time

import psutil

from colbench_env.evaluation.offline_assets import TAILWIND_CDN_URL
from colbench_env.evaluation.render import Renderer

_COLOURS = ("indigo", "green", "red", "blue", "yellow", "purple", "pink", "gray")
_TOPICS = ("bakery", "bank", "gym", "library", "travel agency", "dental clinic", "bookshop", "garden centre")


def sample_page(i: int) -> str:
    """The ``i``-th benchmark page (deterministic)."""
    c = _COLOURS[i % len(_COLOURS)]
    topic = _TOPICS[(i // len(_COLOURS)) % len(_TOPICS)]
    cards = "".join(
        f'<div class="bg-white rounded-lg shadow p-6"><img class="w-full mb-4 rounded" '
        f'src="https://picsum.photos/id/{10 + k}/320/180"><h3 class="text-xl font-bold mb-2">'
        f'{topic.title()} offer {k + 1}</h3><p class="text-gray-600">Everything you need from our {topic}, '
        f'now with {k + 2} new services and friendly staff ready to help.</p>'
        f'<button class="mt-4 bg-{c}-500 text-white px-4 py-2 rounded">Learn more</button></div>'
        for k in range(3 + i % 4))
    return f"""<html><head><meta charset="utf-8">
<link href="{TAILWIND_CDN_URL}" rel="stylesheet"></head>
<body class="bg-gray-50 font-sans">
<nav class="bg-{c}-600 text-white px-8 py-4 flex justify-between items-center">
  <span class="text-2xl font-bold">The {topic.title()} #{i}</span>
  <div class="space-x-6"><a href="#">Home</a><a href="#">Services</a><a href="#">Prices</a><a href="#">Contact</a></div>
</nav>
<section class="px-8 py-16 flex items-center gap-10 bg-{c}-50">
  <div class="w-1/2"><h1 class="text-5xl font-extrabold text-gray-900 mb-6">Welcome to our {topic}</h1>
  <p class="text-lg text-gray-600 mb-8">Serving the neighbourhood since {1950 + i}. Come and see what is new this season.</p>
  <a class="bg-{c}-600 text-white px-6 py-3 rounded-lg font-semibold" href="#">Book now</a></div>
  <img class="w-1/2 rounded-xl shadow-lg" src="https://picsum.photos/600/400">
</section>
<section class="px-8 py-12 grid grid-cols-3 gap-6">{cards}</section>
<footer class="bg-gray-800 text-gray-300 text-center py-6">&copy; {2000 + i % 25} The {topic.title()}</footer>
</body></html>"""


def _cpu_seconds(pids: list[int]) -> float:
    """User + system CPU seconds used so far by the processes ``pids`` (those still running)."""
    total = 0.0
    for pid in pids:
        try:
            t = psutil.Process(pid).cpu_times()
            total += t.user + t.system
        except psutil.NoSuchProcess:
            pass
    return total


def run(n_pages: int = 24, pool_size: int = 2, rounds: int = 2, page_load_timeout_s: float = 30.0) -> dict:
    """Measure pool vs sequential rendering on ``n_pages`` pages; print and return the numbers.

    Returns:
        dict with ``pages``, ``pool_size``, ``rounds``, ``cpu_count``, ``sequential_pages_per_s``,
        ``pool_pages_per_s``, ``render_pool_ratio`` (pool / sequential), and start-up seconds of each
        renderer (``sequential_startup_s``, ``pool_startup_s``), the CPU seconds per page of the
        sequential driver (Chromium, chromedriver and this process; ``sequential_cpu_s_per_page``) and the
        CPUs it keeps busy (``sequential_busy_cpus``: the pool's ceiling is cpu_count / that), and the 1-minute load average at the end
        (``load_average_1min``; other processes competing for the CPUs lower the ratio).
    """
    if n_pages < 1 or pool_size < 1 or rounds < 1:
        raise ValueError(f"n_pages, pool_size and rounds must be >= 1, got {n_pages}, {pool_size}, {rounds}")
    pages = [sample_page(i) for i in range(n_pages)]
    t = time.perf_counter()
    seq = Renderer(pool_size=1, page_load_timeout_s=page_load_timeout_s)
    seq_start = time.perf_counter() - t
    t = time.perf_counter()
    pool = Renderer(pool_size=pool_size, page_load_timeout_s=page_load_timeout_s)
    pool_start = time.perf_counter() - t
    seq_time = pool_time = seq_cpu = 0.0
    try:
        seq.render(sample_page(n_pages))
        pool.render_many([sample_page(n_pages + k) for k in range(pool_size)])
        for _ in range(rounds):
            t = time.perf_counter()
            pooled = pool.render_many(pages)
            pool_time += time.perf_counter() - t
            pids = seq.process_ids()
            me = psutil.Process()
            c0 = _cpu_seconds(pids) + sum(me.cpu_times()[:2])
            t = time.perf_counter()
            sequential = [seq.render(p) for p in pages]
            seq_time += time.perf_counter() - t
            seq_cpu += _cpu_seconds(pids) + sum(me.cpu_times()[:2]) - c0
        if [im.tobytes() for im in pooled] != [im.tobytes() for im in sequential]:
            raise RuntimeError("pool and sequential renders differ; the benchmark compares unequal work")
    finally:
        seq.close()
        pool.close()
    total = n_pages * rounds
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    result = {
        "pages": n_pages, "pool_size": pool_size, "rounds": rounds, "cpu_count": os.cpu_count(),
        "sequential_pages_per_s": total / seq_time, "pool_pages_per_s": total / pool_time,
        "render_pool_ratio": seq_time / pool_time,
        "sequential_cpu_s_per_page": seq_cpu / total, "sequential_busy_cpus": seq_cpu / seq_time,
        "sequential_startup_s": seq_start, "pool_startup_s": pool_start, "load_average_1min": load,
    }
    print(f"render: {n_pages} pages x {rounds} rounds on {os.cpu_count()} CPUs (1-min load average at the end: {load:.1f})")
    print(f"  sequential (1 driver):      {result['sequential_pages_per_s']:6.2f} pages/s  "
          f"(start-up {seq_start:.1f} s)")
    print(f"  pool ({pool_size} drivers):           {result['pool_pages_per_s']:6.2f} pages/s  "
          f"(start-up {pool_start:.1f} s)")
    print(f"  render_pool_ratio:          {result['render_pool_ratio']:6.2f}x")
    print(f"  one sequential driver uses {result['sequential_cpu_s_per_page']:.3f} CPU-s per page, i.e. keeps "
          f"{result['sequential_busy_cpus']:.2f} CPUs busy; with {os.cpu_count()} free CPUs the pool can reach at "
          f"most ~{os.cpu_count() / result['sequential_busy_cpus']:.1f}x")
    return result


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m colbench.benchmarks.bench_render", description=__doc__.splitlines()[0])
    p.add_argument("--pages", type=int, default=24)
    p.add_argument("--pool-size", type=int, default=2)
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--json", action="store_true", help="also print the result as one JSON line")
    a = p.parse_args(argv)
    result = run(n_pages=a.pages, pool_size=a.pool_size, rounds=a.rounds)
    if a.json:
        print(json.dumps(result, allow_nan=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
