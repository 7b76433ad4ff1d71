"""UNSAFE in-process backend evaluator: the reference implementation's way, kept as a baseline.

.. warning::
   This runs the answer (and the ground truth) with ``exec`` **inside the calling process**, with
   no isolation at all: an answer can read or write any file, open sockets, kill the process, read
   the ground truth from memory, or return an object whose ``__eq__`` always says ``True`` (and so
   pass every test). Never use it on answers you did not write yourself. It exists only as the
   baseline of ``benchmarks/bench_evaluator.py``; score with
   :class:`colbench_env.evaluation.backend.BackendEvaluator`.

Semantics are the reference scorer's (``semantics="reference"`` of the sandboxed evaluator, see
:mod:`.reference`): blocked substrings, its fence stripping, and for every test call the ground
truth's and the answer's definitions executed afresh into a new local namespace, the call
evaluated there (``Exception`` -> ``None``); the answer's call gets a 1-second ``SIGALRM``
(``signal.setitimer``, main thread only; an answer can defeat it). A test passes when the ground
truth's output is not ``None`` and ``==`` the answer's (``ValueError`` from ``==``: fails).
"""
from __future__ import annotations

import builtins
import signal
import threading

from ..tasks import BackendTask
from .backend import BackendScore
from .reference import reference_code

__all__ = ["InProcessEvaluator"]


def _alarm(signum, frame):
    raise TimeoutError("test exceeded its time limit")


class InProcessEvaluator:
    """UNSAFE: ``exec`` in this process (see the module warning). Same ``score`` interface as
    :class:`~colbench_env.evaluation.backend.BackendEvaluator`, single-threaded, no caching.

    Args:
        test_timeout_s: seconds for each of the answer's test calls (the reference's alarm), via
            SIGALRM; only enforced when called from the main thread.
    """

    def __init__(self, test_timeout_s: float = 1.0):
        if not isinstance(test_timeout_s, (int, float)) or not test_timeout_s > 0:
            raise ValueError(f"test_timeout_s must be a positive number, got {test_timeout_s!r}")
        self.test_timeout_s = float(test_timeout_s)
        self._globals = {"__name__": "sweet_rl.utils.code_utils", "__builtins__": builtins, "signal": signal}

    def _output(self, code, call: str):
        try:
            local = {"function_definition": code, "test_case": call}
            exec(code, self._globals, local)
            return eval(call, self._globals, local)
        except Exception:  # noqa: BLE001 - the reference turns every exception into None
            return None

    def score(self, task: BackendTask, answer_text: str | None) -> BackendScore:
        """Score one answer (UNSAFE; see the module docstring)."""
        names = list(task.test_cases)
        code, rule = reference_code(answer_text or "")
        if rule is not None:
            return BackendScore(0.0, False, 0, len(names), f"blocked by a reference-semantics rule: the answer "
                                f"contains {rule!r}", {n: False for n in names})
        main = threading.current_thread() is threading.main_thread()
        per_test = {}
        for name in names:
            call = task.test_cases[name]
            expected = self._output(task.ground_truth, call)
            old = signal.signal(signal.SIGALRM, _alarm) if main else None
            if main:
                signal.setitimer(signal.ITIMER_REAL, self.test_timeout_s)
            try:
                got = self._output(code, call)
            except TimeoutError:
                got = None
            finally:
                if main:
                    signal.setitimer(signal.ITIMER_REAL, 0)
                    signal.signal(signal.SIGALRM, old)
            try:
                per_test[name] = bool(expected == got and expected is not None)
            except ValueError:
                per_test[name] = False
        passed = sum(per_test.values())
        return BackendScore(passed / len(names), passed == len(names), passed, len(names),
                            None if passed == len(names) else f"{len(names) - passed}/{len(names)} tests failed",
                            per_test)

    def score_many(self, items) -> list[BackendScore]:
        """Score ``(task, answer_text)`` pairs one after the other (UNSAFE)."""
        return [self.score(t, a) for t, a in items]
