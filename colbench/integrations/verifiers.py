"""ColBench as a ``verifiers`` environment (the ``MultiTurnEnv`` API; tested with verifiers 0.3.1,
where that API is ``verifiers.legacy``, importable as ``import verifiers as vf``).

``vf-eval colbench.integrations.verifiers -a '{"kind": "backend", "tasks": "backend_tasks/test.jsonl"}'
-m MODEL -b http://localhost:8000/v1 -k OPENAI_API_KEY`` evaluates any OpenAI-compatible server on
ColBench; in a script, ``vf.load_environment("colbench.integrations.verifiers", kind="backend", ...)``
or :func:`load_environment` directly (the hub convention: an importable module exposing
``load_environment(**kwargs)``).

How a ColBench episode maps onto a ``MultiTurnEnv`` rollout (the specification):

* **Prompt.** Each dataset row is one task: ``prompt`` is ColBench's agent chat before the first
  turn (:func:`colbench_env.prompting.format_agent_messages`: the instructions, the human's
  request), ``info`` is ``{"task_id": ...}``. Training-time information (hidden facts, ground truth,
  tests) is never in the dataset, the prompts or the results.
* **Model turn.** Each model response is one ColBench agent turn, its text stepped through
  :class:`colbench_env.gym_env.ColBenchEnv` as is (``OUTPUT:``, ``I WANT TO ANSWER:``, the last turn
  taken as the answer: :mod:`colbench_env.protocol`); a response cut at ``max_tokens`` is recorded
  with ``finish_reason="length"`` as ColBench's own rollouts do.
* **env_response is the human.** It asks ColBench's simulator (scripted, or an LLM served over HTTP)
  for its reply to the turn, cut to 400 / 1000 characters, and returns it as the ``user`` message.
  A failing simulator ends the rollout (reward 0, ``final_env_response`` says so).
* **Context.** Each model call sees exactly ColBench's agent context
  (:func:`colbench_env.prompting.observation_to_messages`): earlier agent turns as the messages the
  human saw (the text after ``OUTPUT:``), not their thoughts, so the rollout's prompts are not a
  growing prefix of raw completions (``get_prompt_messages`` is overridden; each trajectory step
  keeps its own prompt, as verifiers allows), and the saved ``completion`` shows the earlier turns
  that way too (the last turn as generated).
* **Stop.** The rollout stops when the ColBench episode ends (the answer) -- at the latest at
  ``max_turns`` agent turns -- or on verifiers' own limits (errors, ``max_total_completion_tokens``).
* **Rubric.** The reward is colbench's scorer's score of the answer, computed by the env when the
  episode ends (backend: fraction of the hidden tests passed, in the sandbox; frontend: similarity
  of the rendered page to the target); 0 when the rollout ended without an answer. Metrics:
  ``colbench_success`` (backend: every test passed) and ``colbench_turns``.
"""
from __future__ import annotations

import asyncio
from typing import Any

import verifiers as vf

from colbench_env.lm.base import GeneratedText
from colbench_env.prompting import PROMPT_STYLES, format_agent_messages, observation_to_messages
from colbench_env.protocol import MAX_TURNS
from colbench_env.simulators import SimulatorError

from ._common import EpisodeParts

__all__ = ["ColBenchMultiTurnEnv", "ColBenchRubric", "load_environment"]


def _messages(chat: list[dict]) -> vf.Messages:
    """ColBench's chat as verifiers' message types."""
    kinds = {"system": vf.SystemMessage, "user": vf.UserMessage, "assistant": vf.AssistantMessage}
    return [kinds[m["role"]](content=m["content"]) for m in chat]


def _text(message: Any) -> str:
    """The text of a response message (a pydantic message or a dict; content a str or text parts)."""
    content = message.get("content") if isinstance(message, dict) else getattr(message, "content", None)
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    return "".join(p.get("text", "") if isinstance(p, dict) else getattr(p, "text", "") or "" for p in content)


