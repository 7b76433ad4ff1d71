"""Backend-programming scores: the reference semantics, computed in sandboxes.

Semantics (as ColBench's reference evaluator): the answer's code is extracted with
:func:`colbench_env.protocol.extract_code`; every test call of the task is evaluated on the ground
truth and on the answer (each in its own namespace, tests in order, so state carries over between
calls as in the reference); a test **passes** when both calls returned, the results are equal
(``==``) and the ground truth's result is not ``None``. ``reward`` = passed / total, ``success`` =
all passed.

Differences from the reference, all on the side of not being fooled:

* the answer runs in a sandboxed child (see :mod:`.sandbox`) that never holds the ground truth, its
  source or its outputs; the ground truth runs in another sandboxed child (task files are untrusted
  too) and its outputs are cached per (ground truth, test calls);
* results cross back as plain data (``None``, ``bool``, ``int``, ``float``, ``complex``, ``str``,
  ``bytes``, ``list``, ``tuple``, ``dict``, ``set``, ``frozenset``; exact types, so subclasses and
  objects of classes the answer defined are rejected; exact numpy scalars become Python scalars)
  and are compared in the evaluator process, never with an ``__eq__`` the answer wrote. NaN compares
  as Python's ``==`` does on fresh objects (``nan != nan``);
* the whole answer (all its tests) has ``timeout_s`` of wall-clock time; tests finished before a
  timeout or a crash keep their result, the others fail.
"""
from __future__ import annotations

import hashlib
import json
import os
import threading
import weakref
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

from ..protocol import extract_code
from ..tasks import BackendTask, task_from_record
from .sandbox import Isolation, JobResult, SandboxLimits, WorkerPool, probe_isolation

__all__ = ["BackendEvaluator", "BackendScore"]


@dataclass(frozen=True)
class BackendScore:
    """The score of one answer.

    Attributes:
        reward: fraction of tests passed, in [0, 1].
        success: every test passed.
        passed: number of tests passed.
        total: number of tests of the task.
        reason: why the answer scored 0 or was cut short (empty/unparsable answer, load error,
            timeout, crash, protocol violation, broken ground truth); ``None`` for a normal run.
        per_test: test name -> passed.
        errors: test name -> what the answer's call raised or why its result was rejected.
        output: the first bytes of the answer's stdout+stderr.
        elapsed_s: wall-clock seconds of the sandboxed run (0 when nothing ran).
        worker_id: ``TAG:N``, the tag of the sandbox worker (zygote) that forked the answer's child and
            the job's serial number in it ('' when nothing ran).
    """

    reward: float
    success: bool
    passed: int
    total: int
    reason: str | None
    per_test: dict = field(default_factory=dict)
    errors: dict = field(default_factory=dict)
    output: str = ""
    elapsed_s: float = 0.0
    worker_id: str = ""


@dataclass(frozen=True)
class _Truth:
    outcomes: dict  # index -> (ok, value|message)
    load_error: str | None
    problem: str | None


def _truth_key(task: BackendTask) -> str:
    blob = json.dumps([task.ground_truth, list(task.test_cases.items())], ensure_ascii=False)
    return hashlib.sha256(blob.encode("utf-8", "surrogatepass")).hexdigest()


def _plain_equal(a: Any, b: Any) -> bool:
    try:
        return bool(a == b)  # both sides are decoded plain data: builtin == only
    except RecursionError:
        return False


