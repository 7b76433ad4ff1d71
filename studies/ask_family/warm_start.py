"""A warm-start policy for "first turns matter" runs: supervised fine-tuning on demonstrations in
which a chosen fraction of the tasks is solved by asking first.

The embedded 135M policy rarely asks, and even when handed a perfect first question it does not then
write the function (``studies/ask_family/``): on a family where the human tells a fact
only when asked, every method learns from nothing. This module builds a policy that has both
behaviours, so that the first turn decides and the methods have something to separate:

* on ``round(ask_fraction * n)`` training tasks (a seeded draw) the demonstration asks each hidden
  fact's own question, gets the human's reply, and answers with the task's ground truth;
* on the others it answers at once with the template's generic guess (``generic_solution``: the
  default number where the task has its own), which the tests reject unless the two coincide.

Every demonstration is a real episode through the env, the offline scripted human
(``volunteer=False``: facts only in reply to questions) and the real scorer, so its reward is the
env's. They are then learned with RFT at ``success_threshold=0`` (plain SFT on all of them, the
failed direct answers included), LoRA merged into the base:

    python -m studies.ask_family.warm_start --family rate --n 32 --ask-fraction 0.25 --epochs 8 --out runs/warm_start

``OUT/models/rft`` is a transformers model directory for ``--policy`` / ``--model`` (pipeline, probes,
``colbench run --agent hf --agent-model``); ``OUT/demos.jsonl`` the demonstrations and
``OUT/warm_start.json`` the settings and training metrics.
"""
from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

from colbench_env.prompting import PROMPT_STYLES

__all__ = ["demonstrations", "build", "main"]


def _fenced(code: str) -> str:
    from colbench_env.protocol import ANSWER_MARKER

    return f"{ANSWER_MARKER}\n```python\n{code}\n```"


def demonstrations(tasks: list, ask_fraction: float, *, seed: int = 0, max_turns: int = 3) -> list[dict]:
    """The demonstration episodes (trajectory records, the env's rewards) of generated ``tasks``:
    ``round(ask_fraction * len(tasks))`` of them, drawn with ``seed``, ask first (module docstring)."""
    from studies.ask_family.probe_policy import oracle_first_turns, run_given_first_turn

    if not 0.0 <= ask_fraction <= 1.0:
        raise ValueError(f"ask_fraction must be in [0, 1], got {ask_fraction!r}")
    order = list(range(len(tasks)))
    random.Random(seed).shuffle(order)
    asking = {tasks[i].task_id for i in order[:round(ask_fraction * len(tasks))]}
    ask = [t for t in tasks if t.task_id in asking]
    direct = [t for t in tasks if t.task_id not in asking]
    truth = {}  # (request, the human's reply to the question) -> the function that request wants
    for t in ask:
        facts = " ".join(f["sentence"] for f in t.extra["generator"]["facts"])
        truth[(t.problem_description, facts)] = t.ground_truth

    def answer(observation: dict) -> str:
        said = json.loads(observation["dialogue"])[-1]["content"]
        key = (observation["problem_description"], said)
        if key not in truth:
            raise ValueError(f"the human's reply {said!r} is not the facts of any asking task of this request")
        return _fenced(truth[key])

    rounds = [r for r in (oracle_first_turns(ask)[0], [(t, _fenced(t.extra["generic_solution"])) for t in direct]) if r]
    records = run_given_first_turn(rounds, answer, max_turns=max_turns)["records"]
    # episode order ("<round>-<k>"), not the order the episodes finished in: the runner's threads finish
    # them in an order that varies run to run, and the SFT's seeded batches follow the data order (the
    # committed demos.jsonl and the model built from it are in this order)
    return sorted(records, key=lambda r: tuple(int(x) for x in str(r["episode_id"]).split("-")))


