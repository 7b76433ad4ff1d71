"""Peak memory of one SWEET-RL critic training step: 4-bit NF4 base + LoRA vs full precision + LoRA.

Each setting runs in a fresh subprocess (so neither sees the other's allocations), with the real
SmolLM2-135M-Instruct (:func:`colbench_env.lm.smollm2.smollm2_path`): load the critic base
(4-bit NF4 via bitsandbytes, or float32), add LoRA, run one Bradley-Terry step on a pair of
two-turn trajectories whose critic context holds the training-time information.

Measured: on CUDA, ``torch.cuda.max_memory_allocated``; on CPU, the peak *anonymous* resident
memory (``RssAnon``, read from ``/proc/self/statm`` every millisecond) during the step, minus its
value after the imports and before the model is loaded -- the memory the critic and its step add.
Anonymous memory, because a checkpoint loaded by transformers stays memory-mapped: its file pages
(the float32 weights the 4-bit load read once to quantise) are droppable page cache, not the
critic's memory; so that the full-precision weights count, they are copied onto the heap first.
The total RSS (page cache included) is reported too. Gradient checkpointing is on in both.

Two critics:

* ``critic_4bit_peak_memory_ratio``: where weights dominate, as for the 8B critics users train -- a
  randomly initialised Llama of 1.07B parameters (Llama-3.2-1B's shape: hidden 2048, 16 layers,
  MLP 8192, 32 heads / 8 KV heads, tied embeddings; SmolLM2's 49,152-token vocabulary), saved once
  in bfloat16 to a temporary directory (no download). Full precision = its weights and compute in
  float32 on a CPU, bfloat16 on a GPU (:func:`default_1b_dtype`); 4-bit = NF4 with that compute
  dtype. Goal <= 0.35x.
* ``critic_4bit_peak_memory_ratio_smollm2``: the real SmolLM2-135M (float32), where activations
  and the unquantised embeddings weigh as much as the weights.

Run: ``python -m colbench.benchmarks.bench_critic_memory`` (prints both peaks and the ratio) or
``colbench bench --only critic``; ``python -m colbench.benchmarks.bench_critic_memory --smollm2-only [--out FILE]``
measures the SmolLM2 pair alone, ``--1b-only [DTYPE] [--out FILE]`` the 1B pair alone (``bfloat16`` on a CPU: hours). On CPUs whose bfloat16 matmuls fall back to torch's slow
reference kernel (here, torch 2.13: a ``grad @ W`` product of the backward pass runs ~22x slower
than the transposed product of the forward pass, ~56x slower than float32) the 1B step takes hours.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time

__all__ = ["run", "main"]


def _statm_pages(fd: int | None = None) -> tuple[int, int]:
    """``(resident, shared)`` pages of this process (``/proc/self/statm``; ``shared`` = file-backed +
    shmem, so ``resident - shared`` is ``RssAnon`` of ``/proc/self/status``), read from the open
    ``fd`` when given (a poll then costs a few microseconds: no open, no ``status`` text)."""
    if fd is None:
        with open("/proc/self/statm", "rb") as f:
            fields = f.read().split()
    else:
        fields = os.pread(fd, 256, 0).split()
    return int(fields[1]), int(fields[2])


_PAGE = os.sysconf("SC_PAGE_SIZE")


def _rss_bytes() -> int:
    return _statm_pages()[0] * _PAGE


def _anon_bytes() -> int:
    """Anonymous resident memory (heap, tensors); excludes file-backed page cache of mmapped files."""
    resident, shared = _statm_pages()
    return (resident - shared) * _PAGE


class _PeakRSS:
    """Polls the RSS in a thread; ``peak`` is the highest anonymous RSS seen while running
    (:func:`_anon_bytes`), ``peak_rss`` the highest total RSS. One poll reads ``/proc/self/statm``
    from a descriptor kept open (a few microseconds of CPU, so a millisecond's polling costs the
    measured process ~2 % instead of ~8 % with ``/proc/self/status``)."""

    def __init__(self, interval: float = 0.001):
        self.interval, self.peak, self._stop = interval, _anon_bytes(), threading.Event()
        self.peak_rss = _rss_bytes()
        self._thread = threading.Thread(target=self._poll, daemon=True)

    def _poll(self) -> None:
        fd = os.open("/proc/self/statm", os.O_RDONLY)
        try:
            top_anon, top_rss = 0, 0
            while not self._stop.is_set():
                resident, shared = _statm_pages(fd)
                top_anon, top_rss = max(top_anon, resident - shared), max(top_rss, resident)
                time.sleep(self.interval)
        finally:
            os.close(fd)
        self.peak = max(self.peak, top_anon * _PAGE)
        self.peak_rss = max(self.peak_rss, top_rss * _PAGE)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, _anon_bytes())
        self.peak_rss = max(self.peak_rss, _rss_bytes())


def _release_free_heap() -> None:
    """Give freed heap pages back to the OS (glibc ``malloc_trim``), so loader garbage -- e.g. the
    float32 copies a CPU 4-bit load quantises and drops -- is not counted as the step's memory."""
    import ctypes
    import gc

    gc.collect()
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except OSError:  # not glibc
        pass


