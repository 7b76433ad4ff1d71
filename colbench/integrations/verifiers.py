"""ColBench in verifiers v1 (``verifiers>=0.4,<0.5``; extra ``verifiers``): a taskset whose tasks
score with ColBench's scorer, a two-role env (the policy ``agent`` and the ``human``), and the
harness that makes each model call with ColBench's own contexts.

verifiers' evaluation entry point, against any OpenAI-compatible server (the plug-in id is ``colbench``:
verifiers imports the package ``colbench``, which exports this module's classes lazily)::

    vf-eval colbench -m MODEL --client.base-url http://localhost:8000/v1 \\
        --client.api-key-var OPENAI_API_KEY --env.taskset.tasks generated:64:1:rate -n 8 -r 2 --no-push

(``--env.taskset.kind frontend`` for the frontend; ``--env.taskset.max-turns``, ``--env.taskset.split``,
``--env.taskset.prompt-style``; ``--env.human-simulator model --env.human.model NAME
--env.human.client.base-url URL`` for an LLM human.) In Python: ``vf.load_environment(...)`` with an
``EnvConfig`` naming ``taskset.id = "colbench"``.

The specification:

* **Taskset** (:class:`ColBenchTaskset`, config :class:`ColBenchTasksetConfig`): one task per
  ColBench task of ``tasks`` (``"default"``, an official-format file, ``"generated:N:d[:family]"``),
  ``kind`` backend or frontend, ``split``. A task's wire data (:class:`ColBenchTaskData`, saved in
  every trace) is the task id, the kind, the request and the settings (``tasks``, ``max_turns``,
  ``prompt_style``): never the hidden information, the ground truth or the tests, which stay in
  this process (looked up by task id).
* **Reward** (``@vf.reward colbench_reward``): the score ColBench's scorer gives the episode's
  answer, i.e. what ``colbench evaluate`` gives the same dialogue -- backend, the fraction of the
  hidden tests passed in the sandbox (``semantics``, default ``"reference"``); frontend, the
  similarity of the rendered page to the target. The answer is taken from the agent's trace alone
  by ColBench's turn rule (:mod:`colbench_env.protocol`: the first ``I WANT TO ANSWER:``, the
  ``max_turns``-th turn; frontend: the final turn's page, else the last page shown); 0 when the
  episode ended without one. Metrics: ``colbench_success`` (backend: all tests passed),
  ``colbench_turns``.
* **Env** (:class:`ColBenchVerifiersEnv`): one episode is a :class:`colbench_env.gym_env.ColBenchEnv`
  episode played turn by turn. The ``agent`` (trainable) speaks; each of its turns is stepped
  through the ColBench env; the human replies; until the agent answers or its ``max_turns``-th
  turn. The human is ``human_simulator="scripted"`` (default: ColBench's offline scripted human,
  run by the env; no model call) or ``"model"``: the ``human`` agent, **non-trainable**, an
  OpenAI-compatible model (its own ``--env.human.model`` / ``--env.human.client.*``) given
  ColBench's human prompt (:class:`colbench_env.simulators.llm.LLMSimulator`: the hidden
  information is in the human's requests and its trace, as it is the human's knowledge).
* **Contexts** (:class:`ColBenchHarness`, the taskset's default harness): each agent model call
  is exactly ColBench's agent context for the env's current observation
  (:func:`colbench_env.prompting.observation_to_messages`: instructions, request, earlier agent
  turns as the messages the human saw); the agent never sees hidden information. The harness
  runs in-process (no program, no container): one chat completion per segment through verifiers'
  interception endpoint, so verifiers records every call in the trace.
"""
from __future__ import annotations

import threading
from typing import Any, Literal

import verifiers.v1 as vf
from pydantic import Field

from colbench_env.protocol import MAX_TURNS, extract_html, parse_agent_turn

from ._common import EpisodeParts

__all__ = ["ColBenchTaskset", "ColBenchVerifiersEnv", "ColBenchHarness"]

_LOCK = threading.Lock()
_PARTS: dict[tuple, EpisodeParts] = {}
_EPISODES: dict[str, Any] = {}  # trace id -> (role, ColBench gym env, parts) of a live episode


def shared_parts(kind: str, tasks: str, split: str | None, max_turns: int, semantics: str = "reference",
                 similarity: str = "visual") -> EpisodeParts:
    """The process's :class:`EpisodeParts` (tasks, scripted human, evaluator or renderer) for these
    settings, built once and shared by the env's episodes and the tasks' rewards."""
    key = (kind, tasks, split, max_turns, semantics, similarity)
    with _LOCK:
        if key not in _PARTS:
            _PARTS[key] = EpisodeParts(kind, tasks, split=split, max_turns=max_turns, evaluator=semantics,
                                       similarity=similarity, eval_workers=2)
        return _PARTS[key]


def close_shared_parts() -> None:
    """Close every shared part of this process (evaluator pools, browsers)."""
    with _LOCK:
        parts = list(_PARTS.values())
        _PARTS.clear()
    for p in parts:
        p.close()


