"""Throughput of the sandboxed backend evaluator vs the UNSAFE in-process ``exec`` baseline.

Both evaluators score the same answers on the same tasks in one run: for each embedded backend
task (``colbench_env`` default set), its ground truth (a correct answer) and its
``generic_solution`` (a plausible wrong one), repeated up to ``n_answers``. The in-process baseline
(:mod:`colbench_env.evaluation.inprocess`, the reference's way) is single-threaded and re-runs the
ground truth for every answer; the sandboxed one runs ``workers`` isolated children in parallel from
a warm pool and caches ground-truth outputs. The pool is started and the ground-truth cache filled
before timing (a warm evaluator, as in training); the in-process one is timed after one warm-up pass.

Printed: answers/s of each, and ``ratio = sandboxed / in-process`` (>1 means the sandbox is
faster), plus whether both gave the same rewards. Wall-clock ratios depend on what else runs on
the machine, so CPU time is measured too (``resource.getrusage``): the in-process evaluator's own
CPU time, and for the sandboxed one the evaluator process's CPU time plus that of its sandbox
processes (zygotes and the children they forked; ``RUSAGE_CHILDREN`` of a run with the timed part
minus that of an identical run without it, both pools closed and reaped). ``cpu_ratio`` = in-process
CPU per answer / sandboxed CPU per answer; ``idle_ratio_estimate`` = ``cpu_ratio`` x
``min(workers, CPUs)``: the throughput ratio to expect on an idle machine (the in-process
evaluator uses one core, the sandboxed one ``workers``). Run::

    python -m benchmarks.bench_evaluator [--answers N] [--workers W] [--json]
"""
from __future__ import annotations

import argparse
import json
import os
import resource
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
    c0, t0 = _self_cpu(), time.perf_counter()
    ref_scores = ref.score_many(items)
    t_ref, cpu_ref = time.perf_counter() - t0, _self_cpu() - c0

    def sandboxed(timed: bool):
        kids0 = _children_cpu()
        with BackendEvaluator(workers=workers, timeout_s=timeout_s) as ev:
            ev.score_many(list({id(t): (t, a) for t, a in items}.values())[:workers])  # start pool
            ev.score_many([(t, "def _():\n    pass") for t in {id(t): t for t, _ in items}.values()])  # fill cache
            scores, t_sb, cpu_self = None, 0.0, 0.0
            if timed:
                c0, t0 = _self_cpu(), time.perf_counter()
                scores = ev.score_many(items)
                t_sb, cpu_self = time.perf_counter() - t0, _self_cpu() - c0
            iso = {k: v for k, v in ev.isolation.items() if k in ("netns", "pidns", "ipcns", "uid_drop", "landlock_abi")}
        return scores, t_sb, cpu_self, _children_cpu() - kids0, iso

    _, _, _, kids_setup, _ = sandboxed(timed=False)
    sb_scores, t_sb, cpu_sb_self, kids_all, isolation = sandboxed(timed=True)
    cpu_sb_kids = max(kids_all - kids_setup, 0.0)
    cpu_sb = cpu_sb_self + cpu_sb_kids
    same = [a.reward for a in ref_scores] == [b.reward for b in sb_scores]
    cores = min(workers, len(os.sched_getaffinity(0)))
    cpu_ratio = (cpu_ref / n_answers) / (cpu_sb / n_answers) if cpu_sb > 0 else float("inf")
    return {
        "n_answers": n_answers, "n_tasks": n_tasks, "workers": workers,
        "inprocess_answers_per_s": n_answers / t_ref, "sandboxed_answers_per_s": n_answers / t_sb,
        "ratio": (n_answers / t_sb) / (n_answers / t_ref), "same_rewards": same,
        "evaluator_ratio_vs_inprocess": (n_answers / t_sb) / (n_answers / t_ref),
        "inprocess_cpu_ms_per_answer": 1e3 * cpu_ref / n_answers,
        "sandboxed_cpu_ms_per_answer": 1e3 * cpu_sb / n_answers,
        "sandboxed_evaluator_cpu_ms_per_answer": 1e3 * cpu_sb_self / n_answers,
        "sandboxed_sandbox_cpu_ms_per_answer": 1e3 * cpu_sb_kids / n_answers,
        "cpu_ratio": cpu_ratio, "idle_ratio_estimate": cpu_ratio * cores,
        "mean_reward": sum(s.reward for s in sb_scores) / n_answers, "isolation": isolation,
    }


def _self_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


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
    print(f"CPU per answer: in-process {r['inprocess_cpu_ms_per_answer']:.3f} ms, sandboxed "
          f"{r['sandboxed_cpu_ms_per_answer']:.3f} ms (evaluator {r['sandboxed_evaluator_cpu_ms_per_answer']:.3f} + "
          f"sandboxes {r['sandboxed_sandbox_cpu_ms_per_answer']:.3f})")
    print(f"CPU ratio in-process/sandboxed: {r['cpu_ratio']:.3f}x; idle-machine estimate with "
          f"{r['workers']} workers: {r['idle_ratio_estimate']:.3f}x")
    if a.json:
        print(json.dumps(r))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
