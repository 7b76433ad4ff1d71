"""``colbench train {rft,mt-dpo,ppo,grpo,sweet-rl}``: train an agent on recorded trajectories.

Examples::

    colbench train mt-dpo --trajectories runs/rollouts.jsonl --model smollm2 --out ckpt/dpo --export models/dpo
    colbench train sweet-rl --trajectories rollouts.jsonl --model /models/llama-3.1-8b-instruct --out runs/sweet
    colbench train mt-dpo --trajectories rollouts.jsonl --model PATH --out runs/dpo \\
        --config-json '{"beta": 0.1, "epochs": 2, "pairs_per_batch": 4}'
    accelerate launch --config_file configs/accelerate/deepspeed_zero3.yaml -m colbench train ...

``--model`` names the base: ``smollm2`` (the embedded model), a local directory, a ``colbench train``
checkpoint (training goes on from its policy), or a hub id found in the local Hugging Face cache
(a model found nowhere is one line, at once). ``colbench train ALG --help`` lists the algorithm's
config fields and their defaults; ``--config-json`` is a JSON object (or a path to a ``.json`` file)
of them, the models' settings as nested objects, ``{"policy": {"learning_rate": 1e-5, "lora_r": 8},
"critic": {"load_in_4bit": true}}``. It goes through :func:`colbench.agents.config.config_from_dict`,
as the pipeline's ``--trainer-overrides``.

Contexts: the policy is trained on the contexts it saw when the trajectories were collected. Their
settings (prompt style, max turns) come from the trajectories -- each record's ``agent_prompt``
(written by ``colbench run`` and the pipeline for an LM agent), else the ``TRAJECTORIES.run.json``
beside the file -- and are used by default; a ``--config-json`` value, or a resumed checkpoint's,
that differs is refused (one line, exit 2). What the trainer generates (SWEET-RL's candidate actions; the
trained agent's ``act``) is capped at the collection's ``max_new_tokens`` (from
``TRAJECTORIES.run.json``) unless ``--config-json`` sets it. Trajectories that give the algorithm nothing to learn
(e.g. no task with a successful and a failed rollout, for mt-dpo and sweet-rl) are refused before
the model loads, saying what data would.

Tokens: records whose agent turns carry the token ids their policy saw and produced (``colbench run``
and the pipeline record them: a local model always, a vLLM server on request, see
``docs/guides/token-exact.md``) are trained on those ids when they come from the policy's own tokenizer
(the same fingerprint); other records are re-tokenized. Before the model loads, one line says how many
agent turns are trained on recorded ids and how many re-tokenized turns differ from what the policy saw
(``colbench train: tokens: ...``); ``--strict-tokens`` refuses instead (one line, exit 2) when some
re-tokenized turn differs from, or cannot be checked against, the policy's tokens.

When ``--out`` already holds a checkpoint of the same algorithm, training resumes from it
(adapters, optimiser state, update count) unless ``--no-resume`` is given. Each ``--updates`` round
runs one ``update`` on the trajectories and writes the checkpoint. SWEET-RL also keeps its trained
critic and each scored candidate state in ``OUT/stages/update-N/`` as they are made, so that
rerunning the same command after an interruption continues inside the update (settings or
trajectories that differ from those files are refused, naming the field). ``--export DIR`` then
writes the trained policy as a plain transformers model (LoRA merged; ``colbench export`` does it for
any checkpoint). ``colbench run --agent hf --agent-model OUT`` (or ``--agent-model DIR``),
``colbench table hf:OUT`` and ``colbench pipeline --policy OUT`` run the checkpoint itself.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import textwrap
from pathlib import Path

from colbench_env.errors import UsageError

from colbench.agents.registry import TRAINERS as ALGORITHMS, config_class

__all__ = ["add_arguments", "main", "parse_config_json", "fields_help", "trajectory_context", "cli_defaults",
           "collection_generation", "trajectory_tokens"]

#: config fields whose default ``colbench train`` sets otherwise than the config classes (a fresh
#: training only; ``--config-json`` overrides it): gradient checkpointing on, as TRL's configs default
#: to and the pipeline's presets set. Without it, one mt-dpo pair of SmolLM2 trajectories held 4.1 GB
#: of activations; with it the command peaks at 1.4 GB (benchmarks/README.md, "Measured here").
CLI_DEFAULTS = {"gradient_checkpointing": True}
#: the same, for one algorithm: SWEET-RL samples its candidates 4 at a time (the KV cache of 16 copies
#: of a SmolLM2 context took the command past 2.4 GB; benchmarks/README.md, "Measured here")
ALGORITHM_CLI_DEFAULTS = {"sweet-rl": {"candidate_batch": 4}}


def cli_defaults(algorithm: str) -> dict:
    """The config values ``colbench train ALGORITHM`` sets otherwise than its config class."""
    return {**CLI_DEFAULTS, **ALGORITHM_CLI_DEFAULTS.get(algorithm, {})}

#: one line per algorithm in ``colbench train --help``
SUMMARIES = {"rft": "rejection fine-tuning: SFT on the successful trajectories",
             "mt-dpo": "multi-turn DPO: a task's successful rollout against each worse one",
             "ppo": "PPO with a value head: turn-level advantages (GAE) from the final reward",
             "grpo": "GRPO: group-relative advantages over each task's rollouts",
             "sweet-rl": "SWEET-RL: a critic with training-time information, then step-level DPO"}


def fields_help(algorithm: str, width: int = 100) -> str:
    """The config fields of ``algorithm`` with their defaults and documentation (``--help``'s epilog)."""
    from colbench.agents.config import config_fields
    from colbench.cli import _plain

    cls = config_class(algorithm)
    lines = textwrap.wrap(f"{algorithm} config fields ({cls.__name__}; set them with --config-json "
                          "'{\"field\": value}', a model's as a nested object: {\"policy\": {\"learning_rate\": "
                          "1e-05}}):", width=width)
    ours = cli_defaults(algorithm)
    for name, default, doc in config_fields(cls):
        note = ""
        if name in ours and ours[name] != default:
            default, note = ours[name], f"  (colbench train's default; {cls.__name__}'s is {json.dumps(default)})"
        lines.append(f"  {name} = {json.dumps(list(default) if isinstance(default, tuple) else default)}{note}")
        text = _plain(doc) if doc else ""
        if text:
            lines += textwrap.wrap(text, width=width, initial_indent="      ", subsequent_indent="      ")
    return "\n".join(lines)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="algorithm", metavar="ALGORITHM", required=True, help="training algorithm",
                                title="algorithms ('colbench train ALGORITHM --help' lists its config fields)")
    for name in ALGORITHMS:
        p = sub.add_parser(name, help=SUMMARIES.get(name, name), description=f"{SUMMARIES.get(name, name)}.",
                           epilog=fields_help(name), formatter_class=parser.formatter_class)
        _add_options(p)