#: Llama-3.2-1B's shape with SmolLM2's vocabulary: 1.07e9 parameters
LLAMA_1B = dict(hidden_size=2048, intermediate_size=8192, num_hidden_layers=16, num_attention_heads=32,
                num_key_value_heads=8, tie_word_embeddings=True, max_position_embeddings=4096)


def make_random_llama(directory: str, shape: dict | None = None, dtype: str = "bfloat16") -> dict:
    """Save a randomly initialised Llama of ``shape`` (LlamaConfig fields; default :data:`LLAMA_1B`)
    in ``dtype`` (seed 0) and SmolLM2's tokenizer in ``directory``."""
    import torch
    from transformers import AutoTokenizer, LlamaConfig, LlamaForCausalLM

    from colbench_env.lm.smollm2 import smollm2_path

    shape = LLAMA_1B if shape is None else shape
    tok = AutoTokenizer.from_pretrained(smollm2_path())
    cfg = LlamaConfig(vocab_size=len(tok), bos_token_id=tok.bos_token_id, eos_token_id=tok.eos_token_id,
                      pad_token_id=tok.pad_token_id, **shape)
    torch.manual_seed(0)
    model = LlamaForCausalLM._from_config(cfg, dtype=getattr(torch, dtype))
    n = sum(p.numel() for p in model.parameters())
    model.save_pretrained(directory)
    tok.save_pretrained(directory)
    return {"parameters": n, "config": shape}


