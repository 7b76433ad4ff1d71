"""Running episodes into a trajectory file, with resume: the service behind ``colbench run`` (whose
parser is :mod:`colbench.cli.run`), ``colbench table``, the pipeline's and critic-ranking's stages.

Episode ``k`` runs task ``(k // K) mod len(tasks)`` (in the file's order; ``K`` is
``--rollouts-per-task``, default 1: each task ``K`` times in a row) with reset seed ``seed + k`` and
``episode_id = "k"``. Trajectories are appended to ``--out`` as each episode finishes; an LM agent's
records keep the settings that shaped its contexts (``agent_prompt``: kind, max turns, prompt style),
which ``colbench train`` uses to rebuild them.

Resume: rerunning the same command skips the episodes already in ``--out``. The run's
configuration (:func:`run_signature`: env id, task spec and a hash of the tasks, agent, simulator and
their settings -- for a plug-in given as a file or module, a hash of its source --, the scripted
human's reply version, max turns, rollouts per task, seed, prompt style, sampling, scoring semantics)
is stored next to it in ``<out>.run.json``; a rerun whose configuration differs (a plug-in whose code
changed included) stops with an error naming the fields that differ instead of mixing two runs in one
file. A run that fails before its first episode (a model that is not found, ...) writes nothing. Each invocation's command line and code (git commit,
versions) is appended to ``<out>.invocations.jsonl``. ``--episodes`` and ``--episodes-in-flight`` may change
between reruns (more episodes extend the run). The metrics are computed over every episode of the
run found in the file. Episodes that end with an error (a server failed) are written with their
``error``; the run then ends with :class:`~colbench.errors.EpisodesFailed` (``colbench run`` exits 1,
naming the first error), and a rerun retries them.

Python: :func:`run` takes a :class:`RunConfig` (and optionally an agent object) and returns the
metrics; the command line only parses arguments into a :class:`RunConfig`. The building blocks
under it serve the other commands too: :func:`run_to_file` (episodes of any policy into a resumed
file), :func:`run_policy_episodes` (an LM policy's episodes on a list of tasks, a stage of the
pipeline or of critic-ranking), :func:`policy_agent`, :func:`resolve_policy` and
:func:`scoring_pool`.
"""
from __future__ import annotations

import hashlib
import json
import os
import sys
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator

from colbench.errors import EpisodesFailed, UsageError
from colbench_env.metrics import summarize
from colbench_env.prompting import PROMPT_STYLES

__all__ = ["RunConfig", "AGENTS", "SEMANTICS", "TurnProgress", "check_episode_errors", "check_out_path",
           "check_resume", "config_path", "env_kind", "local_model_note",
           "invocations_path", "load_run_tasks", "make_agent", "make_run_simulator", "policy_agent", "resolve_policy",
           "run", "run_policy_episodes", "run_signature", "run_to_file", "scoring_pool", "tasks_hash",
           "write_run_config"]

#: built-in agent names; anything else is a plug-in spec (see :mod:`colbench.plugins`)
AGENTS = ("smollm2", "scripted", "hf", "openai")
ENV_ENTRY_POINT = "colbench_env.gym_env:ColBenchEnv"
#: backend scoring semantics (``--semantics``), as ``colbench evaluate``
SEMANTICS = ("reference", "python")
#: values of signature fields added after runs were first recorded, as those runs had them (a
#: ``<out>.run.json`` without the field resumes as if it had this value)
SIGNATURE_DEFAULTS = {"semantics": "reference", "rollouts_per_task": 1}
#: signature fields holding a plug-in's source hash -> the option naming the plug-in
CODE_FIELDS = {"agent_code_sha256": "agent", "simulator_code_sha256": "simulator"}