def build(out: str | Path, *, family: str = "rate", n: int = 32, ask_fraction: float = 0.25, epochs: int = 8,
          learning_rate: float = 1e-4, prompt_style: str = "compact", max_turns: int = 3, max_new_tokens: int = 96,
          policy: str = "smollm2", seed: int = 0, difficulty: int = 1) -> dict:
    """Demonstrations on ``n`` generated training tasks, SFT, ``OUT/model``; returns the settings,
    the demonstrations' counts and the training metrics (also in ``OUT/warm_start.json``)."""
    from colbench.pipeline import PipelineConfig, base_policy, train_method
    from colbench_env.generator import generate_tasks
    from colbench_env.trajectories import atomic_write_jsonl

    out = Path(out)
    if (out / "warm_start.json").exists() or (out / "models" / "rft").exists():
        raise ValueError(f"{out} already holds a warm start; give another --out")
    out.mkdir(parents=True, exist_ok=True)
    tasks = generate_tasks(n, difficulty=difficulty, split="train", family=family)
    demos = demonstrations(tasks, ask_fraction, seed=seed, max_turns=max_turns)
    atomic_write_jsonl(out / "demos.jsonl", demos)
    overrides = {"rft": {"policy": {"learning_rate": learning_rate}, "max_length": 2048, "gradient_checkpointing": True,
                         "epochs": epochs, "success_threshold": 0.0}}
    cfg = PipelineConfig(out_dir=str(out), policy=policy, family=family, difficulty=difficulty,
                         prompt_style=prompt_style, max_turns=max_turns, max_new_tokens=max_new_tokens, seed=seed,
                         methods=("rft",), trainer_overrides=overrides)
    info = train_method(cfg, "rft", base_policy(cfg), demos, out)
    model = out / "models" / "rft"
    asked = sum(1 for r in demos if len(r["dialogue_history"]) > 1)
    report = {"family": family, "difficulty": difficulty, "n": n, "ask_fraction": ask_fraction, "seed": seed,
              "epochs": epochs, "learning_rate": learning_rate, "prompt_style": prompt_style, "max_turns": max_turns,
              "policy": policy, "demonstrations": len(demos), "asking": asked,
              "asking_solved": sum(1 for r in demos if len(r["dialogue_history"]) > 1 and r["reward"] == 1.0),
              "direct_solved": sum(1 for r in demos if len(r["dialogue_history"]) == 1 and r["reward"] == 1.0),
              "model": str(model), "training": info}
    (out / "warm_start.json").write_text(json.dumps(report, indent=2, default=str))
    return report


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", required=True, help="a new output directory (the model in OUT/models/rft)")
    p.add_argument("--family", default="rate", help="generated tasks' template family")
    p.add_argument("--n", type=int, default=32, help="training tasks demonstrated")
    p.add_argument("--ask-fraction", type=float, default=0.25, help="fraction of demonstrations that ask first")
    p.add_argument("--epochs", type=int, default=8)
    p.add_argument("--learning-rate", type=float, default=1e-4)
    p.add_argument("--prompt-style", default="compact", choices=PROMPT_STYLES)
    p.add_argument("--max-turns", type=int, default=3)
    p.add_argument("--policy", default="smollm2", help="base policy: smollm2 or a local model directory")
    p.add_argument("--seed", type=int, default=0)
    a = p.parse_args(argv)
    try:
        r = build(a.out, family=a.family, n=a.n, ask_fraction=a.ask_fraction, epochs=a.epochs,
                  learning_rate=a.learning_rate, prompt_style=a.prompt_style, max_turns=a.max_turns,
                  policy=a.policy, seed=a.seed)
    except ValueError as e:
        print(f"warm_start: error: {e}", file=sys.stderr)
        return 2
    print(f"{r['demonstrations']} demonstrations ({r['asking']} ask first: {r['asking_solved']} solved; "
          f"{r['demonstrations'] - r['asking']} answer at once: {r['direct_solved']} solved); model in {r['model']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
