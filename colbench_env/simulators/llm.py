"""A simulated human played by an LM (as in the paper: a strong LLM prompted with the hidden
information)."""
from __future__ import annotations

from typing import Any, Sequence

from ..lm import BackendError, LMBackend, SamplingParams, make_backend
from .base import Simulator, SimulatorError, reply_limit
from .prompts import BACKEND_HUMAN_SYSTEM, PROMPT_VERSION, backend_prompt, frontend_prompt, prompt_sha256

__all__ = ["LLMSimulator", "human_messages"]

_DEFAULT_MAX_NEW_TOKENS = {"backend": 128, "frontend": 320}


class LLMSimulator(Simulator):
    """The human, played by an :class:`~colbench_env.lm.base.LMBackend`.

    Args:
        backend: an ``LMBackend``, or a name for :func:`~colbench_env.lm.make_backend`
            (``"smollm2"``, ``"hf"``, ``"openai"``) built with ``backend_kwargs``.
        kind: ``"backend"`` (programming) or ``"frontend"`` (design).
        temperature: sampling temperature (0: greedy, as in the paper).
        max_new_tokens: generation budget per reply (default 128 backend / 320 frontend).
        seed: sampling seed passed to the backend (used only when ``temperature > 0``).
        backend_kwargs: keyword arguments for ``make_backend`` when ``backend`` is a name.

    Prompts (:mod:`colbench_env.simulators.prompts`, one user message each):

    * backend: the problem description, the hidden information with the instruction to answer
      only from it (and say "I don't know" otherwise), the dialogue so far, and the request for a
      direct answer in at most two sentences; the reply is cut to 400 characters;
    * frontend: the agent's render and the target render as ``image_url`` parts (PNG data URLs,
      agent's first) and the instruction to describe the most outstanding differences as the
      human who wants the target; when the agent showed no page (``renders["agent"] is None``)
      only the target goes along and the human is told to say it saw no page; the reply is cut
      to 1000 characters. Frontend needs a multimodal backend (an OpenAI-compatible VLM server).

    :meth:`reply_batch` answers many episodes with ONE batched ``backend.generate`` call.

    Raises (from :meth:`reply` / :meth:`reply_batch`):
        SimulatorError: the backend failed, or produced an empty reply (never returned silently).
        ValueError: a task of the wrong kind, or frontend renders missing.
    """

    def __init__(
        self,
        backend: LMBackend | str,
        kind: str = "backend",
        *,
        temperature: float = 0.0,
        max_new_tokens: int | None = None,
        seed: int | None = None,
        backend_kwargs: dict | None = None,
    ) -> None:
        if kind not in ("backend", "frontend"):
            raise ValueError(f"kind must be 'backend' or 'frontend', got {kind!r}")
        if max_new_tokens is None:
            max_new_tokens = _DEFAULT_MAX_NEW_TOKENS[kind]
        self.kind = kind
        self.backend = make_backend(backend, **(backend_kwargs or {}))
        # validated by SamplingParams.__post_init__ (max_new_tokens >= 1, temperature >= 0)
        self.params = SamplingParams(max_new_tokens=max_new_tokens, temperature=temperature,
                                     seed=seed if temperature > 0 else None)
        self.limit = reply_limit(kind)

    @property
    def batched(self) -> bool:
        """As its backend's (see :attr:`Simulator.batched`)."""
        return bool(getattr(self.backend, "batched", True))

    # ------------------------------------------------------------------ prompts
    def build_messages(self, task: Any, dialogue: Sequence[dict], renders: Any = None) -> list[dict]:
        """The chat messages sent to the backend for one reply (:func:`human_messages`)."""
        return human_messages(self.kind, task, dialogue, renders)

    # ------------------------------------------------------------------ replies
    def reply(self, task: Any, dialogue: Sequence[dict], renders: Any = None) -> str:
        return self.reply_batch([(task, dialogue, renders)])[0]

    def reply_batch(self, items: Sequence[tuple]) -> list[str]:
        items = [tuple(it) + (None,) * (3 - len(it)) for it in items]
        if not items:
            return []
        conversations = [self.build_messages(*it) for it in items]
        try:
            gens = self.backend.generate(conversations, self.params)
        except BackendError as e:
            raise SimulatorError(f"the simulated human's backend failed: {e}") from e
        if len(gens) != len(items):
            raise SimulatorError(f"the backend returned {len(gens)} generations for {len(items)} conversations")
        replies = []
        for (task, _, _), gen in zip(items, gens):
            text = (gen.text or "").strip()
            if not text:
                raise SimulatorError(f"the simulated human's backend produced an empty reply "
                                     f"(task_id={getattr(task, 'task_id', '?')!r}, finish_reason={gen.finish_reason!r})")
            replies.append(text[: self.limit])
        return replies

    def config(self) -> dict:
        return {"class": type(self).__name__, "kind": self.kind, "prompt_version": PROMPT_VERSION,
                "temperature": self.params.temperature, "max_new_tokens": self.params.max_new_tokens,
                "seed": self.params.seed, "reply_limit": self.limit, "backend": self.backend.config()}

    def identity(self) -> dict:
        """``kind`` ``served`` (an OpenAI-compatible server: ``model`` is the id the server reported in
        its replies, ``None`` before the first; ``model_requested`` the name sent) or ``local`` (``model``:
        the model loaded), the prompt templates' hash, temperature, token budget and prompt version."""
        backend = self.backend.config()
        reported = getattr(self.backend, "reported_models", None)
        served = reported is not None
        return {**super().identity(), "kind": "served" if served else "local",
                "model": (", ".join(reported) or None) if served else backend.get("model"),
                "model_requested": backend.get("model") if served else None,
                "prompt_sha256": prompt_sha256(self.kind), "temperature": self.params.temperature,
                "max_tokens": self.params.max_new_tokens, "version": PROMPT_VERSION}

    def close(self) -> None:
        self.backend.close()


def human_messages(kind: str, task: Any, dialogue: Sequence[dict], renders: Any = None) -> list[dict]:
    """ColBench's human prompt for one reply of a ``kind`` human (see :class:`LLMSimulator`): the
    chat messages an LLM playing the human is given (they hold the task's hidden information).

    Raises:
        ValueError: a task of the other kind, or frontend renders missing.
    """
    task_kind = getattr(task, "kind", None)
    if task_kind != kind:
        raise ValueError(f"LLMSimulator(kind={kind!r}) got a {task_kind!r} task "
                         f"(task_id={getattr(task, 'task_id', '?')!r})")
    if kind == "backend":
        return [{"role": "system", "content": BACKEND_HUMAN_SYSTEM},
                {"role": "user", "content": backend_prompt(task.problem_description, task.hidden_information, dialogue)}]
    from ..lm.openai_compat import image_to_data_url

    if not isinstance(renders, dict) or renders.get("target") is None:
        raise ValueError("a frontend reply needs renders={'agent': PIL.Image | None, 'target': PIL.Image} "
                         f"(task_id={getattr(task, 'task_id', '?')!r})")
    agent_img = renders.get("agent")
    text = frontend_prompt(task.problem_description, dialogue, agent_page_shown=agent_img is not None)
    images = ([agent_img] if agent_img is not None else []) + [renders["target"]]
    parts = [{"type": "text", "text": text}] + [
        {"type": "image_url", "image_url": {"url": image_to_data_url(img)}} for img in images]
    return [{"role": "user", "content": parts}]
