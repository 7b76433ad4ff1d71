"""The pipeline's stages: the run's tasks and base policy, running episodes into a file (resumed),
training one method (resumed through its marker ``models/<method>/pipeline_done.json``).

Under ``accelerate launch`` (several processes, :func:`processes`) the stages run on every process:
an episode stage splits its episodes over them (:func:`run_stage_episodes`: each process its share
into a part file, merged into the stage's file by the main process), a training stage trains on all
of them (the trainers shard: DDP, FSDP, ZeRO-3), and the main process alone writes everything else
(the trained model's export, the stage markers, the run's configuration and reports)."""
from __future__ import annotations

import json
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from colbench.agents.registry import trainer_class
from colbench.errors import StageFailed
from colbench_env.errors import UsageError
from colbench_env.lm.heap import release_memory

from .config import METHODS, PipelineConfig, trainer_config

__all__ = ["Processes", "base_policy", "episode_part", "episodes_in_file", "export_merged", "finished_methods", "log", "mark_finished",
           "merge_episode_parts", "policy_adapter", "processes", "run_stage_episodes", "task_split", "train_method",
           "training_outcome", "training_tokens"]

#: ``derived_seed`` key of each process's sampling seed when several processes run episodes
_PROCESS_STREAM = 0x9A57


@dataclass(frozen=True)
class Processes:
    """This process's place among the processes of the launch (:func:`processes`).

    Attributes:
        index, count: this process's number and how many there are (``0``, ``1``: no launch).
        state: accelerate's ``PartialState`` of the launch (``None`` for one process).
    """

    index: int = 0
    count: int = 1
    state: Any = None

    @property
    def main(self) -> bool:
        """Whether this is the main process, which writes the run's shared files."""
        return self.index == 0

    def wait(self) -> None:
        """Wait until every process gets here (nothing for one process)."""
        if self.state is not None:
            self.state.wait_for_everyone()


def processes() -> Processes:
    """The processes of the current ``accelerate launch`` (:func:`colbench.agents.sharding.process_state`:
    the process group the trainers then share), or one process when there is no launch."""
    if int(os.environ.get("WORLD_SIZE", "1")) <= 1:
        return Processes()
    from colbench.agents.sharding import process_state

    state = process_state()
    return Processes(state.process_index, state.num_processes, state)


