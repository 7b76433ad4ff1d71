"""What the viewer shows, read from trajectory files: runs, episodes, turns, per-test outcomes and
the two-run comparison. No HTML here (:mod:`colbench.viewer.html` lays it out).

Reading (:func:`load_runs`): every file is read and validated the way ``colbench evaluate`` reads
it (:func:`colbench_env.evaluation.trajectory_scoring.load_records`: one-line ``file:line`` errors), all before
anything is scored or written. One file holds one kind of trajectory, and all files of a view the
same kind (backend or frontend, :func:`colbench_env.records.record_kind`). An episode that ended
with an ``error`` and was retried (a later record of the same file has its ``episode_id``, what a
resumed ``colbench run`` appends) counts once, with its last record, as in the run's metrics
(:func:`colbench.wrappers.recorder.latest_records`); every other line is an episode of the view.

Scores (:func:`score_runs`): a backend record's per-test outcomes are its stored ``eval_tests``
(a file written by ``colbench evaluate --out``), else the answer is scored now in the sandbox
exactly as ``colbench evaluate --explain`` scores it (same evaluator, same settings), so the table
of an episode is the one ``--explain`` prints for it. The index shows the file's ``reward`` (what
the run recorded) and flags an episode whose fresh score differs from it.

Comparison (:func:`compare_runs`): the unit is the task (:func:`task_key`, within a ``group`` such
as a pipeline's seed). Backend: a run *solved* a task when at least one of its episodes of that
task passed every test (with one episode per task, as a greedy evaluation: that episode's
``success``); the counts are A solved and B not, B solved and A not, both, neither. Frontend: as
``colbench evaluate --compare`` (:func:`colbench_env.evaluation.trajectory_scoring.win_rate`), A wins a
task when its mean similarity is higher than B's, loses when lower, ties when equal. Tasks found in
only one of the two runs are counted apart.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from colbench.errors import UsageError
from colbench_env.evaluation.backend import TestOutcome
from colbench_env.metrics import task_key
from colbench_env.prompting import dialogue_messages
from colbench_env.protocol import ANSWER_MARKER, OUTPUT_MARKER, extract_html
from colbench_env.records import record_kind
from colbench_env.trajectories import TrajectoryFormatError

__all__ = ["Turn", "Episode", "Run", "Comparison", "load_runs", "score_runs", "compare_runs", "task_key"]

@dataclass
class Turn:
    """One message of an episode's dialogue.

    Attributes:
        role: ``"agent"`` or ``"human"``.
        text: what the other side saw: the agent's message as the human saw it
            (:func:`colbench_env.prompting.dialogue_messages`: the text between the first ``OUTPUT:``
            and the next, the ``content`` of an official record without ``output``), the human's reply.
        thought: the agent's generation before its first ``OUTPUT:`` (``None`` when there was none).
        is_answer: the agent's turn that ended the episode (``I WANT TO ANSWER:``, or its last turn).
        cut: the agent's generation was cut at its token budget (``finish_reason == "length"``).
        page: frontend: the page the human saw with this agent message (its first ``<html>`` /
            ``<body>``, as the env renders it), else ``None``.
        image / similarity: frontend: the rendered page's image key and its similarity to the
            target (set by :func:`colbench.viewer.pages.render_pages`).
        flags: backend human turns: the faults found in it (:mod:`colbench.audit.dialogues`: the
            record's ``human_flags`` written by ``colbench audit dialogues --out``, judge's included,
            else the scripted checks run now), each ``{"check", "detail", "by"}``.
    """

    role: str
    text: str
    thought: str | None = None
    is_answer: bool = False
    cut: bool = False
    page: str | None = None
    image: str | None = None
    similarity: float | None = None
    flags: list = field(default_factory=list)


@dataclass
class Episode:
    """One trajectory record and what the viewer derives from it.

    Attributes:
        index: position in the whole view (all runs), the episode's id in the page.
        run: index of its run.
        line: line of the record in its file.
        path: the file.
        record: the record as read.
        kind: ``"backend"`` / ``"frontend"``.
        task_id: the task's id (``task_id`` of the record or its task; else ``file:line``).
        group: what episodes are paired within besides the task (a pipeline's ``seed-N``; ``""``).
        family: the task's family for the summary (generated tasks: ``generator.family``).
        template: generated tasks' template (``generator.template``), else ``""``.
        reward: the record's ``reward`` (the fresh score's when the record has none).
        success: backend: ``success`` (every test passed); frontend: ``None``.
        reason: why the reward is below 1 (``eval_reason`` stored, else the fresh score's).
        reason_kind: a short class of ``reason`` for the index filter (:func:`reason_kind`).
        error: the record's ``error`` (the episode failed, e.g. the simulator's server was down).
        tests: backend per-test outcomes (``None`` when not scored).
        fresh_reward: the fresh score's reward when it differs from the record's ``reward``.
        semantics: the scoring semantics of ``tests``.
        turns: the dialogue (:class:`Turn`).
        target_image: frontend: image key of the rendered target page.
        render_error: frontend: why a page could not be rendered.
    """

    index: int
    run: int
    line: int
    path: str
    record: dict
    kind: str
    task_id: str
    group: str = ""
    family: str = ""
    template: str = ""
    reward: float | None = None
    success: bool | None = None
    reason: str | None = None
    reason_kind: str = ""
    error: str | None = None
    tests: list[TestOutcome] | None = None
    fresh_reward: float | None = None
    semantics: str | None = None
    turns: list[Turn] = field(default_factory=list)
    target_image: str | None = None
    render_error: str | None = None

    @property
    def agent_turns(self) -> int:
        return sum(t.role == "agent" for t in self.turns)

    @property
    def key(self) -> tuple[str, str]:
        """``(group, task key)``: what the comparison pairs on."""
        return self.group, task_key(self.record)


@dataclass
class Run:
    """The episodes of one trajectory file (or of one pipeline method over its seeds).

    Attributes:
        label: the run's name in the page.
        paths: the files read.
        kind: ``"backend"`` / ``"frontend"``.
        episodes: its episodes, in file order.
        superseded: records left out: episodes that ended with an ``error`` and were retried (a
            later record of the same file has the same ``episode_id``).
    """

    @property
    def flagged_turns(self) -> int:
        """Human turns with a fault (:attr:`Turn.flags`) over the run's episodes."""
        return sum(1 for ep in self.episodes for t in ep.turns if t.flags)

    label: str
    paths: list[str]
    kind: str
    episodes: list[Episode] = field(default_factory=list)
    superseded: int = 0


