"""ColBench as a single-agent Gymnasium environment: the PettingZoo env with a simulator playing the
human. Registered as ``ColBench-Backend-v0`` and ``ColBench-Frontend-v0``; the specification is the
docstring of :class:`ColBenchEnv`.
"""
from __future__ import annotations

from typing import Any

import gymnasium as gym

from .protocol import MAX_TURNS
from .pz_env import AGENT, ColBenchAECEnv
from .simulators import SIMULATOR_NAMES, Simulator, SimulatorError, make_simulator

__all__ = ["ColBenchEnv"]


class ColBenchEnv(gym.Env):
    """Gymnasium ColBench environment: the agent's side of :class:`~colbench_env.pz_env.ColBenchAECEnv`,
    with a simulator playing the human.

    ## Description

    Multi-turn collaboration (ColBench, arXiv 2503.15478): an LLM agent talks with a simulated human
    for at most ``max_turns`` turns to produce what the human wants -- a personalised Python
    function (``ColBench-Backend-v0``) or an HTML + Tailwind page (``ColBench-Frontend-v0``). The
    human holds hidden information the agent must ask for.

    ## Observation Space

    ``Dict(problem_description=Text, dialogue=Text)``: the task as the human asked for it, and the
    messages so far as a JSON list (``json.loads(obs["dialogue"])``), the human's reply to the last
    action last::

        [{"role": "assistant", "content": "Which letters do the rows skip?",
          "output": "The rows skip letters? OUTPUT: Which letters do the rows skip?"},
         {"role": "user", "content": "Rows are lettered A, B, C and so on, skipping I and O ..."}]

    ``role`` is ``"assistant"`` for the agent and ``"user"`` for the human (the official trajectory
    format); ``content`` is what the other side saw (the agent's message after ``OUTPUT:``, the
    human's reply); ``output``, on the agent's messages only, is its raw generation, thought
    included, cut before a second ``OUTPUT:``. Training-time information is never here. A trajectory
    record (``env.unwrapped.trajectory_record()``) keeps the same messages as ``dialogue_history``,
    the agent's with ``finish_reason`` when the action said why its generation ended
    (:mod:`colbench_env.trajectories`; every field: the docs' "dialogue schema" guide).

    ## Action Space

    Text (up to 1,000,000 characters): the agent's generation. ``OUTPUT:`` separates its thought from
    its message (the first ``OUTPUT:``; a second one and what follows are dropped);
    ``I WANT TO ANSWER:`` ends the episode, the answer being what lies between the first marker and
    the next (frontend: the first page of the final message, else the last page shown; see
    :mod:`colbench_env.protocol`).

    ## Rewards

    0 until the episode ends; then the answer's score: backend, the fraction of the hidden tests
    passed (``info["success"]`` when all pass); frontend, the similarity of the rendered answer to the
    rendered target.

    ## Episode End

    * ``terminated``: the agent answered (``I WANT TO ANSWER:``, or its ``max_turns``-th turn, whose
      message is taken as the answer).
    * ``truncated``: the simulator failed or returned an empty reply, or a rollout runner's policy
      failed (:meth:`fail`); ``info["error"]`` says why.

    ``info``: ``task_id``, ``turn`` (agent turns taken: 0 after ``reset``); at the end also
    ``answer``, ``reward``, ``success`` (backend only) and the scorer's details (backend: ``tests_passed``, ``tests_total``, ``eval_reason``). Wrap the env in
    :class:`colbench.wrappers.HiddenInfoWrapper` to add the training-time information.

    ## Arguments

    * ``kind``: ``"backend"`` or ``"frontend"`` (set by the registered id).
    * ``tasks``: ``"default"``, a path, ``"generated:N:d:family"``, ``"generated-frontend:N:d:family"``, a list
      (:func:`colbench_env.tasks.load_tasks`).
    * ``split``: ``"train"`` / ``"test"`` / ``None``.
    * ``simulator``: ``"scripted"`` (offline default), ``"hf"``, ``"openai"``, ``"record"``,
      ``"replay"``, or a :class:`~colbench_env.simulators.Simulator` (shared: not closed with the
      env). A named simulator is built on first use, so envs whose replies come from elsewhere
      (batched rollouts share one simulator) never load a model.
    * ``simulator_kwargs``: keyword arguments for the simulator (e.g. ``base_url``, ``model``).
    * ``max_turns``: agent turns per episode (10).
    * ``evaluator``, ``renderer``, ``similarity``, ``render_mode``, ``scorer``: as for
      :class:`~colbench_env.pz_env.ColBenchAECEnv`.

    ``reset(seed=..., options=...)``: the seed draws the task; ``options["task_index"]`` or
    ``options["task_id"]`` picks it.

    The step is also available in phases (:mod:`colbench_env.phased`), which the batched rollout
    runner and the ColBench wrappers use: :meth:`agent_step`, :meth:`simulator_request`,
    :meth:`human_step`, :meth:`transition` (and :meth:`fail` when the policy could not act).

    ## Version History

    * v0 (the id has not changed; these changes within v0 alter episodes or scores, so compare runs
      made on either side of one with care -- ``colbench run`` and the pipeline record the scripted
      human's reply version and refuse to resume across it):

      - the answer rule of the reference: the message is what lies between the first and a second
        ``OUTPUT:``, the answer between the first ``I WANT TO ANSWER:`` and the next, unstripped; the
        ``max_turns``-th turn is the answer; a frontend answer is the first page of the final message
        (2026-12-03, ``7eeba32``);
      - ``evaluator="reference"`` (default, the reference scorer's rules) or ``"python"``; the final
        ``info`` carries ``eval_tests`` and ``eval_semantics`` (2026-12-03);
      - the offline scripted human tells an official record's ground-truth code in plain words and
        takes ``volunteer`` (2026-12-03); its replies' version 3 no longer reads a draft's code or an
        offer as a request for code (2026-12-04, ``4c078f4``;
        :data:`colbench_env.simulators.scripted_backend.VERSION`);
      - agent entries record ``finish_reason`` (``"length"``: cut at the token budget; 2026-12-04,
        ``76bf612``).
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
        max_turns: int = MAX_TURNS,
        evaluator: Any = None,
        renderer: Any = None,
        similarity: Any = "visual",
        render_mode: str | None = None,
        scorer: Any = None,
    ):
        if not isinstance(simulator, (str, Simulator)):
            raise TypeError(f"simulator must be a name or a Simulator, got {type(simulator).__name__}")
        if isinstance(simulator, str) and simulator not in SIMULATOR_NAMES:
            raise ValueError(f"unknown simulator {simulator!r}; expected one of {', '.join(SIMULATOR_NAMES)} "
                             "or a Simulator")
        self.pz = ColBenchAECEnv(kind, tasks, split=split, max_turns=max_turns, evaluator=evaluator,
                                 renderer=renderer, similarity=similarity, render_mode=render_mode, scorer=scorer)
        self.kind = kind
        self._simulator_spec = simulator
        self._simulator_kwargs = dict(simulator_kwargs or {})
        self._simulator: Simulator | None = simulator if isinstance(simulator, Simulator) else None
        self._answering: Simulator | None = None  # who answers this env's episodes when not its own simulator
        self.observation_space = self.pz.observation_space(AGENT)
        self.action_space = self.pz.action_space(AGENT)
        self.render_mode = render_mode
        self._pending_reply = False
        self._closed = False

    @property
    def simulator(self) -> Simulator:
        """The simulator playing the human (a named one is built here, on first use)."""
        if self._simulator is None:
            self._simulator = make_simulator(self._simulator_spec, kind=self.kind, **self._simulator_kwargs)
        return self._simulator

    @property
    def simulator_built(self) -> bool:
        """Whether this env has a simulator object (passed in, or built on first use)."""
        return self._simulator is not None

    def answered_by(self, simulator: Simulator) -> None:
        """Say that ``simulator`` -- not this env's own -- answers this env's episodes (a rollout runner
        answers every env with the first env's simulator): its identity goes on the records."""
        if not isinstance(simulator, Simulator):
            raise TypeError(f"simulator must be a Simulator, got {type(simulator).__name__}")
        self._answering = simulator

    def human_identity(self) -> dict | None:
        """The identity of the human of this env's episodes (:mod:`colbench_env.simulators.identity`):
        the simulator that answers them (:meth:`answered_by`, else this env's own; a named scripted
        one is built for it, any other named one only once it has answered), ``None`` when unknown."""
        sim = self._answering or self._simulator
        if sim is None and self._simulator_spec == "scripted":
            sim = self.simulator
        return sim.identity() if sim is not None else None

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
        return self.pz.observe(AGENT), self.pz.outcome(AGENT)[3]

    # ---------------------------------------------------------------- phases
    def agent_step(self, action: str) -> bool:
        """Apply the agent's action; returns whether the human must now reply."""
        if self.pz.task is None:
            raise RuntimeError("call reset() before step()")
        if self.pz.episode_over:
            raise RuntimeError("the episode is over: call reset()")
        if not isinstance(action, str):
            raise TypeError(f"the action must be a str, got {type(action).__name__}")
        self.pz.step(action)
        self._pending_reply = not self.pz.episode_over
        return self._pending_reply

    def simulator_request(self) -> tuple:
        """``(task, dialogue, renders)``: what the simulator needs for its reply."""
        return self.pz.human_request()

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

    def fail(self, error: str) -> None:
        """End the episode now with ``error`` (truncated, reward 0, ``info["error"]``), without an
        agent action: the runner's policy could not act (e.g. its server failed)."""
        if self.pz.task is None:
            raise RuntimeError("call reset() before fail()")
        if self.pz.episode_over:
            raise RuntimeError("the episode is over: call reset()")
        self._pending_reply = False
        self.pz.fail(error)

    def transition(self):
        """``(observation, reward, terminated, truncated, info)`` after the last phase."""
        reward, terminated, truncated, info = self.pz.outcome(AGENT)
        return self.pz.observe(AGENT), (reward if terminated or truncated else 0.0), terminated, truncated, info

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
        """The episode in the official trajectory format, with ``human``: who played the human
        (:meth:`human_identity`; absent when unknown)."""
        rec = self.pz.trajectory_record()
        ident = self.human_identity()
        if ident is not None:
            rec["human"] = ident
        return rec

    def render(self):
        return self.pz.render()

    def close(self) -> None:
        self.pz.close()
        if self._simulator is not None and self._simulator is not self._simulator_spec and not self._closed:
            self._simulator.close()  # a simulator passed in is the caller's to close
        self._closed = True
        super().close()
