"""Throughput of the sandboxed backend evaluator vs the UNSAFE in-process reference-style baseline.

Both evaluators score the same answers under the reference scorer's semantics, side by side in one
run (:mod:`colbench_env.evaluation.inprocess` is the reference's way: ``exec`` of the ground truth
and of the answer for every test call, in this process, one thread):

* **single pass** (``evaluator_ratio_vs_inprocess``): ``n_tasks`` (1000) official-format records
  (procedural tasks, difficulties 1-4, as official jsonl records), each scored once with its ground
  truth as the answer. The sandboxed evaluator starts with a warm pool and an **empty**
  ground-truth cache: it runs every ground truth once -- up to 16 of them one after the other in
  one confined child (``BackendEvaluator(truth_batch=16)``) -- and every answer once, each answer in
  its own confined child.
* **RL workload** (``evaluator_ratio_rl_workload``): ``rl_tasks`` (250) tasks x 4 different answers
  each (ground truth, generic solution, a mutant, the ground truth with a top-level helper): the
  ground-truth outputs are computed once per task and reused for its 4 answers (fresh evaluator).

``ratio = sandboxed answers/s / in-process answers/s`` (> 1: the sandbox is faster); both must give
the same rewards (``same_rewards_*``). Load-robust figures: CPU ms per answer of both sides
(``evaluator_*_cpu_ms_per_answer``), their ratio, and ``evaluator_cores_for_goal_single`` / ``_rl``
= goal / CPU ratio: an **estimate** of the cores (= workers) at which the wall-clock goal would be
met, assuming throughput grows linearly with workers up to that many. Wall-clock ratios depend on what else runs on the machine, so
CPU time is measured too: the evaluator process's own, and its sandbox processes' (zygotes and
their children: ``RUSAGE_CHILDREN`` after the pool is closed and reaped, minus a run without the
timed part). ``cpu_breakdown_ms_per_job`` splits the sandbox's per-job CPU into ``fork`` (the
zygote's ``fork``), ``setup`` (the child's main thread from ``fork`` until the job is read:
confinement, rlimits, fds, copy-on-write faults), ``exec`` (its main thread running the code and
tests, encoding results), ``sweep`` (the zygote killing/reaping the job's processes, emptying its
directory and IPC objects), ``exit`` (the job's processes' CPU beyond the child's main thread's
measurements: process teardown, and any thread or process the job started), ``transfer`` (the evaluator
handing the job over and decoding results), ``evaluator_other`` (the evaluator's thread pool,
scoring and comparison) and ``zygote_other`` (the zygote's loop and everything not attributed).
``page_faults_per_job`` counts the minor page faults of the job's processes and of the zygote
(mostly copy-on-write copies: each page a fresh child or the zygote writes after a ``fork`` costs a
fault, a 4 KiB copy and, at exit, a free -- the main cost of a fresh process per program).
Run::

    python -m colbench.benchmarks.bench_evaluator [--tasks N] [--rl-tasks N] [--workers W] [--json]
"""
from __future__ import annotations

import argparse
import json
import os
import re
import resource
import time

__all__ = ["run", "main"]