@dataclass
class Comparison:
    """Run ``a`` against run ``b``, task by task (see the module docstring).

    Attributes:
        a, b: run indices.
        rows: one per task of either run: ``{"key", "task_id", "group", "a", "b", "category"}`` with
            ``a``/``b`` the episode indices of that task in each run and ``category`` one of
            :data:`CATEGORIES` of the kind (``"only_a"`` / ``"only_b"`` when one run lacks the task).
        counts: category -> number of tasks.
    """

    a: int
    b: int
    rows: list[dict]
    counts: dict[str, int]


#: comparison categories per kind, in display order
CATEGORIES = {"backend": ("a_only", "b_only", "both", "neither"), "frontend": ("win", "loss", "tie")}


def _turns(rec: dict, kind: str) -> list[Turn]:
    dh = rec["dialogue_history"] if isinstance(rec.get("dialogue_history"), list) else []
    shown = dialogue_messages(dh)
    last_agent = max((j for j, m in enumerate(dh) if m.get("role") == "assistant"), default=-1)
    out = []
    for j, (m, s) in enumerate(zip(dh, shown)):
        if m.get("role") != "assistant":
            out.append(Turn("human", str(s["content"])))
            continue
        text = str(s["content"])
        raw = m.get("output")
        thought = None
        if isinstance(raw, str) and OUTPUT_MARKER in raw:
            thought = raw.split(OUTPUT_MARKER, 1)[0].strip() or None
        # the episode's last agent turn is its answer unless the episode failed (an ``error``)
        is_answer = ANSWER_MARKER in text or (j == last_agent and bool(rec.get("answer")) and not rec.get("error"))
        page = (extract_html(text) or None) if kind == "frontend" else None
        out.append(Turn("agent", text.strip(), thought, is_answer, m.get("finish_reason") == "length", page))
    return out


def _flag_turns(turns: list[Turn], rec: dict, task) -> None:
    """Put the human turns' faults on the turns (:attr:`Turn.flags`): the record's ``human_flags``
    when it has them, else the scripted checks of :mod:`colbench.audit.dialogues` now."""
    flags = rec.get("human_flags")
    if not isinstance(flags, list):
        from colbench.audit.dialogues import scripted_flags

        flags = scripted_flags(task, rec.get("dialogue_history") or [])
    for f in flags:
        j = f.get("turn") if isinstance(f, dict) else None
        if isinstance(j, int) and 0 <= j < len(turns) and turns[j].role == "human":
            turns[j].flags.append(f)


def _generator(task: dict) -> dict:
    g = task.get("generator")
    return g if isinstance(g, dict) else {}


