"""What a resumed out-dir may and may not change: its ``config.json`` (and each sampled evaluation's
``eval/<method>.sampled.json``) records the settings its files were made with; a resume that asks
for others is refused, naming the file and the first field that differs (the reading and the
comparison: :mod:`colbench.resume`, shared with ``colbench run`` and ``colbench critic-ranking``)."""
from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any, Sequence

from colbench.agents.registry import config_class
from colbench.resume import as_json, changed_fields, policy_server_changed, read_json_object

from .config import METHODS, PipelineConfig
from .stages import finished_methods

__all__ = ["RESUME_FIELDS", "changed_fields", "check_resume", "check_sampled_files", "human_version_changed",
           "human_version_field", "policy_server_changed", "read_json_object", "sampled_settings", "seed_configs"]


def seed_configs(cfg: PipelineConfig, seeds: Sequence[int] | None = None) -> list[PipelineConfig]:
    """The run of each seed (``out_dir/seed-<s>``, ``seed=s``) of ``seeds`` (default ``cfg.seeds``;
    without any, ``cfg`` alone)."""
    if seeds is None:
        if not cfg.seeds:
            return [cfg]
        seeds = cfg.seeds
    return [dataclasses.replace(cfg, seeds=(), seed=s, out_dir=str(Path(cfg.out_dir) / f"seed-{s}")) for s in seeds]


def sampled_settings(cfg: PipelineConfig) -> dict:
    return {"samples": cfg.eval_samples, "temperature": cfg.eval_samples_temperature}


def check_sampled_files(cfg: PipelineConfig) -> None:
    """Refuse to resume a sampled evaluation made with other settings: ``eval/<method>.sampled.jsonl``
    is named the same at every temperature, so its sidecar ``eval/<method>.sampled.json`` records the
    temperature and ``k`` it was made with; a mismatch would report one temperature's episodes as
    another's. A ValueError naming the file and field; nothing is changed."""
    if not cfg.eval_samples:
        return
    want = sampled_settings(cfg)
    for run_cfg in seed_configs(cfg):
        for meta in sorted((Path(run_cfg.out_dir) / "eval").glob("*.sampled.json")):
            got = read_json_object(meta)
            for field, value in want.items():
                if got.get(field) != value:
                    name = "--eval-samples" if field == "samples" else "--eval-samples-temperature"
                    raise ValueError(f"{meta}: field {field!r}: {got.get(field)!r}, but this run asks {name} {value:g}; "
                                     f"its episodes would be reported as this run's: use another --out-dir")


#: the settings that shaped what a resumed out-dir already holds (rollouts, evaluation episodes, trained
#: models): changing one of them and resuming would mix two settings' episodes in one report
RESUME_FIELDS = ("env", "policy", "tasks", "difficulty", "family", "prompt_style", "n_train_tasks",
                 "rollouts_per_task", "max_turns", "max_new_tokens", "rollout_temperature", "eval_temperature",
                 "simulator", "simulator_kwargs", "seed", "semantics", "similarity")


def _reply_version(simulator: str, kind: str) -> int | None:
    """The reply version of the offline scripted human of ``kind`` (``None`` for another simulator)."""
    if kind == "backend":
        from colbench_env.simulators.scripted_backend import reply_version

        return reply_version(simulator)
    if simulator != "scripted":
        return None
    from colbench_env.simulators.scripted_frontend import ScriptedFrontendSimulator

    return ScriptedFrontendSimulator().config()["version"]


def human_version_field(cfg: PipelineConfig) -> dict:
    """``{"human_version": v}`` for the offline scripted human of the run's kind (its replies'
    version), else ``{}``."""
    version = _reply_version(cfg.simulator, cfg.kind)
    return {} if version is None else {"human_version": version}


