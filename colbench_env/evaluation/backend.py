"""Backend-programming scores, computed in sandboxes, with the reference's semantics or plain Python's.

Two semantics (``BackendEvaluator(semantics=...)``, ``colbench evaluate --semantics``):

* ``"reference"`` (default; what the paper's and every published ColBench number used, see
  :mod:`.reference`): the answer text is checked against the reference's blocked substrings
  (``import os``, ``sys``, ``exit(``, ``argparse``, ...: score 0) and its fences stripped the
  reference's way; then, **for every test call**, the definitions are executed afresh into new
  local variables of one call (the reference ``exec``-s inside a function): names bound at the top
  level of the code -- a helper function, ``import math`` -- are invisible inside its functions
  (``NameError``), so such answers (and ground truths) get ``None`` and fail. A call raising an
  ``Exception`` gives ``None``; an answer's call (definitions included) gets ``test_timeout_s``
  (1 s, the reference's alarm). The ground truth runs the same way, without the per-call limit.
* ``"python"``: correct Python, **not comparable with published numbers**: the code (found with
  :func:`colbench_env.protocol.extract_code`) runs once as a module, the test calls are evaluated
  in order in its namespace (state carries over between calls), no blocked substrings.

In both, a test **passes** when both calls returned, the ground truth's result is not ``None`` and
the results are equal (``==``); ``reward`` = passed / total, ``success`` = all passed. Every test
has an outcome (:class:`TestOutcome`: passed, wrong output with expected/got, exception, timeout,
memory, output limit, blocked, missing function, ...) and ``reason`` says why whenever the reward
is below 1.

Differences from the reference, all on the side of not being fooled:

* the answer runs in a sandboxed child (see :mod:`.sandbox`) that never holds the ground truth, its
  source or its outputs; the ground truth runs in another sandboxed child (task files are untrusted
  too; up to ``truth_batch`` ground truths of different tasks share one, each in fresh namespaces,
  see :meth:`.sandbox.WorkerPool.run_batch`) and its outputs are computed once per evaluator,
  cached by a hash of (semantics, ground truth, test calls);
* results cross back as plain data -- ``None``, ``bool``, ``int`` (any size), ``float``,
  ``complex``, ``str``, ``bytes``, ``bytearray``, ``list``, ``tuple``, ``dict``, ``set``,
  ``frozenset``, ``range``, ``datetime``/``date``/``time``/``timedelta``/``timezone``, ``Decimal``,
  ``Fraction``, ``Counter``, ``OrderedDict``, ``deque``, dict key/item views, type objects by
  name (:class:`.sandbox.TypeRef`), subclasses of the plain types that keep their ``==``
  (namedtuple, IntEnum, defaultdict) as the plain value, exact numpy scalars as Python scalars --
  and are compared in the evaluator process, never with an ``__eq__`` the answer wrote (objects of
  classes it defined do not cross: such a test fails). ``math.nan``/``numpy.nan`` keep their
  identity inside containers (``[math.nan] == [math.nan]`` as in one process); other NaNs are fresh;
* the whole answer (all its tests) has ``timeout_s`` of wall-clock time; tests finished before a
  timeout or a crash keep their result, the others fail;
* what the reference would crash on (``SystemExit`` raised by a call, an ``==`` raising something
  other than ``ValueError``) fails that test here; a program's writes to the globals of the
  reference's scorer module (``global x`` inside a function) last for one program, not for the
  whole evaluation process.
"""
from __future__ import annotations

import ast
import hashlib
import json
import os
import reprlib
import threading
import weakref
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

from ..protocol import extract_code
from ..tasks import BackendTask, task_from_record
from .reference import reference_code
from .sandbox import Isolation, JobResult, SandboxLimits, WorkerPool, probe_isolation

__all__ = ["BackendEvaluator", "BackendScore", "TestOutcome", "TruthRun", "SEMANTICS", "STATUSES", "explain_table",
           "plain_equal"]

