"""ColBench as a single-agent Gymnasium environment: the PettingZoo env with a simulator playing the
human. Registered as ``ColBench-Backend-v0`` and ``ColBench-Frontend-v0``.

``step(action)`` takes the agent's generation (see :mod:`colbench_env.protocol`) and returns

* ``observation``: ``{"problem_description": str, "dialogue": str}`` -- ``dialogue`` is a JSON
  list of chat messages ``{"role": "assistant"|"user", "content": str}`` (``assistant`` = the
  agent, ``user`` = the human), the human's reply to this action last;
* ``reward``: 0 until the episode ends; then the score of the answer (backend: fraction of hidden
  tests passed; frontend: similarity of the rendered answer to the target);
* ``terminated``: the agent answered (``I WANT TO ANSWER:``, or its ``max_turns``-th turn);
* ``truncated``: the simulator failed (``info["error"]`` says why);
* ``info``: ``task_id``, ``turn`` (agent turns taken: 0 after ``reset``); at the end also
  ``answer``, ``reward``, ``success`` (backend only: every test passed; the frontend's reward is a
  similarity, with no pass/fail) and the evaluator's details. Training-time information is never here unless the env is wrapped in
  :class:`wrappers.HiddenInfoWrapper`.

For batched rollouts (:mod:`colbench_env.rollout`) the step is also available in three phases:
:meth:`agent_step`, :meth:`simulator_request` / :meth:`human_step`, :meth:`transition`.
"""
from __future__ import annotations

from typing import Any

import gymnasium as gym

from .pz_env import AGENT, ColBenchAECEnv
from .simulators import SimulatorError, make_simulator

__all__ = ["ColBenchEnv"]


class ColBenchEnv(gym.Env):
    """Gymnasium ColBench environment.

    Args:
        kind: ``"backend"`` or ``"frontend"``.
        tasks: see :func:`colbench_env.tasks.load_tasks` (``"default"``, a path, ``"generated:N:d"``,
            a list).
        split: ``"train"`` / ``"test"`` / ``None``.
        simulator: ``"scripted"`` (offline default), ``"hf"``, ``"openai"``, ``"record"``,
            ``"replay"``, or a :class:`~colbench_env.simulators.Simulator`.
        simulator_kwargs: keyword arguments for the simulator (e.g. ``base_url``, ``model``).
        max_turns: agent turns per episode (10).
        evaluator, renderer, similarity, render_mode: as for
            :class:`~colbench_env.pz_env.ColBenchAECEnv`.
    """

    metadata = {"render_modes": ["ansi"], "render_fps": 1}

    def __init__(
        self,
        kind: str = "backend",
        tasks: Any = "default",
        *,
        split: str | None = None,
        simulator: Any = "scripted",
        simulator_kwargs: dict | None = None,
        max_turns: int = 10,
        evaluator: Any = None,
        renderer: Any = None,
        similarity: Any = "visual",
        render_mode: str | None = None,
    ):
        self.pz = ColBenchAECEnv(kind, tasks, split=split, max_turns=max_turns, evaluator=evaluator,
                                 renderer=renderer, similarity=similarity, render_mode=render_mode)
        self.kind = kind
        self.simulator = make_simulator(simulator, kind=kind, **(simulator_kwargs or {}))
        self._own_simulator = self.simulator is not simulator  # a simulator passed in is the caller's to close
        self.observation_space = self.pz.observation_space(AGENT)
        self.action_space = self.pz.action_space(AGENT)
        self.render_mode = render_mode
        self._pending_reply = False

    # convenience views of the underlying episode
    @property
    def task(self):
        """The current task (training-time information: do not show it to the agent)."""
        return self.pz.task

    @property
    def tasks(self) -> list:
        return self.pz.tasks

    @property
    def dialogue(self) -> list[dict]:
        return self.pz.dialogue

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """Start an episode on a task drawn with the env's seeded RNG (or ``options["task_index"]``
        / ``options["task_id"]``). Returns ``(observation, info)``."""
        super().reset(seed=seed)
        options = dict(options or {})
        if "task_index" not in options and "task_id" not in options:
            options["task_index"] = int(self.np_random.integers(len(self.pz.tasks)))
        self.pz.reset(seed=seed, options=options)
        self._pending_reply = False
        return self.pz.observe(AGENT), dict(self.pz.infos[AGENT])

    # ---------------------------------------------------------------- phases
    def agent_step(self, action: str) -> bool:
        """Apply the agent's action; returns whether the human must now reply."""
        if self.pz.task is None:
            raise RuntimeError("call reset() before step()")
        if self.pz.terminations[AGENT] or self.pz.truncations[AGENT]:
            raise RuntimeError("the episode is over: call reset()")
        if not isinstance(action, str):
            raise TypeError(f"the action must be a str, got {type(action).__name__}")
        self.pz.step(action)
        self._pending_reply = not (self.pz.terminations[AGENT] or self.pz.truncations[AGENT])
        return self._pending_reply

    def simulator_request(self) -> tuple:
        """``(task, dialogue, renders)``: what the simulator needs for its reply."""
        return self.pz.task, list(self.pz.dialogue), self.pz.renders

    def human_step(self, reply: str | None = None, *, error: str | None = None) -> None:
        """Apply the human's reply, or end the episode with ``error`` (simulator failure)."""
        if not self._pending_reply:
            raise RuntimeError("no human reply is pending")
        self._pending_reply = False
        if error is not None:
            self.pz.fail(error)
            return
        if not isinstance(reply, str) or not reply.strip():
            self.pz.fail(f"the simulator returned an empty reply ({reply!r})")
            return
        self.pz.step(reply)

    def transition(self):
        """``(observation, reward, terminated, truncated, info)`` after the last phase."""
        reward = float(self.pz.rewards[AGENT]) if (self.pz.terminations[AGENT] or self.pz.truncations[AGENT]) else 0.0
        return (self.pz.observe(AGENT), reward, bool(self.pz.terminations[AGENT]),
                bool(self.pz.truncations[AGENT]), dict(self.pz.infos[AGENT]))

    def step(self, action: str):
        """One agent turn and, unless the episode ended, the human's reply."""
        if self.agent_step(action):
            try:
                reply = self.simulator.reply(*self.simulator_request())
            except SimulatorError as e:
                self.human_step(error=f"simulator failed: {e}")
            else:
                self.human_step(reply)
        return self.transition()

    def trajectory_record(self) -> dict:
        """The episode in the official trajectory format."""
        return self.pz.trajectory_record()

    def render(self):
        return self.pz.render()

    def close(self) -> None:
        self.pz.close()
        if self._own_simulator:
            self.simulator.close()
        super().close()
