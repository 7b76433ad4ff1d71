"""Rollouts: many episodes in flight, each advancing on its own.

:func:`run_episodes` keeps up to ``episodes_in_flight`` episodes going, each in a thread of its
own: as soon as an episode's action is there it is stepped, its human request goes out, and so on;
when it ends its record is handed on and the thread starts the next episode. Nothing waits for the
slowest episode of a round, and an episode waiting for a server, a scoring job or a render holds
nobody else (scoring and renders run in their pools, :mod:`colbench_env.scoring`). With one
episode in flight everything runs in the calling thread, a plain loop of steps.

## How the policy and the simulator are called

Each says how through an attribute ``batched`` (absent: true):

* ``batched`` false -- a client of an HTTP server (:class:`~colbench.agents.LMAgent` /
  :class:`~colbench_env.simulators.llm.LLMSimulator` on an
  :class:`~colbench_env.lm.openai_compat.OpenAICompatBackend`), the scripted human,
  :class:`~colbench.agents.ScriptedAgent`: called for one episode at a time from that episode's thread,
  concurrently, so it must be thread-safe (``act_batch([obs])``, else ``act(obs)``, else
  ``policy(obs)``; ``simulator.reply(task, dialogue, renders)``). A server thus has at most one
  request per episode in flight: ``episodes_in_flight`` in all.
* ``batched`` true -- a local model (``LMAgent`` / ``LLMSimulator`` on
  :class:`~colbench_env.lm.hf.HFBackend`), and anything that does not say (it is then never called
  from two threads at once): the calls go to a queue, and the thread that called
  :func:`run_episodes` makes them as ``act_batch(observations)`` / ``reply_batch(requests)`` with
  whatever is pending, up to ``episodes_in_flight`` (so Ctrl-C interrupts a generation as in a
  plain loop, and the process never exits while another thread is inside the model). A batch
  goes out as soon as every episode is either in it or waiting elsewhere (in another batch, or in
  a wait marked with :func:`colbench_env.waits.waiting`: a server, a scoring pool, a render), so a
  local model gets the batches the lockstep runner gave it, and an episode that waits for a slow
  reply or a score delays no batch. Batched greedy
  generation gives the texts of one-at-a-time generation (:class:`~colbench_env.lm.hf.HFBackend`).

## Guarantees

* Determinism: with a deterministic policy and simulator (greedy decoding, the scripted human)
  each trajectory equals stepping the episodes one by one: each episode is reset with its own seed
  and options and its env, policy call and human reply see only its own state. Only the order in
  which episodes finish varies.
* Wrappers: the envs are driven through their wrappers: ``reset`` through the whole stack (with
  ``options["episode_id"]``, which :class:`colbench.wrappers.TrajectoryRecorder` records), the step through
  the phased-step protocol of :mod:`colbench_env.phased`, which ColBench wrappers forward, so
  ``HiddenInfoWrapper`` and ``TrajectoryRecorder`` see every step as in a loop of ``env.step``.
* Records: the end of each step (``transition``, where a recorder appends the finished episode)
  runs under one lock, so every env's recorder can append to one file; ``on_turn`` (after each
  agent turn), ``on_episode`` and ``progress`` are called there too, one at a time.
* Failures: a :class:`~colbench_env.simulators.SimulatorError` (the human's server failed) ends
  that episode with ``error`` "simulator failed: ..." and a :class:`~colbench_env.lm.base.BackendError`
  raised by the policy (the agent's server failed) with ``error`` "agent failed: ..." (truncated,
  reward 0; ``colbench run`` retries such episodes on resume). A batched call that fails so is
  made again item by item, so only the failing item's episode fails. Any other exception stops
  the run and is raised.
* Ctrl-C (``KeyboardInterrupt`` in the calling thread): no record is written after it; episodes in
  progress are dropped (an HTTP request or scoring job already sent finishes in the background,
  then its thread stops); the ``KeyboardInterrupt`` propagates.

## Policies

Duck-typed (``colbench_env`` does not import ``colbench.agents``): an object with
``act_batch(observations) -> list[str]``, or ``act(observation) -> str``, or a plain callable; it
decides from the observation (no per-episode state), except that with ``episodes_in_flight=1`` an
object's ``reset()`` is called before each episode. A sampled policy called in batches draws its
random numbers per call, so its samples depend on which episodes share a call, which depends on
timing: sampled rollouts repeat exactly with one episode in flight only.
"""
from __future__ import annotations

