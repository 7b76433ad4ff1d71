"""The SWEET-RL pipeline end to end, with its baselines, in one table and plot (``colbench pipeline``).

Stages (each resumable: a finished stage leaves its output and is skipped when rerun; rollout and
evaluation files are appended episode by episode and resume mid-stage):

1. **collect** -- ``k`` sampled rollouts per training task with the base policy (zero-shot) ->
   ``rollouts.jsonl``.
2. **train** -- from those rollouts: rejection fine-tuning (``rft``), multi-turn DPO (``mt-dpo``),
   PPO (``ppo``), GRPO (``grpo``: group-relative advantages over each task's ``k`` rollouts), SWEET-RL (``sweet-rl``: critic with training-time information -> step-level pairs
   from ``N`` candidate actions -> policy DPO) -> ``ckpt/<method>/`` (trainer checkpoint) and
   ``models/<method>/`` (the policy with its LoRA merged, loadable by any transformers/vLLM server).
3. **evaluate** -- zero-shot and every trained policy on the held-out split (greedy with ``--small``) ->
   ``eval/<method>.jsonl``; with ``--eval-samples k`` also ``eval/<method>.sampled.jsonl`` (``k``
   episodes per task at ``--eval-samples-temperature``), its settings recorded in
   ``eval/<method>.sampled.json``: resuming an out-dir with another temperature or ``k`` is refused
   (exit 2) rather than reporting one temperature's episodes as another's.
4. **report** -- ``results.md`` / ``results.csv`` / ``results.png`` and ``results.json``: per method
   backend % tests passed and success rate, frontend similarity x 100 and the win rate over zero-shot
   (:data:`ROW_METRICS`); ``stats.*`` the same with bootstrap intervals (:mod:`.analysis`).

Backend or frontend (``cfg.env``): the stages are the same; the frontend's reward is the similarity
of the final page's Chromium render to the target's, and its trainers' rules for a continuous reward
are :data:`colbench.pipeline.config.KIND_TRAINER_SETTINGS`.

The package, by job (no import circle: config <- stages <- resume <- run, analysis <- run):
:mod:`.config` (:class:`PipelineConfig`, the presets, :data:`PAPER_SETTINGS`), :mod:`.stages` (tasks,
episodes, training, the stage markers), :mod:`.resume` (what a resumed out-dir may and may not
change), :mod:`.analysis` + :mod:`.stats` (bootstrap intervals over tasks and seeds) and this module
(:func:`run_pipeline`: every stage of every seed, and the report). The command line is
:mod:`colbench.cli.pipeline`.
"""
from __future__ import annotations

import dataclasses
import json
import os
import time
from pathlib import Path

from colbench_env.lm.heap import frozen_between_stages, limit_heap_retention

from .analysis import analyse_runs
from .config import METHODS, PipelineConfig
from .resume import (RESUME_FIELDS, changed_fields, check_resume, check_sampled_files, human_version_changed,
                     human_version_field, policy_server_changed, read_json_object, sampled_settings, seed_configs)
from .stages import (base_policy, episodes_in_file, finished_methods, log, mark_finished, processes, run_stage_episodes,
                     task_split, train_method, training_outcome, training_tokens)

__all__ = ["run_pipeline"]


#: The report's metric columns per task kind (``results.*``; the frontend's win rate is over
#: zero-shot on the same held-out tasks of this run, ties half: :func:`_scores`).
ROW_METRICS = {"backend": {"tests_passed_pct": "% tests passed", "success_rate_pct": "success rate (%)"},
               "frontend": {"similarity_pct": "similarity x 100", "win_rate_pct": "win rate over zero-shot (%)"}}


def _write_report(rows: list[dict], out: Path, meta: dict, kind: str = "backend") -> None:
    from colbench.report import write_report

    metrics = list(ROW_METRICS[kind])
    columns = ["method", "episodes", *metrics, "train_seconds", "note"]
    if any("sampled_episodes" in r for r in rows):
        passes = ["sampled_k", "sampled_pass_at_k_pct", "sampled_pass_hat_k_pct"] \
            if any("sampled_pass_at_k_pct" in r for r in rows) else []
        columns[2 + len(metrics):2 + len(metrics)] = ["sampled_episodes", *(f"sampled_{m}" for m in metrics), *passes]
    write_report(rows, out, stem="results", label=("method",), columns=columns, metrics=metrics,
                 titles=ROW_METRICS[kind], meta=meta, notes=[f"Human: {meta.get('human', 'unknown')}."],
                 suptitle=f"ColBench {kind}, held-out split ({meta.get('preset', '')}: {meta.get('policy', '')})")


