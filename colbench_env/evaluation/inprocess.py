"""UNSAFE in-process backend evaluator: the reference implementation's way, kept as a baseline.

.. warning::
   This runs the answer (and the ground truth) with ``exec`` **inside the calling process**, with
   no isolation at all: an answer can read or write any file, open sockets, kill the process, read
   the ground truth from memory, or return an object whose ``__eq__`` always says ``True`` (and so
   pass every test). Never use it on answers you did not write yourself. It exists only as the
   baseline of ``benchmarks/bench_evaluator.py``; score with
   :class:`colbench_env.evaluation.backend.BackendEvaluator`.

Semantics are the reference's: for each test call, ``eval`` it in the ground truth's namespace and
in the answer's; the test passes when ``gt == answer`` and ``gt is not None``. A per-answer
timeout uses ``SIGALRM`` (``signal.setitimer``), so it only works in the main thread and an answer
can defeat it (by catching the exception or resetting the timer).
"""
from __future__ import annotations

import signal
import threading

from ..protocol import extract_code
from ..tasks import BackendTask
from .backend import BackendScore

__all__ = ["InProcessEvaluator"]


class _Timeout(Exception):
    pass


def _alarm(signum, frame):
    raise _Timeout()


class InProcessEvaluator:
    """UNSAFE: ``exec`` in this process (see the module warning). Same ``score`` interface as
    :class:`~colbench_env.evaluation.backend.BackendEvaluator`, single-threaded.

    Args:
        timeout_s: seconds for one answer (all tests) and for one ground-truth run, via SIGALRM;
            only enforced when called from the main thread.
    """

    def __init__(self, timeout_s: float = 10.0):
        if not isinstance(timeout_s, (int, float)) or not timeout_s > 0:
            raise ValueError(f"timeout_s must be a positive number, got {timeout_s!r}")
        self.timeout_s = float(timeout_s)

    def _run(self, code: str, calls: list[str]) -> tuple[list, str | None]:
        """Exec ``code`` and eval each call; returns (per-call (ok, value), load error)."""
        ns: dict = {"__name__": "__colbench_answer__"}
        main = threading.current_thread() is threading.main_thread()
        old = signal.signal(signal.SIGALRM, _alarm) if main else None
        if main:
            signal.setitimer(signal.ITIMER_REAL, self.timeout_s)
        out: list = []
        try:
            try:
                exec(compile(code, "<answer>", "exec"), ns)
            except BaseException as e:  # noqa: BLE001 - the reference swallows everything
                return [(False, None)] * len(calls), f"{type(e).__name__}: {e}"
            for call in calls:
                try:
                    out.append((True, eval(call, ns)))
                except BaseException:  # noqa: BLE001
                    out.append((False, None))
            return out, None
        except _Timeout:
            out += [(False, None)] * (len(calls) - len(out))
            return out, None
        finally:
            if main:
                signal.setitimer(signal.ITIMER_REAL, 0)
                signal.signal(signal.SIGALRM, old)

    def score(self, task: BackendTask, answer_text: str | None) -> BackendScore:
        """Score one answer (UNSAFE; see the module docstring)."""
        names = list(task.test_cases)
        calls = [task.test_cases[n] for n in names]
        code = extract_code(answer_text)
        if not code.strip():
            return BackendScore(0.0, False, 0, len(names), "empty answer: no code found", {n: False for n in names})
        truth, _ = self._run(task.ground_truth, calls)
        got, load_error = self._run(code, calls)
        per_test = {}
        for name, (tok, tv), (aok, av) in zip(names, truth, got):
            try:
                per_test[name] = bool(tok and aok and tv is not None and tv == av)
            except Exception:  # noqa: BLE001 - e.g. numpy arrays
                per_test[name] = False
        passed = sum(per_test.values())
        return BackendScore(passed / len(names), passed == len(names), passed, len(names),
                            None if load_error is None else f"answer failed to load: {load_error}", per_test)

    def score_many(self, items) -> list[BackendScore]:
        """Score ``(task, answer_text)`` pairs one after the other (UNSAFE)."""
        return [self.score(t, a) for t, a in items]
