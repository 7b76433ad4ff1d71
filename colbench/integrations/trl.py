"""ColBench as an environment of TRL's ``GRPOTrainer`` (its ``environment_factory`` mode; tested
with TRL 1.16.0, transformers 5.25.0)::

    from trl import GRPOConfig, GRPOTrainer
    from colbench.integrations.trl import ColBenchEnvironments

    colbench = ColBenchEnvironments("backend", tasks="backend_tasks/train.jsonl")
    trainer = GRPOTrainer(model=model, args=GRPOConfig(max_completion_length=4096, ...),
                          train_dataset=colbench.dataset(), environment_factory=colbench)

(``max_completion_length`` bounds the whole dialogue: every turn and every reply. Leave
``max_tool_calling_iterations`` unset: ColBench's ``max_turns`` ends the dialogue, and a call TRL
leaves unexecuted at that limit is a turn the policy wrote but never played.)

How the ColBench episode maps onto TRL's environment mode (the specification):

* **One rollout = one episode.** TRL makes one :class:`ColBenchEnvironment` per rollout (through
  :class:`ColBenchEnvironments`, the factory) and calls ``reset(**row)`` with the dataset row:
  the env starts the episode on the row's ``task_id`` and returns the human's request, which TRL
  appends to the row's (empty) user message. The system message, from :meth:`ColBenchEnvironments.dataset`,
  holds the instructions; the training-time information (hidden facts, ground truth, tests) is
  never in the dataset nor in anything returned to the policy.
* **Turns are tool calls.** TRL's environment mode is tool calling: an assistant message that calls
  no tool ends the rollout. So the agent's ColBench turn is a call of one of two tools, each one
  step of :class:`colbench_env.gym_env.ColBenchEnv` (its turn protocol, its human, its scorer):
  ``ask_human(message)`` is the action ``"OUTPUT:\\n" + message`` and returns the human's reply
  (cut to 400 / 1000 characters as in ColBench); ``submit_answer(answer)`` is
  ``"OUTPUT:\\nI WANT TO ANSWER:\\n" + answer`` and ends the episode. The newline keeps code from
  starting with a space, which the reference scorer would not compile. The ColBench rules apply
  unchanged: a message containing ``I WANT TO ANSWER:`` ends the episode with what follows it,
  and the ``max_turns``-th turn is taken as the answer whatever the tool. The assistant's text
  beside the call is the thought the human never sees. A call after the episode ended, or with a
  non-string argument, fails (TRL shows the error to the model) and is not a turn.
* **Reward only at the end.** ``get_reward()`` (TRL's environment-owned reward, logged as
  ``rewards/ColBenchEnvironment/mean``) is the score ColBench's scorer gave the answer: backend,
  the fraction of hidden tests passed; frontend, the rendered page's similarity to the target.
  An episode that never answered (the model stopped calling tools, or ran out of
  ``max_completion_length``) scores 0. GRPO gives every policy token of the rollout that reward's
  group-relative advantage.
* **The human's turns are not trained.** They come back as tool results, which TRL masks out of the
  loss (``tool_mask``); they still count against ``max_completion_length``.
* **Context.** The rollout is one growing sequence: later turns see the earlier ones as generated
  (thoughts and tool-call syntax included), where ColBench's own agent sees only the messages the
  human saw (:mod:`colbench_env.prompting`). TRL's environment mode cannot rewrite the context
  between turns.

The model's chat template must be one TRL can parse tool calls from (TRL 1.16: the Qwen2.5/3,
Llama-3.1/3.2, GPT-OSS, GLM-4-MoE, Gemma-4, DeepSeek-R1-distill, LFM2 families).
"""
from __future__ import annotations

from typing import Any

from colbench_env.protocol import ANSWER_MARKER, MAX_TURNS, OUTPUT_MARKER

from ._common import EpisodeParts

__all__ = ["ColBenchEnvironment", "ColBenchEnvironments", "tool_instructions"]

_TASK = {"backend": "write a Python function", "frontend": "design a web page with HTML and Tailwind CSS"}
_ANSWER = {"backend": "the complete Python function in a ```python code block, with exactly the signature given "
                      "in the request",
           "frontend": "the complete HTML document (<html>...</html>); link Tailwind with <link "
                       "href=\"https://cdn.jsdelivr.net/npm/tailwindcss@2.2.19/dist/tailwind.min.css\" "
                       "rel=\"stylesheet\"> and use images only as https://picsum.photos/id/48/W/H"}


def tool_instructions(kind: str = "backend", max_turns: int = MAX_TURNS) -> str:
    """The system message of the tool form of ColBench: ColBench's agent instructions with the two
    tools in place of the ``OUTPUT:`` / ``I WANT TO ANSWER:`` markers."""
    if kind not in _TASK:
        raise ValueError(f"kind must be 'backend' or 'frontend', got {kind!r}")
    draft = " or show a draft page (a complete HTML document) to get the most important differences from " \
            "the page they want" if kind == "frontend" else ""
    return (f"You are a helpful LLM agent. You help a human user {_TASK[kind]}.\n"
            "The request is personalised: the human has exact details in mind that they did not state.\n"
            f"1) Call ask_human with one short question per turn{draft} to find out these hidden details; the "
            "human answers in at most two sentences and only knows their own requirements.\n"
            f"2) You have at most {max_turns} turns (one tool call each); your last turn is taken as your "
            "final answer.\n"
            f"3) When you are ready, call submit_answer with {_ANSWER[kind]}.")