@dataclass
class RunConfig:
    """One ``colbench run``. Every field is the command-line option of the same name.

    Attributes:
        out: trajectory jsonl, appended to; its configuration is kept in ``<out>.run.json``.
        env: ``ColBench-Backend-v0`` or ``ColBench-Frontend-v0``.
        agent: ``smollm2`` (embedded SmolLM2-135M-Instruct), ``scripted`` (two fixed questions, then
            ``return None`` / a plain page: a lower bound, :class:`colbench.agents.ScriptedAgent`), ``hf`` (``agent_model``: a local path or hub id),
            ``openai`` (``agent_base_url`` + ``agent_model``), or a plug-in: ``module:Name``,
            ``path/to/file.py:Name`` or an entry point of group ``colbench.agents``.
        agent_kwargs: keyword arguments for the agent's class / factory (built-ins: for
            :class:`colbench.agents.LMAgent` / :class:`colbench.agents.ScriptedAgent`).
        agent_model / agent_base_url / agent_4bit: the ``hf`` / ``openai`` agents' model.
        tasks: ``default``, a task file (jsonl/json), or ``generated:N:difficulty[:family]``.
        split: ``train`` / ``test`` / ``None``. A file without ``split`` fields keeps all its tasks
            (a note says so).
        episodes: episodes to run (``None``: ``rollouts_per_task`` per task); >= 1.
        rollouts_per_task: ``K``: each task runs ``K`` times in a row (episode ``k`` runs task
            ``(k // K) mod len(tasks)``); pair-based trainers (``mt-dpo``, ``sweet-rl``, ``grpo``)
            need several sampled rollouts of a task (``temperature > 0``); >= 1.
        episodes_in_flight: episodes in flight, each advancing on its own (a local model batches their
            turns); >= 1.
        simulator: ``scripted`` | ``hf`` | ``smollm2`` | ``openai`` | ``record`` | ``replay``, or a
            plug-in spec (group ``colbench.simulators``).
        simulator_kwargs: keyword arguments for the simulator.
        simulator_model / simulator_base_url / simulator_cache: the LLM simulator's model and
            server; the record/replay cache file.
        max_turns: agent turns per episode (the last one is taken as the answer); >= 1.
        prompt_style: LM agents' prompt (:data:`colbench_env.prompting.PROMPT_STYLES`).
        max_new_tokens / temperature: LM agents' sampling.
        seed: episode ``k`` is reset with seed ``seed + k``.
        workers: sandboxed evaluator workers (backend); >= 1.
        semantics: backend scoring semantics, ``reference`` (the reference scorer's rules, comparable
            with published numbers) or ``python`` (plain Python modules); frontend runs take only
            ``reference`` (their score is a similarity).
    """

    out: str
    env: str = "ColBench-Backend-v0"
    agent: str = "smollm2"
    agent_kwargs: dict = field(default_factory=dict)
    agent_model: str | None = None
    agent_base_url: str | None = None
    agent_4bit: bool = False
    tasks: str = "default"
    split: str | None = None
    episodes: int | None = None
    rollouts_per_task: int = 1
    episodes_in_flight: int = 4
    simulator: str = "scripted"
    simulator_kwargs: dict = field(default_factory=dict)
    simulator_model: str | None = None
    simulator_base_url: str | None = None
    simulator_cache: str | None = None
    max_turns: int = 10
    prompt_style: str = "paper"
    max_new_tokens: int = 384
    temperature: float = 0.0
    seed: int = 0
    workers: int = 2
    semantics: str = "reference"

    def __post_init__(self) -> None:
        for name in ("episodes_in_flight", "max_turns", "max_new_tokens", "workers", "rollouts_per_task"):
            if getattr(self, name) < 1:
                raise UsageError(f"--{name.replace('_', '-')} must be >= 1, got {getattr(self, name)}")
        if self.episodes is not None and self.episodes < 1:
            raise UsageError(f"--episodes must be >= 1, got {self.episodes}")
        if self.temperature < 0:
            raise UsageError(f"--temperature must be >= 0, got {self.temperature}")
        if self.split not in (None, "train", "test"):
            raise UsageError(f"--split must be 'train' or 'test', got {self.split!r}")
        if self.semantics not in SEMANTICS:
            raise UsageError(f"--semantics must be one of {', '.join(SEMANTICS)}, got {self.semantics!r}")
        if self.prompt_style not in PROMPT_STYLES:
            raise UsageError(f"--prompt-style must be one of {', '.join(PROMPT_STYLES)}, got {self.prompt_style!r}")
        for name in ("agent_kwargs", "simulator_kwargs"):
            if not isinstance(getattr(self, name), dict):
                raise UsageError(f"--{name.replace('_', '-')} must be a JSON object, got {getattr(self, name)!r}")
        if self.agent == "hf" and not self.agent_model:
            raise UsageError("--agent hf needs --agent-model PATH")
        for name in ("agent_base_url", "simulator_base_url"):
            if getattr(self, name) is not None:
                from colbench_env.lm.openai_compat import split_base_urls

                try:
                    split_base_urls(getattr(self, name))
                except ValueError as e:
                    raise UsageError(f"--{name.replace('_', '-')}: {e}") from None
        if self.agent == "openai" and not (self.agent_base_url and self.agent_model):
            raise UsageError("--agent openai needs --agent-base-url and --agent-model")
        if self.simulator == "openai" and not (self.simulator_base_url and self.simulator_model):
            raise UsageError("--simulator openai needs --simulator-base-url and --simulator-model")
        if self.simulator in ("record", "replay") and not self.simulator_cache:
            raise UsageError(f"--simulator {self.simulator} needs --simulator-cache FILE")
        if not self.out:
            raise UsageError("--out is required")


