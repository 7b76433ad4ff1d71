"""ColBench as a two-agent PettingZoo AEC environment: ``"agent"`` (the LLM agent) and ``"human"``.

One episode is one task. The agent speaks first; the two then alternate. The agent's turn follows
the protocol of :mod:`colbench_env.protocol`: a message containing ``I WANT TO ANSWER:`` -- or any
message on the agent's ``max_turns``-th turn -- ends the episode with that answer, which is scored
(backend: fraction of the hidden tests passed, through the sandboxed evaluator; frontend: visual
similarity of the rendered answer to the rendered target). Both agents receive that reward (the game
is cooperative); every other step rewards 0.

Observations are dictionaries of text (and, for the frontend human, images):

* ``"problem_description"``: the task as the human asked for it;
* ``"dialogue"``: the messages so far as a JSON list of chat messages
  ``[{"role": "assistant" | "user", "content": str}, ...]`` (``"assistant"`` = the LLM agent,
  ``"user"`` = the human, as in the official trajectory format); in the agent's observation the
  assistant messages also carry ``"output"``, the agent's own raw generation (thought included);
* human only: ``"hidden_information"`` (backend: the human's hidden facts and the ground-truth
  code; frontend: the target HTML) and, frontend only, ``"agent_render"`` / ``"target_render"``
  (``uint8`` RGB arrays of the rendered pages resized to ``render_obs_size``; zeros when the agent
  has shown no page yet).

The agent never observes training-time information. Actions are any text (:class:`UnicodeText`).
Human replies are cut to 400 characters (backend) / 1000 (frontend), as in the reference.

The Parallel form (:func:`colbench_env.parallel_env`) is PettingZoo's
``turn_based_aec_to_parallel``: each parallel step applies the action of the active agent only
(``infos[a]["active_agent"]`` says whose turn is next), which keeps the alternation exact.
"""
from __future__ import annotations

import json
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv

from .protocol import AgentTurn, extract_html, parse_agent_turn
from .simulators.base import BACKEND_REPLY_LIMIT, FRONTEND_REPLY_LIMIT
from .spaces import UnicodeText
from .tasks import BackendTask, FrontendTask, load_tasks

__all__ = ["ColBenchAECEnv", "AGENT", "HUMAN", "EpisodeResult"]

AGENT = "agent"
HUMAN = "human"
MAX_TEXT = 1_000_000


class EpisodeResult(dict):
    """The score of a finished episode: ``reward``, ``success`` and kind-specific details."""