def run_pipeline(cfg: PipelineConfig, *, preset: str = "custom") -> dict:
    """Run (or resume) every stage; returns the report (with ``cfg.seeds``: one run per seed, then
    the statistics over tasks and seeds). A stage whose episodes ended with an error (a server
    failed) raises :class:`~colbench.errors.StageFailed` before anything is trained or
    reported on them; a rerun retries those episodes.

    Under ``accelerate launch`` every process runs it (:mod:`colbench.pipeline.stages`: episodes
    split over the processes, training on all of them); the main process writes the run's
    configuration, reports and view and returns the statistics (the others: ``None``).

    The stages run inside :func:`~colbench_env.lm.heap.frozen_between_stages` (each stage's end
    freezes what survives it, so that the next stage's collections walk only its own objects)."""
    with frozen_between_stages():
        return _run_pipeline(cfg, preset=preset)


def _run_pipeline(cfg: PipelineConfig, *, preset: str) -> dict:
    procs = processes()
    check_sampled_files(cfg)  # every seed's, before any stage runs
    check_resume(cfg)
    base_policy(cfg)  # a policy found nowhere: one line (ModelNotFoundError) before anything is written
    _check_tasks(cfg)
    procs.wait()  # every process has read the out-dir before anything is written to it
    from colbench.provenance import record_invocation

    note = record_invocation(cfg.out_dir, "pipeline") if procs.main else None  # which code made the files
    if note:
        log(note)
    if not cfg.seeds:
        report = _run_one_seed(cfg, preset=preset)
        if procs.main:
            write_view(cfg.out_dir)
        procs.wait()
        return report
    out = Path(cfg.out_dir)
    out.mkdir(parents=True, exist_ok=True)
    # the statistics pool every seed of the directory made with this run's settings (an invocation
    # with a subset of --seeds does not shrink them), over every method trained in any of them;
    # config.json says which (written before the seeds run, so an interrupted run records them too)
    seeds = sorted({*cfg.seeds, *_earlier_seeds(cfg)})
    dirs = [Path(c.out_dir) for c in seed_configs(cfg, seeds)]

    def write_config() -> list[str]:
        methods = [m for m in METHODS if m in cfg.methods or any(m in finished_methods(d) for d in dirs)]
        (out / "config.json").write_text(json.dumps({**dataclasses.asdict(cfg), **human_version_field(cfg), "seeds": seeds,
                                                     "methods": methods}, indent=2, allow_nan=False) + "\n")
        return methods

    if procs.main:
        write_config()
    runs = {}
    for run_cfg in seed_configs(cfg):
        log(f"seed {run_cfg.seed}")
        runs[run_cfg.seed] = _run_one_seed(run_cfg, preset=preset, run_dir=cfg.out_dir)
    stats = None
    if procs.main:
        methods = write_config()
        stats = analyse_runs(dirs, out, methods=["zero-shot", *methods],
                             resamples=cfg.bootstrap_resamples, title=f"{preset}: {cfg.policy}")
        write_view(out)
    procs.wait()
    return {"rows": [dict(r, seed=s) for s, rep in runs.items() for r in rep["rows"]], "stats": stats,
            "seeds": seeds}


def _check_tasks(cfg: PipelineConfig) -> None:
    """Both splits of the run's tasks load: a task file that is missing, or a spec that is wrong, is
    one line (:class:`~colbench_env.errors.UsageError`) before anything is written (a malformed file's
    :class:`~colbench_env.tasks.TaskFormatError` names its line)."""
    from colbench_env.errors import UsageError
    from colbench_env.tasks import TaskFormatError

    for split in ("train", "test"):
        try:
            task_split(cfg, split)
        except TaskFormatError:
            raise
        except (OSError, ValueError) as e:
            raise UsageError(f"--tasks {cfg.tasks}: {e}") from None


def write_view(out_dir: str | Path) -> Path | None:
    """``<out_dir>/report.html``: the results, the statistics and every method's evaluation episodes
    beside zero-shot's (:func:`colbench.viewer.write_pipeline_report`). Without the ``view`` extra a
    line says so and nothing is written (the run's results are complete without it)."""
    try:
        import jinja2  # noqa: F401
        import pygments  # noqa: F401

        from colbench.viewer import write_pipeline_report
    except ModuleNotFoundError as e:
        log(f"report.html not written: the 'view' extra is missing ({e.name}): pip install 'colbench[view]'")
        return None
    result = write_pipeline_report(out_dir, progress=False)
    log(f"view: {result.path} ({result.episodes} episodes, {result.bytes / 1e6:.1f} MB)")
    return Path(result.path)


