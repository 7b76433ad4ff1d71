"""Throughput of the sandboxed backend evaluator vs the UNSAFE in-process ``exec`` baseline.

Both evaluators score the same answers on the same tasks in one run: for each embedded backend
task (``colbench_env`` default set), its ground truth (a correct answer) and its
``generic_solution`` (a plausible wrong one), repeated up to ``n_answers``. The in-process baseline
(:mod:`colbench_env.evaluation.inprocess`, the reference's way) is single-threaded and re-runs the
ground truth for every answer; the sandboxed one runs ``workers`` isolated children in parallel from
a warm pool and caches ground-truth outputs. The pool is started and the ground-truth cache filled
before timing (a warm evaluator, as in training); the in-process one is timed after one warm-up pass.

Printed: answers/s of each, and ``ratio = sandboxed / in-process`` (>1 means the sandbox is
faster), plus whether both gave the same rewards. Run::

    python -m benchmarks.bench_evaluator [--answers N] [--workers W] [--json]
"""
from __future__ import annotations

import argparse
import json
import time

__all__ = ["run", "main"]


def _workload(n_answers: int):
    from colbench_env.protocol import ANSWER_MARKER
    from colbench_env.tasks import default_tasks

    tasks = default_tasks("backend")
    pairs = []
    for t in tasks:
        pairs.append((t, f"{ANSWER_MARKER}\n```python\n{t.ground_truth}\n```"))
        wrong = t.extra.get("generic_solution")
        if wrong:
            pairs.append((t, f"{ANSWER_MARKER}\n```python\n{wrong}\n```"))
    if not pairs:
        raise RuntimeError("no embedded backend tasks to benchmark on")
    return [pairs[i % len(pairs)] for i in range(n_answers)], len(tasks)


def run(n_answers: int = 200, workers: int = 2, timeout_s: float = 10.0) -> dict:
    """Measure both evaluators on the same ``n_answers`` answers; returns the numbers as a dict.

    Keys: ``n_answers``, ``n_tasks``, ``workers``, ``inprocess_answers_per_s``,
    ``sandboxed_answers_per_s``, ``ratio`` (sandboxed / in-process), ``same_rewards`` (both
    evaluators agree on every answer), ``mean_reward``, ``isolation``.
    """
    if n_answers < 1 or workers < 1:
        raise ValueError("n_answers and workers must be >= 1")
    from colbench_env.evaluation.backend import BackendEvaluator
    from colbench_env.evaluation.inprocess import InProcessEvaluator

    items, n_tasks = _workload(n_answers)
    ref = InProcessEvaluator(timeout_s=timeout_s)
    ref.score_many(items[: min(len(items), 20)])  # warm-up (imports, caches)
    t0 = time.perf_counter()
    ref_scores = ref.score_many(items)
    t_ref = time.perf_counter() - t0

    with BackendEvaluator(workers=workers, timeout_s=timeout_s) as ev:
        ev.score_many(list({id(t): (t, a) for t, a in items}.values())[:workers])  # start pool
        ev.score_many([(t, "def _():\n    pass") for t in {id(t): t for t, _ in items}.values()])  # fill the cache
        t0 = time.perf_counter()
        sb_scores = ev.score_many(items)
        t_sb = time.perf_counter() - t0
        isolation = {k: v for k, v in ev.isolation.items() if k in ("netns", "pidns", "uid_drop", "landlock_abi")}
    same = [a.reward for a in ref_scores] == [b.reward for b in sb_scores]
    return {
        "n_answers": n_answers, "n_tasks": n_tasks, "workers": workers,
        "inprocess_answers_per_s": n_answers / t_ref, "sandboxed_answers_per_s": n_answers / t_sb,
        "ratio": (n_answers / t_sb) / (n_answers / t_ref), "same_rewards": same,
        "mean_reward": sum(s.reward for s in sb_scores) / n_answers, "isolation": isolation,
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--answers", type=int, default=200)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--json", action="store_true")
    a = p.parse_args(argv)
    r = run(n_answers=a.answers, workers=a.workers)
    print(f"in-process (UNSAFE, 1 thread): {r['inprocess_answers_per_s']:.1f} answers/s")
    print(f"sandboxed ({r['workers']} workers, warm pool): {r['sandboxed_answers_per_s']:.1f} answers/s")
    print(f"ratio sandboxed/in-process: {r['ratio']:.3f}x  (same rewards: {r['same_rewards']}, "
          f"{r['n_answers']} answers on {r['n_tasks']} tasks)")
    if a.json:
        print(json.dumps(r))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
