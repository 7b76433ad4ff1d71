"""The agent interface and the basic agents.

An agent maps a ColBench observation (``{"problem_description": str, "dialogue": JSON str}``) to its
next generation (a thought, then ``OUTPUT:`` and the message; ``I WANT TO ANSWER:`` to answer).
Custom agents subclass :class:`Agent` or are plain callables (wrap them with :func:`as_agent`).
"""
from __future__ import annotations

import dataclasses
import json
import os
import threading
from abc import ABC, abstractmethod
from typing import Any, Callable, Sequence

from colbench_env.lm.base import GeneratedText, Generation, LMBackend, SamplingParams, derived_seed
from colbench_env.lm.tokens import TurnTokens, tokenizer_fingerprint
from colbench_env.protocol import ANSWER_MARKER, MAX_TURNS, OUTPUT_MARKER
from colbench_env.prompting import observation_to_messages

__all__ = ["Agent", "CallableAgent", "ScriptedAgent", "LMAgent", "as_agent"]


class Agent(ABC):
    """Acts in ColBench environments.

    Subclasses implement :meth:`act`; :meth:`act_batch` answers many observations at once (LM agents
    override it with one batched generation) and must not depend on call order.
    """

    @abstractmethod
    def act(self, observation: dict) -> str:
        """The next generation for ``observation``."""

    def act_batch(self, observations: Sequence[dict]) -> list[str]:
        """One generation per observation, in order."""
        return [self.act(o) for o in observations]

    def reset(self) -> None:
        """Called before each episode (sequential runs); stateless agents need nothing."""

    def __call__(self, observation: dict) -> str:
        return self.act(observation)


class CallableAgent(Agent):
    """An agent from a plain function ``observation -> str``."""

    def __init__(self, fn: Callable[[dict], str]):
        if not callable(fn):
            raise TypeError(f"expected a callable, got {type(fn).__name__}")
        self.fn = fn

    def act(self, observation: dict) -> str:
        out = self.fn(observation)
        if not isinstance(out, str):
            raise TypeError(f"the agent function returned {type(out).__name__}, expected str")
        return out


def as_agent(obj: Any) -> Agent:
    """An :class:`Agent` from an agent or a callable."""
    if isinstance(obj, Agent):
        return obj
    if callable(obj):
        return CallableAgent(obj)
    raise TypeError(f"an agent must be an Agent or a callable, got {type(obj).__name__}")