def _earlier_seeds(cfg: PipelineConfig) -> list[int]:
    """The seeds an earlier invocation ran in ``cfg.out_dir`` (its ``config.json``) and this one does
    not, whose directories were made with this run's settings; a seed made with others is logged and
    left out of the statistics."""
    path = Path(cfg.out_dir) / "config.json"
    if not path.exists():
        return []
    keep = []
    try:
        earlier = read_json_object(path).get("seeds") or []
    except ValueError as e:  # only the pooling is lost: say so, run what was asked
        log(f"earlier seeds not pooled: {e}")
        return []
    for run_cfg in seed_configs(cfg, [s for s in earlier if isinstance(s, int) and s not in cfg.seeds]):
        d = Path(run_cfg.out_dir)
        if not (d / "config.json").exists():
            continue
        try:
            old = read_json_object(d / "config.json")
        except ValueError as e:
            log(f"{d} left out of the statistics: {e}")
            continue
        diffs = changed_fields(old, dataclasses.asdict(run_cfg), RESUME_FIELDS) + human_version_changed(old, run_cfg) \
            + policy_server_changed(old, run_cfg.policy_base_url)
        if diffs:
            log(f"{d} left out of the statistics: made with {diffs[0][0]} = {diffs[0][1]!r}, this run {diffs[0][2]!r}")
        else:
            keep.append(run_cfg.seed)
    return keep


def _evaluate_sampled(cfg: PipelineConfig, test_tasks: list, model_path: str, out: Path, method: str, row: dict,
                      run_dir: str, baseline: list[dict] | None = None) -> list[dict]:
    """``cfg.eval_samples`` sampled episodes per held-out task; their means (and the frontend's win
    rate over ``baseline``, zero-shot's sampled episodes) go into ``row``; returns the episodes."""
    if not cfg.eval_samples:
        return []
    path, meta = out / "eval" / f"{method}.sampled.jsonl", out / "eval" / f"{method}.sampled.json"
    if not meta.exists() and processes().main:
        if path.exists() and path.stat().st_size:  # made before the settings were recorded
            log(f"{path}: sampling settings not recorded; resumed as {sampled_settings(cfg)}")
        else:
            meta.write_text(json.dumps(sampled_settings(cfg), allow_nan=False) + "\n")
    records = run_stage_episodes(cfg, test_tasks, model_path, path, repeats=cfg.eval_samples,
                                 temperature=cfg.eval_samples_temperature,
                                 desc=f"eval {method} x{cfg.eval_samples} sampled", run_dir=run_dir)
    row.update(_sampled_fields(_scores(cfg.kind, records, baseline)))
    return records