def log(msg: str) -> None:
    """A progress line on stderr (the main process's only, under a launch)."""
    if os.environ.get("RANK", "0") != "0":
        return
    print(f"[pipeline {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def task_split(cfg: PipelineConfig, split: str) -> list:
    """The run's training (``split="train"``) or held-out (``"test"``) tasks, as every stage sees them."""
    from colbench_env.tasks import generated_spec, load_tasks

    n = cfg.n_train_tasks if split == "train" else cfg.n_test_tasks
    if cfg.tasks == "generated":
        return load_tasks(generated_spec(n or 20, cfg.difficulty, cfg.family, kind=cfg.kind), kind=cfg.kind,
                          split=split)
    tasks = load_tasks(cfg.tasks, kind=cfg.kind, split=split)
    return tasks[:n] if n else tasks


def base_policy(cfg: PipelineConfig) -> str:
    """The base policy's loadable path or name (:func:`colbench.runs.resolve_policy` of ``cfg.policy``,
    named ``--policy``; with ``cfg.policy_base_url`` the name the server(s) are asked for it by)."""
    from colbench.runs import resolve_policy

    return resolve_policy(cfg.policy, served=bool(cfg.policy_base_url))


def run_stage_episodes(cfg: PipelineConfig, tasks: list, model_path: str, out: Path, *, repeats: int,
                       temperature: float, desc: str, only: set[str] | None = None,
                       run_dir: str | os.PathLike | None = None) -> list[dict]:
    """Episodes of ``model_path`` on ``tasks`` (each ``repeats`` times; ``only``: just the episodes of
    these ids) in ``cfg.env`` with the run's human, appended to ``out`` (resumes;
    :func:`colbench.runs.run_policy_episodes`).

    The policy runs here, or (``cfg.policy_base_url``) on the server(s), asked for ``model_path`` by
    its name relative to ``run_dir`` (default ``cfg.out_dir``; the pipeline passes its top-level
    out-dir), after loading its LoRA adapter there with ``cfg.policy_lora``. Nothing is built or
    sent when every episode is already in ``out``.

    Several processes (:func:`processes`): the episodes not yet in ``out`` are split over them,
    process ``k`` of ``N`` running every ``N``-th from the ``k``-th into its part file
    (:func:`episode_part`), each process sampling from its own seed (``derived_seed(seed, stream,
    k)``: a task's rollouts on two processes must not share their random numbers); then the main
    process appends them to ``out`` in episode order (:func:`merge_episode_parts`; the part files
    of an interrupted run too, first) and every process returns every episode.

    Raises:
        StageFailed: some episodes ended with an error (the agent's or the human's server failed);
            nothing is trained or reported on them, and they are run again on resume. Under a launch
            every process raises it, after the parts are merged.
    """
    from colbench.runs import policy_agent, run_policy_episodes
    from colbench.wrappers.recorder import completed_episode_ids, recorded_episodes
    from colbench_env.lm.base import derived_seed

    specs = [s for s in _specs(cfg, tasks, repeats) if only is None or s.episode_id in only]
    procs = processes()
    root = run_dir if run_dir is not None else cfg.out_dir
    seed = cfg.seed if procs.count == 1 else derived_seed(cfg.seed, _PROCESS_STREAM, procs.index)

    def load_adapter() -> None:
        adapter = policy_adapter(cfg, model_path) if cfg.policy_base_url and cfg.policy_lora else None
        if adapter is not None:
            from colbench.agents.served import load_lora_adapter, served_model_name

            name = served_model_name(model_path, root)
            log(f"loading the LoRA adapter {adapter} into {cfg.policy_base_url} as {name!r}")
            load_lora_adapter(cfg.policy_base_url, name, adapter)

    def make_agent():
        if procs.count == 1:
            load_adapter()
        return policy_agent(model_path, kind=cfg.kind, max_turns=cfg.max_turns, prompt_style=cfg.prompt_style,
                            max_new_tokens=cfg.max_new_tokens, temperature=temperature, seed=seed,
                            base_url=cfg.policy_base_url, run_dir=root)

    def run(mine: set[str] | None, target: Path) -> list[dict]:
        return run_policy_episodes(cfg.env, tasks, make_agent, target, repeats=repeats, seed=cfg.seed,
                                   max_turns=cfg.max_turns, episodes_in_flight=cfg.episodes_in_flight, desc=desc,
                                   simulator=cfg.simulator, simulator_kwargs=cfg.simulator_kwargs,
                                   semantics=cfg.semantics, similarity=cfg.similarity, only=mine)

    if procs.count == 1:
        return run(only, out)
    if procs.main:
        merge_episode_parts(out, specs)  # an interrupted run's
    procs.wait()
    done = completed_episode_ids(out)
    todo = [s for s in specs if s.episode_id not in done]
    if todo and procs.main:
        load_adapter()  # once, before any process asks for the model
    procs.wait()
    from colbench.agents.sharding import loaded_whole

    try:  # a local policy: each process loads its own (whole, under ZeRO-3 too) for its own episodes
        with loaded_whole():
            run({s.episode_id for s in todo[procs.index::procs.count]}, episode_part(out, procs.index))
    except StageFailed:  # every process raises it below, from the merged file
        pass
    procs.wait()
    if procs.main:
        merge_episode_parts(out, specs)
    procs.wait()
    records = recorded_episodes(out, {s.episode_id for s in specs})[0]
    failed = [r for r in records if r.get("error")]
    if failed:
        raise StageFailed(f"{out}: {len(failed)} of {len(records)} episodes ended with an error (first: "
                          f"{str(failed[0]['error'])[:300]}); run the same command again to retry them")
    return records


def episode_part(out: Path, index: int) -> Path:
    """Process ``index``'s part file of the episode file ``out`` (``rollouts.jsonl.part-1``: not a
    ``*.jsonl`` file, so nothing that lists a run's episode files takes it for one)."""
    return Path(out).with_name(f"{Path(out).name}.part-{index}")


def merge_episode_parts(out: Path, specs: list) -> None:
    """Append the episodes of ``out``'s part files (:func:`episode_part`) to ``out`` -- in the order
    of ``specs``, then any others by id; each episode's latest record, unless ``out``'s latest record
    of it is the same -- and remove the part files. Run again on the same files (an interrupted
    merge) it appends nothing twice."""
    from colbench_env.trajectories import append_jsonl, read_trajectories
    from colbench.wrappers.recorder import latest_records

    out = Path(out)
    parts = sorted(out.parent.glob(f"{out.name}.part-*"))
    if not parts:
        return
    found: dict[str, dict] = {}
    for part in parts:
        found.update(latest_records(read_trajectories(part, tolerate_partial_last_line=True)))
    have = latest_records(read_trajectories(out, tolerate_partial_last_line=True)) if out.exists() else {}
    order = [s.episode_id for s in specs if s.episode_id in found]
    order += sorted(set(found) - set(order))
    append_jsonl(out, [found[k] for k in order if found[k] != have.get(k)])
    for part in parts:
        part.unlink()


def policy_adapter(cfg: PipelineConfig, model_path: str | os.PathLike) -> Path | None:
    """The LoRA adapter that a policy trained in this run, ``<cfg.out_dir>/models/<method>``, was
    merged from: ``<cfg.out_dir>/ckpt/<method>/policy`` (:func:`train_method` writes both);
    ``None`` for any other model (the base policy, wherever it lies)."""
    out, p = Path(cfg.out_dir).resolve(), Path(model_path).resolve()
    if p.parent != out / "models":
        return None
    return out / "ckpt" / p.name / "policy"


def _specs(cfg: PipelineConfig, tasks: list, repeats: int) -> list:
    from colbench_env.rollout import episode_specs

    return episode_specs(len(tasks) * repeats, n_tasks=len(tasks), seed=cfg.seed, repeats=repeats)


def episodes_in_file(cfg: PipelineConfig, tasks: list, path: Path, *, repeats: int) -> tuple[list[dict], int]:
    """The episodes of ``tasks`` x ``repeats`` already in ``path`` (as :func:`run_stage_episodes` would return them,
    running nothing) and how many of them are missing."""
    from colbench.wrappers.recorder import recorded_episodes

    records, missing = recorded_episodes(path, {s.episode_id for s in _specs(cfg, tasks, repeats)})
    return records, len(missing)


def finished_methods(out: Path) -> list[str]:
    """The methods whose training finished in the run directory ``out`` (trained, or found to have
    nothing to learn from), in :data:`METHODS` order."""
    return [m for m in METHODS if _done_marker(out, m).exists()]


def _done_marker(out: Path, method: str) -> Path:
    return Path(out) / "models" / method / "pipeline_done.json"


def training_outcome(out: Path, method: str) -> dict | None:
    """What ``method``'s training stage left in the run directory ``out``: its metrics and seconds,
    or ``skipped``, why it was not trained; ``None`` while the stage has not finished."""
    marker = _done_marker(out, method)
    return json.loads(marker.read_text()) if marker.exists() else None



def training_tokens(cfg: PipelineConfig, methods: list[str], base: str, rollouts: list[dict], out: Path) -> dict:
    """How each of ``methods`` will train the agent turns of ``rollouts`` against the token ids their
    policy recorded: ``{method: TokenReport}``
    (:func:`colbench.agents.tokenize.policy_token_report` with the method's trainer config: its
    policy's tokenizer only, no model), each logged as ``train <method>: tokens: <summary>``, the line
    ``colbench train`` prints. Methods whose training already finished in ``out`` are left out.

    Raises:
        UsageError: ``cfg.strict_tokens`` and some turn would be trained on a re-tokenization that
            differs from, or cannot be checked against, what the policy saw (the message
            ``colbench train --strict-tokens`` gives), before any method trains; or a malformed
            ``tokens`` field, naming the rollout file's line and the field.
    """
    from colbench.agents.tokenize import TokenizationError, policy_token_report
    from colbench_env.lm.models import load_tokenizer, resolve_model
    from colbench_env.trajectories import read_jsonl

    todo = [m for m in methods if training_outcome(out, m) is None]
    if not todo:
        return {}
    path = Path(out) / "rollouts.jsonl"
    lines = {rec.get("episode_id"): n for n, rec in read_jsonl(path, tolerate_partial_last_line=True)} \
        if path.exists() else {}  # each episode's latest line
    sources = [f"{path}:{lines.get(r.get('episode_id'), '?')}" for r in rollouts]
    reports = {}
    tokenizers: dict[str, Any] = {}  # one load per policy (every method's is the base policy's)
    for m in todo:
        conf = trainer_config(cfg, m, base)
        name = str(conf.policy.model_name_or_path)
        if name not in tokenizers:
            tokenizers[name] = load_tokenizer(resolve_model(name, option="policy.model_name_or_path"))
        try:
            reports[m] = policy_token_report(rollouts, conf, sources=sources, tokenizer=tokenizers[name])
        except TokenizationError as e:
            raise UsageError(str(e)) from None
        log(f"train {m}: tokens: {reports[m].summary()}")
    if cfg.strict_tokens:
        for m, report in reports.items():
            refusal = report.refusal(f"--strict-tokens ({m})")
            if refusal:
                raise UsageError(refusal)
    return reports


def train_method(cfg: PipelineConfig, method: str, base: str, rollouts: list[dict], out: Path,
                 budget: dict | None = None, tokens: dict | None = None) -> dict:
    """Train ``method`` on the rollouts; save the checkpoint and the merged policy (``out/ckpt/<method>``,
    ``out/models/<method>``). Resumes: a stage marked done returns its recorded outcome, trains nothing.
    ``budget``: the matched budget's fields for this method (:func:`trainer_config`); ``tokens``: its
    :func:`training_tokens` counts (:meth:`~colbench.agents.tokenize.TokenReport.counts`), kept in its
    metrics as ``tokens``.

    Every process of a launch trains (the trainer shards); the trainer is freed before the main
    process exports the merged policy from the checkpoint (:func:`colbench_env.lm.models.export_model`,
    one process, whatever sharding trained it) and marks the stage done.

    Raises:
        StageFailed: the policy's server failed in SWEET-RL's candidate stage; the states scored
            before are kept in ``out/stages/sweet-rl``, and a rerun resumes from them.
    """
    from colbench_env.lm.base import BackendError

    ckpt, model_dir = out / "ckpt" / method, out / "models" / method
    done = training_outcome(out, method)
    if done is not None:
        return done
    procs = processes()
    cls = trainer_class(method)
    conf = trainer_config(cfg, method, base, budget)
    log(f"train {method}: {len(rollouts)} rollouts, config {conf.to_dict()}")
    t0 = time.perf_counter()
    trainer = cls(conf)
    trained = False
    try:
        if getattr(cls, "resumable_stages", False):  # SWEET-RL: its critic and candidates survive an interruption
            metrics = trainer.update(rollouts, stage_dir=out / "stages" / method)
        else:
            metrics = trainer.update(rollouts)
    except UsageError:  # e.g. stage files made with other settings: the user's to resolve, not a skip
        raise
    except BackendError as e:  # the policy's server (SWEET-RL's served candidates): a rerun resumes
        raise StageFailed(f"{method}: {e}; run the same command again to resume") from e
    except ValueError as e:  # the rollouts hold nothing this method can learn from (e.g. no success)
        info = {"method": method, "skipped": str(e), "train_seconds": time.perf_counter() - t0}
        log(f"{method} skipped: {e}")
    else:
        trainer.save(ckpt)
        trained = True
    finally:
        del trainer
        release_memory(stage_end=True)
    if trained:
        if procs.main:
            export_merged(ckpt, model_dir)
        if tokens is not None:
            metrics = {**metrics, "tokens": tokens}
        info = {"method": method, "metrics": metrics, "train_seconds": time.perf_counter() - t0}
    if procs.main:
        mark_finished(out, method, info)
    procs.wait()
    return info


def mark_finished(out: Path, method: str, info: dict) -> dict:
    """Mark ``method``'s training stage done (``models/<method>/pipeline_done.json`` = ``info``: its
    metrics, or why it was not trained; :func:`training_outcome` reads it); returns ``info``."""
    marker = _done_marker(out, method)
    marker.parent.mkdir(parents=True, exist_ok=True)
    tmp = marker.with_suffix(".tmp")
    tmp.write_text(json.dumps(info, indent=2, default=str, allow_nan=False))
    os.replace(tmp, marker)
    return info


def export_merged(ckpt: Path, model_dir: Path) -> None:
    """The trained policy of checkpoint ``ckpt`` as a plain transformers model directory (LoRA merged
    into the base), freed again before the next stage. Loaded whole in this process (the main one of
    a launch exports alone: :func:`colbench.agents.sharding.loaded_whole`)."""
    from colbench.agents.sharding import loaded_whole
    from colbench_env.lm.models import export_model

    with loaded_whole():
        export_model(ckpt, model_dir)
    release_memory(stage_end=True)