#: the scoring semantics (see the module docstring)
SEMANTICS = ("reference", "python")

#: what :attr:`TestOutcome.status` can be
STATUSES = {
    "passed": "passed",
    "wrong_output": "both returned, the outputs differ (or the answer returned None)",
    "exception": "the answer's call raised (message)",
    "timeout": "the answer ran out of time (per-test limit, whole-answer limit or CPU limit)",
    "memory": "the answer ran out of memory (MemoryError or killed at the limit)",
    "output_limit": "the answer's result or written output exceeded its limit",
    "blocked": "the answer contains a substring the reference scorer rejects (which)",
    "missing_function": "the function the test calls is not defined by the answer (names it)",
    "unsupported_result": "the answer returned an object that cannot be compared safely",
    "no_code": "no code found in the answer",
    "crashed": "the answer's process died before finishing the test",
    "protocol": "the answer tampered with the result channel",
    "truth_failed": "the ground truth raised, timed out or gave an unsupported result: the test cannot pass",
    "truth_none": "the ground truth returned None: the reference never counts such a test",
}

_CUT = 200
_REPR = reprlib.Repr()
_REPR.maxstring = _REPR.maxother = _REPR.maxlong = _CUT
_REPR.maxlevel, _REPR.maxlist, _REPR.maxtuple, _REPR.maxset, _REPR.maxdict = 6, 40, 40, 40, 40
_REPR.maxfrozenset = _REPR.maxdeque = _REPR.maxarray = 40


def _show(v: Any) -> str:
    """A short text of a decoded (plain) value, cut to 200 characters."""
    try:
        text = _REPR.repr(v)
    except (ValueError, RecursionError):  # e.g. an int beyond the str-conversion digit limit
        text = f"<int of {v.bit_length()} bits>" if type(v) is int else f"<{type(v).__name__} too large to show>"
    return text if len(text) <= _CUT else text[: _CUT - 3] + "..."


@dataclass(frozen=True)
class TestOutcome:
    """What happened to one test of one answer.

    Attributes:
        name: the test's name in the task (``"test1"``...).
        status: one of :data:`STATUSES` (``"passed"``, ``"wrong_output"``, ``"exception"``, ...).
        expected: the ground truth's output (text, cut to 200 characters), when it returned.
        got: the answer's output (text, cut to 200 characters), when it returned.
        message: the exception, limit, rule or missing name, for the other statuses.
    """

    __test__ = False  # not a pytest test class

    name: str
    status: str
    expected: str | None = None
    got: str | None = None
    message: str | None = None

    @property
    def passed(self) -> bool:
        return self.status == "passed"

    def explain(self) -> str:
        """One line: ``status: detail``."""
        if self.status == "passed":
            return "passed"
        if self.status == "wrong_output":
            return f"wrong output: expected {self.expected}, got {self.got}"
        return f"{self.status.replace('_', ' ')}: {self.message}" if self.message else self.status.replace("_", " ")

    def as_dict(self) -> dict:
        return {k: v for k, v in (("test", self.name), ("status", self.status), ("expected", self.expected),
                                  ("got", self.got), ("message", self.message)) if v is not None}

    @classmethod
    def from_dict(cls, d: dict) -> "TestOutcome":
        return cls(str(d.get("test", "?")), str(d.get("status", "?")), d.get("expected"), d.get("got"),
                   d.get("message"))


