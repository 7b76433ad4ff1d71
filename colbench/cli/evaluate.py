"""``colbench evaluate TRAJ.jsonl [--out OUT] [--semantics reference|python] [--workers N] [--timeout S] [--json]``
and ``colbench evaluate --explain FILE[:LINE]``.

Reads trajectories in the official format (``{task, dialogue_history, answer}``, see
:mod:`colbench_env.trajectories`), scores each one and prints the metrics:

* backend trajectories (the task has ``test_cases``): sandboxed unit tests
  (:class:`~colbench_env.evaluation.backend.BackendEvaluator`); metrics ``tests_passed_pct`` (mean
  fraction of tests passed, in %), ``success_rate`` (fraction of answers passing every test);
* frontend trajectories: similarity of the final page to the target, rendered in headless Chromium
  (:func:`colbench_env.evaluation.trajectory_scoring.score_frontend`; ``--similarity``,
  ``--clip-model``, ``--render-pool``).

``--compare A.jsonl B.jsonl`` prints the win rate of A over B, for frontend and backend files alike:
per task, A wins when its mean reward (similarity to the target; fraction of hidden tests passed) is
higher than B's, ties counted apart (records without a reward are scored first); then the paired
difference A - B with its 95 % bootstrap interval over tasks, each run's flip noise (the share of
tasks whose verdict changes between trials of the same run, with K >= 2 trials per task), a line
when the difference is smaller than that noise, and a line when the runs had different humans
(:mod:`colbench.comparison`).
  A clear error is raised when a frontend record is found and that scorer is not installed.

``--semantics reference`` (default) scores as the reference scorer did (comparable with published
ColBench numbers); ``--semantics python`` runs answers as plain Python modules (correct Python, not
comparable with published numbers); see :mod:`colbench_env.evaluation.backend`.

With ``--out``, every input line is written back (same order) with ``reward``, ``success`` and
``eval_semantics`` added, ``eval_tests`` (backend: one ``{test, status, expected?, got?, message?}``
per test) and ``eval_reason`` whenever the reward is below 1; the file is written atomically (never
half-written). ``--explain FILE[:LINE]`` prints a per-test table for each record of FILE (or the one
on LINE): the stored ``eval_tests`` of a file written by ``--out``, else it scores the record. With ``--json`` the last stdout line is one JSON
object with the metrics. A malformed line is an error naming the file and line (exit status 2).

The scoring itself is :mod:`colbench_env.evaluation.trajectory_scoring` (typed functions); this
module only parses the options. It is light: importing it does not import torch.
"""
from __future__ import annotations

import argparse
import importlib
import json

from colbench_env.errors import UsageError
from colbench_env.evaluation.similarity import DEFAULT_CLIP_MODEL
from colbench_env.evaluation.trajectory_scoring import load_records
from colbench_env.tasks import BackendTask
from colbench_env.trajectories import atomic_write_jsonl

__all__ = ["add_arguments", "main", "FRONTEND_HOOK"]

#: module providing ``score_frontend(records, **options)`` and ``compare_files(a, b, **options)``
FRONTEND_HOOK = "colbench_env.evaluation.trajectory_scoring"


def _frontend_module():
    try:
        return importlib.import_module(FRONTEND_HOOK)
    except ModuleNotFoundError as e:
        if e.name != FRONTEND_HOOK:
            raise
        return None


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("trajectories", metavar="TRAJ.jsonl", nargs="?", default=None,
                        help="trajectories in the official ColBench format (not with --compare)")
    parser.add_argument("--out", default=None, help="write the records with reward/success added here (atomic)")
    parser.add_argument("--workers", type=int, default=None, help="parallel sandboxes (default: CPU count)")
    parser.add_argument("--timeout", type=float, default=10.0, help="seconds per answer (all its tests)")
    parser.add_argument("--semantics", choices=("reference", "python"), default="reference",
                        help="reference: the reference scorer's rules, comparable with published numbers (default); "
                             "python: plain Python modules, not comparable with published numbers")
    parser.add_argument("--explain", metavar="FILE[:LINE]", default=None,
                        help="print a per-test table for each record of FILE (or the one on LINE)")
    parser.add_argument("--memory-mb", type=int, default=512, help="address-space limit per sandbox (MiB)")
    parser.add_argument("--json", action="store_true", help="print the metrics as one JSON object (last line)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.add_argument("--compare", nargs=2, metavar=("A.jsonl", "B.jsonl"), default=None,
                        help="print the win rate of A over B, backend or frontend: per task, the higher mean reward "
                             "(fraction of tests passed; similarity to the target) wins")
    g = parser.add_argument_group("frontend trajectories")
    g.add_argument("--similarity", default="visual", choices=("visual", "clip"),
                   help="visual (offline default) or clip (transformers CLIPModel; --clip-model)")
    g.add_argument("--clip-model", default=DEFAULT_CLIP_MODEL, help="CLIP name or local path")
    g.add_argument("--render-pool", type=int, default=2, help="Chromium drivers rendering in parallel")