import threading
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from . import waits
from .lm.base import BackendError
from .phased import phased
from .simulators import SimulatorError

__all__ = ["EpisodeSpec", "run_episodes", "episode_specs", "policy_act_batch", "is_batched"]

#: failures that end one episode (recorded with an ``error``), not the run
EPISODE_ERRORS = (BackendError, SimulatorError)


@dataclass(frozen=True)
class EpisodeSpec:
    """One episode to run: its id (unique in a run file), reset seed and reset options.

    ``forced_actions``: the agent's first actions, played as given before the policy takes over
    (e.g. candidate first turns to be continued by the policy)."""

    episode_id: str
    seed: int | None = None
    options: dict = field(default_factory=dict)
    forced_actions: tuple = ()


def episode_specs(n: int, *, n_tasks: int | None = None, seed: int = 0, repeats: int = 1) -> list[EpisodeSpec]:
    """``n`` episodes going through the tasks in order (``task_index = k % n_tasks``) when
    ``n_tasks`` is given, else drawing tasks by seed; episode ``k`` is reset with seed ``seed + k``.
    ``repeats > 1`` runs each task that many times in a row (``episode_id`` ``"k"``)."""
    specs = []
    for k in range(n):
        opts = {"task_index": (k // repeats) % n_tasks} if n_tasks else {}
        specs.append(EpisodeSpec(str(k), seed + k, opts))
    return specs


def policy_act_batch(policy: Any, observations: list) -> list[str]:
    """Call a duck-typed policy on a batch of observations."""
    if hasattr(policy, "act_batch"):
        actions = list(policy.act_batch(observations))
    elif hasattr(policy, "act"):
        actions = [policy.act(o) for o in observations]
    elif callable(policy):
        actions = [policy(o) for o in observations]
    else:
        raise TypeError("policy must have act_batch(observations), act(observation), or be callable")
    if len(actions) != len(observations):
        raise ValueError(f"policy returned {len(actions)} actions for {len(observations)} observations")
    return actions


def is_batched(obj: Any) -> bool:
    """Whether :func:`run_episodes` gathers ``obj``'s calls into batches (its ``batched``
    attribute; true when it has none). See the module docstring."""
    return bool(getattr(obj, "batched", True))


def _simulator_reply_batch(simulator: Any, requests: list) -> list[str]:
    replies = list(simulator.reply_batch(requests))
    if len(replies) != len(requests):
        raise SimulatorError(f"the simulator returned {len(replies)} replies for {len(requests)} requests")
    return replies


class _Stopped(Exception):
    """The run is stopping (Ctrl-C, or another episode's error): this episode is dropped."""


class _Call:
    __slots__ = ("item", "result", "error", "done")

    def __init__(self, item: Any):
        self.item, self.result, self.error, self.done = item, None, None, False


class _Batcher:
    """A queue of calls from episode threads, made as batched calls by the thread that called
    :func:`run_episodes` (see "How the policy and the simulator are called" in the module
    docstring): a local model then generates in that thread, where Ctrl-C interrupts it as in a
    plain loop, and the interpreter never exits while another thread is inside it."""

    def __init__(self, runner: "_Runner", call_batch: Callable[[list], list]):
        self.runner, self.call_batch = runner, call_batch
        self.pending: list[_Call] = []

    def submit(self, item: Any) -> Any:
        """Called from an episode thread: the result of ``item`` once its batch has been made."""
        r = self.runner
        call = _Call(item)
        with r.cv:
            if r.stopping:
                raise _Stopped
            self.pending.append(call)
            r.waiting += 1
            r.cv.notify_all()
            while not call.done:
                if r.stopping:
                    raise _Stopped
                r.cv.wait()
        if call.error is not None:
            raise call.error
        return call.result

    def ready(self) -> bool:
        """(Under the runner's lock.) Whether a batch should go out now."""
        r = self.runner
        return bool(self.pending) and (len(self.pending) >= r.n_threads or r.waiting >= r.active)

    def take(self) -> list[_Call]:
        """(Under the runner's lock.) The next batch, out of the queue."""
        r = self.runner
        batch, self.pending = self.pending[:r.n_threads], self.pending[r.n_threads:]
        return batch

    def make(self, batch: list[_Call]) -> None:
        """Make the batched call for ``batch`` and hand each caller its result."""
        outcomes = self._run([c.item for c in batch])
        r = self.runner
        with r.cv:
            for call, (result, error) in zip(batch, outcomes):
                call.result, call.error, call.done = result, error, True
            r.waiting -= len(batch)
            r.cv.notify_all()

    def _run(self, items: list) -> list[tuple[Any, BaseException | None]]:
        try:
            return [(x, None) for x in self.call_batch(items)]
        except EPISODE_ERRORS as e:
            if len(items) == 1:
                return [(None, e)]
        except Exception as e:  # not an episode's failure: every caller raises it, the run stops
            return [(None, e)] * len(items)
        out: list[tuple[Any, BaseException | None]] = []
        for item in items:  # find the failing items: only their episodes fail
            try:
                out.append((self.call_batch([item])[0], None))
            except Exception as e:
                out.append((None, e))
        return out


class _Runner:
    """The state of one :func:`run_episodes` call."""

    def __init__(self, envs: list, policy: Any, simulator: Any, specs: Sequence[EpisodeSpec],
                 on_episode: Callable[[dict], None] | None, progress: Any,
                 on_turn: Callable[[EpisodeSpec, int, bool], None] | None = None):
        self.envs, self.steps = envs, [phased(e) for e in envs]
        self.policy, self.simulator = policy, simulator
        self.on_episode, self.progress, self.on_turn = on_episode, progress, on_turn
        self.queue = deque(specs)
        self.n_threads = len(envs)
        self.results: list[dict] = []
        self.cv = threading.Condition()
        self.commit = threading.Lock()  # the end of a step: records, on_episode, progress
        self.active = self.n_threads  # episode threads still running
        self.waiting = 0  # of those, how many wait (a batch, a server, a pool)
        self.stopping = False
        self.error: BaseException | None = None
        threaded = self.n_threads > 1
        self.policy_batcher = _Batcher(self, lambda obs: policy_act_batch(policy, obs)) \
            if threaded and is_batched(policy) else None
        self.simulator_batcher = _Batcher(self, lambda reqs: _simulator_reply_batch(simulator, reqs)) \
            if threaded and is_batched(simulator) else None

    # -- colbench_env.waits listener
    def wait_begin(self) -> None:
        with self.cv:
            self.waiting += 1
            self.cv.notify_all()

    def wait_end(self) -> None:
        with self.cv:
            self.waiting -= 1

    # -- calls
    def act(self, observation: dict) -> str:
        if self.policy_batcher is not None:
            return self.policy_batcher.submit(observation)
        return policy_act_batch(self.policy, [observation])[0]

    def reply(self, request: tuple) -> str:
        if self.simulator_batcher is not None:
            return self.simulator_batcher.submit(request)
        return self.simulator.reply(*request)

    # -- episodes
    def _check(self) -> None:
        if self.stopping:
            raise _Stopped

    def episode(self, k: int, spec: EpisodeSpec) -> None:
        env, step = self.envs[k], self.steps[k]
        if self.n_threads == 1 and hasattr(self.policy, "reset"):
            self.policy.reset()
        obs, _ = env.reset(seed=spec.seed, options=dict(spec.options, episode_id=spec.episode_id))
        turn = 0
        while True:
            self._check()
            error = None
            if turn < len(spec.forced_actions):
                action = spec.forced_actions[turn]
            else:
                try:
                    action = self.act(obs)
                except BackendError as e:
                    action, error = None, f"agent failed: {e}"
            turn += 1
            if action is None:
                step.fail(error)
            elif step.agent_step(action):
                request = step.simulator_request()
                try:
                    reply, failed = self.reply(request), None
                except SimulatorError as e:
                    reply, failed = None, f"simulator failed: {e}"
                self._check()
                step.human_step(reply, error=failed)
            with self.commit:
                self._check()
                obs, _, terminated, truncated, _ = step.transition()
                if self.on_turn is not None:
                    self.on_turn(spec, turn, terminated or truncated)
                if terminated or truncated:
                    self._finished(env, spec)
            if terminated or truncated:
                return

    def _finished(self, env: Any, spec: EpisodeSpec) -> None:
        base = env.unwrapped
        rec = base.trajectory_record()
        rec["episode_id"] = spec.episode_id
        env_spec = base.spec  # the wrapped env's spec copy may fail on unpicklable kwargs
        if env_spec is not None:
            rec["env_id"] = env_spec.id
        self.results.append(rec)
        if self.on_episode is not None:
            self.on_episode(rec)
        if self.progress is not None:
            self.progress.update(1)

    def work(self, k: int) -> None:
        """Episode thread ``k``: run episodes from the queue until it is empty."""
        threaded = self.n_threads > 1
        if threaded:
            waits.bind(self)
        try:
            while True:
                with self.cv:
                    if self.stopping or not self.queue:
                        break
                    spec = self.queue.popleft()
                self.episode(k, spec)
        except _Stopped:
            pass
        except BaseException as e:
            if not threaded:
                raise
            with self.cv:
                if self.error is None and not self.stopping:
                    self.error = e
            self.stop()
        finally:
            if threaded:
                waits.unbind()
            with self.cv:
                self.active -= 1
                self.cv.notify_all()

    def stop(self) -> None:
        """No record after this; every episode thread and batcher stops at its next step."""
        with self.commit, self.cv:
            self.stopping = True
            self.cv.notify_all()

    def run(self) -> None:
        """Run every episode; the calling thread makes the batched calls while episode threads run."""
        if self.n_threads == 1:
            self.work(0)
            return
        batchers = [b for b in (self.policy_batcher, self.simulator_batcher) if b is not None]
        threads = [threading.Thread(target=self.work, args=(k,), name=f"colbench-episode-{k}", daemon=True)
                   for k in range(self.n_threads)]
        try:
            for t in threads:
                t.start()
            while True:
                with self.cv:
                    ready = None
                    while not (self.stopping or self.active == 0):
                        ready = next((b for b in batchers if b.ready()), None)
                        if ready is not None:
                            batch = ready.take()
                            break
                        self.cv.wait(0.2)
                if ready is None:
                    break
                ready.make(batch)
        except BaseException:  # KeyboardInterrupt: nothing more is written; the threads stop
            self.stop()
            raise
        if self.error is not None:
            raise self.error


def run_episodes(
    env_fn: Callable[[], Any],
    policy: Any,
    episodes: Sequence[EpisodeSpec] | int,
    *,
    episodes_in_flight: int = 1,
    on_episode: Callable[[dict], None] | None = None,
    progress: Any = None,
    on_turn: Callable[[EpisodeSpec, int, bool], None] | None = None,
) -> list[dict]:
    """Run episodes and return their trajectory records (official format plus ``episode_id`` and
    ``env_id``), in completion order. See the module docstring for how episodes advance and what is
    guaranteed.

    Args:
        env_fn: makes a ColBench Gymnasium env, wrapped or not (``env.unwrapped`` a
            :class:`~colbench_env.gym_env.ColBenchEnv`; wrappers must forward the phased step, see
            :mod:`colbench_env.phased`); called ``min(episodes_in_flight, len(episodes))`` times.
            The first env's simulator answers for all of them; the others never build theirs.
        policy: see the module docstring.
        episodes: specs, or a number ``n`` (ids ``"0".."n-1"``, seeds ``0..n-1``).
        episodes_in_flight: episodes advancing at once (default 1).
        on_episode: called with each finished record as soon as it is finished (to write records
            to a file, wrap the env in :class:`colbench.wrappers.TrajectoryRecorder` instead).
        progress: a tqdm-like object (``update(1)`` as each episode finishes) or ``None``.
        on_turn: called after each agent turn (the human's reply included) with the episode's spec,
            the turn's number (1 for the first) and whether the episode ended with it.
    """
    in_flight = episodes_in_flight
    if isinstance(in_flight, bool) or not isinstance(in_flight, int) or in_flight < 1:
        raise ValueError(f"episodes_in_flight must be an int >= 1, got {in_flight!r}")
    if isinstance(episodes, int):
        episodes = episode_specs(episodes)
    specs = list(episodes)
    envs: list = []
    try:
        for _ in range(min(in_flight, len(specs))):
            envs.append(env_fn())
        if not envs:
            return []
        simulator = envs[0].unwrapped.simulator
        for env in envs[1:]:
            env.unwrapped.answered_by(simulator)  # the records name the human that answered
        runner = _Runner(envs, policy, simulator, specs, on_episode, progress, on_turn)
        runner.run()
        return runner.results
    finally:
        for e in envs:
            e.close()
