"""The memory plan (:mod:`colbench.pipeline.memory`) against measured peaks: real trainers, one
process, on a random Llama small enough for a CPU (hidden 256, 4 layers, MLP 1024, SmolLM2's
49,152-token vocabulary, untied: 29.2M parameters, 117 MB in float32).

Each setting runs in a process of its own, as ``bench_critic_memory`` measures: the peak *anonymous*
resident memory (``RssAnon``, read every millisecond) from building the trainer to the end of its
update, minus its value after the imports, the tokenizer and the data (the model is made in the
process, so its weights are heap, not a mapped checkpoint). The processes are forked, one after the
other, from one fresh interpreter that has imported the libraries and loaded the tokenizer and done
nothing else: each starts where a fresh process would be after its imports, without paying ~10 s of
CPU for them. The update takes two optimiser steps, so
that AdamW's moments exist during the second step's backward, as in every later step. The estimate
is :func:`~colbench.pipeline.memory.training_step` for the same model, precision and micro-batch
(rows, padded length, trained positions of the batches the trainer built). Settings:

* ``mt-dpo-full``: multi-turn DPO, full fine-tune (weights, gradients, AdamW moments, the frozen
  reference copy, the foreach step's temporary), one pair per micro-batch;
* ``rft-lora``: RFT, LoRA r=16 on every linear layer, two sequences per micro-batch, every rollout
  kept (the frozen weights, activations and the chunked vocabulary projection dominate);
* ``mt-dpo-lora`` / ``mt-dpo-lora-rows``: multi-turn DPO with LoRA, two pairs (four sequences) per
  micro-batch, in one forward / one sequence per forward (``rows_per_forward=1``: the two-pass
  gradient of :meth:`~colbench.agents.trainer_base.TrainableLM.row_logps`), two epochs.

The estimate takes the forward with the most rows x padded length that the trainer ran (with or
without grad), as :func:`~colbench.pipeline.memory.memory_plan` takes one forward with grad.

Run: ``python -m colbench.benchmarks.bench_memory_plan [--out FILE]`` (~5 minutes on a busy 2-core machine);
``tests/test_memory_plan.py`` asserts each estimate within 25 % of its measurement.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys

__all__ = ["SETTINGS", "SHAPE", "measure", "run", "main"]

#: the random Llama measured (LlamaConfig fields)
SHAPE = dict(hidden_size=256, num_hidden_layers=4, num_attention_heads=4, num_key_value_heads=2,
             intermediate_size=1024, tie_word_embeddings=False)
#: setting -> (algorithm, trainer config over the shared fields)
SETTINGS = {
    "mt-dpo-full": ("mt-dpo", {"policy": {"full_finetune": True}, "pairs_per_batch": 1}),
    "rft-lora": ("rft", {"policy": {"lora_r": 16}, "sequences_per_batch": 2, "success_threshold": 0.0}),
    "mt-dpo-lora": ("mt-dpo", {"policy": {"lora_r": 16}, "pairs_per_batch": 2, "epochs": 2}),
    "mt-dpo-lora-rows": ("mt-dpo", {"policy": {"lora_r": 16}, "pairs_per_batch": 2, "epochs": 2, "rows_per_forward": 1}),
}
#: words of each action (:func:`_records`) by setting (default 120): the LoRA multi-turn DPO settings
#: make sequences of ~1,250 tokens, so that one sequence's hidden states (1,250 x 256 float32) are
#: over glibc's mmap threshold (``colbench_env.lm.heap``: 1 MiB) and are returned to the OS when
#: freed, as the other settings' larger batches are; smaller blocks stay on the heap and its
#: fragments would be measured as held
ACTION_WORDS = {"mt-dpo-lora": 200, "mt-dpo-lora-rows": 200}


def _records(action_words: int = 120) -> list[dict]:
    """2 tasks x 2 two-turn rollouts (rewards 1 and 0): each turn's message is the raw output (no
    thought), so a trajectory packs into one sequence."""
    out = []
    for t in range(2):
        task = {"task_id": f"t{t}", "problem_description": f"Write f(x) that returns x plus my number {t}.",
                "ground_truth": f"def f(x):\n    return x + {t + 7}", "test_cases": {"test1": "f(1)"}}
        for reward in (1.0, 0.0):
            words = " ".join(f"step{i} adds {t + i} to x" for i in range(action_words // 4))
            first = f"Which number do you add? {words}"
            answer = f"I WANT TO ANSWER:\n```python\ndef f(x):\n    return x + {t + 7 if reward else 0}\n```\n{words}"
            out.append({"task": task, "reward": reward, "answer": answer,
                        "dialogue_history": [{"role": "assistant", "content": first, "output": first},
                                             {"role": "user", "content": f"I add {t + 7}."},
                                             {"role": "assistant", "content": answer, "output": answer}]})
    return out


def _libraries():
    """Import the libraries a measurement's baseline comes after and load SmolLM2's tokenizer;
    returns it. (The trainer's own module is imported inside the measured window, by
    ``trainer_class``.)"""
    import torch

    torch.set_num_threads(1)
    import peft  # noqa: F401  (libraries before the baseline)
    from transformers import AutoTokenizer, LlamaConfig, LlamaForCausalLM  # noqa: F401

    import colbench.agents.registry  # noqa: F401
    import colbench.benchmarks.bench_critic_memory  # noqa: F401
    import colbench.pipeline.memory  # noqa: F401
    from colbench_env.lm.smollm2 import smollm2_path

    return AutoTokenizer.from_pretrained(smollm2_path())


def measure(setting: str, tok=None) -> dict:
    """One setting in this process: the measured peak and the plan's estimate (bytes). ``tok``:
    SmolLM2's tokenizer, loaded here when not given."""
    import torch

    from colbench.agents.registry import trainer_class
    from colbench.benchmarks.bench_critic_memory import _PeakRSS, _anon_bytes, _release_free_heap
    from colbench.pipeline.memory import ModelShape, model_states, training_step
    from transformers import LlamaConfig, LlamaForCausalLM

    algorithm, overrides = SETTINGS[setting]
    tok = tok if tok is not None else _libraries()
    torch.set_num_threads(1)
    records = _records(ACTION_WORDS.get(setting, 120))
    config = dict(dict(max_length=4096, gradient_accumulation_steps=1, epochs=1, gradient_checkpointing=True,
                       seed=0, max_turns=2, prompt_style="compact"), **overrides)
    cfg = LlamaConfig(vocab_size=len(tok), bos_token_id=tok.bos_token_id, eos_token_id=tok.eos_token_id,
                      pad_token_id=tok.pad_token_id, max_position_embeddings=4096, **SHAPE)
    _release_free_heap()
    baseline = _anon_bytes()
    with _PeakRSS() as meter:
        torch.manual_seed(0)
        model = LlamaForCausalLM(cfg)
        trainer = trainer_class(algorithm)(config, model=model, tokenizer=tok)
        batches: list[dict] = []
        real_forward = trainer.policy.logps_and_hidden

        def forward(b, **kwargs):  # what each forward gets: rows, padded length, scored positions
            batches.append({"rows": int(b["input_ids"].shape[0]), "length": int(b["input_ids"].shape[1]),
                            "positions": int(b["loss_mask"].sum())})
            return real_forward(b, **kwargs)

        trainer.policy.logps_and_hidden = forward
        metrics = trainer.update(records)
    c = trainer.config
    shape = ModelShape.from_config(cfg.to_dict())
    states = model_states(shape, trained="full" if c.policy.full_finetune else "lora", weights="float32",
                          lora_r=c.policy.lora_r)
    widest = max(batches, key=lambda b: b["rows"] * b["length"])
    estimate = training_step(shape, states=states, rows=widest["rows"], length=widest["length"],
                             positions=widest["positions"], dtype="float32",
                             gradient_checkpointing=c.gradient_checkpointing)
    return {"setting": setting, "measured_bytes": meter.peak - baseline, "estimate_bytes": estimate["peak"],
            "estimate_parts": estimate["parts"], "batch": widest, "params": shape.params,
            "forwards": len(batches), "metrics": {k: v for k, v in metrics.items() if isinstance(v, (int, float))}}