def _tasks(n: int, start: int = 0) -> list:
    """``n`` official-format backend tasks (procedural, difficulties 1-4, read back from records)."""
    from colbench_env.generator import generate_tasks
    from colbench_env.tasks import task_from_record

    per = -(-n // 4)
    tasks = [t for d in (1, 2, 3, 4) for t in generate_tasks(per, difficulty=d, start=start)][:n]
    return [task_from_record(t.to_record(), source="<bench>", line=i + 1) for i, t in enumerate(tasks)]


def _fenced(code: str) -> str:
    return f"I WANT TO ANSWER: ```python\n{code}\n```"


def _four_answers(t) -> list[str]:
    gt = t.ground_truth
    name = re.match(r"def (\w+)\(", gt).group(1)
    mutant = re.sub(r"(?<![\w.])(\d+)(?![\w.])", lambda m: str(int(m.group(1)) + 1), gt.split(":\n", 1)[1], count=1)
    helper = gt.replace(f"def {name}(", f"def _{name}_impl(", 1) + \
        f"\n\ndef {name}(*args, **kwargs):\n    return _{name}_impl(*args, **kwargs)\n"
    return [_fenced(gt), _fenced(t.extra.get("generic_solution", gt)), _fenced(gt.split(":\n", 1)[0] + ":\n" + mutant),
            _fenced(helper)]


def _self_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def _inprocess(items) -> tuple[list, float, float]:
    from colbench_env.evaluation.inprocess import InProcessEvaluator

    ref = InProcessEvaluator()
    ref.score_many(items[: min(len(items), 20)])  # warm-up (imports, caches)
    c0, t0 = _self_cpu(), time.perf_counter()
    scores = ref.score_many(items)
    return scores, time.perf_counter() - t0, _self_cpu() - c0


def _sandboxed(items, workers: int, timeout_s: float, timed: bool):
    """Fresh evaluator, pool started (one throw-away task) before timing, empty truth cache."""
    from colbench_env.evaluation.backend import BackendEvaluator
    from colbench_env.tasks import task_from_record

    warm = task_from_record({"problem_description": "p", "ground_truth": "def w():\n    return 1",
                             "test_cases": {"t": "w()"}, "hidden_information": "h"}, source="<warm>", line=1)
    kids0 = _children_cpu()
    with BackendEvaluator(workers=workers, timeout_s=timeout_s) as ev:
        ev.score_many([(warm, "def w():\n    return 1")] * workers)
        before, faults_before = dict(ev._pool.cpu_totals), dict(ev._pool.fault_totals)
        scores, t, cpu_self = None, 0.0, 0.0
        if timed:
            c0, t0 = _self_cpu(), time.perf_counter()
            scores = ev.score_many(items)
            t, cpu_self = time.perf_counter() - t0, _self_cpu() - c0
        after = dict(ev._pool.cpu_totals)
        prof = {k: after.get(k, 0) - before.get(k, 0) for k in after}
        prof.update({f"faults_{k}": v - faults_before.get(k, 0) for k, v in ev._pool.fault_totals.items()})
        truth_runs = ev.truth_runs - 1
        batches = ev.truth_batch_stats
        iso = {k: v for k, v in ev.isolation.items() if k in ("netns", "pidns", "ipcns", "uid_drop", "landlock_abi")}
    return scores, t, cpu_self, _children_cpu() - kids0, prof, truth_runs, iso, batches


def _compare(items, workers: int, timeout_s: float) -> dict:
    ref_scores, t_ref, cpu_ref = _inprocess(items)
    _, _, _, kids_setup, _, _, _, _ = _sandboxed(items, workers, timeout_s, timed=False)
    sb_scores, t_sb, cpu_self, kids_all, prof, truth_runs, iso, batches = _sandboxed(items, workers, timeout_s,
                                                                                     timed=True)
    kids = max(kids_all - kids_setup, 0.0)
    n = len(items)
    jobs = max(prof.get("jobs", 0), 1)
    ms = {k: prof.get(k, 0) / jobs / 1e6 for k in ("fork", "setup", "exec", "sweep", "transfer")}
    ms["exit"] = max(prof.get("job_processes", 0) / jobs / 1e6 - ms["setup"] - ms["exec"], 0.0)
    ms["evaluator_other"] = max(1e3 * cpu_self / jobs - ms["transfer"], 0.0)
    ms["zygote_other"] = max(1e3 * kids / jobs - ms["fork"] - ms["setup"] - ms["exec"] - ms["exit"] - ms["sweep"], 0.0)
    cpu_sb = cpu_self + kids
    return {
        "n_answers": n, "jobs": prof.get("jobs", 0), "truth_runs": truth_runs,
        "inprocess_answers_per_s": n / t_ref, "sandboxed_answers_per_s": n / t_sb,
        "ratio": t_ref / t_sb, "same_rewards": [a.reward for a in ref_scores] == [b.reward for b in sb_scores],
        "inprocess_cpu_ms_per_answer": 1e3 * cpu_ref / n, "sandboxed_cpu_ms_per_answer": 1e3 * cpu_sb / n,
        "cpu_ratio": cpu_ref / cpu_sb if cpu_sb > 0 else float("inf"),
        "cpu_breakdown_ms_per_job": {k: round(v, 4) for k, v in ms.items()},
        "page_faults_per_job": {k: round(prof.get(f"faults_{k}", 0) / jobs, 1) for k in ("job_processes", "zygote")},
        "mean_reward": sum(s.reward for s in sb_scores) / n, "isolation": iso, "truth_batches": batches,
    }


#: wall-clock goals of issue 13 (sandboxed answers/s over in-process answers/s)
GOAL_SINGLE, GOAL_RL = 1.0, 2.0
CORES_NOTE = ("estimate: goal / CPU ratio = cores (= workers) at which the sandbox's answers/s would meet "
              "the goal against the one-thread in-process baseline, assuming throughput grows linearly "
              "with workers up to that many cores")


def run(n_tasks: int = 1000, rl_tasks: int = 250, workers: int = 2, timeout_s: float = 10.0) -> dict:
    """Both workloads, each evaluator side by side; returns the numbers as a dict (see the module
    docstring). Headline keys: ``evaluator_ratio_vs_inprocess`` (single pass),
    ``evaluator_ratio_rl_workload``; details under ``evaluator_single_pass`` / ``evaluator_rl_workload``."""
    if n_tasks < 1 or rl_tasks < 1 or workers < 1:
        raise ValueError("n_tasks, rl_tasks and workers must be >= 1")
    single = [(t, _fenced(t.ground_truth)) for t in _tasks(n_tasks)]
    rl = [(t, a) for t in _tasks(rl_tasks, start=100000) for a in _four_answers(t)]
    a = _compare(single, workers, timeout_s)
    b = _compare(rl, workers, timeout_s)
    cores = min(workers, len(os.sched_getaffinity(0)))
    return {
        "evaluator_ratio_vs_inprocess": a["ratio"], "evaluator_ratio_rl_workload": b["ratio"],
        "evaluator_cpu_ratio_vs_inprocess": a["cpu_ratio"], "evaluator_cpu_ratio_rl_workload": b["cpu_ratio"],
        # load-robust: CPU per answer of both sides, and the cores at which the CPU ratio would meet
        # each goal (an ESTIMATE: goal / CPU ratio, assuming throughput grows linearly with workers)
        "evaluator_inprocess_cpu_ms_per_answer": a["inprocess_cpu_ms_per_answer"],
        "evaluator_sandboxed_cpu_ms_per_answer": a["sandboxed_cpu_ms_per_answer"],
        "evaluator_rl_inprocess_cpu_ms_per_answer": b["inprocess_cpu_ms_per_answer"],
        "evaluator_rl_sandboxed_cpu_ms_per_answer": b["sandboxed_cpu_ms_per_answer"],
        "evaluator_cores_for_goal_single": GOAL_SINGLE / a["cpu_ratio"] if a["cpu_ratio"] > 0 else None,
        "evaluator_cores_for_goal_rl": GOAL_RL / b["cpu_ratio"] if b["cpu_ratio"] > 0 else None,
        "evaluator_cores_for_goal_note": CORES_NOTE,
        "evaluator_idle_ratio_estimate": a["cpu_ratio"] * cores,
        "evaluator_rl_idle_ratio_estimate": b["cpu_ratio"] * cores,
        "evaluator_cpu_breakdown_ms_per_job": a["cpu_breakdown_ms_per_job"],
        "evaluator_page_faults_per_job": a["page_faults_per_job"],
        "evaluator_single_pass": a, "evaluator_rl_workload": b, "evaluator_workers": workers,
        "evaluator_same_rewards": a["same_rewards"] and b["same_rewards"],
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--tasks", type=int, default=1000, help="tasks of the single-pass workload")
    p.add_argument("--rl-tasks", type=int, default=250, help="tasks of the RL workload (4 answers each)")
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--json", action="store_true")
    a = p.parse_args(argv)
    r = run(n_tasks=a.tasks, rl_tasks=a.rl_tasks, workers=a.workers)
    for key, name in (("evaluator_single_pass", "single pass"), ("evaluator_rl_workload", "RL workload")):
        d = r[key]
        print(f"{name}: {d['n_answers']} answers, in-process (UNSAFE, 1 thread) {d['inprocess_answers_per_s']:.1f}/s, "
              f"sandboxed ({a.workers} workers) {d['sandboxed_answers_per_s']:.1f}/s: ratio {d['ratio']:.3f}x "
              f"(CPU ratio {d['cpu_ratio']:.3f}x; same rewards: {d['same_rewards']}; {d['jobs']} sandbox jobs, "
              f"{d['truth_runs']} ground truths, {d['truth_batches'].get('programs', 0)} of them in "
              f"{d['truth_batches'].get('batches', 0)} batches)")
    print("sandbox CPU per job (ms): " + ", ".join(f"{k} {v:.3f}" for k, v in r["evaluator_cpu_breakdown_ms_per_job"].items()))
    print("page faults per job: " + ", ".join(f"{k} {v:.0f}" for k, v in r["evaluator_page_faults_per_job"].items()))
    print(f"CPU ms per answer, in-process vs sandboxed: single pass {r['evaluator_inprocess_cpu_ms_per_answer']:.2f} "
          f"vs {r['evaluator_sandboxed_cpu_ms_per_answer']:.2f}, RL {r['evaluator_rl_inprocess_cpu_ms_per_answer']:.2f} "
          f"vs {r['evaluator_rl_sandboxed_cpu_ms_per_answer']:.2f}; cores to meet the goals (estimate, linear "
          f"scaling): single pass (>= {GOAL_SINGLE:g}x) {r['evaluator_cores_for_goal_single']:.1f}, "
          f"RL (>= {GOAL_RL:g}x) {r['evaluator_cores_for_goal_rl']:.1f}")
    if a.json:
        print(json.dumps(r, allow_nan=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
