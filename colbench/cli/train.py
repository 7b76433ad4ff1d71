"""``colbench train {rft,mt-dpo,ppo,grpo,sweet-rl}``: train an agent on recorded trajectories.

Examples::

    colbench train sweet-rl --trajectories rollouts.jsonl --model /models/llama-3.1-8b-instruct --out runs/sweet
    colbench train mt-dpo --trajectories rollouts.jsonl --model PATH --out runs/dpo \\
        --config-json '{"beta": 0.1, "epochs": 2, "pairs_per_batch": 4}'
    accelerate launch --config_file configs/accelerate/deepspeed_zero3.yaml -m colbench train ...

``--config-json`` is a JSON object (or a path to a ``.json`` file) of the algorithm's config fields
(see :class:`agents.RFTConfig`, :class:`agents.MultiTurnDPOConfig`, :class:`agents.PPOConfig`,
:class:`agents.SweetRLConfig`, :class:`agents.GRPOConfig`); the models' settings are nested objects,
``{"policy": {"learning_rate": 1e-5, "lora_r": 8}, "critic": {"load_in_4bit": true}}``, and the
old flat keys (``lora_r``, ``critic_learning_rate``, ``batch_size``, ...) are accepted as aliases.
It goes through :func:`agents.config.config_from_dict`, as the pipeline's ``--trainer-overrides``.
When ``--out`` already holds a checkpoint of the same algorithm, training
resumes from it (adapters, optimiser state, update count) unless ``--no-resume`` is given.
Each ``--updates`` round runs one ``update`` on the trajectories and writes the checkpoint.
SWEET-RL also keeps its trained critic and each scored candidate state in ``OUT/stages/update-N/``
as they are made, so that rerunning the same command after an interruption continues inside the
update (settings or trajectories that differ from those files are refused, naming the field).
"""
from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

from colbench_env.errors import UsageError

from agents.registry import TRAINERS as ALGORITHMS, trainer_class


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("algorithm", choices=sorted(ALGORITHMS), help="training algorithm")
    parser.add_argument("--trajectories", required=True, help="trajectory jsonl (official ColBench format, scored)")
    parser.add_argument("--model", required=False, default=None,
                        help="base model path (or hub id); optional when resuming from --out")
    parser.add_argument("--out", required=True, help="checkpoint directory (resumed from when it exists)")
    parser.add_argument("--config-json", default=None, help="JSON object or .json file of config fields")
    parser.add_argument("--updates", type=int, default=1, help="update rounds on the trajectories (default 1)")
    parser.add_argument("--no-resume", action="store_true", help="start fresh even if --out holds a checkpoint")
    parser.add_argument("--progress", action="store_true", help="show tqdm bars inside each update")


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


def main(args: argparse.Namespace) -> int:
    from agents.trainer_base import ConfigError, config_from_dict, merge_config_dicts

    cls = trainer_class(args.algorithm)
    given = parse_config_json(args.config_json)
    flags: dict = {}
    if args.model is not None:
        flags["policy"] = {"model_name_or_path": args.model}
    if args.progress:
        flags["show_progress"] = True
    try:  # --model/--progress over --config-json, old keys mapped (config_from_dict's aliases)
        fields = merge_config_dicts(cls.config_class, given, flags, source="--config-json")
    except ConfigError as e:
        raise UsageError(str(e)) from None
    if args.updates < 1:
        raise UsageError(f"--updates must be >= 1, got {args.updates}")
    from agents.trainer_base import load_trajectories

    if not os.path.isfile(args.trajectories):
        raise UsageError(f"--trajectories {args.trajectories}: no such file")
    records = load_trajectories(args.trajectories)  # a malformed file fails before the model loads
    if not records:
        raise UsageError(f"--trajectories {args.trajectories}: no trajectories in the file")
    out = Path(args.out)
    try:
        if (out / "trainer.json").exists() and not args.no_resume:
            trainer = cls.load(out, overrides=fields)
            print(f"resumed {args.algorithm} from {out} at update {trainer.updates}")
        else:
            if not fields.get("policy", {}).get("model_name_or_path"):
                raise UsageError("--model (or policy.model_name_or_path in --config-json) is required "
                                 "when not resuming")
            trainer = cls(config_from_dict(cls.config_class, fields, source="--config-json"))
    except ConfigError as e:
        raise UsageError(str(e)) from None
    for _ in range(args.updates):
        # SWEET-RL keeps its critic and scored candidates as they are made: an interrupted update
        # resumes inside its stages (OUT/stages/update-N), not only from the last saved update
        stages = {"stage_dir": out / "stages" / f"update-{trainer.updates}"} if getattr(cls, "resumable_stages", False) else {}
        metrics = trainer.update(records, **stages)
        trainer.save(out)
        print(json.dumps(metrics, sort_keys=True))
    print(f"checkpoint: {out}")
    return 0