def _forked(settings: list[str]) -> None:
    """Each setting in a process of its own, forked from this one after the libraries and the
    tokenizer are loaded (:func:`_libraries`; nothing else ran here, no thread was started): each
    child measures from its own baseline, as a fresh process would, without paying ~10 s of imports
    again. Prints one JSON line per setting."""
    import traceback

    tok = _libraries()
    for setting in settings:
        sys.stdout.flush()
        sys.stderr.flush()
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: one measurement, its JSON through the pipe
            os.close(read)
            code = 1
            try:
                with os.fdopen(write, "w") as f:
                    f.write(json.dumps(measure(setting, tok), allow_nan=False))
                code = 0
            except BaseException:
                traceback.print_exc()
            finally:
                sys.stderr.flush()
                os._exit(code)
        os.close(write)
        with os.fdopen(read) as f:
            line = f.read()
        _, status = os.waitpid(pid, 0)
        if status != 0:
            raise RuntimeError(f"memory plan child ({setting}) failed (wait status {status})")
        print(line, flush=True)


def _spawn(settings: list[str]) -> dict[str, dict]:
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ, OMP_NUM_THREADS="1")
    p = subprocess.run([sys.executable, "-m", "colbench.benchmarks.bench_memory_plan", "--children", *settings],
                       capture_output=True, text=True, env=env, cwd=root, timeout=2400)
    if p.returncode != 0:
        raise RuntimeError(f"memory plan children ({settings}) failed with code {p.returncode}:\n{p.stderr[-3000:]}")
    rows = [json.loads(line) for line in p.stdout.splitlines() if line.startswith("{")]
    return {r["setting"]: r for r in rows}


def run(settings: list[str] | None = None) -> dict:
    """Each setting in a process of its own (:func:`_forked`, in one fresh interpreter);
    ``memory_plan_worst_error``: the largest ``|estimate / measured - 1|`` (goal <= 0.25)."""
    settings = settings or list(SETTINGS)
    measured = _spawn(settings)
    rows = {s: measured[s] for s in settings}
    for r in rows.values():
        r["ratio"] = r["estimate_bytes"] / r["measured_bytes"]
    return {"memory_plan": rows, "memory_plan_worst_error": max(abs(r["ratio"] - 1) for r in rows.values())}


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["--children"]:
        _forked(argv[1:])
        return 0
    import argparse

    p = argparse.ArgumentParser(prog="python -m colbench.benchmarks.bench_memory_plan", description=__doc__.splitlines()[0])
    p.add_argument("--out", default=None, help="also write the JSON result to this file")
    args = p.parse_args(argv)
    r = run()
    for name, row in r["memory_plan"].items():
        print(f"{name}: measured {row['measured_bytes'] / 2**20:.0f} MiB, estimate {row['estimate_bytes'] / 2**20:.0f} MiB "
              f"(x{row['ratio']:.2f}); batch {row['batch']}")
    print(json.dumps(r, allow_nan=False))
    if args.out:
        with open(args.out, "w") as f:
            f.write(json.dumps(r, indent=2, allow_nan=False) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
