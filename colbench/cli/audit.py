"""``colbench audit tasks FILE`` and ``colbench audit dialogues RUN.jsonl``: check what a score rests on.

``colbench audit tasks FILE [--out AUDIT.jsonl] [--verified CLEAN.jsonl]``: deterministic checks of
backend tasks (:mod:`colbench.audit.tasks`): the ground truth passes its own tests twice in the
sandbox under the reference semantics; the request's signature matches the ground truth's and the
tests' calls; every constant the tests depend on that the request does not state can be had from the
human (the scripted one, or a served one: ``--simulator openai --simulator-base-url URL
--simulator-model NAME``); no test pins a rounding or output text that neither the request nor the
human's information mentions. FILE is a task file (an official ColBench backend file included),
``default`` or ``generated:N:difficulty[:family]``. Prints a summary table; ``--out`` writes one JSON
line per task, in input order, with ``flags`` (empty = clean); ``--verified`` writes the tasks without
a flag (their records).

``colbench audit dialogues RUN.jsonl [--out FLAGGED.jsonl] [--judge-base-url URL --judge-model NAME]``:
the human's turns of recorded backend dialogues (:mod:`colbench.audit.dialogues`): code given, a
value the hidden information does not hold, "I don't know" about what it holds; with a judge, an LLM
behind an OpenAI-compatible server reviews each turn too (its prompt:
``colbench/audit/prompts/dialogue_judge.txt``). Prints a summary table; ``--out`` writes the records
back with ``human_flags`` (what ``colbench view`` shows on the turns).

Bad input: one line ``colbench audit: error: ...`` naming the file, line and field; exit 2.
"""
from __future__ import annotations

import argparse
import json
import os
import sys

from colbench.errors import UsageError