class ColBenchRubric(vf.Rubric):
    """The reward is the score ColBench's scorer gave the episode's answer (``state["colbench"]``,
    set by :class:`ColBenchMultiTurnEnv` when the episode ends); 0 without an answer. Metrics (weight
    0): ``colbench_success`` (backend) and ``colbench_turns``."""

    def __init__(self, kind: str = "backend", **kwargs: Any):
        super().__init__(funcs=[self.colbench_reward], **kwargs)
        if kind == "backend":
            self.add_metric(self.colbench_success)
        self.add_metric(self.colbench_turns)

    async def colbench_reward(self, state: vf.State) -> float:
        return float((state.get("colbench") or {}).get("reward", 0.0))

    async def colbench_success(self, state: vf.State) -> float:
        return float(bool((state.get("colbench") or {}).get("success", False)))

    async def colbench_turns(self, state: vf.State) -> float:
        return float((state.get("colbench") or {}).get("turns", 0))


class ColBenchMultiTurnEnv(vf.MultiTurnEnv):
    """ColBench as a ``verifiers`` ``MultiTurnEnv`` (see the module docstring for the mapping).

    Args:
        parts: the shared tasks, human simulator and scorer part
            (:class:`colbench.integrations._common.EpisodeParts`); closed at the env's teardown.
        prompt_style: ColBench's agent instructions, ``"paper"`` or ``"compact"``
            (:data:`colbench_env.prompting.PROMPT_STYLES`).
        num_examples: keep the first ``num_examples`` tasks (``-1``: all).
        **kwargs: passed to ``vf.MultiTurnEnv`` (e.g. ``sampling_args``, ``max_seq_len``).
    """

    def __init__(self, parts: EpisodeParts, *, prompt_style: str = "paper", num_examples: int = -1, **kwargs: Any):
        if prompt_style not in PROMPT_STYLES:
            raise ValueError(f"prompt_style must be one of {PROMPT_STYLES}, got {prompt_style!r}")
        from datasets import Dataset

        self.parts = parts
        self.prompt_style = prompt_style
        tasks = parts.tasks if num_examples < 0 else parts.tasks[:num_examples]
        dataset = Dataset.from_list([
            {"prompt": format_agent_messages(t.problem_description, [], kind=parts.kind, max_turns=parts.max_turns,
                                             style=prompt_style),
             "info": {"task_id": t.task_id}} for t in tasks])
        self._episodes: dict[str, Any] = {}
        super().__init__(dataset=dataset, eval_dataset=dataset, rubric=ColBenchRubric(parts.kind),
                         max_turns=parts.max_turns, **kwargs)

    # ----------------------------------------------------------------- episode
    def _env(self, state: vf.State):
        return self._episodes[state["trajectory_id"]]

    async def setup_state(self, state: vf.State) -> vf.State:
        env = await asyncio.to_thread(self.parts.make_env)
        env.reset(options={"task_id": state["info"]["task_id"]})
        self._episodes[state["trajectory_id"]] = env
        state["colbench"] = None
        return await super().setup_state(state)

    async def add_model_response(self, state: vf.State, prompt_messages: vf.Messages, response: Any) -> None:
        """Record the response (verifiers), then step it through the env as the agent's turn."""
        await super().add_model_response(state, prompt_messages, response)
        message = response.message
        action = GeneratedText(_text(message), "length" if message.finish_reason == "length" else "stop")
        env = self._env(state)
        if not await asyncio.to_thread(env.agent_step, action):  # the answer: scored by the env's scorer
            self._finish(state, env)

    async def env_response(self, messages: vf.Messages, state: vf.State, **kwargs: Any) -> vf.Messages:
        """The human's reply to the agent's last turn: ColBench's simulator, through the env."""
        env = self._env(state)
        try:
            # in a thread: an LLM human is an HTTP call, the frontend request renders the target page
            reply = await asyncio.to_thread(lambda: env.simulator.reply(*env.simulator_request()))
        except SimulatorError as e:
            env.human_step(error=f"simulator failed: {e}")
        else:
            env.human_step(reply)
        if env.transition()[3]:  # truncated: the human failed, the episode ends without an answer
            self._finish(state, env)
            state["final_env_response"] = [vf.UserMessage(content="(the human could not reply)")]
            return state["final_env_response"]
        return [vf.UserMessage(content=env.dialogue[-1]["content"])]

    async def get_prompt_messages(self, state: vf.State) -> vf.Messages:
        """The human replies (``env_response``) to the last turn, then ColBench's agent context."""
        if state["trajectory"]:
            last = state["trajectory"][-1]
            await self.env_response([*last["prompt"], *last["completion"]], state)
            if state.get("final_env_response") is not None:
                return [*last["prompt"], *last["completion"]]
        obs = self._env(state).transition()[0]
        return _messages(observation_to_messages(obs, kind=self.parts.kind, max_turns=self.parts.max_turns,
                                                 style=self.prompt_style))

    def _finish(self, state: vf.State, env) -> None:
        _, reward, terminated, truncated, info = env.transition()
        state["colbench"] = {"reward": float(reward), "turns": int(info.get("turn", 0)),
                             **({"success": bool(info["success"])} if "success" in info else {}),
                             **({"error": info["error"]} if truncated else {})}

    @vf.stop
    async def colbench_episode_over(self, state: vf.State) -> bool:
        """The ColBench episode ended (answered, or the human failed)."""
        return state.get("colbench") is not None

    @vf.cleanup
    async def close_colbench_episode(self, state: vf.State) -> None:
        env = self._episodes.pop(state.get("trajectory_id"), None)
        if env is not None:
            env.close()

    @vf.teardown
    async def close_colbench_parts(self) -> None:
        self.parts.close()