# --------------------------------------------------------------------------- taskset
class ColBenchTaskData(vf.TaskData):
    """A ColBench task on the wire (saved in traces): no hidden information, ground truth or tests."""

    task_id: str
    kind: Literal["backend", "frontend"] = "backend"
    problem_description: str = ""
    tasks: str = "default"
    split: str | None = None
    max_turns: int = MAX_TURNS
    prompt_style: Literal["paper", "compact"] = "paper"


class ColBenchTaskConfig(vf.TaskConfig):
    """Scoring knobs: backend ``semantics`` (``"reference"``: comparable with published numbers) and
    frontend ``similarity``."""

    semantics: Literal["reference", "python"] = "reference"
    similarity: Literal["visual", "clip"] = "visual"


def episode_answer(kind: str, raw_turns: list[str], max_turns: int) -> str | None:
    """The answer of an episode whose agent turns (raw generations, in order) are ``raw_turns`` --
    ColBench's rule (:mod:`colbench_env.protocol`, :class:`colbench_env.scoring.FrontendScorer`);
    ``None`` when no turn answered."""
    last_page = ""
    for n, raw in enumerate(raw_turns, 1):
        turn = parse_agent_turn(raw, last_turn=n >= max_turns)
        if turn.is_answer:
            return (extract_html(turn.message) or last_page) if kind == "frontend" else turn.answer
        last_page = extract_html(turn.message) or last_page
    return None


class ColBenchTask(vf.Task[ColBenchTaskData, vf.State, ColBenchTaskConfig]):
    """One ColBench task; its reward is ColBench's score of the answer in the agent's trace."""

    def _score(self, trace: vf.Trace) -> dict:
        cached = trace.info.get("colbench")
        if cached is not None:
            return cached
        d = self.data
        raw = [n.message.content or "" for n in trace.nodes if n.sampled and n.message.role == "assistant"]
        answer = episode_answer(d.kind, raw, d.max_turns)
        result: dict = {"turns": len(raw), "reward": 0.0, **({"success": False} if d.kind == "backend" else {})}
        if answer is not None:
            parts = shared_parts(d.kind, d.tasks, d.split, d.max_turns, self.config.semantics, self.config.similarity)
            task = next(t for t in parts.tasks if t.task_id == d.task_id)
            env = parts.make_env()
            try:
                env.reset(options={"task_id": d.task_id})
                scored = env.pz.scorer.score(task, answer)
            finally:
                env.close()
            result["reward"] = float(scored["reward"])
            if "success" in scored:
                result["success"] = bool(scored["success"])
        trace.info["colbench"] = result
        return result

    @vf.reward
    async def colbench_reward(self, task, trace) -> float:
        import asyncio

        return (await asyncio.to_thread(self._score, trace))["reward"]

    @vf.metric
    async def colbench_success(self, task, trace) -> float:
        import asyncio

        return float((await asyncio.to_thread(self._score, trace)).get("success", False))

    @vf.metric
    async def colbench_turns(self, task, trace) -> float:
        import asyncio

        return float((await asyncio.to_thread(self._score, trace))["turns"])


class ColBenchTasksetConfig(vf.TasksetConfig):
    """Which ColBench tasks (``--env.taskset.*``)."""

    task: ColBenchTaskConfig = ColBenchTaskConfig()
    kind: Literal["backend", "frontend"] = "backend"
    tasks: str = Field("default", description="'default', an official-format task file, or 'generated:N:d[:family]'")
    split: Literal["train", "test"] | None = None
    max_turns: int = Field(MAX_TURNS, ge=1)
    prompt_style: Literal["paper", "compact"] = "paper"


class ColBenchTaskset(vf.Taskset[ColBenchTask, ColBenchTasksetConfig]):
    """ColBench's tasks as verifiers tasks (wire data without training-time information)."""

    def load(self):
        c = self.config
        parts = shared_parts(c.kind, c.tasks, c.split, c.max_turns, c.task.semantics, c.task.similarity)
        for t in parts.tasks:
            yield ColBenchTask(ColBenchTaskData(id=str(t.task_id), name=str(t.task_id), task_id=str(t.task_id),
                                                kind=c.kind, problem_description=t.problem_description,
                                                tasks=c.tasks, split=c.split, max_turns=c.max_turns,
                                                prompt_style=c.prompt_style), c.task)


# --------------------------------------------------------------------------- harness
class ColBenchHarnessConfig(vf.HarnessConfig):
    pass