def _add_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--trajectories", required=True, help="trajectory jsonl (official ColBench format, scored)")
    parser.add_argument("--model", required=False, default=None,
                        help="base model: smollm2, a local directory, a colbench train checkpoint, or a hub id in "
                             "the local Hugging Face cache; optional when resuming from --out")
    parser.add_argument("--out", required=True, help="checkpoint directory (resumed from when it exists)")
    parser.add_argument("--config-json", default=None, help="JSON object or .json file of config fields (below)")
    parser.add_argument("--updates", type=int, default=1, help="update rounds on the trajectories")
    parser.add_argument("--no-resume", action="store_true", help="start fresh even if --out holds a checkpoint")
    parser.add_argument("--progress", action="store_true", help="show tqdm bars inside each update")
    parser.add_argument("--export", default=None, metavar="DIR",
                        help="then write the trained policy to DIR as a plain transformers model (LoRA merged, "
                             "the base's tokenizer)")
    parser.add_argument("--strict-tokens", action="store_true",
                        help="refuse (exit 2) when some agent turn would be trained on a re-tokenization of its "
                             "text that differs from, or cannot be checked against, the token ids its policy "
                             "recorded, instead of saying how many")


def parse_config_json(value: str | None) -> dict:
    """``--config-json``: an inline JSON object or a path to a JSON file; errors name the source."""
    if value is None:
        return {}
    source = "--config-json"
    text = value
    if not value.lstrip().startswith("{") and os.path.exists(value):
        source, text = value, Path(value).read_text(encoding="utf-8")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise UsageError(f"{source}: invalid JSON ({e.msg} at line {e.lineno} column {e.colno})")
    if not isinstance(data, dict):
        raise UsageError(f"{source}: must be a JSON object of config fields")
    return data


def trajectory_context(path: str | os.PathLike, records: list[dict]) -> tuple[dict, str]:
    """The settings that shaped the trajectories' contexts (``{"prompt_style", "max_turns", "kind"}``,
    those known) and where they come from: the records' ``agent_prompt`` field, else the run
    configuration ``colbench run`` keeps beside the file (``PATH.run.json``); ``({}, "")`` when
    neither says."""
    from colbench.agents.config import ConfigError, recorded_context

    try:
        settings = recorded_context(records, source=str(path))
    except ConfigError as e:
        raise UsageError(str(e)) from None
    if settings:
        return settings, f"the records of {path}"
    run, run_json = _run_config(path)
    found = {k: run[k] for k in ("prompt_style", "max_turns") if k in run}
    return (found, run_json) if found else ({}, "")