class ScriptedAgent(Agent):
    """Says ``messages[k]`` on its ``k``-th turn (counted from the observation, so it is stateless
    and batch-safe); after the script it repeats the last message.

    The default script is a fixed, LLM-free lower bound for tests and throughput that asks two broad
    questions, then answers without using the replies:

    * ``kind="backend"``: asks about the rules, then answers with a function of the requested
      signature that returns ``None`` (scores 0);
    * ``kind="frontend"``: asks about the style and the sections, then answers with a plain page
      (:meth:`plain_page`: white, a heading and the request's first sentence, in the tasks' Tailwind
      2.2.19): what a page scores with no design information at all.

    Args:
        messages: the script (overrides the default one).
        kind: ``"backend"`` or ``"frontend"`` (which default script; ``colbench run --agent scripted``
            passes the env's).
    """

    batched = False  # stateless: rollout episodes call it from their own threads

    DEFAULT_QUESTIONS = ("What exactly should the function do? Please tell me your specific rules.",
                         "Are there any thresholds, special cases or rounding rules I should know about?")
    FRONTEND_QUESTIONS = ("What style do you want for the page: its colours, fonts and overall feel?",
                          "Which sections should the page have, in what order, and what should the headline say?")
    #: the plain page (:meth:`plain_page`); ``{title}`` and ``{text}`` are filled in, HTML-escaped
    PLAIN_PAGE = ('<html lang="en">\n<head>\n  <meta charset="utf-8">\n  <title>{title}</title>\n'
                  '  <link href="https://cdn.jsdelivr.net/npm/tailwindcss@2.2.19/dist/tailwind.min.css" '
                  'rel="stylesheet">\n</head>\n<body class="bg-white text-gray-800">\n'
                  '<header class="px-6 py-8 text-center">\n  <h1 class="text-3xl font-bold">{title}</h1>\n</header>\n'
                  '<main class="max-w-3xl mx-auto px-6 py-6">\n  <p class="text-lg">{text}</p>\n</main>\n'
                  '</body>\n</html>')

    def __init__(self, messages: Sequence[str] | None = None, kind: str = "backend"):
        if kind not in ("backend", "frontend"):
            raise ValueError(f"kind must be 'backend' or 'frontend', got {kind!r}")
        self.messages = list(messages) if messages is not None else None
        if self.messages is not None and not self.messages:
            raise ValueError("messages must not be empty")
        self.kind = kind

    @classmethod
    def plain_page(cls, problem_description: str) -> str:
        """A page written without any design information: white, the heading "Welcome" and the
        request's first sentence as its one paragraph."""
        import html
        import re

        first = re.split(r"(?<=[.!?])\s", problem_description.strip(), maxsplit=1)[0]
        return cls.PLAIN_PAGE.format(title="Welcome", text=html.escape(first))

    def act(self, observation: dict) -> str:
        turn = sum(1 for m in json.loads(observation["dialogue"]) if m["role"] == "assistant")
        if self.messages is not None:
            return self.messages[min(turn, len(self.messages) - 1)]
        questions = self.FRONTEND_QUESTIONS if self.kind == "frontend" else self.DEFAULT_QUESTIONS
        if turn < len(questions):
            return f"{OUTPUT_MARKER} {questions[turn]}"
        if self.kind == "frontend":
            return f"{OUTPUT_MARKER} {ANSWER_MARKER}\n{self.plain_page(observation['problem_description'])}"
        signature = observation["problem_description"].rsplit("def ", 1)[-1].strip().rstrip(".")
        return f"{OUTPUT_MARKER} {ANSWER_MARKER}\n```python\ndef {signature}:\n    return None\n```"