class BackendEvaluator:
    """Scores backend answers in sandboxed, throw-away child processes (one per answer) forked by a
    pool of confined, warm zygotes (see :mod:`.sandbox`).

    Args:
        workers: answers scored in parallel = sandbox workers (``None`` = CPUs this process may use).
        timeout_s: wall-clock seconds for one answer (all its tests) or one ground truth.
        memory_mb: address-space limit of each child, in MiB.
        isolation: ``"auto"``, ``"strict"`` or ``"minimal"`` (see :func:`.sandbox.probe_isolation`).
        hash_seed: ``PYTHONHASHSEED`` shared by every child (ground truth and answers alike).
        limits: a full :class:`.sandbox.SandboxLimits`, overriding ``timeout_s``/``memory_mb``.

    The pool starts on first use; use the evaluator as a context manager or call :meth:`close`.

    Example::

        with BackendEvaluator(workers=2) as ev:
            s = ev.score(task, "I WANT TO ANSWER: ```python\\ndef f(x):\\n    return x\\n```")
            s.reward, s.success, s.per_test
    """

    def __init__(self, workers: int | None = None, timeout_s: float = 10.0, memory_mb: int = 512, *,
                 isolation: str = "auto", hash_seed: int = 0, limits: SandboxLimits | None = None):
        if workers is None:
            workers = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
        if not isinstance(workers, int) or isinstance(workers, bool) or workers < 1:
            raise ValueError(f"workers must be an int >= 1, got {workers!r}")
        if not isinstance(hash_seed, int) or not 0 <= hash_seed <= 4294967295:
            raise ValueError(f"hash_seed must be an int in [0, 2**32-1], got {hash_seed!r}")
        self.workers = workers
        self.limits = limits if limits is not None else SandboxLimits(timeout_s=timeout_s, memory_mb=memory_mb)
        self._mode = isolation
        probe_isolation(isolation)  # validate the mode now (cached)
        self.hash_seed = hash_seed
        self._pool: WorkerPool | None = None
        self._executor: ThreadPoolExecutor | None = None
        self._truths: dict[str, _Truth] = {}
        self._lock = threading.Lock()
        self._finalizer: weakref.finalize | None = None

    # ------------------------------------------------------------------ life cycle
    @property
    def isolation(self) -> dict:
        """What confinement the children get here (namespaces, uid drop, Landlock, rlimits, ...)."""
        d = probe_isolation(self._mode).as_dict()
        d["rlimit_values"] = self.limits.rlimits()
        d["timeout_s"] = self.limits.timeout_s
        return d

    def _ensure_started(self) -> WorkerPool:
        with self._lock:
            if self._pool is None:
                iso: Isolation = probe_isolation(self._mode)
                self._pool = WorkerPool(self.workers, self.limits, iso, self.hash_seed)
                self._executor = ThreadPoolExecutor(max_workers=self.workers, thread_name_prefix="colbench-eval")
                self._finalizer = weakref.finalize(self, _shutdown, self._pool, self._executor)
            pool = self._pool
        pool.fill()
        return pool

    def close(self) -> None:
        """Kill all workers and remove their scratch directories. Idempotent."""
        with self._lock:
            fin, self._finalizer, self._pool, self._executor = self._finalizer, None, None, None
        if fin is not None:
            fin()

    def __copy__(self) -> "BackendEvaluator":
        """An evaluator is a handle on a shared worker pool: copies (e.g. ``gym.make`` deep-copying
        its keyword arguments into the env spec, which ``check_env`` re-makes) share the pool."""
        return self

    def __deepcopy__(self, memo: dict) -> "BackendEvaluator":
        return self

    def __enter__(self) -> "BackendEvaluator":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    @property
    def scratch_root(self) -> str | None:
        """Directory holding the workers' scratch directories (``None`` before the pool starts).
        Every sandbox process of this evaluator has it (hex-encoded) in its command line."""
        return self._pool.base_dir if self._pool is not None else None

    def worker_tags(self) -> list[str]:
        """Tags of the live sandbox workers (zygotes, idle or busy)."""
        return self._pool.worker_tags() if self._pool is not None else []

    # ------------------------------------------------------------------ scoring
    def score(self, task: BackendTask | dict, answer_text: str | None) -> BackendScore:
        """Score one raw answer (``extract_code`` is applied here) on ``task``."""
        return self.score_many([(task, answer_text)])[0]

    def score_many(self, items: Iterable[tuple[BackendTask | dict, str | None]], *,
                   callback: Callable[[int, BackendScore], None] | None = None) -> list[BackendScore]:
        """Score ``(task, answer_text)`` pairs in parallel over the pool; the order is preserved.

        Args:
            callback: called as ``callback(index, score)`` as each answer finishes (any thread).
        """
        pairs = [(self._as_task(t, i), a) for i, (t, a) in enumerate(items)]
        if not pairs:
            return []
        self._ensure_started()
        missing = {}
        for task, _ in pairs:
            key = _truth_key(task)
            if key not in self._truths and key not in missing:
                missing[key] = task
        if missing:
            for key, truth in zip(missing, self._executor.map(self._run_truth, missing.values())):
                self._truths[key] = truth

        def one(i: int) -> BackendScore:
            task, answer = pairs[i]
            s = self._score_one(task, answer, self._truths[_truth_key(task)])
            if callback is not None:
                callback(i, s)
            return s

        return list(self._executor.map(one, range(len(pairs))))

    @staticmethod
    def _as_task(task: Any, i: int) -> BackendTask:
        if isinstance(task, dict):
            task = task_from_record(task, kind="backend", source="<score_many>", line=i + 1)
        if not isinstance(task, BackendTask):
            raise TypeError(f"item {i}: expected a BackendTask or a backend task record, got {type(task).__name__}")
        return task

    def _run_truth(self, task: BackendTask) -> _Truth:
        res = self._pool.run(task.ground_truth, list(task.test_cases.values()))
        problem = _problem(res)
        return _Truth(outcomes=dict(res.outcomes), load_error=res.load_error, problem=problem)

    def _score_one(self, task: BackendTask, answer_text: str | None, truth: _Truth) -> BackendScore:
        names = list(task.test_cases)
        total = len(names)
        fail = {n: False for n in names}
        if answer_text is not None and not isinstance(answer_text, str):
            return BackendScore(0.0, False, 0, total, f"answer must be a string, got {type(answer_text).__name__}",
                                fail)
        code = extract_code(answer_text)
        if not code.strip():
            return BackendScore(0.0, False, 0, total, "empty answer: no code found", fail)
        if truth.load_error is not None:
            return BackendScore(0.0, False, 0, total, f"ground truth failed to load: {truth.load_error}", fail)
        res = self._pool.run(code, [task.test_cases[n] for n in names])
        per_test, errors = {}, {}
        for i, name in enumerate(names):
            got, want = res.outcomes.get(i), truth.outcomes.get(i)
            ok = (got is not None and want is not None and got[0] and want[0] and want[1] is not None
                  and _plain_equal(want[1], got[1]))
            per_test[name] = ok
            if got is not None and not got[0]:
                errors[name] = got[1]
        passed = sum(per_test.values())
        reason = _problem(res)
        if reason is not None and res.load_error is not None:
            reason = f"answer failed to load: {res.load_error}"
        if reason is None and truth.problem is not None:
            reason = f"ground truth: {truth.problem}"
        return BackendScore(reward=passed / total, success=passed == total, passed=passed, total=total,
                            reason=reason, per_test=per_test, errors=errors, output=res.output,
                            elapsed_s=res.elapsed_s, worker_id=res.worker_id)


def _problem(res: JobResult) -> str | None:
    if res.protocol_error is not None:
        return f"protocol violation: {res.protocol_error}"
    if res.load_error is not None:
        return res.load_error
    if res.timed_out:
        return f"timeout: not finished after {res.elapsed_s:.1f}s ({len(res.outcomes)} tests done)"
    if not res.finished:
        status = res.exit_status
        how = f"killed by signal {-status}" if status is not None and status < 0 else f"exit status {status}"
        return f"crashed ({how}) after {len(res.outcomes)} tests"
    return None


def _shutdown(pool: WorkerPool, executor: ThreadPoolExecutor) -> None:
    executor.shutdown(wait=True, cancel_futures=True)
    pool.close()