def _child(mode: str, seq_turns: int = 2, model_dir: str | None = None, dtype: str | None = None) -> dict:
    """One critic training step in this process (SmolLM2, or the model in ``model_dir`` with
    bfloat16 compute); returns the measured peaks (bytes)."""
    import resource

    import torch

    torch.set_num_threads(max(1, min(2, os.cpu_count() or 1)))
    from accelerate import Accelerator

    from colbench.agents.losses import bradley_terry_loss, masked_mean
    from colbench_env.prompting import record_messages
    from colbench.agents.sweet_rl import critic_messages
    from colbench.agents.tokenize import tokenize_trajectory, turn_masks
    from colbench.agents.trainer_base import TrainableLM
    from colbench_env.lm.smollm2 import smollm2_path

    import bitsandbytes  # noqa: F401  (imported before the baseline: libraries are not the critic's memory)
    import peft  # noqa: F401
    import transformers  # noqa: F401

    path = model_dir or smollm2_path()
    dtype = dtype or ("bfloat16" if model_dir else "float32")
    cuda = torch.cuda.is_available()
    baseline, baseline_rss = _anon_bytes(), _rss_bytes()
    if cuda:
        torch.cuda.reset_peak_memory_stats()
        base_alloc = torch.cuda.memory_allocated()
    task = {"problem_description": "Write f(x) that returns my number.", "ground_truth": "def f(x):\n    return x + 7",
            "hidden_information": "def f(x):\n    return x + 7", "test_cases": {"test1": "f(1)"}}

    def traj(final: str, reward: float) -> dict:
        dh = [{"role": "assistant", "content": "What do you add to x?"}, {"role": "user", "content": "I add seven."}]
        dh += [{"role": "assistant", "content": f"I WANT TO ANSWER:\n```python\ndef f(x):\n    return {final}\n```"}]
        return {"task": task, "dialogue_history": dh[: 2 * seq_turns - 1], "reward": reward}

    acc = Accelerator()
    with _PeakRSS() as load_meter:
        lm = TrainableLM(acc, path, load_in_4bit=(mode == "4bit"), compute_dtype=dtype, learning_rate=1e-4,
                         gradient_checkpointing=True)
        if mode == "full":  # weights lazily mmapped from the checkpoint: bring them onto the heap, in
            # the compute dtype (transformers loads a full-precision checkpoint in its stored dtype)
            with torch.no_grad():
                for param in lm.peft_model.parameters():
                    param.data = param.data.to(getattr(torch, dtype)).clone()
    load_peak_alloc = torch.cuda.max_memory_allocated() - base_alloc if cuda else 0
    _release_free_heap()
    after_load = _anon_bytes()
    if cuda:
        torch.cuda.reset_peak_memory_stats()
    with _PeakRSS() as meter:
        fmt = lambda t, h: critic_messages(record_messages(t, h), task["ground_truth"])  # noqa: E731
        seqs = [s for r in (traj("x + 7", 1.0), traj("x", 0.0)) for s in tokenize_trajectory(lm.tokenizer, r, formatter=fmt)]
        with torch.no_grad():
            b = lm.batch(seqs)
            ref_tok = lm.token_logps(b, reference=True)
        lm.train()
        b = lm.batch(seqs)
        L = b["input_ids"].shape[1]
        cur_tok = lm.token_logps(b)
        rows = [r for r, _t, _m in turn_masks(seqs, L)]
        masks = torch.stack([m for _r, _t, m in turn_masks(seqs, L)]).to(lm.device)
        idx = torch.tensor(rows, device=lm.device)
        adv = masked_mean(cur_tok[idx], masks) - masked_mean(ref_tok[idx], masks)
        n_turns = len(rows) // 2
        scores = torch.stack([adv[:n_turns].sum(), adv[n_turns:].sum()])
        loss = bradley_terry_loss(scores[:1], scores[1:])
        lm.backward(loss)
        lm.flush()
    load_peak_rss = load_meter.peak
    out = {"mode": mode, "device": str(lm.device), "tokens": int(b["attention_mask"].sum()),
           "loss": float(loss.detach()),
           "peak_anon_delta_bytes": meter.peak - baseline,
           "peak_rss_delta_bytes": meter.peak_rss - baseline_rss,
           "rss_after_load_delta_bytes": after_load - baseline,
           "load_peak_rss_delta_bytes": load_peak_rss - baseline,
           "maxrss_delta_bytes": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 - baseline_rss,
           "baseline_rss_bytes": baseline,
           "quantized_linear_layers": sum(type(m).__name__ == "Linear4bit" for m in lm.peft_model.modules())}
    if cuda:
        out["peak_allocated_bytes"] = torch.cuda.max_memory_allocated() - base_alloc
        out["load_peak_allocated_bytes"] = load_peak_alloc
    return out