def reason_kind(ep: Episode) -> str:
    """A short class of why an episode got its reward, for the index filter: ``"episode error"``
    (the record has an ``error``); backend: ``"solved"``, else the statuses of the failed tests
    (``"wrong_output"``, ``"exception, wrong_output"``, ``"no_code"``, ...), ``"unscored"`` without
    tests; frontend: ``"no page"`` / ``"render failed"`` when a reason says so, else ``"scored"``."""
    if ep.error:
        return "episode error"
    if ep.kind == "backend":
        if ep.success:
            return "solved"
        if not ep.tests:
            return "unscored" if ep.reason is None else "failed"
        return ", ".join(sorted({t.status for t in ep.tests if not t.passed})) or "failed"
    if ep.reason:
        return "render failed" if "render" in ep.reason else "no page"
    return "scored"


def _check_readable(path: str) -> None:
    p = Path(path)
    if not p.exists():
        raise UsageError(f"file not found: {path}")


def load_runs(paths: Sequence[str | os.PathLike], labels: Sequence[str] | None = None, *,
              groups: Sequence[str] | None = None, merge: Sequence[int] | None = None) -> list[Run]:
    """Read and validate trajectory files into runs (see the module docstring).

    Args:
        paths: trajectory jsonl files.
        labels: one name per run (default: the file names, made unique).
        groups: per file, the group its episodes pair within (default ``""``).
        merge: per file, the index of the run it belongs to (several files, e.g. one method's
            evaluation over seeds, make one run); default: one run per file.

    Raises:
        UsageError: a missing or empty file, two files (or two lines) of different kinds, a label
            count that does not match.
        TrajectoryFormatError / TaskFormatError: a malformed line (naming file and line).
    """
    from colbench_env.evaluation.trajectory_scoring import load_records
    from colbench.wrappers.recorder import latest_records

    paths = [os.fspath(p) for p in paths]
    if not paths:
        raise UsageError("give at least one trajectory file")
    merge = list(merge) if merge is not None else list(range(len(paths)))
    groups = list(groups) if groups is not None else [""] * len(paths)
    n_runs = max(merge) + 1
    if labels is not None and len(labels) != n_runs:
        raise UsageError(f"--labels: {len(labels)} labels for {n_runs} runs")
    if labels is None:
        labels = _default_labels(paths)
    runs: list[Run] = [Run(str(labels[i]), [], "") for i in range(n_runs)]
    first_of_kind: dict[str, str] = {}
    loaded = []
    for path in paths:
        _check_readable(path)
        items = load_records(path)
        if not items:
            raise UsageError(f"{path}: the file is empty (expected one trajectory per line)")
        kinds = {}
        for line, rec, _ in items:
            kinds.setdefault(record_kind(rec["task"]), line)
        if len(kinds) > 1:
            (k1, l1), (k2, l2) = sorted(kinds.items(), key=lambda kv: kv[1])[:2]
            raise UsageError(f"{path}:{l2}: a {k2} trajectory in a file whose line {l1} is a {k1} one; "
                             "a file holds one kind")
        (kind,) = kinds
        first_of_kind.setdefault(kind, path)
        if len(first_of_kind) > 1:
            other = next(k for k in first_of_kind if k != kind)
            raise UsageError(f"{path}: {kind} trajectories, but {first_of_kind[other]} holds {other} ones; "
                             "give files of one kind")
        loaded.append((path, kind, items))
    index = 0
    for (path, kind, items), r, group in zip(loaded, merge, groups):
        run = runs[r]
        run.kind = kind
        run.paths.append(path)
        keep = {id(rec) for rec in latest_records(rec for _, rec, _ in items).values()}
        for line, rec, _task in items:
            if "episode_id" in rec and id(rec) not in keep and rec.get("error"):
                run.superseded += 1
                continue
            task = rec["task"]
            gen = _generator(task)
            try:
                turns = _turns(rec, kind)
            except ValueError as e:  # a dialogue role other than assistant/user
                raise TrajectoryFormatError(f"{path}:{line}: field 'dialogue_history': {e}") from None
            if kind == "backend":
                _flag_turns(turns, rec, _task)
            ep = Episode(index=-1, run=r, line=line, path=path, record=rec, kind=kind,
                         task_id=str(rec.get("task_id") or task.get("task_id") or f"{os.path.basename(path)}:{line}"),
                         group=group, family=str(gen.get("family") or ""), template=str(gen.get("template") or ""),
                         error=rec.get("error") or None, turns=turns)
            r_ = rec.get("reward")
            ep.reward = float(r_) if isinstance(r_, (int, float)) and not isinstance(r_, bool) else None
            ep.success = bool(rec.get("success")) if kind == "backend" and "success" in rec else None
            ep.reason = rec.get("eval_reason") if isinstance(rec.get("eval_reason"), str) else None
            if kind == "backend" and isinstance(rec.get("eval_tests"), list):
                ep.tests = [TestOutcome.from_dict(d) for d in rec["eval_tests"] if isinstance(d, dict)]
                ep.semantics = rec.get("eval_semantics")
            run.episodes.append(ep)
    for run in runs:
        for ep in run.episodes:
            ep.index = index
            index += 1
            ep.reason_kind = reason_kind(ep)
    return runs