__all__ = ["add_arguments", "main"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from colbench.cli.run import JoinURLs, json_object

    sub = parser.add_subparsers(dest="what", metavar="{tasks,dialogues}", required=True,
                                help="tasks: check a task file; dialogues: check the human's turns of a run")
    t = sub.add_parser("tasks", help="check backend tasks: ground truth, signature, constants, formats")
    t.add_argument("file", metavar="FILE", help="a backend task file (jsonl/json), 'default' or 'generated:N:d[:family]'")
    t.add_argument("--out", default=None, help="one JSON line per task, in input order, with 'flags' (atomic)")
    t.add_argument("--verified", default=None, help="the tasks without a flag, as task records (atomic)")
    t.add_argument("--simulator", default="scripted", choices=("scripted", "openai"),
                   help="the human asked about constants: the scripted one or one behind an OpenAI-compatible server")
    t.add_argument("--simulator-model", default=None, help="the served human's model name")
    t.add_argument("--simulator-base-url", default=None, action=JoinURLs, help="the served human's base URL")
    t.add_argument("--simulator-kwargs", type=json_object("--simulator-kwargs"), default={},
                   help="JSON object of keyword arguments for the human")
    t.add_argument("--workers", type=int, default=None, help="sandbox workers (default: CPU count)")
    t.add_argument("--json", action="store_true", help="print the counts as one JSON object (last line)")
    t.add_argument("--no-progress", action="store_true", help="no progress lines")
    d = sub.add_parser("dialogues", help="check the human's turns of recorded backend dialogues")
    d.add_argument("run", metavar="RUN.jsonl", help="trajectories in the official format")
    d.add_argument("--out", default=None, help="the records written back with 'human_flags' (atomic)")
    d.add_argument("--judge-base-url", default=None, action=JoinURLs,
                   help="an OpenAI-compatible server whose model reviews every human turn too")
    d.add_argument("--judge-model", default=None, help="the judge's model name (with --judge-base-url)")
    d.add_argument("--judge-max-tokens", type=int, default=256, help="the judge's tokens per verdict")
    d.add_argument("--json", action="store_true", help="print the counts as one JSON object (last line)")


def _check_out(path: str | None, option: str, inputs: list[str]) -> None:
    if path is None:
        return
    from colbench.runs import check_out_path

    for src in inputs:
        if os.path.exists(src) and os.path.exists(path) and os.path.samefile(src, path):
            raise UsageError(f"{option} {path}: is the file being audited")
    check_out_path(path, option)


def _tasks(args: argparse.Namespace) -> int:
    from colbench.audit.tasks import CHECKS, audit_tasks, summary_table
    from colbench.runs import load_run_tasks
    from colbench_env.simulators import SimulatorError, make_simulator
    from colbench_env.trajectories import atomic_write_jsonl

    if args.workers is not None and args.workers < 1:
        raise UsageError(f"--workers must be >= 1, got {args.workers}")
    if args.simulator == "openai" and not (args.simulator_base_url and args.simulator_model):
        raise UsageError("--simulator openai needs --simulator-base-url and --simulator-model")
    if args.simulator == "scripted" and (args.simulator_base_url or args.simulator_model):
        raise UsageError("--simulator-base-url / --simulator-model are for --simulator openai")
    for path, option in ((args.out, "--out"), (args.verified, "--verified")):
        _check_out(path, option, [args.file])
    if not os.path.exists(args.file) and not (args.file == "default" or args.file.startswith("generated")):
        raise UsageError(f"{args.file}: no such file")
    tasks = load_run_tasks(args.file, kind="backend", split=None, command="colbench audit")
    kw = dict(args.simulator_kwargs)
    if args.simulator == "openai":
        kw.update(base_url=args.simulator_base_url, model=args.simulator_model)
    try:
        human = make_simulator(args.simulator, kind="backend", **kw)
    except (TypeError, ValueError) as e:
        raise UsageError(f"--simulator-kwargs: {e}") from None
    try:
        audits = audit_tasks(tasks, human=human, workers=args.workers, progress=not args.no_progress)
    except SimulatorError as e:
        raise UsageError(f"the human's server failed: {e}") from None
    finally:
        human.close()
    if args.out:
        atomic_write_jsonl(args.out, [a.as_record() for a in audits])
    if args.verified:
        atomic_write_jsonl(args.verified, [t.to_record() for t, a in zip(tasks, audits) if not a.flags])
    print(summary_table(audits))
    for path in (args.out, args.verified):
        if path:
            print(f"wrote {path}")
    if args.json:
        counts = {c: sum(1 for a in audits if any(f["check"] == c for f in a.flags)) for c in CHECKS}
        print(json.dumps({"tasks": len(audits), "flagged": sum(1 for a in audits if a.flags), "by_check": counts},
                         allow_nan=False))
    return 0


def _dialogues(args: argparse.Namespace) -> int:
    from colbench.audit.dialogues import DIALOGUE_CHECKS, audit_dialogues, summary_table
    from colbench_env.evaluation.trajectory_scoring import load_records
    from colbench_env.lm.base import BackendError
    from colbench_env.trajectories import atomic_write_jsonl

    if bool(args.judge_base_url) != bool(args.judge_model):
        raise UsageError("--judge-base-url and --judge-model go together")
    if args.judge_max_tokens < 1:
        raise UsageError(f"--judge-max-tokens must be >= 1, got {args.judge_max_tokens}")
    _check_out(args.out, "--out", [args.run])
    try:
        items = load_records(args.run)
    except FileNotFoundError:
        raise UsageError(f"{args.run}: no such file") from None
    if not items:
        raise UsageError(f"{args.run}: the file is empty (expected one trajectory per line)")
    backend = [(n, r) for n, r, t in items if t.kind == "backend"]
    if not backend:
        raise UsageError(f"{args.run}: no backend trajectory (the dialogue checks are backend checks)")
    judge = None
    if args.judge_base_url:
        from colbench_env.lm.openai_compat import OpenAICompatBackend

        try:
            judge = OpenAICompatBackend(args.judge_base_url, args.judge_model)
        except ValueError as e:
            raise UsageError(f"--judge-base-url: {e}") from None
    try:
        audits = audit_dialogues(backend, judge=judge, judge_max_tokens=args.judge_max_tokens)
    except BackendError as e:
        raise UsageError(f"the judge's server failed: {e}") from None
    finally:
        if judge is not None:
            judge.close()
    if args.out:
        by_line = {a.line: a for a in audits}
        out = []
        for n, rec, _ in items:
            rec = dict(rec)
            if n in by_line:
                rec["human_flags"] = by_line[n].flags
            out.append(rec)
        atomic_write_jsonl(args.out, out)
    skipped = len(items) - len(backend)
    print(summary_table(audits, judged=judge is not None))
    if skipped:
        print(f"{skipped} frontend trajectories not audited", file=sys.stderr)
    if args.out:
        print(f"wrote {args.out}")
    if args.json:
        print(json.dumps({"episodes": len(audits), "human_turns": sum(a.human_turns for a in audits),
                          "flagged_episodes": sum(1 for a in audits if a.flags),
                          "by_check": {c: sum(1 for a in audits for f in a.flags if f["check"] == c)
                                       for c in DIALOGUE_CHECKS},
                          "judge_errors": sum(a.judge_errors for a in audits)}, allow_nan=False))
    return 0


def main(args: argparse.Namespace) -> int:
    return _tasks(args) if args.what == "tasks" else _dialogues(args)