class ColBenchAECEnv(AECEnv):
    """Two-agent ColBench environment (PettingZoo AEC).

    Args:
        kind: ``"backend"`` or ``"frontend"``.
        tasks: ``"default"`` (embedded set), a path to an official jsonl file, ``"generated:N:d"``,
            or a list of tasks/records (see :func:`colbench_env.tasks.load_tasks`).
        split: ``"train"`` / ``"test"`` / ``None`` (all).
        max_turns: agent turns per episode (10 in ColBench); the last one is a forced answer.
        evaluator: a :class:`~colbench_env.evaluation.backend.BackendEvaluator` to share (backend),
            or ``"reference"`` / ``"python"``: the semantics of the env's own evaluator (a
            single-worker pool started on first use and closed with the env; ``None`` =
            ``"reference"``, comparable with published numbers). The final ``info`` carries
            ``eval_reason`` (why the reward is below 1), ``eval_tests`` (one outcome per test) and
            ``eval_semantics``.
        renderer: a :class:`~colbench_env.evaluation.render.Renderer` to share (frontend).
        similarity: ``"visual"`` (offline default), ``"clip"``, or a callable ``(img, img) -> float``
            (frontend).
        render_obs_size: ``(width, height)`` of the images in the frontend human's observation.
        render_mode: ``None`` or ``"ansi"`` (the dialogue as text).
    """

    metadata = {"name": "colbench_v0", "render_modes": ["ansi"], "render_fps": 1, "is_parallelizable": True}

    def __init__(
        self,
        kind: str = "backend",
        tasks: Any = "default",
        *,
        split: str | None = None,
        max_turns: int = 10,
        evaluator: Any = None,
        renderer: Any = None,
        similarity: Any = "visual",
        render_obs_size: tuple[int, int] = (256, 320),
        render_mode: str | None = None,
    ):
        super().__init__()
        if kind not in ("backend", "frontend"):
            raise ValueError(f"kind must be 'backend' or 'frontend', got {kind!r}")
        if not isinstance(max_turns, int) or max_turns < 1:
            raise ValueError(f"max_turns must be a positive int, got {max_turns!r}")
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode must be None or 'ansi', got {render_mode!r}")
        self.kind = kind
        self.tasks: list = load_tasks(tasks, kind=kind, split=split)
        wrong = [t for t in self.tasks if t.kind != kind]
        if wrong:
            raise ValueError(f"a {kind} env got {wrong[0].kind} task {wrong[0].task_id!r}")
        self.max_turns = max_turns
        self.render_mode = render_mode
        self.reply_limit = BACKEND_REPLY_LIMIT if kind == "backend" else FRONTEND_REPLY_LIMIT
        self.render_obs_size = tuple(render_obs_size)
        if isinstance(evaluator, str) and evaluator not in ("reference", "python"):
            raise ValueError(f"evaluator must be a BackendEvaluator, 'reference' or 'python', got {evaluator!r}")
        self._semantics = evaluator if isinstance(evaluator, str) else "reference"
        self._evaluator = None if isinstance(evaluator, str) else evaluator
        self._own_evaluator = False
        self._renderer = renderer
        self._own_renderer = False
        self._similarity = similarity
        self.possible_agents = [AGENT, HUMAN]
        self.agents = []
        text = UnicodeText(MAX_TEXT)
        agent_obs = {"problem_description": text, "dialogue": text}
        human_obs = dict(agent_obs, hidden_information=text)
        if kind == "frontend":
            w, h = self.render_obs_size
            img = spaces.Box(0, 255, shape=(h, w, 3), dtype=np.uint8)
            human_obs.update(agent_render=img, target_render=img)
        self._observation_spaces = {AGENT: spaces.Dict(agent_obs), HUMAN: spaces.Dict(human_obs)}
        self._action_spaces = {AGENT: UnicodeText(MAX_TEXT), HUMAN: UnicodeText(MAX_TEXT)}
        self._np_random, _ = seeding.np_random(None)
        self.task: BackendTask | FrontendTask | None = None
        self.dialogue: list[dict] = []
        self.turn = 0
        self.answer: str | None = None
        self.result: EpisodeResult | None = None
        self.error: str | None = None
        self.seed_used: int | None = None
        self._agent_render: np.ndarray | None = None
        self._agent_render_image = None
        self._target_render_image = None
        self._target_render: np.ndarray | None = None

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
        self.infos = {a: self._base_info() for a in self.agents}
        self.dialogue = []
        self.turn = 0
        self.answer = None
        self.result = None
        self.error = None
        self.agent_selection = AGENT
        self._agent_render = None
        self._agent_render_image = None
        self._target_render = None
        self._target_render_image = None

    def _base_info(self) -> dict:
        return {"task_id": self.task.task_id if self.task else "", "turn": self.turn}

    # ---------------------------------------------------------------- observe
    def observe(self, agent: str) -> dict:
        if self.task is None:
            raise RuntimeError("call reset() before observe()")
        if agent == AGENT:  # the agent sees its own raw generations too (thought included)
            dialogue = [dict(m) for m in self.dialogue]
        else:
            dialogue = [{"role": m["role"], "content": m["content"]} for m in self.dialogue]
        obs: dict[str, Any] = {
            "problem_description": self.task.problem_description,
            "dialogue": json.dumps(dialogue, ensure_ascii=False),
        }
        if agent == HUMAN:
            obs["hidden_information"] = self._hidden_text()
            if self.kind == "frontend":
                obs["agent_render"] = self._agent_render_array()
                obs["target_render"] = self._target_render_array()
        return obs

    def _hidden_text(self) -> str:
        if self.kind == "backend":
            return (f"{self.task.hidden_information}\n\nThe function I want (ground truth):\n"
                    f"{self.task.ground_truth}")
        return self.task.ground_truth

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
            self.step_agent(action)
        else:
            self.step_human(action)
        self._accumulate_rewards()

    def step_agent(self, action: str) -> AgentTurn:
        """The agent's turn (no reward bookkeeping); returns the parsed turn."""
        self.turn += 1
        parsed = parse_agent_turn(action, last_turn=self.turn >= self.max_turns)
        self.dialogue.append({"role": "assistant", "content": parsed.message, "output": action})
        if parsed.is_answer:
            self.answer = parsed.answer
            self._finish(self.score(self.task, parsed.answer))
        else:
            if self.kind == "frontend":
                self._update_agent_render(parsed.message)
            self.agent_selection = HUMAN
            self.infos = {a: self._base_info() for a in self.agents}
        return parsed

    def step_human(self, reply: str) -> None:
        """The human's turn: the reply (cut to the reply limit) joins the dialogue."""
        self.dialogue.append({"role": "user", "content": reply[: self.reply_limit]})
        self.agent_selection = AGENT
        self.infos = {a: self._base_info() for a in self.agents}

    def fail(self, error: str) -> None:
        """End the episode without an answer (e.g. the simulator failed): reward 0, truncated,
        ``info["error"]`` set."""
        self.error = error
        self.result = EpisodeResult(reward=0.0, success=False, error=error)
        for a in self.agents:
            self.rewards[a] = 0.0
            self.truncations[a] = True
        self.infos = {a: dict(self._base_info(), error=error, success=False, reward=0.0) for a in self.agents}

    def _finish(self, result: EpisodeResult) -> None:
        self.result = result
        reward = float(result["reward"])
        for a in self.agents:
            self.rewards[a] = reward
            self.terminations[a] = True
        info = dict(self._base_info(), answer=self.answer, reward=reward, success=bool(result["success"]))
        info.update({k: v for k, v in result.items() if k not in ("reward", "success")})
        self.infos = {a: dict(info) for a in self.agents}

    # ---------------------------------------------------------------- scoring
    def score(self, task: Any, answer: str) -> EpisodeResult:
        """Score a final answer for ``task`` (backend: sandboxed tests; frontend: similarity)."""
        if self.kind == "backend":
            ev = self._get_evaluator()
            s = ev.score(task, answer)
            return EpisodeResult(reward=float(s.reward), success=bool(s.success), tests_passed=s.passed,
                                 tests_total=s.total, eval_reason=s.reason, eval_semantics=s.semantics,
                                 eval_tests=[t.as_dict() for t in s.tests])
        html = extract_html(answer)
        if not html:
            return EpisodeResult(reward=0.0, success=False, eval_reason="no <html> or <body> in the answer")
        renderer = self._get_renderer()
        answer_img = renderer.render(html)
        sim = self._similarity_fn()(answer_img, self._target_image())
        return EpisodeResult(reward=float(sim), success=False)

    def _get_evaluator(self):
        if self._evaluator is None:
            from .evaluation.backend import BackendEvaluator

            self._evaluator = BackendEvaluator(workers=1, semantics=self._semantics)
            self._own_evaluator = True
        return self._evaluator

    def _get_renderer(self):
        if self._renderer is None:
            from .evaluation.render import Renderer

            self._renderer = Renderer(pool_size=1)
            self._own_renderer = True
        return self._renderer

    def _similarity_fn(self):
        if callable(self._similarity):
            return self._similarity
        from .evaluation.similarity import CLIPSimilarity, VisualSimilarity

        if self._similarity == "visual":
            self._similarity = VisualSimilarity()
        elif self._similarity == "clip":
            self._similarity = CLIPSimilarity()
        else:
            raise ValueError(f"similarity must be 'visual', 'clip' or a callable, got {self._similarity!r}")
        return self._similarity

    # ------------------------------------------------------- frontend renders
    def _target_image(self):
        if self._target_render_image is None:
            self._target_render_image = self._get_renderer().render(self.task.ground_truth)
        return self._target_render_image

    def _update_agent_render(self, message: str) -> None:
        html = extract_html(message)
        if html:
            self._agent_render_image = self._get_renderer().render(html)
            self._agent_render = None

    @property
    def renders(self) -> dict | None:
        """Frontend: ``{"agent": PIL.Image | None, "target": PIL.Image}`` (what the human sees)."""
        if self.kind != "frontend" or self.task is None:
            return None
        return {"agent": self._agent_render_image, "target": self._target_image()}

    def _to_obs_array(self, img) -> np.ndarray:
        w, h = self.render_obs_size
        if img is None:
            return np.zeros((h, w, 3), dtype=np.uint8)
        return np.asarray(img.convert("RGB").resize((w, h)), dtype=np.uint8)

    def _agent_render_array(self) -> np.ndarray:
        if self._agent_render is None:
            self._agent_render = self._to_obs_array(self._agent_render_image)
        return self._agent_render

    def _target_render_array(self) -> np.ndarray:
        if self._target_render is None:
            self._target_render = self._to_obs_array(self._target_image())
        return self._target_render

    # ------------------------------------------------------------ trajectory
    def trajectory_record(self) -> dict:
        """The episode so far in the official trajectory format (see :mod:`colbench_env.trajectories`)."""
        rec: dict[str, Any] = {
            "task": self.task.to_record(),
            "dialogue_history": [dict(m) for m in self.dialogue],
            "answer": self.answer if self.answer is not None else "",
        }
        if self.result is not None:
            rec["reward"] = float(self.result["reward"])
            rec["success"] = bool(self.result["success"])
        rec["task_id"] = self.task.task_id
        if self.seed_used is not None:
            rec["seed"] = self.seed_used
        if self.error:
            rec["error"] = self.error
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
            lines.append(f"-> reward {self.result['reward']:.3f} success {self.result['success']}")
        return "\n".join(lines)

    def close(self) -> None:
        if self._own_evaluator and self._evaluator is not None:
            self._evaluator.close()
            self._evaluator = None
            self._own_evaluator = False
        if self._own_renderer and self._renderer is not None:
            self._renderer.close()
            self._renderer = None
            self._own_renderer = False