def _run_one_seed(cfg: PipelineConfig, *, preset: str, run_dir: str | None = None) -> dict:
    """One seed's stages in ``cfg.out_dir``; a served policy's models are named relative to
    ``run_dir`` (the top-level out-dir; default ``cfg.out_dir``)."""
    from colbench_env.metrics import format_summary, summarize

    run_dir = run_dir or cfg.out_dir
    limit_heap_retention()  # what every CPU TrainableLM does; here before collection starts
    out = Path(cfg.out_dir)
    (out / "eval").mkdir(parents=True, exist_ok=True)
    # the report covers the whole directory: methods an earlier invocation trained here are reported
    # (from their files; nothing is trained or run for them), and config.json lists them
    earlier = [m for m in finished_methods(out) if m not in cfg.methods]
    methods = [m for m in METHODS if m in cfg.methods or m in earlier]
    procs = processes()
    if procs.main:
        (out / "config.json").write_text(json.dumps({**dataclasses.asdict(cfg), **human_version_field(cfg),
                                                    "methods": methods}, indent=2, allow_nan=False) + "\n")
    t_start = time.perf_counter()
    base = base_policy(cfg)
    train_tasks, test_tasks = task_split(cfg, "train"), task_split(cfg, "test")
    log(f"{len(train_tasks)} train tasks x {cfg.rollouts_per_task} rollouts; {len(test_tasks)} test tasks")
    rollouts = run_stage_episodes(cfg, train_tasks, base, out / "rollouts.jsonl", repeats=cfg.rollouts_per_task,
                            temperature=cfg.rollout_temperature, desc="collect", run_dir=run_dir)
    collect = summarize(rollouts)
    log(f"rollouts: {format_summary(collect)}")
    rows, train_info = [], {}
    zs = run_stage_episodes(cfg, test_tasks, base, out / "eval" / "zero-shot.jsonl", repeats=1,
                            temperature=cfg.eval_temperature, desc="eval zero-shot", run_dir=run_dir)
    rows.append(_row("zero-shot", 0.0, _scores(cfg.kind, zs), kind=cfg.kind))
    zs_sampled = _evaluate_sampled(cfg, test_tasks, base, out, "zero-shot", rows[-1], run_dir)
    baselines = (zs, zs_sampled)
    distinct = sorted({float(r.get("reward") or 0.0) for r in rollouts})
    no_signal = None if len(distinct) > 1 else f"every rollout has reward {distinct[0] if distinct else 0.0:g} (no learning signal)"
    # what each method will train on, against the ids the policy recorded (--strict-tokens: refused before any
    # trains, the matched budget's SWEET-RL critic too)
    tokens = training_tokens(cfg, [m for m in methods if m not in earlier], base, rollouts, out) \
        if not no_signal else {}
    budgets = matched_plan(cfg, base, rollouts, out, [m for m in methods if m not in earlier]) \
        if cfg.matched_budget and not no_signal else {}
    for method in methods:
        if method in earlier:
            rows.append(_earlier_row(cfg, method, out, test_tasks, train_info, baselines))
            continue
        if no_signal:  # no method can learn anything; say so instead of training on noise
            train_info[method] = info = {"method": method, "skipped": no_signal, "train_seconds": 0.0}
            if procs.main:
                mark_finished(out, method, info)
            rows.append(_row(method, 0.0, note=f"not trained: {no_signal}", kind=cfg.kind))
            log(f"{method} not trained: {no_signal}")
            continue
        info = train_method(cfg, method, base, rollouts, out, budgets.get(method),
                            tokens=tokens[method].counts() if method in tokens else None)
        train_info[method] = info
        if "skipped" in info:
            rows.append(_row(method, info["train_seconds"], note=f"not trained: {info['skipped']}", kind=cfg.kind))
            continue
        m = run_stage_episodes(cfg, test_tasks, str(out / "models" / method), out / "eval" / f"{method}.jsonl",
                               repeats=1, temperature=cfg.eval_temperature, desc=f"eval {method}", run_dir=run_dir)
        rows.append(_row(method, info["train_seconds"], _scores(cfg.kind, m, zs), kind=cfg.kind))
        _evaluate_sampled(cfg, test_tasks, str(out / "models" / method), out, method, rows[-1], run_dir,
                          zs_sampled)
        log(f"{method}: {rows[-1]}")
    import platform

    from colbench_env.simulators.identity import describe_humans

    meta = {"preset": preset, "policy": cfg.policy, "human": describe_humans(collect.get("human") or [None]),
            "collect": collect, "train": train_info,
            "wall_seconds_this_invocation": time.perf_counter() - t_start,
            "machine": f"{platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}",
            "config": dataclasses.asdict(cfg)}
    stats = None
    if procs.main:
        _write_report(rows, out, meta, cfg.kind)
        stats = analyse_runs([out], out, methods=["zero-shot", *methods], resamples=cfg.bootstrap_resamples,
                             title=f"{preset}: {cfg.policy}")
    procs.wait()
    return {"rows": rows, **meta, "stats": stats}


def matched_plan(cfg: PipelineConfig, base: str, rollouts: list[dict], out: Path, methods: list[str]) -> dict:
    """The matched budget of one seed (:mod:`colbench.pipeline.budget`): ``{method: config fields}``.
    Computed once and kept in ``out/budget_plan.json`` (a resumed run reads it): each preference
    method's pairs are counted (SWEET-RL's critic and candidate stages run into
    ``out/stages/sweet-rl``, where its training resumes them), every preference method gets the
    smallest count as ``max_pairs``, the others that many pairs' optimiser steps."""
    from colbench.agents.config import NoTrainingData

    from .budget import PREFERENCE_METHODS, matched_overrides, preference_pair_counts
    from .config import trainer_config

    path = out / "budget_plan.json"
    if path.exists():
        return json.loads(path.read_text())["overrides"]
    configs = {m: trainer_config(cfg, m, base) for m in methods}
    counts = {}
    for m in [m for m in methods if m in PREFERENCE_METHODS]:
        try:
            counts.update(preference_pair_counts({m: configs[m]}, rollouts, sweet_stage_dir=out / "stages" / "sweet-rl"))
        except NoTrainingData as e:  # it trains nothing (its stage says so); the others match among themselves
            log(f"matched budget: {e}")
        if not counts.get(m):
            configs.pop(m)
    overrides, plan = matched_overrides(configs, rollouts, counts)
    path.write_text(json.dumps({"overrides": overrides, "plan": plan}, indent=2, allow_nan=False) + "\n")
    log(f"matched budget: {plan}")
    return overrides


