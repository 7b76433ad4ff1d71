"""The pipeline's stages: the run's tasks and base policy, running episodes into a file (resumed),
training one method (resumed through its marker ``models/<method>/pipeline_done.json``)."""
from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any

from colbench.agents.registry import trainer_class
from colbench_env.errors import UsageError
from colbench_env.lm.heap import release_memory

from .config import METHODS, PipelineConfig, trainer_config

__all__ = ["base_policy", "episodes_in_file", "finished_methods", "log", "mark_finished", "policy_adapter",
           "run_stage_episodes", "task_split", "train_method", "training_outcome"]


def log(msg: str) -> None:
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

    Raises:
        StageFailed: some episodes ended with an error (the agent's or the human's server failed);
            nothing is trained or reported on them, and they are run again on resume.
    """
    from colbench.runs import policy_agent, run_policy_episodes

    root = run_dir if run_dir is not None else cfg.out_dir

    def make_agent():
        adapter = policy_adapter(cfg, model_path) if cfg.policy_base_url and cfg.policy_lora else None
        if adapter is not None:
            from colbench.agents.served import load_lora_adapter, served_model_name

            name = served_model_name(model_path, root)
            log(f"loading the LoRA adapter {adapter} into {cfg.policy_base_url} as {name!r}")
            load_lora_adapter(cfg.policy_base_url, name, adapter)
        return policy_agent(model_path, kind=cfg.kind, max_turns=cfg.max_turns, prompt_style=cfg.prompt_style,
                            max_new_tokens=cfg.max_new_tokens, temperature=temperature, seed=cfg.seed,
                            base_url=cfg.policy_base_url, run_dir=root)

    return run_policy_episodes(cfg.env, tasks, make_agent, out, repeats=repeats, seed=cfg.seed,
                               max_turns=cfg.max_turns, episodes_in_flight=cfg.episodes_in_flight, desc=desc,
                               simulator=cfg.simulator, simulator_kwargs=cfg.simulator_kwargs,
                               semantics=cfg.semantics, similarity=cfg.similarity, only=only)


def policy_adapter(cfg: PipelineConfig, model_path: str | os.PathLike) -> Path | None:
    """The LoRA adapter that a policy trained in this run, ``<cfg.out_dir>/models/<method>``, was
    merged from: ``<cfg.out_dir>/ckpt/<method>/policy`` (:func:`train_method` writes both);
    ``None`` for any other model (the base policy, wherever it lies)."""
    out, p = Path(cfg.out_dir).resolve(), Path(model_path).resolve()
    if p.parent != out / "models":
        return None
    return out / "ckpt" / p.name / "policy"


def episodes_in_file(cfg: PipelineConfig, tasks: list, path: Path, *, repeats: int) -> tuple[list[dict], int]:
    """The episodes of ``tasks`` x ``repeats`` already in ``path`` (as :func:`run_stage_episodes` would return them,
    running nothing) and how many of them are missing."""
    from colbench_env.rollout import episode_specs
    from colbench.wrappers.recorder import recorded_episodes

    specs = episode_specs(len(tasks) * repeats, n_tasks=len(tasks), seed=cfg.seed, repeats=repeats)
    records, missing = recorded_episodes(path, {s.episode_id for s in specs})
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



def train_method(cfg: PipelineConfig, method: str, base: str, rollouts: list[dict], out: Path) -> dict:
    """Train ``method`` on the rollouts; save the checkpoint and the merged policy (``out/ckpt/<method>``,
    ``out/models/<method>``). Resumes: a stage marked done returns its recorded outcome, trains nothing."""
    ckpt, model_dir = out / "ckpt" / method, out / "models" / method
    done = training_outcome(out, method)
    if done is not None:
        return done
    cls = trainer_class(method)
    conf = trainer_config(cfg, method, base)
    log(f"train {method}: {len(rollouts)} rollouts, config {conf.to_dict()}")
    t0 = time.perf_counter()
    trainer = cls(conf)
    try:
        if getattr(cls, "resumable_stages", False):  # SWEET-RL: its critic and candidates survive an interruption
            metrics = trainer.update(rollouts, stage_dir=out / "stages" / method)
        else:
            metrics = trainer.update(rollouts)
    except UsageError:  # e.g. stage files made with other settings: the user's to resolve, not a skip
        raise
    except ValueError as e:  # the rollouts hold nothing this method can learn from (e.g. no success)
        info = {"method": method, "skipped": str(e), "train_seconds": time.perf_counter() - t0}
        log(f"{method} skipped: {e}")
    else:
        trainer.save(ckpt)
        _export_merged(trainer, model_dir)
        info = {"method": method, "metrics": metrics, "train_seconds": time.perf_counter() - t0}
    finally:
        del trainer
        release_memory()
    return mark_finished(out, method, info)


def mark_finished(out: Path, method: str, info: dict) -> dict:
    """Mark ``method``'s training stage done (``models/<method>/pipeline_done.json`` = ``info``: its
    metrics, or why it was not trained; :func:`training_outcome` reads it); returns ``info``."""
    marker = _done_marker(out, method)
    marker.parent.mkdir(parents=True, exist_ok=True)
    tmp = marker.with_suffix(".tmp")
    tmp.write_text(json.dumps(info, indent=2, default=str, allow_nan=False))
    os.replace(tmp, marker)
    return info


def _export_merged(trainer: Any, model_dir: Path) -> None:
    """The trained policy as a plain transformers model directory (LoRA merged into the base)."""
    model_dir.mkdir(parents=True, exist_ok=True)
    merged = trainer.policy.merged_model()
    merged.save_pretrained(model_dir)
    trainer.tokenizer.save_pretrained(model_dir)
