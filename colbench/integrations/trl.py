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

The same episodes from a ``colbench serve`` server instead (TRL's OpenEnv pattern: each environment
holds an OpenEnv WebSocket session; the tasks, the human, the sandbox and Chromium stay on the
server's machine, the trainer's side needs only colbench's core and ``openenv``)::

    colbench = ColBenchServerEnvironments("http://envs-host:8000")     # colbench serve --max-sessions >= the
    trainer = GRPOTrainer(model=model, args=args,                        # generation batch (one session per
                          train_dataset=colbench.dataset(), environment_factory=colbench)   # rollout in flight)
    trainer.train(); colbench.close()

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
* **In process or served, one mapping.** :class:`ColBenchEnvironments` plays each episode on a gym
  env in this process; :class:`ColBenchServerEnvironments` plays it on a ``colbench serve``
  session (:mod:`colbench.integrations.openenv`: an action ``{"message": turn}``, the human's reply
  the last message of the observation's dialogue, the reward in the final observation). The tools,
  their texts, the turn rule and the reward are the same; both environments are
  :class:`ColBenchEnvironment`, so TRL logs the reward under the same name.
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

import json
import threading
import urllib.error
import urllib.request
from typing import Any

from colbench_env.protocol import ANSWER_MARKER, MAX_TURNS, OUTPUT_MARKER

from ._common import EpisodeParts

__all__ = ["ColBenchEnvironment", "ColBenchEnvironments", "ColBenchServerEnvironments", "tool_instructions"]

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


class _LocalEpisode:
    """A ColBench episode in this process: a gym env made from the shared ``parts``."""

    def __init__(self, parts: EpisodeParts):
        self._env = parts.make_env()

    def reset(self, task_id: str) -> str:
        obs, _ = self._env.reset(options={"task_id": task_id})
        return obs["problem_description"]

    def step(self, action: str) -> tuple[str | None, float, bool]:
        """``(the human's reply or None when the episode ended, reward, the human failed)``."""
        _, reward, terminated, truncated, _ = self._env.step(action)
        if not (terminated or truncated):
            return self._env.dialogue[-1]["content"], 0.0, False
        return None, float(reward), bool(truncated)

    def record(self) -> dict:
        return self._env.trajectory_record()

    def close(self) -> None:
        self._env.close()


class _ServedEpisode:
    """A ColBench episode on one ``colbench serve`` session, through OpenEnv's ``GenericEnvClient``
    (sync). The WebSocket opens on the first reset; a session the server closed meanwhile (its idle
    timeout) is replaced by a new one at the next reset."""

    def __init__(self, url: str, message_timeout_s: float):
        self._url, self._timeout = url, message_timeout_s
        self._client = None
        self._obs: dict = {}
        self._reward = 0.0

    def _connect(self):
        from openenv import GenericEnvClient

        self._client = GenericEnvClient(base_url=self._url, message_timeout_s=self._timeout).sync()
        try:
            self._client.connect()
        except Exception:
            self.close()
            raise
        return self._client

    def reset(self, task_id: str) -> str:
        from websockets.exceptions import ConnectionClosed

        try:
            result = (self._client or self._connect()).reset(task_id=task_id)
        except (ConnectionClosed, ConnectionError, RuntimeError) as e:
            # the server reaped this session (idle timeout) or dropped the connection: one new session
            if isinstance(e, RuntimeError) and "session was closed" not in str(e):
                raise
            self.close()
            result = self._connect().reset(task_id=task_id)
        self._obs, self._reward = result.observation, 0.0
        return self._obs["problem_description"]

    def step(self, action: str) -> tuple[str | None, float, bool]:
        result = self._client.step({"message": action})
        self._obs = result.observation
        if not result.done:
            return self._obs["dialogue"][-1]["content"], 0.0, False
        self._reward = float(result.reward or 0.0)
        return None, self._reward, self._obs.get("error") is not None

    def record(self) -> dict:
        """The agent's view of the episode (the served env keeps the task's training-time information)."""
        return {"task": {"task_id": self._obs.get("task_id"), "problem_description": self._obs.get("problem_description")},
                "dialogue_history": list(self._obs.get("dialogue", [])), "reward": self._reward}

    def close(self) -> None:
        client, self._client = self._client, None
        if client is not None:
            try:
                client.close()
            except Exception:  # noqa: BLE001 - the connection is gone either way
                pass


class ColBenchEnvironment:
    """One ColBench episode, driven by TRL's ``GRPOTrainer`` as a tool-calling environment (see the
    module docstring for the mapping). Made by :class:`ColBenchEnvironments` (in process) or
    :class:`ColBenchServerEnvironments` (on a ``colbench serve`` session); every public method
    except ``reset`` and ``get_reward`` is a tool the policy sees, its docstring the tool's schema.

    Attributes (not tools): :attr:`record` (the episode, for logs: in process, the official trajectory
    format, whose ``task`` holds training-time information; served, the agent's view:
    ``{task: {task_id, problem_description}, dialogue_history, reward}``), :attr:`done`.
    """

    _CLOSING = {"answer": "Your answer was received. The conversation is over.",
                "last": "That was your last turn: your message was taken as your final answer. The conversation "
                        "is over.",
                "error": "The human could not reply. The conversation is over."}

    def __init__(self, episode: "_LocalEpisode | _ServedEpisode"):
        self._episode = episode
        self._done = False
        self._reward = 0.0

    def reset(self, **row: Any) -> str:
        """Start the episode on ``row["task_id"]``; returns the human's request."""
        if "task_id" not in row:
            raise ValueError("the dataset row has no 'task_id': build the dataset with the factory's dataset()")
        request = self._episode.reset(row["task_id"])
        self._done, self._reward = False, 0.0
        return request

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
        """The episode so far (see the class docstring; in process its task record holds the
        training-time information: never show it to the policy)."""
        return self._episode.record()

    def _turn(self, action: str) -> str | None:
        """Step the episode with ``action``: the human's reply, or ``None`` when the episode ended."""
        if self._done:
            raise ValueError("The conversation is over: you already gave your final answer.")
        reply, reward, failed = self._episode.step(action)
        if reply is not None:
            return reply
        self._done, self._reward = True, reward
        if failed:
            raise RuntimeError(self._CLOSING["error"])
        return None


def _dataset(kind: str, max_turns: int, task_ids: list[str], repeats: int):
    """One row per task id (``repeats`` times each, in order): ``prompt`` (the system message of
    :func:`tool_instructions` and an empty user message, which ``reset`` fills with the request) and
    ``task_id``."""
    from datasets import Dataset

    if not isinstance(repeats, int) or repeats < 1:
        raise ValueError(f"repeats must be a positive int, got {repeats!r}")
    system = tool_instructions(kind, max_turns)
    ids = [str(i) for i in task_ids for _ in range(repeats)]
    return Dataset.from_dict({"prompt": [[{"role": "system", "content": system}, {"role": "user", "content": ""}]
                                         for _ in ids], "task_id": ids})


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
        return ColBenchEnvironment(_LocalEpisode(self.parts))

    def dataset(self, repeats: int = 1):
        """A ``datasets.Dataset`` with one row per task (``repeats`` times each, in task order):
        ``prompt`` (the system message of :func:`tool_instructions` and an empty user message, which
        ``reset`` fills with the request) and ``task_id``."""
        return _dataset(self.kind, self.parts.max_turns, [t.task_id for t in self.parts.tasks], repeats)

    def close(self) -> None:
        self.parts.close()

    def __enter__(self) -> "ColBenchEnvironments":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class ColBenchServerEnvironments:
    """The ``environment_factory`` for TRL's ``GRPOTrainer`` whose environments play on a ``colbench
    serve`` server (TRL's OpenEnv pattern): each call makes a :class:`ColBenchEnvironment` holding
    one OpenEnv WebSocket session of the server (opened at its first ``reset``, kept for the next
    episodes); :meth:`close` closes every session made here. The server simulates the human and
    scores; nothing of a task but its id and request reaches this side.

    Args:
        url: the server's base URL (``http://HOST:PORT``, as ``colbench serve`` prints it).
        message_timeout_s: seconds to wait for the server's answer to one reset or step (a step
            includes the human's reply and, at the end, the scoring).

    On construction the server's ``GET /tasks`` gives :attr:`kind`, :attr:`max_turns` and the task
    ids of :meth:`dataset`. The server must allow as many sessions (``--max-sessions``) as the
    trainer has rollouts in flight (TRL's generation batch), and its ``--idle-timeout`` should exceed
    the time between two episodes of one environment (an optimisation step); a reaped session is
    replaced at the next reset.
    """

    def __init__(self, url: str, *, message_timeout_s: float = 300.0):
        self.url = url.rstrip("/")
        self.message_timeout_s = message_timeout_s
        try:
            with urllib.request.urlopen(f"{self.url}/tasks", timeout=30) as response:
                listing = json.loads(response.read())
        except (urllib.error.URLError, OSError, ValueError) as e:
            raise ConnectionError(f"{self.url}/tasks: not a colbench serve server ({e})") from None
        self.env_id: str = listing["env"]
        self.kind: str = listing["kind"]
        self.max_turns: int = int(listing["max_turns"])
        self.task_ids: list[str] = [str(i) for i in listing["task_ids"]]
        self._episodes: list[_ServedEpisode] = []
        self._lock = threading.Lock()

    def __call__(self) -> ColBenchEnvironment:
        episode = _ServedEpisode(self.url, self.message_timeout_s)
        with self._lock:
            self._episodes.append(episode)
        return ColBenchEnvironment(episode)

    def dataset(self, repeats: int = 1):
        """As :meth:`ColBenchEnvironments.dataset`, with the server's task ids."""
        return _dataset(self.kind, self.max_turns, self.task_ids, repeats)

    def close(self) -> None:
        """Close every session made here (the server frees their envs at once)."""
        with self._lock:
            episodes, self._episodes = self._episodes, []
        for episode in episodes:
            episode.close()

    def __enter__(self) -> "ColBenchServerEnvironments":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