# ------------------------------------------------------------------------------------- building blocks
def env_kind(env_id: str) -> str:
    """``"backend"`` / ``"frontend"`` of a registered ColBench env id; :class:`UsageError` otherwise."""
    import gymnasium as gym

    import colbench_env  # noqa: F401  (registers the envs)

    known = sorted(k for k, s in gym.registry.items() if s.entry_point == ENV_ENTRY_POINT)
    try:
        spec = gym.spec(env_id)
    except gym.error.Error:
        spec = None
    if spec is None or spec.entry_point != ENV_ENTRY_POINT:
        raise UsageError(f"--env {env_id}: unknown env id; choose from {', '.join(known)}")
    return spec.kwargs.get("kind", "backend")


def load_run_tasks(tasks: str, *, kind: str, split: str | None, command: str = "colbench run") -> list:
    """The tasks of a run; bad files and specs are :class:`UsageError` naming file, line and field."""
    from colbench_env.tasks import TaskFormatError, load_tasks

    try:
        loaded = load_tasks(tasks, kind=kind, split=split)
    except TaskFormatError:
        raise
    except FileNotFoundError:
        raise UsageError(f"--tasks {tasks}: no such file") from None
    except IsADirectoryError:
        raise UsageError(f"--tasks {tasks}: is a directory, not a task file") from None
    except ValueError as e:
        raise UsageError(f"--tasks {tasks}: {e}") from None
    if split is not None and all(t.split is None for t in loaded):
        print(f"{command}: note: {tasks} has no 'split' fields; --split {split} keeps all {len(loaded)} tasks",
              file=sys.stderr)
    return loaded


def check_out_path(out: str | os.PathLike, option: str = "--out") -> None:
    """Fail early (before any model loads) when ``out`` cannot be appended to."""
    p = Path(out)
    if p.exists():
        if not p.is_file():
            raise UsageError(f"{option} {out}: not a regular file")
        if not os.access(p, os.W_OK):
            raise UsageError(f"{option} {out}: not writable")
        return
    parent = p.parent if str(p.parent) else Path(".")
    while not parent.exists():
        parent = parent.parent
    if not parent.is_dir():
        raise UsageError(f"{option} {out}: {parent} is not a directory")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise UsageError(f"{option} {out}: cannot create files in {parent}")
    # os.access says yes to root everywhere (/proc, a read-only mount): create and remove a file to know
    import tempfile

    try:
        fd, probe = tempfile.mkstemp(prefix=".colbench-probe-", dir=parent)
    except OSError as e:
        raise UsageError(f"{option} {out}: cannot create files in {parent} ({e.strerror or e})") from None
    os.close(fd)
    os.unlink(probe)


def config_path(out: str | os.PathLike) -> Path:
    """Where the run configuration of trajectory file ``out`` is kept: ``<out>.run.json``."""
    return Path(str(out) + ".run.json")


def invocations_path(out: str | os.PathLike) -> Path:
    """Where the invocations that wrote trajectory file ``out`` are logged (which code, which command
    line: :func:`colbench.provenance.record_invocation`): ``<out>.invocations.jsonl``."""
    return Path(str(out) + ".invocations.jsonl")