@dataclass(frozen=True)
class BackendScore:
    """The score of one answer.

    Attributes:
        reward: fraction of tests passed, in [0, 1].
        success: every test passed.
        passed: number of tests passed.
        total: number of tests of the task.
        reason: set whenever ``reward < 1``: why (blocked by a reference rule, empty/unparsable
            answer, load error, timeout, crash, protocol violation, broken ground truth, or the
            count of failed tests with the first failure explained); ``None`` when every test passed.
        per_test: test name -> passed.
        errors: test name -> what the answer's call raised or why its result was rejected.
        output: the first bytes of the answer's stdout+stderr.
        elapsed_s: wall-clock seconds of the sandboxed run (0 when nothing ran).
        worker_id: ``TAG:N``, the tag of the sandbox worker (zygote) that forked the answer's child and
            the job's serial number in it ('' when nothing ran).
        tests: one :class:`TestOutcome` per test, in the task's order.
        semantics: ``"reference"`` or ``"python"``.
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
    tests: tuple = ()
    semantics: str = "reference"

    def explain(self) -> str:
        """A per-test table (one line per test) under a header with the reward and the reason."""
        return explain_table(self.tests, reward=self.reward, reason=self.reason, semantics=self.semantics)


def explain_table(tests: Iterable[TestOutcome], *, reward: float, reason: str | None, semantics: str | None) -> str:
    """The text of :meth:`BackendScore.explain` (also for outcomes read back from a scored file)."""
    tests = list(tests)
    passed = sum(t.passed for t in tests)
    how = f", {semantics} semantics" if semantics else ""
    lines = [f"reward {reward:.3f} ({passed}/{len(tests)} tests passed{how})"]
    if reason:
        lines.append(f"reason: {reason}")
    width = max([len(t.name) for t in tests] + [4])
    lines.append(f"{'test':<{width}}  {'status':<18}  detail")
    for t in tests:
        if t.status == "passed":
            detail = f"got {t.got}" if t.got is not None else ""
        elif t.status == "wrong_output":
            detail = f"expected {t.expected}, got {t.got}" + (f" ({t.message})" if t.message else "")
        else:
            detail = t.message or ""
        lines.append(f"{t.name:<{width}}  {t.status:<18}  {detail}")
    return "\n".join(lines)


@dataclass(frozen=True)
class TruthRun:
    """What one run of a ground truth on its tests gave (:meth:`BackendEvaluator.run_ground_truths`).

    Attributes:
        outcomes: per test index (the task's order), ``(True, value)`` (the call returned ``value``,
            decoded plain data) or ``(False, message)`` (it raised, timed out or returned something
            that does not cross); a test missing did not finish.
        load_error: the code did not compile or its top level raised.
        problem: what went wrong with the run as a whole (timeout, crash, protocol), else ``None``.
    """

    outcomes: dict
    load_error: str | None
    problem: str | None




def _truth_key(task: BackendTask, semantics: str) -> str:
    blob = json.dumps([semantics, task.ground_truth, list(task.test_cases.items())], ensure_ascii=False)
    return hashlib.sha256(blob.encode("utf-8", "surrogatepass")).hexdigest()


def plain_equal(a: Any, b: Any) -> tuple[bool, str | None]:
    """The reference's ``a == b`` on decoded plain data (builtin ``==`` only); (equal, error)."""
    try:
        return bool(a == b), None
    except ValueError:  # the reference catches ValueError only
        return False, None
    except (RecursionError, ArithmeticError, TypeError) as e:  # e.g. Decimal('sNaN'): the reference crashes
        return False, f"comparison raised {type(e).__name__}"