def _earlier_row(cfg: PipelineConfig, method: str, out: Path, test_tasks: list, train_info: dict,
                 baselines: tuple[list[dict], list[dict]] = ([], [])) -> dict:
    """The report row of a method trained by an earlier invocation in ``out`` and not asked for now:
    its training record and the evaluation episodes already in its files (none are run);
    ``baselines``: zero-shot's greedy and sampled episodes (the frontend's win rates)."""
    info = training_outcome(out, method)
    train_info[method] = info
    seconds = info.get("train_seconds", 0.0)
    if "skipped" in info:
        return _row(method, seconds, note=f"not trained: {info['skipped']}", kind=cfg.kind)
    records, missing = episodes_in_file(cfg, test_tasks, out / "eval" / f"{method}.jsonl", repeats=1)
    if missing:
        return _row(method, seconds, note=f"evaluation unfinished: {missing} of {len(test_tasks)} episodes missing "
                                          f"(resume with --methods {method})", kind=cfg.kind)
    row = _row(method, seconds, _scores(cfg.kind, records, baselines[0]),
               note="trained and evaluated by an earlier invocation", kind=cfg.kind)
    if cfg.eval_samples and (out / "eval" / f"{method}.sampled.json").exists():  # its settings checked before
        sampled, missing = episodes_in_file(cfg, test_tasks, out / "eval" / f"{method}.sampled.jsonl",
                                            repeats=cfg.eval_samples)
        if not missing:
            row.update(_sampled_fields(_scores(cfg.kind, sampled, baselines[1])))
    return row


def _scores(kind: str, records: list[dict], baseline: list[dict] | None = None) -> dict:
    """A row's columns from a method's evaluation episodes: ``episodes`` and the means of
    :data:`ROW_METRICS` ``[kind]`` (:func:`colbench_env.metrics.summarize`); backend episodes with
    ``K >= 2`` per task (the sampled evaluation) add ``k`` (= ``K``), ``pass_at_k_pct`` and
    ``pass_hat_k_pct`` (pass@K and pass^K x 100). Frontend:
    ``similarity_pct`` (mean similarity x 100) and ``win_rate_pct``, the win rate over ``baseline``
    (zero-shot's episodes on the same tasks; ``None`` without one): per task the higher mean
    similarity wins, as :func:`colbench_env.evaluation.trajectory_scoring.win_rate` counts, ties
    counted half, x 100."""
    from colbench_env.evaluation.trajectory_scoring import win_rate
    from colbench_env.metrics import summarize

    s = summarize(records)
    if kind == "backend":
        out = {"episodes": s["count"], "tests_passed_pct": s["tests_passed_pct"],
               "success_rate_pct": 100 * s["success_rate"]}
        if "trials" in s:  # k episodes per task (the sampled evaluation): pass@k and pass^k at k = K
            k = str(s["trials"]["trials"])
            out.update(k=int(k), pass_at_k_pct=s["trials"]["pass_at_k"][k], pass_hat_k_pct=s["trials"]["pass_hat_k"][k])
        return out
    out = {"episodes": s["count"], "similarity_pct": 100 * s.get("similarity", 0.0), "win_rate_pct": None}
    if baseline:
        w = win_rate(records, baseline)
        out["win_rate_pct"] = 100 * (w["wins"] + 0.5 * w["ties"]) / w["tasks"] if w["tasks"] else None
    return out


def _row(method: str, train_seconds: float, scores: dict | None = None, *, note: str | None = None,
         kind: str = "backend") -> dict:
    """A report row: the evaluation's ``scores`` (:func:`_scores`), or none (0 episodes, every metric
    ``None``) for a method that was not trained or not evaluated."""
    row = {"method": method, "episodes": 0, **dict.fromkeys(ROW_METRICS[kind]), "train_seconds": train_seconds}
    if scores is not None:
        row.update(scores)
    if note is not None:
        row["note"] = note
    return row


def _sampled_fields(scores: dict) -> dict:
    """A row's columns for the sampled evaluation's scores (:func:`_scores`)."""
    return {f"sampled_{k}": v for k, v in scores.items()}