def load_environment(kind: str = "backend", tasks: Any = "default", split: str | None = None,
                     simulator: str = "scripted", simulator_kwargs: dict | None = None, max_turns: int = MAX_TURNS,
                     prompt_style: str = "paper", evaluator: str = "reference", similarity: str = "visual",
                     eval_workers: int | None = None, num_examples: int = -1, **kwargs: Any) -> ColBenchMultiTurnEnv:
    """The ColBench ``verifiers`` environment (``vf-eval colbench.integrations.verifiers -a '{...}'``;
    every argument is JSON-able, as ``-a`` needs).

    Args:
        kind: ``"backend"`` or ``"frontend"``.
        tasks: ``"default"``, a path to an official ``.jsonl`` task file, ``"generated:N:d[:family]"``,
            or a list of task records (:func:`colbench_env.tasks.load_tasks`).
        split: ``"train"`` / ``"test"`` / ``None``.
        simulator: the human: ``"scripted"`` (offline), ``"openai"`` (an LLM behind an
            OpenAI-compatible server: ``simulator_kwargs={"base_url": ..., "model": ...}``), ``"hf"``, ...
        simulator_kwargs: the simulator's keyword arguments.
        max_turns: agent turns per episode (ColBench: 10).
        prompt_style: ``"paper"`` or ``"compact"`` agent instructions.
        evaluator: backend scoring semantics, ``"reference"`` (comparable with published numbers) or
            ``"python"``.
        similarity: frontend similarity, ``"visual"`` or ``"clip"``.
        eval_workers: sandbox workers of the backend evaluator (``None``: one per CPU).
        num_examples: keep the first ``num_examples`` tasks (``-1``: all).
        **kwargs: passed to ``vf.MultiTurnEnv``.
    """
    parts = EpisodeParts(kind, tasks, split=split, simulator=simulator, simulator_kwargs=simulator_kwargs,
                         max_turns=max_turns, evaluator=evaluator, similarity=similarity, eval_workers=eval_workers)
    return ColBenchMultiTurnEnv(parts, prompt_style=prompt_style, num_examples=num_examples, **kwargs)