def tasks_hash(tasks: list) -> str:
    """sha256 of the tasks' official records, in order."""
    blob = json.dumps([t.to_record() for t in tasks], sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def run_signature(config: RunConfig, tasks: list) -> dict:
    """What makes two runs the same run (stored in ``<out>.run.json``). A plug-in agent or simulator
    given as a file or module adds the sha256 of that file's source (``agent_code_sha256``,
    ``simulator_code_sha256``; :func:`colbench.plugins.source_hash`): load the plug-in first."""
    from colbench import plugins
    from colbench_env.simulators import SIMULATOR_NAMES
    from colbench_env.simulators.scripted_backend import reply_version

    keep = ("env", "tasks", "split", "agent", "agent_kwargs", "agent_model", "agent_base_url", "agent_4bit",
            "simulator", "simulator_kwargs", "simulator_model", "simulator_base_url", "simulator_cache",
            "max_turns", "rollouts_per_task", "seed", "prompt_style", "max_new_tokens", "temperature", "semantics")
    sig = {k: getattr(config, k) for k in keep}
    sig["tasks_sha256"] = tasks_hash(tasks)
    sig["agent_code_sha256"] = (plugins.source_hash(config.agent, plugins.AGENT_GROUP)
                                if config.agent not in AGENTS else None)
    sig["simulator_code_sha256"] = (plugins.source_hash(config.simulator, plugins.SIMULATOR_GROUP)
                                    if config.simulator not in SIMULATOR_NAMES else None)
    # the offline backend human's reply version (its replies changed in version 3)
    sig["human_version"] = reply_version(config.simulator) if env_kind(config.env) == "backend" else None
    return json.loads(json.dumps(sig))  # as stored: JSON types only


def _stored_defaults(stored: dict, signature: dict) -> dict:
    """Values of fields a ``<out>.run.json`` written before they existed had (:data:`SIGNATURE_DEFAULTS`;
    ``human_version``: :data:`~colbench_env.simulators.scripted_backend.UNRECORDED_VERSION` for a
    scripted backend human, whose replies were not versioned before version 3)."""
    from colbench_env.simulators.scripted_backend import UNRECORDED_VERSION

    recorded = stored.get("simulator") == "scripted" and signature.get("human_version") is not None
    return {**SIGNATURE_DEFAULTS, "human_version": UNRECORDED_VERSION if recorded else None}


def _short(v: Any) -> str:
    s = json.dumps(v)
    return s if len(s) <= 40 else s[:37] + "..."


def check_resume(out: str | os.PathLike, signature: dict, *, option: str = "--out", write: bool = True) -> None:
    """Stop when ``out`` holds another run (a plug-in whose source changed since included: the message
    names it); else (re)write its configuration file (:func:`write_run_config`; not with ``write=False``,
    which only checks)."""
    from colbench.resume import changed_fields, read_json_object
    from colbench.wrappers.recorder import completed_episode_ids

    cfg_file = config_path(out)
    n_done = len(completed_episode_ids(out, include_errors=True)) if Path(out).exists() else 0
    if cfg_file.exists():
        try:
            stored = read_json_object(cfg_file)
        except ValueError as e:
            raise UsageError(f"{e}: not a run configuration; delete it together with {out} to start over") from None
        if n_done:
            # a plug-in's source hash is compared only when the stored run recorded one (older runs did not)
            code = [k for k in CODE_FIELDS if k in stored]
            stored = {**_stored_defaults(stored, signature), **stored}
            differ = changed_fields(stored, {k: v for k, v in signature.items() if k in stored or k not in CODE_FIELDS},
                                    compare_missing=True)
            changed_code = [d for d in differ if d[0] in code]
            if changed_code and len(changed_code) == len(differ):
                field_, was, now = changed_code[0]
                which = CODE_FIELDS[field_]
                raise UsageError(f"{option} {out} holds {n_done} episodes of --{which} {signature[which]} as its "
                                 f"code was then, and its source changed since (sha256 {str(was)[:12]} there, "
                                 f"{str(now)[:12]} now); use another {option}, or delete {out} and {cfg_file} "
                                 "to rerun it")
            if differ:
                what = "; ".join(f"{k}: {_short(was)} there, {_short(now)} now" for k, was, now in differ)
                raise UsageError(f"{option} {out} holds {n_done} episodes of another run (differs in {what}); "
                                 f"use another {option}, or delete {out} and {cfg_file} to start over")
    elif n_done:
        raise UsageError(f"{option} {out} holds {n_done} episodes but no run configuration ({cfg_file}), so "
                         f"resuming could mix two runs; use another {option}, or delete {out} to start over")
    if write:
        write_run_config(out, signature, option=option)


def write_run_config(out: str | os.PathLike, signature: dict, *, option: str = "--out") -> None:
    """Write ``<out>.run.json`` (atomically); an :class:`UsageError` naming it when it cannot be written."""
    cfg_file = config_path(out)
    tmp = cfg_file.with_name(cfg_file.name + ".tmp")
    try:
        cfg_file.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_text(json.dumps(signature, indent=2, sort_keys=True, allow_nan=False) + "\n", encoding="utf-8")
        os.replace(tmp, cfg_file)
    except OSError as e:
        raise UsageError(f"{option} {out}: cannot write {cfg_file} ({e.strerror or e})") from None


def make_agent(config: RunConfig, kind: str):
    """The agent named by ``config.agent`` (built-in or plug-in)."""
    from colbench import plugins

    if config.agent not in AGENTS:
        obj = plugins.load_object(config.agent, plugins.AGENT_GROUP, option="--agent")
        return plugins.build(obj, config.agent_kwargs, context={"kind": kind, "max_turns": config.max_turns},
                             option="--agent", kwargs_option="--agent-kwargs")
    from colbench.agents.base import LMAgent, ScriptedAgent
    from colbench_env.lm.base import SamplingParams

    if config.agent == "scripted":
        return ScriptedAgent(**{"kind": kind, **config.agent_kwargs})  # the env's questions and answer
    sampling = SamplingParams(max_new_tokens=config.max_new_tokens, temperature=config.temperature,
                              seed=config.seed if config.temperature > 0 else None)
    kw: dict[str, Any] = dict(kind=kind, max_turns=config.max_turns, sampling=sampling,
                              prompt_style=config.prompt_style)
    if config.agent in ("smollm2", "hf"):
        kw["load_in_4bit"] = config.agent_4bit
    if config.agent == "hf":
        kw["model"] = config.agent_model
    if config.agent == "openai":
        kw.update(base_url=config.agent_base_url, model=config.agent_model)
    kw.update(config.agent_kwargs)
    return LMAgent(config.agent, **kw)


def make_run_simulator(config: RunConfig, kind: str):
    """The simulator named by ``config.simulator`` (built-in or plug-in)."""
    from colbench import plugins
    from colbench_env.simulators import SIMULATOR_NAMES, Simulator, check_simulator_kwargs, make_simulator

    if config.simulator not in SIMULATOR_NAMES:
        obj = plugins.load_object(config.simulator, plugins.SIMULATOR_GROUP, option="--simulator")
        sim = plugins.build(obj, config.simulator_kwargs, context={"kind": kind}, option="--simulator",
                            kwargs_option="--simulator-kwargs")
        if not isinstance(sim, Simulator):
            raise UsageError(f"--simulator {config.simulator}: gave a {type(sim).__name__}, not a "
                             "colbench_env.simulators.Simulator")
        return sim
    kw: dict[str, Any] = {}
    if config.simulator in ("hf", "smollm2") and config.simulator_model:
        kw["model"] = config.simulator_model
    if config.simulator == "openai":
        kw.update(base_url=config.simulator_base_url, model=config.simulator_model)
    if config.simulator in ("record", "replay"):
        kw["path"] = config.simulator_cache
    kw.update(config.simulator_kwargs)
    try:
        check_simulator_kwargs(config.simulator, kind, kw)
    except ValueError as e:
        raise UsageError(f"--simulator-kwargs: {e}") from None
    return make_simulator(config.simulator, kind=kind, **kw)


class TurnProgress:
    """A run's progress by agent turn, on stderr (a tqdm bar): the turns done out of the most that
    can be left (episodes x ``max_turns``, less the turns of episodes that ended early, so the total
    shrinks as they end), the elapsed time and tqdm's estimate of the time left (the turns' rate so far
    over the most turns left: an upper bound while episodes end early), turns per second, episodes
    done, and -- when the policy counts them (``generated_tokens``, as an
    :class:`~colbench.agents.LMAgent` does) -- the tokens it generated per second since the first turn
    started. Its :meth:`turn` is :func:`colbench_env.rollout.run_episodes`'s ``on_turn``."""

    def __init__(self, episodes: int, max_turns: int, desc: str, policy: Any = None, *, file: Any = None):
        import time

        from tqdm import tqdm

        self.episodes, self.max_turns, self.done, self.turns = episodes, max_turns, 0, 0
        self.policy = policy
        self._clock = time.monotonic
        self.start, self.tokens0 = self._clock(), self._tokens()
        self.bar = tqdm(total=episodes * max_turns, desc=desc, unit="turn", file=file or sys.stderr,
                        postfix=self._postfix())

    def _tokens(self) -> int | None:
        n = getattr(self.policy, "generated_tokens", None)
        return n if isinstance(n, int) and not isinstance(n, bool) else None

    def tokens_per_second(self) -> float | None:
        """Tokens the policy generated per second since this progress started (``None``: not counted,
        or no turn done yet)."""
        now, elapsed = self._tokens(), self._clock() - self.start
        if now is None or elapsed <= 0 or not self.turns:
            return None
        return (now - (self.tokens0 or 0)) / elapsed

    def _postfix(self) -> str:
        rate = self.tokens_per_second()
        return f"episodes {self.done}/{self.episodes}" + (f", {rate:.1f} tok/s" if rate is not None else "")

    def turn(self, spec: Any, turn: int, ended: bool) -> None:
        """One agent turn done (``turn``: its number in its episode; ``ended``: the episode ended with it)."""
        self.turns += 1
        if ended:
            self.done += 1
            self.bar.total -= max(0, self.max_turns - turn)  # turns this episode will never take
        self.bar.set_postfix_str(self._postfix(), refresh=False)
        self.bar.update(1)

    def close(self) -> None:
        self.bar.set_postfix_str(self._postfix(), refresh=False)
        self.bar.close()

    def __enter__(self) -> "TurnProgress":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def run_to_file(env_fn, make_policy, specs, out, *, episodes_in_flight: int, desc: str, max_turns: int,
                close_policy: bool = True, on_start: Callable[[Any], None] | None = None) -> list[dict]:
    """Run the episodes of ``specs`` not yet completed in ``out`` (resume), appending each record
    as it finishes; returns the latest record of every episode of ``specs`` found in ``out``.

    Each record of a policy that builds its contexts with :mod:`colbench_env.prompting` (an
    :class:`~colbench.agents.LMAgent`) keeps their settings in ``agent_prompt``
    (:func:`~colbench_env.prompting.agent_prompt_settings`), for the trainers.

    The episodes' progress is shown by agent turn on stderr (:class:`TurnProgress`).

    Args:
        env_fn: makes one env (see :func:`colbench_env.rollout.run_episodes`).
        make_policy: builds the policy; called only when some episode is left to run (a policy
            with ``close()`` is closed afterwards unless ``close_policy`` is false).
        max_turns: the envs' agent turns per episode (the progress's most turns left).
        on_start: called with the policy once it is built, before the first episode (what a run
            writes beside its trajectories: nothing is written when building the policy fails).
    """
    from colbench_env.rollout import run_episodes
    from colbench.wrappers.recorder import TrajectoryRecorder, completed_episode_ids, recorded_episodes

    done = completed_episode_ids(out)
    wanted = {s.episode_id for s in specs}
    todo = [s for s in specs if s.episode_id not in done]
    if done & wanted:
        print(f"resuming: {len(done & wanted)} episodes already in {out}, {len(todo)} to run", file=sys.stderr)
    retried = (completed_episode_ids(out, include_errors=True) - done) & wanted
    if retried:
        print(f"retrying {len(retried)} episodes that ended with an error", file=sys.stderr)
    if todo:
        from colbench_env.prompting import AGENT_PROMPT_FIELD, agent_prompt_settings

        policy = make_policy()
        settings = agent_prompt_settings(policy)
        extra = {AGENT_PROMPT_FIELD: settings} if settings else {}
        try:
            if on_start is not None:
                on_start(policy)
            with TurnProgress(len(todo), max_turns, desc, policy) as progress:
                run_episodes(lambda: TrajectoryRecorder(env_fn(), out, extra=extra), policy, todo,
                             episodes_in_flight=episodes_in_flight, on_turn=progress.turn)
        finally:
            if close_policy and hasattr(policy, "close"):
                policy.close()
    return recorded_episodes(out, wanted)[0]


#: SmolLM2-135M's settings (the embedded model): the paper's prompt is too long for it (0 % of the
#: embedded tasks), the compact prompt's worked example and the "rate" family are what it can do
SMOLLM2_SETTINGS = ("colbench run --agent smollm2 --tasks generated:16:1:rate --split test --prompt-style compact "
                    "--max-turns 3 --max-new-tokens 96")
#: new tokens the up-front measurement generates (one sequence, the first episode's first prompt)
PROBE_TOKENS = 32


def local_model_note(config: RunConfig, policy: Any, task: Any) -> str | None:
    """What ``colbench run`` says before a local model (``--agent smollm2`` / ``hf``) starts on the
    paper's prompt: what an episode can cost -- ``max_turns`` x ``max_new_tokens`` new tokens, and
    the time that takes at the rate measured now (the agent's model generates up to
    :data:`PROBE_TOKENS` tokens for the first episode's first prompt, one sequence, timed) -- and,
    for the embedded SmolLM2, the settings it is made for (:data:`SMOLLM2_SETTINGS`). ``None`` for
    any other run (a served or plug-in agent, the compact prompt)."""
    import dataclasses
    import time

    if config.agent not in ("smollm2", "hf") or config.prompt_style != "paper" or not hasattr(policy, "lm"):
        return None
    lm = policy.lm
    obs = {"problem_description": task.problem_description, "dialogue": "[]"}
    before = getattr(lm, "generated_tokens", None) or 0
    t0 = time.perf_counter()
    lm.generate([policy.messages(obs)], dataclasses.replace(policy.sampling, max_new_tokens=PROBE_TOKENS, n=1))
    seconds = time.perf_counter() - t0
    made = (getattr(lm, "generated_tokens", None) or 0) - before
    most = config.max_turns * config.max_new_tokens
    lines = [f"colbench run: note: on the paper's prompt an episode can take up to {config.max_turns} turns x "
             f"{config.max_new_tokens} new tokens = {most} tokens"]
    if made > 0 and seconds > 0:
        rate = made / seconds
        lines[0] += (f", about {_duration(most / rate)} an episode at the {rate:.1f} tokens/s measured now "
                     f"({made} tokens of one sequence; {config.episodes_in_flight} episodes in flight share the model)")
    if config.agent == "smollm2":
        lines.append("colbench run: note: the embedded SmolLM2-135M solves none of the paper-prompt tasks; it is made "
                     "for --prompt-style compact (a worked example) and the backend's 'rate' task family, e.g. "
                     + SMOLLM2_SETTINGS)
    return "\n".join(lines)


def _duration(seconds: float) -> str:
    """``"1 h 4 min"``, ``"3 min 20 s"``, ``"12 s"``."""
    s = int(round(seconds))
    if s >= 3600:
        return f"{s // 3600} h {s % 3600 // 60} min"
    if s >= 60:
        return f"{s // 60} min {s % 60} s"
    return f"{s} s"


# --------------------------------------------------------------------------------------------- run
def run(config: RunConfig, *, agent: Any = None, simulator: Any = None) -> dict:
    """Run (or resume) the episodes of ``config``; returns the metrics over every episode of the run
    in ``config.out`` (:func:`colbench_env.metrics.summarize`).

    Everything the user can get wrong (env id, task file, ``out``, an earlier different run in
    ``out``, a plug-in spec) is checked before any model loads, and raised as :class:`UsageError`.

    Raises:
        EpisodesFailed: after every episode ran and was written, when some ended with an error (the
            agent's or the human's server failed: :func:`check_episode_errors`); it names the first
            error, carries the metrics, and rerunning the same config retries those episodes.

    Args:
        agent: an agent object to use instead of building ``config.agent`` (``config.agent`` then
            only names it in the run configuration).
        simulator: likewise for the simulator.
    """
    import gymnasium as gym

    from colbench_env.rollout import episode_specs

    kind = env_kind(config.env)
    if kind != "backend" and config.semantics != "reference":
        raise UsageError(f"--semantics {config.semantics}: only backend envs have scoring semantics "
                         f"({config.env} scores a page by similarity)")
    tasks = load_run_tasks(config.tasks, kind=kind, split=config.split)
    check_out_path(config.out)
    from colbench import plugins
    from colbench_env.simulators import SIMULATOR_NAMES

    # a bad plug-in spec fails before anything starts; loaded, its source can be hashed
    if agent is None and config.agent not in AGENTS:
        plugins.load_object(config.agent, plugins.AGENT_GROUP, option="--agent")
    if simulator is None and config.simulator not in SIMULATOR_NAMES:
        plugins.load_object(config.simulator, plugins.SIMULATOR_GROUP, option="--simulator")
    signature = run_signature(config, tasks)
    check_resume(config.out, signature, write=False)
    if agent is None and config.agent == "hf":  # a model that is not there: one line now, not a hub timeout later
        from colbench_env.lm.models import resolve_model

        resolve_model(config.agent_model, option="--agent-model")
    if config.rollouts_per_task > 1 and config.temperature == 0 and config.agent in ("smollm2", "hf", "openai"):
        print(f"colbench run: note: --rollouts-per-task {config.rollouts_per_task} at --temperature 0: a greedy "
              "agent repeats itself, so with a deterministic human a task's rollouts are copies (pair-based "
              "trainers need sampled ones: --temperature > 0)", file=sys.stderr)

    def start(policy) -> None:  # the agent is built: from here on the run leaves its files
        from colbench.provenance import log_invocation

        if agent is None:
            note = local_model_note(config, policy, tasks[0])
            if note:
                print(note, file=sys.stderr)
        write_run_config(config.out, signature)
        note = log_invocation(invocations_path(config.out), "run")  # which code wrote the episodes
        if note:
            print(note, file=sys.stderr)

    sim = simulator if simulator is not None else make_run_simulator(config, kind)
    n = config.episodes if config.episodes is not None else len(tasks) * config.rollouts_per_task
    try:
        with scoring_pool(kind, workers=config.workers, semantics=config.semantics,
                          renderers=max(1, min(config.episodes_in_flight, 2))) as shared:
            records = run_to_file(
                lambda: gym.make(config.env, tasks=tasks, simulator=sim, max_turns=config.max_turns, **shared),
                (lambda: agent) if agent is not None else (lambda: make_agent(config, kind)),
                episode_specs(n, n_tasks=len(tasks), seed=config.seed, repeats=config.rollouts_per_task),
                config.out, episodes_in_flight=config.episodes_in_flight, desc=f"{config.agent} on {config.env}",
                max_turns=config.max_turns,
                close_policy=agent is None,  # an agent passed in is the caller's to close
                on_start=start)
    finally:
        if simulator is None:
            sim.close()
    metrics = summarize(records)
    check_episode_errors(records, config.out, metrics=metrics)
    return metrics


# ------------------------------------------------------------------------- an LM policy's episodes
def resolve_policy(policy: str, *, served: bool = False, option: str = "--policy") -> str:
    """A policy's loadable path (``smollm2``: the embedded model's converted weights; a hub id in the
    local cache: its snapshot) or name (a ``colbench train`` checkpoint, which the agents and the
    trainers load as its base with the trained policy merged; a hub id to download). A model found
    nowhere is a :class:`~colbench_env.lm.models.ModelNotFoundError` naming ``option``.

    ``served``: the policy's turns come from OpenAI-compatible server(s), which are asked for it by
    this name: a local model name is still its path, anything else is ``policy`` as given (a hub id
    the server knows; nothing is looked up here: the trainers resolve it when they load it)."""
    from colbench_env.lm.models import LOCAL_MODELS, resolve_model

    if served and policy not in LOCAL_MODELS:
        return policy
    source = resolve_model(policy, option=option)
    return source.path if source.kind in ("local", "directory", "cached") else policy


def policy_agent(model: str, *, kind: str = "backend", max_turns: int, prompt_style: str, max_new_tokens: int,
                 temperature: float, seed: int, base_url: str | None = None,
                 run_dir: str | os.PathLike | None = None):
    """The LM agent of policy ``model`` (a path or name from :func:`resolve_policy`), sampling at
    ``temperature`` from seed ``seed`` (greedy at 0, no seed): generated here
    (:class:`colbench.agents.LMAgent` ``"hf"``), or with ``base_url`` on OpenAI-compatible server(s) that are
    asked for ``model`` by its name relative to ``run_dir`` (:func:`colbench.agents.served.served_policy`)."""
    from colbench.agents.base import LMAgent
    from colbench_env.lm.base import SamplingParams

    kw = dict(kind=kind, max_turns=max_turns, prompt_style=prompt_style,
              sampling=SamplingParams(max_new_tokens=max_new_tokens, temperature=temperature,
                                      seed=seed if temperature > 0 else None))
    if not base_url:
        return LMAgent("hf", model=model, **kw)
    from colbench.agents.served import served_policy

    return served_policy(base_url, model, run_dir=run_dir, **kw)


@contextmanager
def scoring_pool(kind: str, *, workers: int = 2, semantics: str = "reference", renderers: int = 2,
                 similarity: str | None = None) -> Iterator[dict]:
    """The env keyword arguments that share one scoring pool between the episodes of a run, closed on
    exit: backend ``{"evaluator": BackendEvaluator(workers=workers, semantics=semantics)}``, frontend
    ``{"renderer": Renderer(pool_size=renderers)}`` and, with a ``similarity`` name, ``"similarity":
    make_similarity(similarity)`` (one for every env: CLIP loads its model once; ``None``: the env's
    default)."""
    if kind == "backend":
        from colbench_env.evaluation.backend import BackendEvaluator

        with BackendEvaluator(workers=workers, semantics=semantics) as ev:
            yield {"evaluator": ev}
        return
    from colbench_env.evaluation.render import Renderer

    with Renderer(pool_size=renderers) as renderer:
        if similarity is None:
            yield {"renderer": renderer}
        else:
            from colbench_env.evaluation.similarity import make_similarity

            yield {"renderer": renderer, "similarity": make_similarity(similarity)}


def run_policy_episodes(env_id: str, tasks: list, make_policy: Callable[[], Any], out: str | os.PathLike, *,
                        repeats: int = 1, seed: int = 0, max_turns: int, episodes_in_flight: int, desc: str,
                        simulator: str = "scripted", simulator_kwargs: dict | None = None,
                        semantics: str = "reference", similarity: str | None = None,
                        only: set[str] | None = None) -> list[dict]:
    """The episodes of ``tasks`` in env ``env_id``, each task ``repeats`` times in a row (episode ``k``
    runs task ``k // repeats`` and is reset with seed ``seed + k``; ``only``: just the episodes of
    these ids), played by the policy ``make_policy`` builds against the built-in simulator
    ``simulator`` and appended to ``out`` (:func:`run_to_file`: resumes, and builds nothing when
    every episode is already there); returns their records. Answers are scored in a 2-worker sandbox
    pool, pages rendered by 2 Chromium drivers (:func:`scoring_pool`). The memory the episodes used
    is handed back afterwards (:func:`colbench_env.lm.heap.release_memory`, a stage's end). A stage of the pipeline
    (:func:`colbench.pipeline.run_stage_episodes`) or of critic-ranking.

    Raises:
        EpisodesFailed: some episodes ended with an error (the agent's or the human's server failed);
            their records are kept and the episodes are run again on the next call.
    """
    import gymnasium as gym

    from colbench_env.lm.heap import release_memory
    from colbench_env.rollout import episode_specs
    from colbench_env.simulators import make_simulator

    kind = env_kind(env_id)
    specs = [s for s in episode_specs(len(tasks) * repeats, n_tasks=len(tasks), seed=seed, repeats=repeats)
             if only is None or s.episode_id in only]
    sim = make_simulator(simulator, kind=kind, **(simulator_kwargs or {}))
    try:
        with scoring_pool(kind, semantics=semantics, similarity=similarity) as shared:
            records = run_to_file(lambda: gym.make(env_id, tasks=tasks, simulator=sim, max_turns=max_turns, **shared),
                                  make_policy, specs, out, episodes_in_flight=episodes_in_flight, desc=desc,
                                  max_turns=max_turns)
    finally:
        sim.close()
        release_memory(stage_end=True)
    check_episode_errors(records, out)
    return records


def check_episode_errors(records: list[dict], out: str | os.PathLike, *, metrics: dict | None = None) -> None:
    """Raise :class:`~colbench.errors.EpisodesFailed` (a :class:`~colbench.errors.StageFailed`) when
    some of ``records`` (the episodes of ``out``) ended with an error, naming how many, the first
    error, and how to retry them: rerunning the command resumes, running only the failed episodes
    again (the others are kept). ``metrics`` ride along on the exception."""
    failed = [r for r in records if r.get("error")]
    if failed:
        first = " ".join(str(failed[0]["error"]).split())
        raise EpisodesFailed(f"{out}: {len(failed)} of {len(records)} episodes ended with an error (first: "
                             f"{first[:300]}); run the same command again to retry them (it resumes: the "
                             f"{len(records) - len(failed)} finished episodes are kept)", metrics)
