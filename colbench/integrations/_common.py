"""What the adapters share: one set of tasks, one human simulator and one scorer back end for many
concurrent ColBench episodes (one :class:`~colbench_env.gym_env.ColBenchEnv` each)."""
from __future__ import annotations

import threading
from typing import Any

from colbench_env.gym_env import ColBenchEnv
from colbench_env.protocol import MAX_TURNS
from colbench_env.simulators import Simulator, make_simulator
from colbench_env.tasks import load_tasks

__all__ = ["EpisodeParts"]


class EpisodeParts:
    """The parts every episode of one adapter shares, each built once (on first use) and closed by
    :meth:`close`: the tasks, the human simulator, and the scorer's heavy part (backend: one
    :class:`~colbench_env.evaluation.backend.BackendEvaluator`; frontend: one
    :class:`~colbench_env.evaluation.render.Renderer`). Safe to use from several threads.

    Args:
        kind: ``"backend"`` or ``"frontend"``.
        tasks: any task spec of :func:`colbench_env.tasks.load_tasks` (``"default"``, a path to an
            official ``.jsonl`` file, ``"generated:N:d[:family]"``, a list of records). Task ids must
            be unique: episodes are started by task id.
        split: ``"train"`` / ``"test"`` / ``None``.
        simulator: a simulator name (``"scripted"``, ``"openai"``, ``"hf"``, ...) or a
            :class:`~colbench_env.simulators.Simulator` (then the caller's to close).
        simulator_kwargs: keyword arguments of a named simulator.
        max_turns: agent turns per episode (the last one is taken as the answer).
        evaluator: backend, ``"reference"`` (default), ``"python"`` or a ``BackendEvaluator`` to
            share (the caller's to close).
        similarity: frontend, ``"visual"`` (default), ``"clip"`` or a callable.
        eval_workers: sandbox workers of the evaluator built here (``None``: one per CPU).
        render_pool: Chromium drivers of the renderer built here (frontend).
    """

    def __init__(self, kind: str = "backend", tasks: Any = "default", *, split: str | None = None,
                 simulator: Any = "scripted", simulator_kwargs: dict | None = None, max_turns: int = MAX_TURNS,
                 evaluator: Any = "reference", similarity: Any = "visual", eval_workers: int | None = None,
                 render_pool: int = 1):
        if kind not in ("backend", "frontend"):
            raise ValueError(f"kind must be 'backend' or 'frontend', got {kind!r}")
        if not isinstance(max_turns, int) or max_turns < 1:
            raise ValueError(f"max_turns must be a positive int, got {max_turns!r}")
        self.kind = kind
        self.max_turns = max_turns
        self.tasks = load_tasks(tasks, kind=kind, split=split)
        seen: set = set()
        for t in self.tasks:
            if t.task_id in seen:
                raise ValueError(f"task id {t.task_id!r} appears twice; the adapters start episodes by task id")
            seen.add(t.task_id)
        self.similarity = similarity
        self._simulator_spec = simulator
        self._simulator_kwargs = dict(simulator_kwargs or {})
        self._simulator: Simulator | None = simulator if isinstance(simulator, Simulator) else None
        self._evaluator_spec = evaluator
        self._eval_workers = eval_workers
        if not isinstance(render_pool, int) or render_pool < 1:
            raise ValueError(f"render_pool must be a positive int, got {render_pool!r}")
        self._render_pool = render_pool
        self._evaluator = None if isinstance(evaluator, str) else evaluator
        self._renderer = None
        self._lock = threading.Lock()

    @property
    def simulator(self) -> Simulator:
        """The human simulator (a named one is built on first use)."""
        with self._lock:
            if self._simulator is None:
                self._simulator = make_simulator(self._simulator_spec, kind=self.kind, **self._simulator_kwargs)
            return self._simulator

    def _scorer_part(self) -> dict:
        with self._lock:
            if self.kind == "backend":
                if self._evaluator is None:
                    from colbench_env.evaluation.backend import BackendEvaluator

                    self._evaluator = BackendEvaluator(workers=self._eval_workers, semantics=self._evaluator_spec)
                return {"evaluator": self._evaluator}
            if self._renderer is None:
                from colbench_env.evaluation.render import Renderer

                self._renderer = Renderer(pool_size=self._render_pool)
            return {"renderer": self._renderer, "similarity": self.similarity}

    def make_env(self) -> ColBenchEnv:
        """A new env on these tasks, playing the shared simulator and scoring with the shared part.
        Closing it closes none of the shared parts."""
        return ColBenchEnv(self.kind, self.tasks, simulator=self.simulator, max_turns=self.max_turns,
                           **self._scorer_part())

    def close(self, graceful: bool = True) -> None:
        """Close what was built here (not a simulator or evaluator passed in). ``graceful=False``
        kills the renderer's browsers at once (a prompt shutdown; the evaluator's close always kills
        its sandbox workers)."""
        with self._lock:
            if self._simulator is not None and self._simulator is not self._simulator_spec:
                self._simulator.close()
                self._simulator = None
            if self._evaluator is not None and self._evaluator is not self._evaluator_spec:
                self._evaluator.close()
                self._evaluator = None
            if self._renderer is not None:
                self._renderer.close(graceful=graceful)
                self._renderer = None