def _called_name(call: str) -> str | None:
    try:
        node = ast.parse(call.strip(), mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    while isinstance(node, ast.Call):
        func = node.func
        if isinstance(func, ast.Name):
            return func.id
        node = func
    return None


def _top_level_names(code: str) -> list[str]:
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    names = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.append(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.extend((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names.extend(t.id for t in targets if isinstance(t, ast.Name))
    return names


def _name_error(message: str) -> str | None:
    # "NameError: name 'x' is not defined"
    if message.startswith("NameError: name '"):
        rest = message[len("NameError: name '"):]
        if "'" in rest:
            return rest.split("'", 1)[0]
    return None


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
        semantics: ``"reference"`` (default: the reference scorer's rules, comparable with published
            ColBench numbers) or ``"python"`` (correct Python module semantics, **not comparable
            with published numbers**); see the module docstring.
        test_timeout_s: (reference semantics) seconds for each of the answer's test calls,
            definitions included (the reference's 1-second alarm); ``None``: no per-call limit.
        truth_batch: most ground truths (of different tasks, from the task file) run one after the
            other in one sandboxed child, each in fresh namespaces (see
            :meth:`.sandbox.WorkerPool.run_batch`): a batch stops after a ground truth that changed
            state a later one could see, and one that fails (timeout, crash, limit) is re-run alone,
            so each still gets the outputs it gets alone. ``1`` (or ``False``): one child per ground
            truth. Answers always get one fresh child each. Default 16.

    The pool starts on first use; use the evaluator as a context manager or call :meth:`close`.

    Example::

        with BackendEvaluator(workers=2) as ev:
            s = ev.score(task, "I WANT TO ANSWER: ```python\\ndef f(x):\\n    return x\\n```")
            s.reward, s.success, s.per_test
    """

    def __init__(self, workers: int | None = None, timeout_s: float = 10.0, memory_mb: int = 512, *,
                 isolation: str = "auto", hash_seed: int = 0, limits: SandboxLimits | None = None,
                 semantics: str = "reference", test_timeout_s: float | None = 1.0, truth_batch: int = 16):
        if semantics not in SEMANTICS:
            raise ValueError(f"semantics must be 'reference' or 'python', got {semantics!r}")
        if test_timeout_s is not None and (not isinstance(test_timeout_s, (int, float))
                                           or isinstance(test_timeout_s, bool) or not test_timeout_s > 0):
            raise ValueError(f"test_timeout_s must be a positive number or None, got {test_timeout_s!r}")
        if workers is None:
            workers = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
        if not isinstance(workers, int) or isinstance(workers, bool) or workers < 1:
            raise ValueError(f"workers must be an int >= 1, got {workers!r}")
        if not isinstance(hash_seed, int) or not 0 <= hash_seed <= 4294967295:
            raise ValueError(f"hash_seed must be an int in [0, 2**32-1], got {hash_seed!r}")
        if truth_batch is True or truth_batch is False:
            truth_batch = 16 if truth_batch else 1
        if not isinstance(truth_batch, int) or truth_batch < 1:
            raise ValueError(f"truth_batch must be an int >= 1 (1: one child per ground truth), got {truth_batch!r}")
        self.truth_batch = truth_batch
        self.workers = workers
        self.limits = limits if limits is not None else SandboxLimits(timeout_s=timeout_s, memory_mb=memory_mb)
        self._mode = isolation
        probe_isolation(isolation)  # validate the mode now (cached)
        self.hash_seed = hash_seed
        self.semantics = semantics
        self.test_timeout_s = None if test_timeout_s is None else float(test_timeout_s)
        self.truth_runs = 0  # ground truths run so far (each task's once per evaluator)
        self._pool: WorkerPool | None = None
        self._executor: ThreadPoolExecutor | None = None
        self._truths: dict[str, TruthRun] = {}
        self._lock = threading.Lock()
        self._finalizer: weakref.finalize | None = None

    # ------------------------------------------------------------------ life cycle
    @property
    def isolation(self) -> dict:
        """What confinement the children get here (namespaces, uid drop, Landlock, rlimits, ...)."""
        d = probe_isolation(self._mode).as_dict()
        d["rlimit_values"] = self.limits.rlimits()
        d["timeout_s"] = self.limits.timeout_s
        d["truth_batch"] = (f"up to {self.truth_batch} ground truths per child, each in fresh namespaces, the batch "
                            "stopped after one that changed shared state; answers: one fresh child each"
                            if self.truth_batch > 1 else "one child per ground truth and per answer")
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
            key = _truth_key(task, self.semantics)
            if key not in self._truths and key not in missing:
                missing[key] = task
        if missing:
            tasks = list(missing.values())
            size = min(self.truth_batch, -(-len(tasks) // self.workers))  # every worker gets some
            chunks = [tasks[i:i + size] for i in range(0, len(tasks), size)]
            truths = [t for chunk in self._executor.map(self._run_truths, chunks) for t in chunk]
            for key, truth in zip(missing, truths):
                self._truths[key] = truth

        def one(i: int) -> BackendScore:
            task, answer = pairs[i]
            s = self._score_one(task, answer, self._truths[_truth_key(task, self.semantics)])
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

    def _run_truths(self, tasks: list[BackendTask]) -> list[TruthRun]:
        programs = [(t.ground_truth, list(t.test_cases.values()), self.semantics, None) for t in tasks]
        if len(programs) == 1:
            results = [self._pool.run(*programs[0])]
        else:
            results = self._pool.run_batch(programs)
        with self._lock:
            self.truth_runs += len(tasks)
        return [TruthRun(outcomes=dict(res.outcomes), load_error=res.load_error, problem=_problem(res)) for res in results]

    def run_ground_truths(self, tasks: Iterable[BackendTask | dict]) -> list[TruthRun]:
        """Run each task's ground truth on its tests now, in the sandbox, with this evaluator's
        semantics, as :meth:`score` runs them (batched by ``truth_batch``, each in fresh namespaces,
        no per-call limit) but neither from nor into the cache: every call is a fresh run (what an
        audit of the tasks needs: two calls give two independent runs to compare). The order is kept."""
        todo = [self._as_task(t, i) for i, t in enumerate(tasks)]
        if not todo:
            return []
        self._ensure_started()
        size = min(self.truth_batch, -(-len(todo) // self.workers))
        chunks = [todo[i:i + size] for i in range(0, len(todo), size)]
        return [t for chunk in self._executor.map(self._run_truths, chunks) for t in chunk]

    @property
    def truth_batch_stats(self) -> dict:
        """Ground truths run in batches (see ``truth_batch``): ``batches`` (batch jobs), ``programs``
        (ground truths whose outputs came from a batch), ``stopped_by_change`` (batches stopped by
        a ground truth's change of shared state), ``alone`` (re-run alone after a failure)."""
        return dict(self._pool.batch_totals) if self._pool is not None else {}

    def _answer_code(self, answer_text: str) -> tuple[str, str | None]:
        if self.semantics == "reference":
            return reference_code(answer_text)
        return extract_code(answer_text), None

    def _score_one(self, task: BackendTask, answer_text: str | None, truth: TruthRun) -> BackendScore:
        names = list(task.test_cases)
        total = len(names)
        fail = {n: False for n in names}

        def all_tests(status: str, message: str, reason: str) -> BackendScore:
            tests = tuple(TestOutcome(n, status, message=message) for n in names)
            return BackendScore(0.0, False, 0, total, reason, dict(fail), tests=tests, semantics=self.semantics)

        if answer_text is not None and not isinstance(answer_text, str):
            msg = f"answer must be a string, got {type(answer_text).__name__}"
            return all_tests("no_code", msg, msg)
        code, rule = self._answer_code(answer_text or "")
        if rule is not None:
            return all_tests("blocked", f"the answer contains {rule!r}",
                             f"blocked by a reference-semantics rule: the answer contains {rule!r}")
        if not code.strip():
            return all_tests("no_code", "no code found in the answer", "empty answer: no code found")
        if truth.load_error is not None:
            msg = f"ground truth failed to load: {truth.load_error}"
            return all_tests("truth_failed", msg, msg)
        test_timeout = self.test_timeout_s if self.semantics == "reference" else None
        res = self._pool.run(code, [task.test_cases[n] for n in names], mode=self.semantics, test_timeout=test_timeout)
        defined = None
        per_test, errors, outcomes = {}, {}, []
        for i, name in enumerate(names):
            got, want = res.outcomes.get(i), truth.outcomes.get(i)
            if got is not None and not got[0]:
                errors[name] = got[1]
            if want is None or not want[0]:
                why = "did not finish" if want is None else want[1]
                o = TestOutcome(name, "truth_failed", message=f"ground truth: {why}")
            elif got is None:
                o = TestOutcome(name, *self._unfinished(res))
            elif not got[0]:
                kind = res.fail_kinds.get(i, "exception")
                status = {"timeout": "timeout", "memory": "memory", "output": "output_limit",
                          "unsupported": "unsupported_result"}.get(kind, "exception")
                message = got[1]
                if status == "memory":
                    message = f"{message.rstrip(': ')} (address-space limit {self.limits.memory_mb} MiB)"
                missing = _name_error(message) if status == "exception" else None
                if missing is not None:
                    if defined is None:
                        defined = _top_level_names(code)
                    if missing == _called_name(task.test_cases[name]) and missing not in defined:
                        status = "missing_function"
                        message = (f"the answer defines no {missing!r} (it defines: {', '.join(defined) or 'nothing'})")
                    elif missing in defined and self.semantics == "reference":
                        message += (" (reference semantics: names bound at the top level of the answer are not "
                                    "visible inside its functions)")
                o = TestOutcome(name, status, expected=None if want[1] is None else _show(want[1]), message=message)
            elif want[1] is None:
                o = TestOutcome(name, "truth_none", expected="None", got=_show(got[1]),
                                message="the ground truth returned None (such a test never passes)")
            else:
                equal, cmp_error = plain_equal(want[1], got[1])
                if equal:
                    o = TestOutcome(name, "passed", expected=_show(want[1]), got=_show(got[1]))
                else:
                    o = TestOutcome(name, "wrong_output", expected=_show(want[1]), got=_show(got[1]), message=cmp_error)
            per_test[name] = o.passed
            outcomes.append(o)
        passed = sum(per_test.values())
        reason = _problem(res)
        if reason is not None and res.load_error is not None:
            reason = f"answer failed to load: {res.load_error}"
        if reason is None and truth.problem is not None:
            reason = f"ground truth: {truth.problem}"
        if reason is None and passed < total:
            failed = [o for o in outcomes if not o.passed]
            counts: dict[str, int] = {}
            for o in failed:
                counts[o.status] = counts.get(o.status, 0) + 1
            summary = ", ".join(f"{k} {v}" for k, v in counts.items())
            reason = f"{len(failed)}/{total} tests failed ({summary}); {failed[0].name}: {failed[0].explain()}"
        return BackendScore(reward=passed / total, success=passed == total, passed=passed, total=total,
                            reason=reason, per_test=per_test, errors=errors, output=res.output,
                            elapsed_s=res.elapsed_s, worker_id=res.worker_id, tests=tuple(outcomes),
                            semantics=self.semantics)

    def _unfinished(self, res: JobResult) -> tuple[str, None, None, str]:
        """(status, expected, got, message) of a test the answer's child did not finish."""
        if res.protocol_error is not None:
            return "protocol", None, None, f"protocol violation: {res.protocol_error}"
        if res.load_error is not None:
            return "exception", None, None, f"failed to load: {res.load_error}"
        if res.timed_out:
            return "timeout", None, None, f"whole answer not finished after {self.limits.timeout_s:g}s"
        st = res.exit_status
        if st == -24:  # SIGXCPU
            return "timeout", None, None, "CPU-time limit reached"
        if st == -25:  # SIGXFSZ
            return "output_limit", None, None, f"wrote more than {self.limits.max_file_mb} MiB"
        if st == -9 or st == -11 or st == -6:
            return "crashed", None, None, (f"killed by signal {-st} (often the {self.limits.memory_mb} MiB memory "
                                           "limit)")
        how = f"killed by signal {-st}" if st is not None and st < 0 else f"exit status {st}"
        return "crashed", None, None, how


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