def _run_config(path: str | os.PathLike) -> tuple[dict, str]:
    """The run configuration ``colbench run`` keeps beside a trajectory file (``PATH.run.json``) and
    its path; ``{}`` when there is none or it is not a JSON object."""
    from colbench.runs import config_path
    from colbench.resume import read_json_object

    run_json = config_path(path)
    if not run_json.is_file():
        return {}, str(run_json)
    try:
        return read_json_object(run_json), str(run_json)
    except ValueError:
        return {}, str(run_json)


def collection_generation(path: str | os.PathLike) -> tuple[dict, str]:
    """How the trajectories' actions were generated, as far as it shapes what the trainer generates:
    ``{"max_new_tokens": N}`` from the run configuration beside the file (``PATH.run.json``, written by
    ``colbench run``) when a built-in LM agent generated with it, and that file's path; ``({}, "")``
    when it does not say."""
    run, run_json = _run_config(path)
    if run.get("agent") not in ("smollm2", "hf", "openai") or "sampling" in (run.get("agent_kwargs") or {}):
        return {}, ""  # a plug-in (or its own sampling): --max-new-tokens is not what it generated with
    n = run.get("max_new_tokens")
    if isinstance(n, int) and not isinstance(n, bool) and n > 0:
        return {"max_new_tokens": n}, run_json
    return {}, ""


def trajectory_tokens(path: str | os.PathLike, records: list[dict], config):
    """How a trainer with ``config`` trains the agent turns of ``records`` (read from ``path``) against
    the token ids their policy recorded (:func:`colbench.agents.tokenize.policy_token_report`: the
    policy's tokenizer only, no model); a malformed ``tokens`` field is a :class:`UsageError` naming
    the file, line and field."""
    from colbench.agents.tokenize import TokenizationError, policy_token_report
    from colbench_env.trajectories import read_jsonl

    try:
        return policy_token_report(records, config, sources=[f"{path}:{n}" for n, _ in read_jsonl(path)])
    except TokenizationError as e:
        raise UsageError(str(e)) from None


def _stored_config(out: Path, algorithm: str) -> dict:
    """The config a checkpoint in ``out`` was trained with (its ``trainer.json``)."""
    meta_path = out / "trainer.json"
    try:
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
        if meta.get("algorithm") != algorithm:
            raise UsageError(f"--out {out}: holds a {meta.get('algorithm')} checkpoint, not {algorithm} "
                             "(use another --out, or --no-resume to overwrite it)")
        return dict(meta["config"])
    except (ValueError, KeyError, TypeError) as e:
        if isinstance(e, UsageError):
            raise
        raise UsageError(f"--out {out}: {meta_path} is not a checkpoint's trainer.json ({e})") from None


def _check_export_dir(path: str) -> None:
    p = Path(path)
    if p.exists() and not p.is_dir():
        raise UsageError(f"--export {path}: exists and is not a directory")
    parent = p if p.exists() else p.parent
    while not parent.exists():
        parent = parent.parent
    if not os.access(parent, os.W_OK | os.X_OK):
        raise UsageError(f"--export {path}: cannot create files in {parent}")


