"""ColBench as a two-agent PettingZoo AEC environment: ``"agent"`` (the LLM agent) and ``"human"``.

The specification (observations, actions, rewards, episode end, arguments) is the docstring of
:class:`ColBenchAECEnv`. The Parallel form (:func:`colbench_env.parallel_env`) is PettingZoo's
``turn_based_aec_to_parallel``: each parallel step applies the action of the active agent only
(``infos[a]["active_agent"]`` says whose turn is next), which keeps the alternation exact.
"""
from __future__ import annotations

import json
from typing import Any

from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv

from .lm.base import finish_reason_of
from .lm.tokens import TOKENS_FIELD, TurnTokens, encode_turn_tokens
from .protocol import MAX_TURNS, AgentTurn, parse_agent_turn
from .scoring import EpisodeResult, Scorer, make_scorer
from .spaces import UnicodeText
from .tasks import BackendTask, FrontendTask, load_tasks

__all__ = ["ColBenchAECEnv", "AGENT", "HUMAN", "EpisodeResult"]

AGENT = "agent"
HUMAN = "human"
MAX_TEXT = 1_000_000


class ColBenchAECEnv(AECEnv):
    """Two-agent ColBench environment (PettingZoo AEC).

    ## Description

    One episode is one task. The agent (an LLM) speaks first; it and the human (a simulator, or any
    PettingZoo policy) then alternate. The human holds the hidden information the agent must ask
    for. The agent's turn follows :mod:`colbench_env.protocol`: ``OUTPUT:`` separates its thought
    from its message, and ``I WANT TO ANSWER:`` ends the episode with what follows as the answer.
    Everything that depends on the task kind is the env's *scorer* (:mod:`colbench_env.scoring`).

    ## Observation Space

    A ``Dict`` of text (:class:`~colbench_env.spaces.UnicodeText`):

    | key | agent | human |
    |---|---|---|
    | ``problem_description`` | the task as the human asked for it | same |
    | ``dialogue`` | JSON list ``[{"role", "content", "output"}]`` | JSON list ``[{"role", "content"}]`` |
    | ``hidden_information`` | -- | backend: the hidden facts and the ground-truth code; frontend: the target HTML |
    | ``agent_render``, ``target_render`` | -- | frontend: ``uint8`` ``(h, w, 3)`` renders (zeros before any page) |

    ``role`` is ``"assistant"`` for the agent and ``"user"`` for the human (the official trajectory
    format); ``output`` is the agent's own raw generation (thought included), cut before a second
    ``OUTPUT:`` as the reference records it. The agent never observes training-time information.
    Trajectory records (:meth:`trajectory_record`) also carry ``finish_reason`` on an agent entry when the
    action said why it ended (:class:`~colbench_env.lm.base.GeneratedText` from
    :class:`~colbench.agents.base.LMAgent`): ``"length"`` marks a generation cut at ``max_new_tokens``; and
    ``tokens`` when the action carries the token ids its policy saw and produced
    (:mod:`colbench_env.lm.tokens`; the observations and the human never see them).

    ## Action Space

    Text (:class:`~colbench_env.spaces.UnicodeText`, up to 1,000,000 characters) for both agents.
    The human's reply is cut to 400 characters (backend) / 1000 (frontend), as in the reference.

    ## Rewards

    0 on every step but the last. When the agent answers, both agents receive the answer's score
    (the game is cooperative): backend, the fraction of the hidden tests passed in the sandboxed
    evaluator (``success`` when all pass); frontend, the similarity of the rendered answer to the
    rendered target (no ``success`` key: a similarity has no pass/fail).

    ## Episode End

    * Termination: the agent's message contains ``I WANT TO ANSWER:``, or it is the agent's
      ``max_turns``-th turn (the message is then taken as the answer).
    * Truncation: :meth:`fail` was called (e.g. the simulator failed); reward 0, ``info["error"]``.

    ## Arguments

    * ``kind``: ``"backend"`` or ``"frontend"``.
    * ``tasks``: ``"default"`` (embedded set), a path to an official jsonl file,
      ``"generated:N:d:family"``, ``"generated-frontend:N:d:family"``, or a list of tasks/records (:func:`colbench_env.tasks.load_tasks`).
    * ``split``: ``"train"`` / ``"test"`` / ``None`` (all).
    * ``max_turns``: agent turns per episode (:data:`MAX_TURNS` = 10 in ColBench).
    * ``evaluator``: backend, a :class:`~colbench_env.evaluation.backend.BackendEvaluator` to share,
      or ``"reference"`` / ``"python"``: the semantics of the env's own evaluator (a single-worker
      pool started on first use and closed with the env; ``None`` = ``"reference"``, comparable with
      published numbers). The final ``info`` carries ``eval_reason`` (why the reward is below 1),
      ``eval_tests`` (one outcome per test) and ``eval_semantics``.
    * ``renderer``: frontend, a :class:`~colbench_env.evaluation.render.Renderer` to share.
    * ``similarity``: frontend, ``"visual"`` (offline default), ``"clip"``, or a callable
      ``(img, img) -> float``.
    * ``render_obs_size``: ``(width, height)`` of the images in the frontend human's observation.
    * ``render_mode``: ``None`` or ``"ansi"`` (the dialogue as text).
    * ``scorer``: a :class:`~colbench_env.scoring.Scorer` of the same kind, instead of the four
      arguments above.
    * ``simulator``: who plays the human when you ask :meth:`human_action` for its reply: a name
      (``"scripted"``, ``"hf"``, ``"openai"``, ... as :func:`~colbench_env.simulators.make_simulator`;
      built on first use, closed with the env) or a :class:`~colbench_env.simulators.Simulator` (the
      caller's to close); ``None``: the human's actions come only from your own policy.
    * ``simulator_kwargs``: keyword arguments for a named simulator.

    ``reset(options=...)``: ``{"task_index": i}`` or ``{"task_id": "..."}`` picks the task;
    otherwise the seeded RNG draws it.

    A simulator playing the human in the AEC loop::

        env = colbench_env.aec_env("backend", simulator="scripted")   # or simulator=my_simulator
        env.reset(seed=0, options={"task_index": 3})
        for name in env.agent_iter():
            obs, reward, terminated, truncated, info = env.last()
            if terminated or truncated:
                action = None
            elif name == "human":
                action = env.unwrapped.human_action()      # the simulator's reply
            else:
                action = my_agent(obs)
            env.step(action)

    ## Public API beyond PettingZoo

    What the Gymnasium env and the batched rollout runner use (never the bookkeeping dicts
    directly): :attr:`task`, :attr:`dialogue`, :attr:`answer`, :attr:`result`,
    :attr:`episode_over`, :meth:`outcome`, :meth:`human_request`, :meth:`human_action`, :meth:`fail`,
    :meth:`trajectory_record`.

    ## Version History

    * v0 (ColBench, arXiv 2503.15478): the changes within v0 that alter episodes or scores are listed
      once, in :class:`colbench_env.gym_env.ColBenchEnv`'s Version History (the two envs change together).
    """

    metadata = {"name": "colbench_v0", "render_modes": ["ansi"], "render_fps": 1, "is_parallelizable": True}

    def __init__(
        self,
        kind: str = "backend",
        tasks: Any = "default",
        *,
        split: str | None = None,
        max_turns: int = MAX_TURNS,
        evaluator: Any = None,
        renderer: Any = None,
        similarity: Any = "visual",
        render_obs_size: tuple[int, int] = (256, 320),
        render_mode: str | None = None,
        scorer: Scorer | None = None,
        simulator: Any = None,
        simulator_kwargs: dict | None = None,
    ):
        super().__init__()
        if kind not in ("backend", "frontend"):
            raise ValueError(f"kind must be 'backend' or 'frontend', got {kind!r}")
        if not isinstance(max_turns, int) or max_turns < 1:
            raise ValueError(f"max_turns must be a positive int, got {max_turns!r}")
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode must be None or 'ansi', got {render_mode!r}")
        if scorer is not None and scorer.kind != kind:
            raise ValueError(f"a {kind} env got a {scorer.kind} scorer")
        from .simulators import SIMULATOR_NAMES, Simulator

        if simulator is not None and not isinstance(simulator, (str, Simulator)):
            raise TypeError(f"simulator must be a name or a Simulator, got {type(simulator).__name__}")
        if isinstance(simulator, str) and simulator not in SIMULATOR_NAMES:
            raise ValueError(f"unknown simulator {simulator!r}; expected one of {', '.join(SIMULATOR_NAMES)} "
                             "or a Simulator")
        if simulator_kwargs and not isinstance(simulator, str):
            raise ValueError("simulator_kwargs are for a named simulator (simulator='scripted', ...)")
        self._simulator_spec = simulator
        self._simulator_kwargs = dict(simulator_kwargs or {})
        self._simulator = simulator if isinstance(simulator, Simulator) else None
        self.kind = kind
        self.tasks: list = load_tasks(tasks, kind=kind, split=split)
        wrong = [t for t in self.tasks if t.kind != kind]
        if wrong:
            raise ValueError(f"a {kind} env got {wrong[0].kind} task {wrong[0].task_id!r}")
        self.max_turns = max_turns
        self.render_mode = render_mode
        self.scorer: Scorer = scorer if scorer is not None else make_scorer(
            kind, evaluator=evaluator, renderer=renderer, similarity=similarity, render_obs_size=render_obs_size)
        self._own_scorer = scorer is None
        self.reply_limit = self.scorer.reply_limit
        self.possible_agents = [AGENT, HUMAN]
        self.agents = []
        text = UnicodeText(MAX_TEXT)
        agent_obs = {"problem_description": text, "dialogue": text}
        human_obs = dict(agent_obs, hidden_information=text, **self.scorer.human_spaces())
        self._observation_spaces = {AGENT: spaces.Dict(agent_obs), HUMAN: spaces.Dict(human_obs)}
        self._action_spaces = {AGENT: UnicodeText(MAX_TEXT), HUMAN: UnicodeText(MAX_TEXT)}
        self._np_random, _ = seeding.np_random(None)
        self.task: BackendTask | FrontendTask | None = None
        self.dialogue: list[dict] = []
        self.turn = 0
        self._last_tokens = None  # the previous agent turn's TurnTokens (what the next one's prompt extends)
        self.answer: str | None = None
        self.result: EpisodeResult | None = None
        self.error: str | None = None
        self.seed_used: int | None = None

    # ----------------------------------------------------------------- spaces
    def observation_space(self, agent: str) -> spaces.Space:
        return self._observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self._action_spaces[agent]

    # ------------------------------------------------------------------ reset
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Start an episode.

        Args:
            seed: seeds the task choice (same seed, same task).
            options: ``{"task_index": i}`` or ``{"task_id": "..."}`` picks the task explicitly.
        """
        if seed is not None:
            self._np_random, _ = seeding.np_random(seed)
        self.seed_used = seed
        options = dict(options or {})
        if "task_index" in options:
            i = int(options["task_index"])
            if not 0 <= i < len(self.tasks):
                raise IndexError(f"task_index {i} out of range (0..{len(self.tasks) - 1})")
            self.task = self.tasks[i]
        elif "task_id" in options:
            matches = [t for t in self.tasks if t.task_id == options["task_id"]]
            if not matches:
                raise KeyError(f"no task with task_id {options['task_id']!r}")
            self.task = matches[0]
        else:
            self.task = self.tasks[int(self._np_random.integers(len(self.tasks)))]
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.dialogue = []
        self.turn = 0
        self._last_tokens = None
        self.infos = {a: self._base_info() for a in self.agents}
        self.answer = None
        self.result = None
        self.error = None
        self.agent_selection = AGENT
        self.scorer.start(self.task)

    def _base_info(self) -> dict:
        return {"task_id": self.task.task_id if self.task else "", "turn": self.turn}

    # ---------------------------------------------------------------- observe
    def observe(self, agent: str) -> dict:
        if self.task is None:
            raise RuntimeError("call reset() before observe()")
        if agent == AGENT:  # the agent sees its own raw generations too (thought included)
            dialogue = [{k: m[k] for k in ("role", "content", "output") if k in m} for m in self.dialogue]
        else:
            dialogue = [{"role": m["role"], "content": m["content"]} for m in self.dialogue]
        obs: dict[str, Any] = {
            "problem_description": self.task.problem_description,
            "dialogue": json.dumps(dialogue, ensure_ascii=False),
        }
        if agent == HUMAN:
            obs["hidden_information"] = self.scorer.hidden_text(self.task)
            obs.update(self.scorer.human_observation())
        return obs

    # ------------------------------------------------------------------- step
    def step(self, action: Any) -> None:
        """Apply the action of :attr:`agent_selection`.

        ``"agent"``: a generation (thought, then ``OUTPUT:`` message, see
        :mod:`colbench_env.protocol`). ``"human"``: the reply (cut to the reply limit).
        A terminated agent must be stepped with ``None`` (PettingZoo's dead step).
        """
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if not isinstance(action, str):
            raise TypeError(f"{agent}'s action must be a str, got {type(action).__name__}")
        self._clear_rewards()
        if agent == AGENT:
            self._step_agent(action)
        else:
            self._step_human(action)
        self._accumulate_rewards()

    def _step_agent(self, action: str) -> AgentTurn:
        self.turn += 1
        tokens = getattr(action, "tokens", None)
        tokens = tokens if isinstance(tokens, TurnTokens) else None
        reason, action = finish_reason_of(action), str(action)  # a plain str from here on (marshal, sandbox)
        parsed = parse_agent_turn(action, last_turn=self.turn >= self.max_turns)
        entry = {"role": "assistant", "content": parsed.message, "output": parsed.output}
        if reason is not None:  # "length": cut at max_new_tokens (the trainers do not train an end token)
            entry["finish_reason"] = reason
        field = encode_turn_tokens(tokens, self._last_tokens) if tokens is not None else None
        if field:  # the ids the policy saw and produced (the trainers train on them)
            entry[TOKENS_FIELD] = field
        self._last_tokens = tokens
        self.dialogue.append(entry)
        if parsed.is_answer:
            self.answer = self.scorer.final_answer(parsed)
            self._finish(self.scorer.score(self.task, self.answer))
        else:
            self.scorer.agent_message(parsed.message)
            self.agent_selection = HUMAN
            self.infos = {a: self._base_info() for a in self.agents}
        return parsed

    def _step_human(self, reply: str) -> None:
        self.dialogue.append({"role": "user", "content": reply[: self.reply_limit]})
        self.agent_selection = AGENT
        self.infos = {a: self._base_info() for a in self.agents}

    def fail(self, error: str) -> None:
        """End the episode without an answer (e.g. the simulator failed): reward 0, truncated,
        ``info["error"]`` set."""
        self.error = error
        self.result = EpisodeResult(reward=0.0, error=error, **self._no_success())
        for a in self.agents:
            self.rewards[a] = 0.0
            self.truncations[a] = True
        self.infos = {a: dict(self._base_info(), error=error, reward=0.0, **self._no_success()) for a in self.agents}

    def _no_success(self) -> dict:
        # frontend has no pass/fail (its score is a similarity): no ``success`` key at all
        return {"success": False} if self.kind == "backend" else {}

    def _finish(self, result: EpisodeResult) -> None:
        self.result = result
        reward = float(result["reward"])
        for a in self.agents:
            self.rewards[a] = reward
            self.terminations[a] = True
        info = dict(self._base_info(), answer=self.answer, reward=reward)
        if "success" in result:
            info["success"] = bool(result["success"])
        info.update({k: v for k, v in result.items() if k not in ("reward", "success")})
        self.infos = {a: dict(info) for a in self.agents}

    # ------------------------------------------------------------ public API
    @property
    def episode_over(self) -> bool:
        """The episode ended (the agent answered, or :meth:`fail` was called)."""
        return bool(self.terminations.get(AGENT) or self.truncations.get(AGENT))

    def outcome(self, agent: str = AGENT) -> tuple[float, bool, bool, dict]:
        """``(reward, terminated, truncated, info)`` of ``agent`` after the last step (``info`` a
        fresh copy; reward 0 unless that step ended the episode)."""
        if self.task is None:
            raise RuntimeError("call reset() first")
        return (float(self.rewards[agent]), bool(self.terminations[agent]), bool(self.truncations[agent]),
                dict(self.infos[agent]))

    def human_request(self) -> tuple:
        """``(task, dialogue, renders)``: the arguments of
        :meth:`Simulator.reply <colbench_env.simulators.Simulator.reply>` for the human's next reply
        (``renders`` is ``None`` for the backend)."""
        if self.task is None:
            raise RuntimeError("call reset() first")
        return (self.task, [{k: v for k, v in m.items() if k != TOKENS_FIELD} for m in self.dialogue],
                self.scorer.simulator_renders())

    @property
    def simulator(self):
        """The :class:`~colbench_env.simulators.Simulator` given as ``simulator`` (a named one is built
        here, on first use); ``None`` when none was given."""
        if self._simulator is None and self._simulator_spec is not None:
            from .simulators import make_simulator

            self._simulator = make_simulator(self._simulator_spec, kind=self.kind, **self._simulator_kwargs)
        return self._simulator

    def human_action(self) -> str:
        """The env's simulator's reply for the human's turn now (``simulator.reply(*human_request())``):
        what to ``step`` the ``"human"`` agent with when the simulator plays it.

        Raises:
            RuntimeError: no ``simulator`` was given, or it is not the human's turn.
        """
        if self.simulator is None:
            raise RuntimeError("this env has no simulator: make it with aec_env(..., simulator='scripted') or "
                               "simulator=<a Simulator>, or step the human with your own replies")
        if self.task is None or self.agent_selection != HUMAN or self.episode_over:
            raise RuntimeError("human_action(): it is not the human's turn")
        return self.simulator.reply(*self.human_request())

    # ------------------------------------------------------------ trajectory
    def trajectory_record(self) -> dict:
        """The episode so far in the official trajectory format (see :mod:`colbench_env.trajectories`);
        with ``human`` (:meth:`Simulator.identity <colbench_env.simulators.Simulator.identity>`) when
        this env's simulator has been built."""
        rec: dict[str, Any] = {
            "task": self.task.to_record(),
            "dialogue_history": [dict(m) for m in self.dialogue],
            "answer": self.answer if self.answer is not None else "",
        }
        if self.result is not None:
            rec["reward"] = float(self.result["reward"])
            if "success" in self.result:
                rec["success"] = bool(self.result["success"])
        rec["task_id"] = self.task.task_id
        if self.seed_used is not None:
            rec["seed"] = self.seed_used
        if self.error:
            rec["error"] = self.error
        if self._simulator is not None:  # who played the human (colbench_env.simulators.identity)
            rec["human"] = self._simulator.identity()
        return rec

    # -------------------------------------------------------------- render/close
    def render(self) -> str | None:
        if self.render_mode is None:
            return None
        lines = [f"[task {self.task.task_id}] {self.task.problem_description}"]
        for m in self.dialogue:
            who = "AGENT" if m["role"] == "assistant" else "HUMAN"
            lines.append(f"{who}: {m['content']}")
        if self.result is not None:
            lines.append(f"-> reward {self.result['reward']:.3f}"
                         + (f" success {self.result['success']}" if "success" in self.result else ""))
        return "\n".join(lines)

    def close(self) -> None:
        if self._own_scorer:
            self.scorer.close()
        if self._simulator is not None and self._simulator is not self._simulator_spec:
            self._simulator.close()  # built here from a name (a Simulator passed in is the caller's to close)
            self._simulator = None