def _frontend_options(args: argparse.Namespace) -> dict:
    """The frontend scorer's keyword arguments from the parsed options."""
    return {"similarity": args.similarity, "clip_model": args.clip_model, "render_pool": args.render_pool,
            "progress": not args.no_progress}


def _score_backend(items: list, args: argparse.Namespace) -> list:
    """:func:`~colbench_env.evaluation.trajectory_scoring.score_backend` with the parsed options; keeps
    the evaluator's isolation report in ``args._isolation``."""
    from colbench_env.evaluation.trajectory_scoring import score_backend

    scores, args._isolation = score_backend(items, workers=args.workers, timeout_s=args.timeout,
                                            memory_mb=args.memory_mb, semantics=args.semantics,
                                            progress=not args.no_progress)
    return scores


def _existing(path: str, load=None):
    """``load(path)`` (default :func:`load_records`); a missing file is a :class:`UsageError` (the
    ``colbench`` command prints it, and malformed files' errors, as one line and exits 2)."""
    try:
        return (load or load_records)(path)
    except FileNotFoundError as e:
        raise UsageError(f"file not found: {e.filename or path}") from None


def _compare(args: argparse.Namespace) -> int:
    from colbench.comparison import format_paired_comparison, paired_comparison

    fe = _frontend_module()
    a, b = args.compare
    recs_a, recs_b = _existing(a, lambda _: fe.load_compared(a, b, **_frontend_options(args)))
    result = fe.win_rate(recs_a, recs_b)
    print(f"win rate of {a} over {b}: {100 * result['win_rate']:.1f}% "
          f"({result['wins']} wins, {result['losses']} losses, {result['ties']} ties over {result['tasks']} tasks)")
    try:
        paired = paired_comparison(recs_a, recs_b, labels=(a, b))
    except ValueError as e:
        raise UsageError(f"--compare: {e}") from None
    print(format_paired_comparison(paired))
    if args.json:
        print(json.dumps({**result, "paired": paired}, allow_nan=False))
    return 0


def _explain(args: argparse.Namespace) -> int:
    from colbench_env.evaluation.backend import TestOutcome, explain_table

    spec = args.explain
    path, line = spec, None
    head, _, tail = spec.rpartition(":")
    if head and tail.isdigit():
        path, line = head, int(tail)
    items = _existing(path)
    if line is not None:
        items = [it for it in items if it[0] == line]
        if not items:
            raise UsageError(f"{path}: no record on line {line}")
    todo = [it for it in items if isinstance(it[2], BackendTask) and not isinstance(it[1].get("eval_tests"), list)]
    fresh = dict(zip([it[0] for it in todo], _score_backend(todo, args))) if todo else {}
    for n, rec, task in items:
        print(f"{path}:{n}" + (f" ({task.task_id})" if getattr(task, "task_id", None) else ""))
        if not isinstance(task, BackendTask):
            print(f"frontend record: reward {rec.get('reward')} (no per-test table)\n")
            continue
        if n in fresh:
            print(fresh[n].explain() + "\n")
            continue
        tests = [TestOutcome.from_dict(d) for d in rec["eval_tests"] if isinstance(d, dict)]
        try:
            reward = float(rec.get("reward", sum(t.passed for t in tests) / max(len(tests), 1)))
        except (TypeError, ValueError):
            raise UsageError(f"{path}:{n}: field 'reward' is not a number") from None
        print(explain_table(tests, reward=reward, reason=rec.get("eval_reason"),
                            semantics=rec.get("eval_semantics")) + "\n")
    return 0


