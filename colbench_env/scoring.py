"""What each task kind brings into the one ColBench environment: a *scorer*.

A scorer knows everything about an episode that depends on the task kind -- the reply limit, what
the human sees beyond the dialogue, how a final answer is scored -- so that
:class:`~colbench_env.pz_env.ColBenchAECEnv` itself never branches on the kind:

* :class:`BackendScorer`: the sandboxed :class:`~colbench_env.evaluation.backend.BackendEvaluator`
  (reward = fraction of the hidden tests passed, success = all passed);
* :class:`FrontendScorer`: a :class:`~colbench_env.evaluation.render.Renderer` (headless Chromium)
  and a similarity (reward = similarity of the rendered answer to the rendered target; no ``success``
  key: a similarity has no pass/fail); it also keeps the episode's renders, which the human observes.

Heavy parts (an evaluator's worker pool, a Chromium driver, a CLIP model) are created on first use
and closed by :meth:`Scorer.close`; parts passed in are shared and stay the caller's to close.
Scoring jobs and renders run in those pools; the calling thread's wait for them is marked with
:func:`colbench_env.waits.waiting`, so in a rollout an episode waiting for its score holds no
other episode's batch.
"""
from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

from .protocol import extract_html
from .simulators.base import reply_limit
from .waits import waiting

__all__ = ["Scorer", "BackendScorer", "FrontendScorer", "EpisodeResult", "make_scorer"]


class EpisodeResult(dict):
    """The score of a finished episode: ``reward``, ``success`` (backend only: every test passed; the
    frontend has no pass/fail, its reward is a similarity) and kind-specific details
    (backend: ``tests_passed``, ``tests_total``, ``eval_reason``, ``eval_semantics``, ``eval_tests``;
    frontend: ``eval_reason`` when the answer has no page)."""


def _check_evaluator(evaluator: Any) -> None:
    if isinstance(evaluator, str) and evaluator not in ("reference", "python"):
        raise ValueError(f"evaluator must be a BackendEvaluator, 'reference' or 'python', got {evaluator!r}")


class Scorer:
    """The kind-specific part of an episode (base class; see the module docstring).

    The env calls :meth:`start` at each reset, :meth:`agent_message` after each agent turn that does
    not end the episode, :meth:`score` on the final answer, and :meth:`human_observation` /
    :meth:`simulator_renders` when the human is to reply.
    """

    kind: str = ""

    @property
    def reply_limit(self) -> int:
        """Human replies are cut to this many characters."""
        return reply_limit(self.kind)

    def human_spaces(self) -> dict:
        """Spaces of the human's observation entries beyond the dialogue and hidden information."""
        return {}

    def hidden_text(self, task: Any) -> str:
        """The human's ``hidden_information`` observation entry."""
        return task.hidden_information

    def start(self, task: Any) -> None:
        """A new episode on ``task`` begins (drop per-episode state)."""

    def agent_message(self, message: str) -> None:
        """The agent said ``message`` (not its final answer)."""

    def human_observation(self) -> dict:
        """The values of :meth:`human_spaces` now."""
        return {}

    def simulator_renders(self) -> Any:
        """The ``renders`` argument of :meth:`Simulator.reply <colbench_env.simulators.Simulator.reply>`."""
        return None

    def final_answer(self, turn: Any) -> str:
        """The episode's answer given its final :class:`~colbench_env.protocol.AgentTurn` (what
        :meth:`score` receives and the trajectory records); by default ``turn.answer``."""
        return turn.answer

    def score(self, task: Any, answer: str) -> EpisodeResult:
        """Score the final ``answer`` for ``task``."""
        raise NotImplementedError

    def close(self) -> None:
        """Release what this scorer created itself."""


class BackendScorer(Scorer):
    """Backend programming: the answer's function against the hidden tests, in the sandbox.

    Args:
        evaluator: a :class:`~colbench_env.evaluation.backend.BackendEvaluator` to share, or
            ``"reference"`` / ``"python"`` (``None``: ``"reference"``): the semantics of this scorer's
            own single-worker pool, started on first use and closed by :meth:`close`.
    """

    kind = "backend"

    def __init__(self, evaluator: Any = None):
        _check_evaluator(evaluator)
        self._semantics = evaluator if isinstance(evaluator, str) else "reference"
        self._evaluator = None if isinstance(evaluator, str) else evaluator
        self._own_evaluator = False

    @property
    def evaluator(self):
        if self._evaluator is None:
            from .evaluation.backend import BackendEvaluator

            self._evaluator = BackendEvaluator(workers=1, semantics=self._semantics)
            self._own_evaluator = True
        return self._evaluator

    def hidden_text(self, task: Any) -> str:
        return f"{task.hidden_information}\n\nThe function I want (ground truth):\n{task.ground_truth}"

    def score(self, task: Any, answer: str) -> EpisodeResult:
        evaluator = self.evaluator
        with waiting():
            s = evaluator.score(task, answer)
        return EpisodeResult(reward=float(s.reward), success=bool(s.success), tests_passed=s.passed,
                             tests_total=s.total, eval_reason=s.reason, eval_semantics=s.semantics,
                             eval_tests=[t.as_dict() for t in s.tests])

    def close(self) -> None:
        if self._own_evaluator and self._evaluator is not None:
            self._evaluator.close()
        if self._own_evaluator:
            self._evaluator = None
            self._own_evaluator = False