def main(args: argparse.Namespace) -> int:
    from colbench.agents.config import (CONTEXT_SETTINGS, ConfigError, canonical_config_dict, config_from_dict,
                               context_conflicts, merge_config_dicts)
    from colbench_env.lm.models import resolve_model
    from colbench_env.trajectories import read_trajectories

    cfg_cls = config_class(args.algorithm)
    given = parse_config_json(args.config_json)
    flags: dict = {}
    if args.model is not None:
        flags["policy"] = {"model_name_or_path": args.model}
    if args.progress:
        flags["show_progress"] = True
    try:  # --model/--progress over --config-json
        explicit = canonical_config_dict(cfg_cls, given, source="--config-json")
        fields = merge_config_dicts(cfg_cls, given, flags, source="--config-json")
        defaults = {k: v for k, v in cli_defaults(args.algorithm).items() if k not in explicit}
    except ConfigError as e:
        raise UsageError(str(e)) from None
    if args.updates < 1:
        raise UsageError(f"--updates must be >= 1, got {args.updates}")
    if not os.path.isfile(args.trajectories):
        raise UsageError(f"--trajectories {args.trajectories}: no such file")
    records = read_trajectories(args.trajectories)  # a malformed file fails before the model loads
    if not records:
        raise UsageError(f"--trajectories {args.trajectories}: no trajectories in the file")
    if args.export is not None:
        _check_export_dir(args.export)
    out = Path(args.out)
    resume = (out / "trainer.json").exists() and not args.no_resume
    stored = _stored_config(out, args.algorithm) if resume else {}

    # the contexts the policy saw: the trajectories' settings, unless the user (or the checkpoint) says otherwise
    settings, origin = trajectory_context(args.trajectories, records)
    refusals = [(explicit, lambda f, was, now: f"--config-json {f} {now!r}: the trajectories were collected with {f} "
                 f"{was!r} ({origin}), so the policy would be trained on contexts it never saw; drop the field to "
                 "train with the trajectories' settings")]
    if resume:
        stored_settings = {k: v for k, v in canonical_config_dict(cfg_cls, stored).items() if k in CONTEXT_SETTINGS}
        refusals.append((stored_settings, lambda f, was, now: f"--out {out}: the checkpoint was trained on contexts "
                         f"with {f} {now!r}, but the trajectories were collected with {f} {was!r} ({origin}); use "
                         "another --out (or --no-resume) to train on them"))
    for other, message in refusals:
        conflicts = context_conflicts(settings, other)
        if conflicts:
            raise UsageError(message(*conflicts[0]))
    fields.update({k: settings[k] for k in CONTEXT_SETTINGS if k in settings})
    # what the trainer generates (SWEET-RL's candidates, the trained agent's act) is as long as the
    # collection's actions, unless the user says otherwise (a fresh training only: a checkpoint keeps its own)
    generation, generation_origin = collection_generation(args.trajectories)
    generation = {} if resume else {k: v for k, v in generation.items() if k not in explicit}
    fields.update(generation)
    try:  # the whole config, checked before any model loads (a resumed one keeps its stored settings)
        config = config_from_dict(cfg_cls, merge_config_dicts(cfg_cls, stored, fields) if resume else {**defaults, **fields},
                                  source=str(out / "trainer.json") if resume else "--config-json")
    except ConfigError as e:
        raise UsageError(str(e)) from None

    model = config.policy.model_name_or_path
    if not model:
        raise UsageError("--model (or policy.model_name_or_path in --config-json) is required when not resuming")
    resolve_model(model, option="--model" if args.model else "policy.model_name_or_path")  # one line now, not later
    critic = getattr(getattr(config, "critic", None), "model_name_or_path", None)
    if critic:
        resolve_model(critic, option="critic.model_name_or_path")

    from colbench.agents.registry import trainer_class

    cls = trainer_class(args.algorithm)
    cls.check_data(records, config)  # nothing to learn from: said now, before the model loads
    tokens = trajectory_tokens(args.trajectories, records, config)  # the tokenizer only, not the model
    print(f"colbench train: tokens: {tokens.summary()}", file=sys.stderr)
    refusal = tokens.refusal("--strict-tokens") if args.strict_tokens else None
    if refusal:
        raise UsageError(refusal)
    how = f"as {origin} says" if origin else "the trajectories record none: the config's"
    print(f"colbench train: training contexts: prompt_style {config.prompt_style!r}, max_turns {config.max_turns} "
          f"({how})", file=sys.stderr)
    if generation:
        print(f"colbench train: generation: max_new_tokens {config.max_new_tokens} (as {generation_origin} says)",
              file=sys.stderr)
    try:
        if resume:
            trainer = cls.load(out, overrides=fields)
            print(f"resumed {args.algorithm} from {out} at update {trainer.updates}")
        else:
            trainer = cls(config)
    except ConfigError as e:
        raise UsageError(str(e)) from None
    for _ in range(args.updates):
        # SWEET-RL keeps its critic and scored candidates as they are made: an interrupted update
        # resumes inside its stages (OUT/stages/update-N), not only from the last saved update
        stages = {"stage_dir": out / "stages" / f"update-{trainer.updates}"} if getattr(cls, "resumable_stages", False) else {}
        metrics = trainer.update(records, **stages)
        trainer.save(out)
        print(json.dumps(metrics, sort_keys=True, allow_nan=False))
    print(f"checkpoint: {out}")
    if args.export is not None:
        main_process = trainer.accelerator.is_main_process
        del trainer  # its memory, before the export loads the checkpoint's model
        import gc

        gc.collect()
        if main_process:
            from colbench_env.lm.models import export_model

            export_model(out, args.export)
            print(f"exported: {args.export}")
    return 0