def human_version_changed(old: dict, cfg: PipelineConfig) -> list[tuple[str, Any, Any]]:
    """``[("human_version", was, now)]`` when an earlier ``config.json`` (``old``) was made with the
    scripted human and another version of its replies; a backend one without the field predates
    version 3 (:data:`~colbench_env.simulators.scripted_backend.UNRECORDED_VERSION`; frontend runs
    always recorded it). ``[]`` otherwise (another simulator: its settings are compared as fields)."""
    from colbench_env.simulators.scripted_backend import UNRECORDED_VERSION

    now = _reply_version(cfg.simulator, cfg.kind)
    if now is None or _reply_version(old.get("simulator", "scripted"), cfg.kind) is None:
        return []
    was = old.get("human_version", UNRECORDED_VERSION if cfg.kind == "backend" else now)
    return [] if was == now else [("human_version", was, now)]


def _canonical_overrides(method: str, overrides: Any) -> Any:
    """A method's overrides as PipelineConfig stores them (nested configs as dicts), for comparison; as
    given where they no longer load."""
    from colbench.agents.config import canonical_config_dict

    if method not in METHODS or not isinstance(overrides, dict):
        return overrides
    try:
        return as_json(canonical_config_dict(config_class(method), dict(overrides), source=method))
    except ValueError:
        return overrides


def begun_stages(out: Path) -> list[str]:
    """Methods with files in ``out/stages/<method>/`` (begun by an earlier, maybe interrupted, invocation)."""
    d = out / "stages"
    return sorted(p.name for p in d.iterdir() if p.is_dir() and any(p.iterdir())) if d.is_dir() else []


def check_resume(cfg: PipelineConfig) -> None:
    """Refuse to resume an out-dir whose files were made with other settings. Every stage resumes
    what it finds (``rollouts.jsonl``, ``eval/*.jsonl``, ``models/<method>``), so a run with another
    ``--rollout-temperature`` (say) would train and report on the old temperature's rollouts under the
    new one's name. ``config.json`` of the earlier invocation says what made them: a ValueError naming
    it and the first field that differs; nothing is changed. Not free either: switching between a
    served and a local policy (:func:`colbench.resume.policy_server_changed`). Free to change on a
    resume: the methods, seeds, held-out task count, episodes in flight, bootstrap resamples, the
    policy server's URL and LoRA loading, and the sampled evaluation (checked by :func:`check_sampled_files`); a method's ``trainer_overrides``, and
    ``matched_budget``, only while no model is trained yet (nor resumable stages begun, ``stages/<method>/``). Fields an older
    config.json lacks are not compared."""
    for run_cfg in seed_configs(cfg):
        d = Path(run_cfg.out_dir)
        path = d / "config.json"
        trained = finished_methods(d)
        # a method whose resumable stages (SWEET-RL's critic and candidates) were begun: as a trained one
        begun = [m for m in begun_stages(d) if m not in trained]
        models = trained + begun
        made = [p for p in (d / "rollouts.jsonl", *sorted((d / "eval").glob("*.jsonl"))) if p.exists() and p.stat().st_size]
        if not path.exists() or not (made or models):
            continue
        old = read_json_object(path)
        want = dataclasses.asdict(run_cfg)
        diffs = changed_fields(old, want, RESUME_FIELDS) + human_version_changed(old, run_cfg) \
            + policy_server_changed(old, run_cfg.policy_base_url)
        if models and bool(old.get("matched_budget", False)) != run_cfg.matched_budget:
            diffs.append(("matched_budget", old.get("matched_budget", False), run_cfg.matched_budget))
        overrides = old.get("trainer_overrides", {})
        diffs += [(f"trainer_overrides.{m}", overrides.get(m), want["trainer_overrides"].get(m))
                  for m in models if "trainer_overrides" in old
                  and _canonical_overrides(m, overrides.get(m, {})) != as_json(want["trainer_overrides"].get(m, {}))]
        if diffs:
            field_, was, now = diffs[0]
            held = " and ".join(x for x in ("its episodes" if made else "", f"trained {', '.join(trained)}" if trained else "",
                                            f"the begun stages of {', '.join(begun)}" if begun else "") if x)
            raise ValueError(f"{path}: field {field_!r}: {was!r}, but this run asks {now!r} "
                             f"({held} were made with the former): use another --out-dir"
                             + (f" ({len(diffs) - 1} more field(s) differ)" if len(diffs) > 1 else ""))