def _default_labels(paths: list[str]) -> list[str]:
    """File names; where two are equal, with as many parent folders as makes them differ."""
    parts = [Path(p).resolve().parts for p in paths]
    for depth in range(1, max(len(p) for p in parts) + 1):
        labels = ["/".join(p[-depth:]) for p in parts]
        if len(set(labels)) == len(labels):
            return [lb.removesuffix(".jsonl") for lb in labels]
    return [f"{i + 1}: {p}" for i, p in enumerate(paths)]


def score_runs(runs: Sequence[Run], *, semantics: str = "reference", workers: int | None = None,
               progress: bool = True) -> int:
    """Score every backend episode that has no per-test outcomes yet, in the sandbox, with
    ``colbench evaluate``'s evaluator and settings (:func:`colbench_env.evaluation.trajectory_scoring.score_backend`).
    An answer to a task that several episodes gave is scored once. Returns how many answers ran."""
    from colbench_env.evaluation.trajectory_scoring import score_backend
    from colbench_env.records import task_from_record

    todo: dict[tuple, list[Episode]] = {}
    for run in runs:
        for ep in run.episodes:
            if ep.kind != "backend" or ep.tests is not None:
                continue
            t = ep.record["task"]
            key = (t.get("ground_truth"), tuple(sorted((t.get("test_cases") or {}).items())), ep.record.get("answer"))
            todo.setdefault(key, []).append(ep)
    if not todo:
        return 0
    items = []
    for eps in todo.values():
        ep = eps[0]
        rec = {"task": ep.record["task"], "answer": ep.record.get("answer")}
        items.append((ep.line, rec, task_from_record(ep.record["task"], kind="backend")))
    scores, _ = score_backend(items, workers=workers, semantics=semantics, progress=progress)
    for eps, s in zip(todo.values(), scores):
        for ep in eps:
            ep.tests = list(s.tests)
            ep.semantics = s.semantics
            if ep.reward is None:
                ep.reward = s.reward
            elif abs(ep.reward - s.reward) > 1e-9:
                ep.fresh_reward = s.reward
            if ep.success is None:
                ep.success = s.success
            if ep.reason is None and s.reward < 1:
                ep.reason = s.reason
            ep.reason_kind = reason_kind(ep)
    return len(items)


def compare_runs(runs: Sequence[Run], a: int, b: int) -> Comparison:
    """Run ``a`` against run ``b``, task by task (see the module docstring)."""
    kind = runs[a].kind
    per: dict[tuple[str, str], dict] = {}
    for side, r in (("a", a), ("b", b)):
        for ep in runs[r].episodes:
            row = per.setdefault(ep.key, {"key": "/".join(x for x in ep.key if x), "task_id": ep.task_id,
                                          "group": ep.group, "a": [], "b": []})
            row[side].append(ep)
    rows = []
    counts = {c: 0 for c in (*CATEGORIES[kind], "only_a", "only_b")}
    for key in sorted(per, key=lambda k: (k[0], _natural(per[k]["task_id"]))):
        row = per[key]
        ea, eb = row["a"], row["b"]
        if not ea or not eb:
            cat = "only_a" if ea else "only_b"
        elif kind == "backend":
            sa, sb = any(e.success for e in ea), any(e.success for e in eb)
            cat = {(True, False): "a_only", (False, True): "b_only", (True, True): "both", (False, False): "neither"}[(sa, sb)]
        else:
            ma = sum(e.reward or 0.0 for e in ea) / len(ea)
            mb = sum(e.reward or 0.0 for e in eb) / len(eb)
            cat = "win" if ma > mb else "loss" if ma < mb else "tie"
        counts[cat] += 1
        rows.append({**row, "a": [e.index for e in ea], "b": [e.index for e in eb], "category": cat})
    return Comparison(a, b, rows, counts)


def _natural(s: str) -> tuple:
    """Sort key that orders ``gen-rate-d1-10`` after ``gen-rate-d1-9``."""
    import re

    return tuple(int(p) if p.isdigit() else p for p in re.split(r"(\d+)", s))