def _spawn(mode: str, model_dir: str | None = None, dtype: str | None = None) -> dict:
    env = dict(os.environ)
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    cmd = [sys.executable, "-m", "colbench.benchmarks.bench_critic_memory", "--child", mode] + ([model_dir] if model_dir else [])
    cmd += [dtype] if model_dir and dtype else []
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=root)
    if proc.returncode != 0:
        raise RuntimeError(f"critic memory child ({mode}) failed with code {proc.returncode}:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _pair(model_dir: str | None = None, dtype: str | None = None) -> dict:
    full = _spawn("full", model_dir, dtype)
    q4 = _spawn("4bit", model_dir, dtype)
    key = "peak_allocated_bytes" if "peak_allocated_bytes" in full else "peak_anon_delta_bytes"
    return {
        "ratio": q4[key] / full[key],
        "metric": key,
        "peak_4bit_mib": q4[key] / 2**20,
        "peak_full_mib": full[key] / 2**20,
        "after_load_4bit_ratio": q4["rss_after_load_delta_bytes"] / full["rss_after_load_delta_bytes"],
        "rss_ratio_incl_page_cache": q4["peak_rss_delta_bytes"] / full["peak_rss_delta_bytes"],
        "full": full,
        "4bit": q4,
    }


def run_smollm2() -> dict:
    """The SmolLM2-135M pair only (minutes, where the 1B pair takes hours on a CPU whose bfloat16
    matmuls are slow): ``critic_4bit_peak_memory_ratio_smollm2`` and its peaks."""
    small = _pair()
    return {"critic_4bit_peak_memory_ratio_smollm2": small["ratio"],
            "critic_memory_smollm2": dict(small, model="SmolLM2-135M-Instruct, float32")}


def run_1b(dtype: str | None = None) -> dict:
    """The 1B random Llama pair only, its full-precision weights and compute in ``dtype``
    (default :func:`default_1b_dtype`: ``"bfloat16"`` on a GPU, ``"float32"`` on a CPU)."""
    dtype = dtype or default_1b_dtype()
    import shutil
    import tempfile

    tmp = tempfile.mkdtemp(prefix="colbench_llama1b_")
    try:
        made = make_random_llama(tmp)
        big = _pair(tmp, dtype)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return {f"critic_4bit_peak_memory_ratio_1b_{dtype}": big["ratio"],
            "critic_memory_1b": dict(big, model=f"random Llama, {made['parameters'] / 1e9:.2f}B parameters, {dtype}",
                                     config=made["config"])}


def default_1b_dtype() -> str:
    """The 1B pair's full-precision dtype: bfloat16 on a GPU (what an 8B critic is trained in),
    float32 on a CPU (its real full precision; CPU bfloat16 backward matmuls can take hours)."""
    import torch

    return "bfloat16" if torch.cuda.is_available() else "float32"


def run(dtype_1b: str | None = None) -> dict:
    """Both critics, each setting in a fresh subprocess; returns ``critic_4bit_peak_memory_ratio``
    (the 1B random Llama, 4-bit / full precision in ``dtype_1b``, default :func:`default_1b_dtype`;
    goal <= 0.35), the SmolLM2 ratio beside it (``critic_4bit_peak_memory_ratio_smollm2``) and each
    one's peaks."""
    dtype_1b = dtype_1b or default_1b_dtype()
    small = run_smollm2()
    big = run_1b(dtype_1b)
    return {
        "critic_4bit_peak_memory_ratio": big[f"critic_4bit_peak_memory_ratio_1b_{dtype_1b}"],
        **small, **big,
        "goal": f"<= 0.35 (1B random Llama, full precision = {dtype_1b})",
    }


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["--child"]:  # one measured setting, in the fresh process :func:`_measure` starts
        print(json.dumps(_child(argv[1], model_dir=argv[2] if len(argv) > 2 else None,
                                dtype=argv[3] if len(argv) > 3 else None), allow_nan=False))
        return 0
    import argparse

    p = argparse.ArgumentParser(prog="python -m colbench.benchmarks.bench_critic_memory", description=__doc__.splitlines()[0])
    g = p.add_mutually_exclusive_group()
    g.add_argument("--smollm2-only", action="store_true", help="measure the SmolLM2-135M pair alone")
    g.add_argument("--1b-only", nargs="?", const="", default=None, metavar="DTYPE", dest="only_1b",
                   help="measure the 1.07B pair alone; DTYPE: its full precision (default: float32 on a CPU)")
    p.add_argument("--out", default=None, help="also write the result (JSON) to this file")
    args = p.parse_args(argv)
    out = args.out
    if args.smollm2_only:
        r = run_smollm2()
    elif args.only_1b is not None:
        r = run_1b(args.only_1b or None)
    else:
        r = run()
    if out:
        with open(out, "w") as f:
            f.write(json.dumps(r, indent=2, allow_nan=False) + "\n")
    for name, key in ((r.get("critic_memory_1b", {}).get("model", "1B"), "critic_memory_1b"),
                      ("SmolLM2-135M (float32) + LoRA", "critic_memory_smollm2")):
        if key not in r:
            continue
        m = r[key]
        print(f"critic training step, {name} ({m['metric']}):")
        print(f"  full precision: {m['peak_full_mib']:.1f} MiB   4-bit NF4: {m['peak_4bit_mib']:.1f} MiB   "
              f"ratio {m['ratio']:.3f}x; total-RSS ratio (incl. mmapped checkpoint page cache) "
              f"{m['rss_ratio_incl_page_cache']:.3f}x; after loading {m['after_load_4bit_ratio']:.3f}x")
    if "critic_4bit_peak_memory_ratio" in r:
        print(f"critic_4bit_peak_memory_ratio = {r['critic_4bit_peak_memory_ratio']:.3f}x (1B; goal <= 0.35x), "
              f"SmolLM2 {r['critic_4bit_peak_memory_ratio_smollm2']:.3f}x")
    print(json.dumps(r, allow_nan=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