class ColBenchEnvironment:
    """One ColBench episode, driven by TRL's ``GRPOTrainer`` as a tool-calling environment (see the
    module docstring for the mapping). Made by :class:`ColBenchEnvironments`; every public method
    except ``reset`` and ``get_reward`` is a tool the policy sees, its docstring the tool's schema.

    Attributes (not tools): :attr:`record` (the episode in the official trajectory format, for logs:
    its ``task`` holds training-time information), :attr:`done`.
    """

    _CLOSING = {"answer": "Your answer was received. The conversation is over.",
                "last": "That was your last turn: your message was taken as your final answer. The conversation "
                        "is over.",
                "error": "The human could not reply. The conversation is over."}

    def __init__(self, parts: EpisodeParts):
        self._parts = parts
        self._env = parts.make_env()
        self._done = False
        self._reward = 0.0

    def reset(self, **row: Any) -> str:
        """Start the episode on ``row["task_id"]``; returns the human's request."""
        if "task_id" not in row:
            raise ValueError("the dataset row has no 'task_id': build the dataset with ColBenchEnvironments.dataset()")
        obs, _ = self._env.reset(options={"task_id": row["task_id"]})
        self._done, self._reward = False, 0.0
        return obs["problem_description"]

    def ask_human(self, message: str) -> str:
        """Send one message to the human (a short question, or a draft for them to comment on) and get their reply.

        Args:
            message: What to say to the human.

        Returns:
            The human's reply.
        """
        if not isinstance(message, str):
            raise TypeError("message must be a string")
        reply = self._turn(f"{OUTPUT_MARKER}\n{message}")
        return reply if reply is not None else self._CLOSING["answer" if ANSWER_MARKER in message else "last"]

    def submit_answer(self, answer: str) -> str:
        """Give your final answer to the human's request. This ends the conversation.

        Args:
            answer: The complete answer: the Python function, or the HTML document.

        Returns:
            A confirmation that the conversation is over.
        """
        if not isinstance(answer, str):
            raise TypeError("answer must be a string")
        self._turn(f"{OUTPUT_MARKER}\n{ANSWER_MARKER}\n{answer}")
        return self._CLOSING["answer"]

    def get_reward(self) -> float:
        """The score of the episode's answer (0 when it ended without one)."""
        return self._reward

    @property
    def done(self) -> bool:
        """The episode has ended (answered, or the human failed)."""
        return self._done

    @property
    def record(self) -> dict:
        """The episode so far in the official trajectory format (its task record holds the training-time
        information: never show it to the policy)."""
        return self._env.trajectory_record()

    def _turn(self, action: str) -> str | None:
        """Step the env with ``action``: the human's reply, or ``None`` when the episode ended."""
        if self._done:
            raise ValueError("The conversation is over: you already gave your final answer.")
        _, reward, terminated, truncated, _ = self._env.step(action)
        if not (terminated or truncated):
            return self._env.dialogue[-1]["content"]
        self._done, self._reward = True, float(reward)
        if truncated:
            raise RuntimeError(self._CLOSING["error"])
        return None


class ColBenchEnvironments:
    """The ``environment_factory`` for TRL's ``GRPOTrainer``: each call makes a
    :class:`ColBenchEnvironment`; all of them share the tasks, the human simulator and the scorer's
    evaluator (backend) or browser (frontend), which :meth:`close` releases.

    Args: those of :class:`colbench.integrations._common.EpisodeParts` (``kind``, ``tasks``, ``split``,
    ``simulator``, ``simulator_kwargs``, ``max_turns``, ``evaluator``, ``similarity``, ``eval_workers``).
    """

    def __init__(self, kind: str = "backend", tasks: Any = "default", **kwargs: Any):
        self.parts = EpisodeParts(kind, tasks, **kwargs)

    @property
    def kind(self) -> str:
        return self.parts.kind

    def __call__(self) -> ColBenchEnvironment:
        return ColBenchEnvironment(self.parts)

    def dataset(self, repeats: int = 1):
        """A ``datasets.Dataset`` with one row per task (``repeats`` times each, in task order):
        ``prompt`` (the system message of :func:`tool_instructions` and an empty user message, which
        ``reset`` fills with the request) and ``task_id``."""
        from datasets import Dataset

        if not isinstance(repeats, int) or repeats < 1:
            raise ValueError(f"repeats must be a positive int, got {repeats!r}")
        system = tool_instructions(self.kind, self.parts.max_turns)
        ids = [t.task_id for t in self.parts.tasks for _ in range(repeats)]
        return Dataset.from_dict({"prompt": [[{"role": "system", "content": system}, {"role": "user", "content": ""}]
                                             for _ in ids], "task_id": [str(i) for i in ids]})

    def close(self) -> None:
        self.parts.close()

    def __enter__(self) -> "ColBenchEnvironments":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