class FrontendScorer(Scorer):
    """Frontend design: the answer's page rendered and compared with the rendered target.

    Args:
        renderer: a :class:`~colbench_env.evaluation.render.Renderer` to share; by default a
            one-driver renderer is started on first use and closed by :meth:`close`.
        similarity: ``"visual"`` (offline default), ``"clip"``, or a callable ``(img, img) -> float``
            (see :func:`colbench_env.evaluation.similarity.make_similarity`).
        render_obs_size: ``(width, height)`` of the images in the human's observation.
    """

    kind = "frontend"

    def __init__(self, renderer: Any = None, similarity: Any = "visual", render_obs_size: tuple = (256, 320)):
        if not (callable(similarity) or similarity in ("visual", "clip")):
            raise ValueError(f"similarity must be 'visual', 'clip' or a callable, got {similarity!r}")
        self._renderer = renderer
        self._own_renderer = False
        self._similarity = similarity
        self.render_obs_size = tuple(render_obs_size)
        self.start(None)

    # -- parts, created on first use
    @property
    def renderer(self):
        if self._renderer is None:
            from .evaluation.render import Renderer

            self._renderer = Renderer(pool_size=1)
            self._own_renderer = True
        return self._renderer

    @property
    def similarity(self):
        if not callable(self._similarity):
            from .evaluation.similarity import make_similarity

            self._similarity = make_similarity(self._similarity)
        return self._similarity

    # -- the episode's renders
    def start(self, task: Any) -> None:
        self._task = task
        self._agent_image = None
        self._agent_html = ""
        self._target_image = None
        self._agent_array: np.ndarray | None = None
        self._target_array: np.ndarray | None = None

    def _render(self, html: str):
        renderer = self.renderer
        with waiting():
            return renderer.render(html)

    def target_image(self):
        """The rendered target page (rendered once per episode)."""
        if self._target_image is None:
            self._target_image = self._render(self._task.ground_truth)
        return self._target_image

    def agent_message(self, message: str) -> None:
        html = extract_html(message)
        if html:
            self._agent_html = html
            self._agent_image = self._render(html)
            self._agent_array = None

    def simulator_renders(self) -> dict:
        """``{"agent": PIL.Image | None, "target": PIL.Image}``: the last page the agent showed (None
        before any) and the target."""
        return {"agent": self._agent_image, "target": self.target_image()}

    def human_spaces(self) -> dict:
        w, h = self.render_obs_size
        img = spaces.Box(0, 255, shape=(h, w, 3), dtype=np.uint8)
        return {"agent_render": img, "target_render": img}

    def human_observation(self) -> dict:
        if self._agent_array is None:
            self._agent_array = self._to_array(self._agent_image)
        if self._target_array is None:
            self._target_array = self._to_array(self.target_image())
        return {"agent_render": self._agent_array, "target_render": self._target_array}

    def _to_array(self, img) -> np.ndarray:
        w, h = self.render_obs_size
        if img is None:
            return np.zeros((h, w, 3), dtype=np.uint8)
        return np.asarray(img.convert("RGB").resize((w, h)), dtype=np.uint8)

    def hidden_text(self, task: Any) -> str:
        return task.ground_truth

    def final_answer(self, turn: Any) -> str:
        """As the reference: the first page in the final turn's whole message (text before
        ``I WANT TO ANSWER:`` included), else the last page the agent showed in an earlier turn of
        this episode, else ``""``."""
        return extract_html(turn.message) or self._agent_html

    def score(self, task: Any, answer: str) -> EpisodeResult:
        html = extract_html(answer)
        if not html:
            return EpisodeResult(reward=0.0, eval_reason="no <html> or <body> in the answer")
        target = self.target_image() if task is self._task else self._render(task.ground_truth)
        return EpisodeResult(reward=float(self.similarity(self._render(html), target)))

    def close(self) -> None:
        if self._own_renderer and self._renderer is not None:
            self._renderer.close()
        if self._own_renderer:
            self._renderer = None
            self._own_renderer = False


def make_scorer(kind: str, *, evaluator: Any = None, renderer: Any = None, similarity: Any = "visual",
                render_obs_size: tuple = (256, 320)) -> Scorer:
    """The scorer of a task kind (``"backend"``: ``evaluator``; ``"frontend"``: ``renderer``,
    ``similarity``, ``render_obs_size``)."""
    _check_evaluator(evaluator)
    if kind == "backend":
        return BackendScorer(evaluator)
    if kind == "frontend":
        return FrontendScorer(renderer, similarity, render_obs_size)
    raise ValueError(f"kind must be 'backend' or 'frontend', got {kind!r}")