def main(args: argparse.Namespace) -> int:
    if args.workers is not None and args.workers < 1:
        raise UsageError("--workers must be >= 1")
    if getattr(args, "explain", None):
        if args.trajectories is not None:
            raise UsageError("give either TRAJ.jsonl or --explain FILE[:LINE], not both")
        return _explain(args)
    if getattr(args, "compare", None):
        if args.trajectories is not None:
            raise UsageError("give either TRAJ.jsonl or --compare A.jsonl B.jsonl, not both")
        return _compare(args)
    if args.trajectories is None:
        raise UsageError("TRAJ.jsonl is required (or --compare A.jsonl B.jsonl)")
    items = _existing(args.trajectories)
    if not items:
        raise UsageError(f"{args.trajectories}: the file is empty (expected one trajectory per line)")
    backend = [it for it in items if isinstance(it[2], BackendTask)]
    frontend = [it for it in items if not isinstance(it[2], BackendTask)]
    if frontend:
        fe = _frontend_module()
        if fe is None or not hasattr(fe, "score_frontend"):
            raise RuntimeError(
                f"{args.trajectories}:{frontend[0][0]}: frontend trajectory found, but the frontend scorer "
                f"({FRONTEND_HOOK}.score_frontend) is not installed; install colbench with frontend support")
    _score_backend(backend, args)
    from colbench_env.metrics import format_trials, summarize
    from colbench_env.simulators.identity import describe_humans, run_humans

    metrics: dict = {"count": len(items), "backend_count": len(backend), "frontend_count": len(frontend)}
    if backend:
        m = summarize(r for _, r, _ in backend)
        metrics["tests_passed_pct"], metrics["success_rate"] = m["tests_passed_pct"], m["success_rate"]
        metrics["errors"] = m["errors"]
        if "trials" in m:
            metrics["trials"] = m["trials"]
        metrics["bad_answers"] = sum(1 for _, r, _ in backend if r["reward"] == 0 and "eval_reason" in r)
        metrics["semantics"] = args.semantics
        metrics["isolation"] = {k: v for k, v in args._isolation.items()
                                if k in ("netns", "pidns", "uid_drop", "landlock_abi", "seccomp")}
    if frontend:
        recs = fe.score_frontend([r for _, r, _ in frontend], **_frontend_options(args))
        for (_, rec, _), new in zip(frontend, recs):
            if new is not rec:
                rec.clear()
                rec.update(new)
        fm = summarize(r for _, r, _ in frontend)
        metrics["frontend_mean_reward"] = fm["similarity"]
        metrics["frontend_errors"] = fm["errors"]
        if "trials" in fm:
            metrics["frontend_trials"] = fm["trials"]
    metrics["human"] = run_humans(r for _, r, _ in items)
    if args.out:
        atomic_write_jsonl(args.out, [r for _, r, _ in items])
    if backend:
        left_out = f" ({metrics['errors']} infrastructure errors left out)" if metrics["errors"] else ""
        print(f"backend: {len(backend)} answers, {metrics['tests_passed_pct']:.2f}% tests passed, "
              f"success rate {100 * metrics['success_rate']:.2f}%{left_out}")
        if "trials" in metrics:
            print(format_trials(metrics["trials"]))
    if frontend:
        left_out = f" ({metrics['frontend_errors']} infrastructure errors left out)" if metrics["frontend_errors"] else ""
        print(f"frontend: {len(frontend)} answers, mean reward {metrics['frontend_mean_reward']:.4f}{left_out}")
        if "frontend_trials" in metrics:
            print(format_trials(metrics["frontend_trials"]))
    print(f"human: {describe_humans(metrics['human'])}")
    print(f"count: {len(items)}")
    if args.out:
        print(f"wrote {args.out}")
    if args.json:
        print(json.dumps(metrics, allow_nan=False))
    return 0