class LMAgent(Agent):
    """An LM-backed agent with the paper's agent prompt (:mod:`colbench_env.prompting`).

    Args:
        lm: the language model: an :class:`~colbench_env.lm.base.LMBackend`, or a name for
            :func:`colbench_env.lm.make_backend` (``"smollm2"`` -- the embedded
            SmolLM2-135M-Instruct --, ``"hf"``, ``"openai"``).
        kind: ``"backend"`` or ``"frontend"`` (which instructions).
        max_turns: told to the agent in its instructions.
        sampling: generation settings (greedy, 512 new tokens by default). With a ``seed``, call
            ``c`` of this agent samples with :func:`~colbench_env.lm.base.derived_seed` ``(seed, c)``:
            reproducible for the same sequence of calls, and no two turns share random numbers.
        prompt_style: ``"paper"`` (default) or ``"compact"`` (a worked example, for very small
            policies; :data:`colbench_env.prompting.PROMPT_STYLES`).
        record_tokens: attach to each action the token ids the policy saw and produced
            (:class:`~colbench_env.lm.tokens.TurnTokens` on the returned
            :class:`~colbench_env.lm.base.GeneratedText`; the environment records them on the
            dialogue entry): always from a local model, from a server when it gives them
            (vLLM's ``return_token_ids``), else the server's token counts.
        record_logprobs: also ask for, and record, the log-prob of each generated token (a local
            model keeps every step's logits for it; a server must answer ``logprobs``).
        tokenizer: the policy's tokenizer (an object, or a name or path for
            :func:`colbench_env.lm.models.resolve_model`), whose
            :func:`~colbench_env.lm.tokens.tokenizer_fingerprint` the recorded ids carry so that a
            trainer knows they are in its own tokens; default: the backend's (a local model), none
            for a server (:func:`colbench.agents.served.served_policy` passes the served model's).
        lm_kwargs: passed to :func:`make_backend` when ``lm`` is a name.

    ``batched`` is the backend's (:attr:`~colbench_env.lm.base.LMBackend.batched`): the rollout
    runner gathers a local model's observations into batched calls, and lets each episode call an
    HTTP backend on its own (the agent is thread-safe; its call counter is locked).
    """

    def __init__(self, lm: Any = "smollm2", *, kind: str = "backend", max_turns: int = MAX_TURNS,
                 sampling: SamplingParams | None = None, prompt_style: str = "paper", record_tokens: bool = True,
                 record_logprobs: bool = False, tokenizer: Any = None, **lm_kwargs: Any):
        from colbench_env.prompting import PROMPT_STYLES

        if prompt_style not in PROMPT_STYLES:
            raise ValueError(f"prompt_style must be one of {PROMPT_STYLES}, got {prompt_style!r}")
        if isinstance(lm, LMBackend):
            self.lm = lm
        else:
            from colbench_env.lm import make_backend

            self.lm = make_backend(lm, **lm_kwargs)
        self.kind = kind
        self.max_turns = max_turns
        self.sampling = sampling or SamplingParams(max_new_tokens=512, temperature=0.0)
        self.prompt_style = prompt_style
        self.record_tokens = bool(record_tokens)
        self.record_logprobs = bool(record_logprobs)
        #: :func:`~colbench_env.lm.tokens.tokenizer_fingerprint` of the policy's tokenizer (``None``: unknown)
        self.token_fingerprint = _fingerprint(tokenizer if tokenizer is not None else getattr(self.lm, "tokenizer", None))
        self._calls = 0
        self._calls_lock = threading.Lock()

    @property
    def batched(self) -> bool:
        """Whether rollouts should gather this agent's calls into batches (its backend's ``batched``)."""
        return bool(getattr(self.lm, "batched", True))

    @property
    def generated_tokens(self) -> int | None:
        """Tokens its model generated so far (:attr:`~colbench_env.lm.base.LMBackend.generated_tokens`;
        ``None`` when the backend cannot count them): what progress displays divide by the time."""
        return getattr(self.lm, "generated_tokens", None)

    def messages(self, observation: dict) -> list[dict]:
        """The chat the LM sees for ``observation``."""
        return observation_to_messages(observation, kind=self.kind, max_turns=self.max_turns, style=self.prompt_style)

    def act(self, observation: dict) -> str:
        return self.act_batch([observation])[0]

    def act_batch(self, observations: Sequence[dict]) -> list[str]:
        if not observations:
            return []
        params = self.sampling
        with self._calls_lock:
            call, self._calls = self._calls, self._calls + 1
        if params.seed is not None and params.temperature > 0:
            params = dataclasses.replace(params, seed=derived_seed(params.seed, call))
        if self.record_tokens:
            params = dataclasses.replace(params, return_token_ids=True,
                                         return_logprobs=params.return_logprobs or self.record_logprobs)
        gens = self.lm.generate([self.messages(o) for o in observations], params)
        n = self.sampling.n
        # the text, knowing whether it ended at an end token or was cut at max_new_tokens (and its ids)
        return [GeneratedText(g.text, g.finish_reason, self._tokens(g) if self.record_tokens else None)
                for g in (gens[i * n] for i in range(len(observations)))]

    def _tokens(self, gen: Generation) -> TurnTokens:
        """What :attr:`record_tokens` attaches to an action: the generation's ids, else a server's counts;
        its log-probs when asked for and one per generated id."""
        usage = gen.meta.get("usage") or {}
        logprobs = gen.logprobs if self.record_logprobs or self.sampling.return_logprobs else None
        if logprobs is not None and gen.token_ids is not None and len(logprobs) != len(gen.token_ids):
            logprobs = None
        return TurnTokens(prompt_ids=gen.prompt_token_ids, completion_ids=gen.token_ids, logprobs=logprobs,
                          fingerprint=self.token_fingerprint, n_prompt=usage.get("prompt_tokens"),
                          n_completion=usage.get("completion_tokens"))

    def close(self) -> None:
        self.lm.close()


def _fingerprint(tokenizer: Any) -> str | None:
    """:func:`~colbench_env.lm.tokens.tokenizer_fingerprint` of a tokenizer, or of the one of a model
    name or path (:func:`~colbench_env.lm.models.resolve_model`); ``None`` for ``None``."""
    if tokenizer is None:
        return None
    if isinstance(tokenizer, (str, os.PathLike)):
        from colbench_env.lm.models import load_tokenizer, resolve_model

        tokenizer = load_tokenizer(resolve_model(tokenizer, option="tokenizer"))
    return tokenizer_fingerprint(tokenizer)