class ColBenchHarness(vf.Harness[ColBenchHarnessConfig]):
    """One chat completion per segment, in-process, through the interception endpoint: for the agent,
    ColBench's agent context of its episode's current observation; for the human (model mode),
    ColBench's human prompt (:class:`~colbench_env.simulators.llm.LLMSimulator`). Only runs inside
    :class:`ColBenchVerifiersEnv`, which registers each live episode under the trace's id."""

    APPENDS_SYSTEM_PROMPT = True
    SUPPORTS_RESUME = True
    EXECUTES_CODE = False
    NEEDS_CONTAINER = False

    async def launch(self, ctx, trace, runtime, endpoint, secret, mcp_urls, data, **kwargs) -> vf.ProgramResult:
        from openai import AsyncOpenAI

        from colbench_env.prompting import observation_to_messages

        with _LOCK:
            entry = _EPISODES.get(trace.id)
        if entry is None:
            raise vf.HarnessError(f"harness {self.config.id!r} runs only inside the ColBench env "
                                  "(colbench.integrations.verifiers.ColBenchVerifiersEnv)")
        role, env, settings = entry
        if role == "agent":
            messages = observation_to_messages(env.transition()[0], kind=env.kind, max_turns=settings["max_turns"],
                                               style=settings["prompt_style"])
        else:
            from colbench_env.simulators.llm import human_messages

            messages = human_messages(env.kind, *env.simulator_request())
        client = AsyncOpenAI(base_url=endpoint, api_key=secret, max_retries=0)
        try:
            await client.chat.completions.create(model=ctx.model, messages=messages)
        finally:
            await client.close()
        return vf.ProgramResult(0, "", "")

    async def resume(self, ctx, trace, runtime, endpoint, secret, mcp_urls, data, messages, tool_interception_url=None):
        # the context is the episode's, not the accreted conversation: launch builds it
        return await self.launch(ctx, trace, runtime, endpoint, secret, mcp_urls, data)


# --------------------------------------------------------------------------- env
class ColBenchEnvConfig(vf.EnvConfig):
    agent: vf.AgentConfig = vf.AgentConfig(runtime=vf.SubprocessConfig())
    """The policy (trainable). Its harness runs in this process (the subprocess runtime is only its
    scratch directory): nothing is executed for the model."""
    human: vf.AgentConfig = vf.AgentConfig(runtime=vf.SubprocessConfig())
    """The human when ``human_simulator="model"``: non-trainable; pin its own ``model`` and ``client``."""
    human_simulator: Literal["scripted", "model"] = "scripted"
    """``scripted``: ColBench's offline scripted human (no model); ``model``: the ``human`` agent."""


class ColBenchVerifiersEnv(vf.Env[ColBenchEnvConfig]):
    """ColBench's episode loop over verifiers agents (see the module docstring)."""

    async def setup(self, agents) -> None:
        agents.human.trainable = False  # the human models the world the policy is evaluated on

    async def run(self, task: ColBenchTask, agents) -> None:
        import asyncio

        d = task.data
        parts = shared_parts(d.kind, d.tasks, d.split, d.max_turns, task.config.semantics, task.config.similarity)
        env = await asyncio.to_thread(parts.make_env)
        settings = {"max_turns": d.max_turns, "prompt_style": d.prompt_style}
        registered: list[str] = []

        def register(trace_id: str, role: str) -> None:
            with _LOCK:
                _EPISODES[trace_id] = (role, env, settings)
            registered.append(trace_id)

        try:
            await asyncio.to_thread(env.reset, options={"task_id": d.task_id})
            human_task = vf.Task(vf.TaskData(idx=d.idx, name=f"{d.task_id} (human)", prompt=None))
            async with agents.agent.interaction(task) as agent:
                register(agent.trace.id, "agent")
                human_cm = agents.human.interaction(human_task) if self.config.human_simulator == "model" else None
                human = await human_cm.__aenter__() if human_cm is not None else None
                try:
                    if human is not None:
                        register(human.trace.id, "human")
                    segment = await agent.turn(d.problem_description)
                    for n in range(1, d.max_turns + 1):
                        if segment.terminated or not segment.messages:
                            break
                        text = segment.messages[-1].content or ""
                        if parse_agent_turn(text, last_turn=n >= d.max_turns).is_answer:
                            break  # the answer: the task's reward scores it from the trace
                        await asyncio.to_thread(env.agent_step, text)
                        reply = await self._human_reply(env, human, parts)
                        if reply is None:
                            break
                        segment = await agent.turn(reply)
                finally:
                    if human_cm is not None:
                        await human_cm.__aexit__(None, None, None)
        finally:
            with _LOCK:
                for t in registered:
                    _EPISODES.pop(t, None)
            await asyncio.to_thread(env.close)

    async def _human_reply(self, env, human, parts) -> str | None:
        """The human's reply to the agent's last turn, stepped into the env (as ColBench's step
        does: cut to the reply limit); ``None`` when the human failed (the episode ends unanswered)."""
        import asyncio

        from colbench_env.simulators import SimulatorError

        try:
            if human is None:
                reply = await asyncio.to_thread(lambda: parts.simulator.reply(*env.simulator_request()))
            else:
                segment = await human.turn(env.dialogue[-1]["content"])
                if segment.terminated or not segment.messages:
                    raise SimulatorError("the human agent's run ended")
                reply = (segment.messages[-1].content or "").strip()
        except SimulatorError as e:
            env.human_step(error=f"simulator failed: {e}")
            return None
        env.human_step(reply)
        if env.transition()[3]:
            return None
        return env.dialogue[-1]["content"]
