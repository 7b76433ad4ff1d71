"""SmolLM2-135M-Instruct generation throughput: one conversation at a time vs one batch, side by side.

Run: ``python -m colbench.benchmarks.bench_generation [--batch 8] [--max-new-tokens 32]``.

Both runs use the same :class:`~colbench_env.lm.hf.HFBackend`, the same ``batch`` prompts
(of different lengths, so the batch is really padded) and greedy decoding; throughput counts the
generated tokens (end-of-turn token included). The ratio ``batched / one-at-a-time`` is what to
compare across machines, not the absolute numbers.
"""
from __future__ import annotations

import argparse
import json
import time

from colbench_env.lm.base import SamplingParams

__all__ = ["run", "main"]

QUESTIONS = [
    "Write a Python function that returns the sum of a list.",
    "What should the function return when the input list is empty?",
    "Please explain what a hash map is.",
    "Name three colours.",
    "How do I reverse a string in Python? Give a one-line answer.",
    "Describe a landing page for a bakery with an orange banner and a menu.",
    "Is zero an even number?",
    "Give me a short greeting for a customer who just signed up to our newsletter about gardening.",
]


def _prompts(batch: int) -> list[list[dict]]:
    return [[{"role": "user", "content": QUESTIONS[i % len(QUESTIONS)] + ("" if i < len(QUESTIONS) else f" ({i})")}]
            for i in range(batch)]


def run(batch: int = 8, max_new_tokens: int = 32, device: str = "cpu", threads: int | None = None) -> dict:
    """Measure SmolLM2 tokens/s one-at-a-time and batched (``batch`` conversations) in one run.

    Returns:
        ``{"single_tokens_per_s", "batched_tokens_per_s", "batched_generation_ratio", "batch",
        "max_new_tokens", "single_tokens", "batched_tokens", "single_s", "batched_s",
        "same_texts", "device", "torch_threads"}``; ``same_texts`` says whether the batched greedy
        texts equal the one-at-a-time texts. ``threads``: torch CPU threads (default: torch's).
    """
    import torch

    if threads is not None:
        torch.set_num_threads(threads)
    from colbench_env.lm.hf import HFBackend

    if batch < 1 or max_new_tokens < 1:
        raise ValueError(f"batch and max_new_tokens must be >= 1, got {batch} and {max_new_tokens}")
    backend = HFBackend("smollm2", device=device, max_batch_size=batch)
    params = SamplingParams(max_new_tokens=max_new_tokens, return_logprobs=True)
    convs = _prompts(batch)
    backend.generate(convs[:1], SamplingParams(max_new_tokens=4))  # warm-up

    t0 = time.perf_counter()
    single = [backend.generate([c], params)[0] for c in convs]
    single_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    batched = backend.generate(convs, params)
    batched_s = time.perf_counter() - t0

    single_tokens = sum(len(g.token_ids) for g in single)
    batched_tokens = sum(len(g.token_ids) for g in batched)
    result = {
        "single_tokens_per_s": single_tokens / single_s,
        "batched_tokens_per_s": batched_tokens / batched_s,
        "batch": batch,
        "max_new_tokens": max_new_tokens,
        "single_tokens": single_tokens,
        "batched_tokens": batched_tokens,
        "single_s": single_s,
        "batched_s": batched_s,
        "same_texts": [g.text for g in single] == [g.text for g in batched],
        "device": backend.device,
        "torch_threads": torch.get_num_threads(),
    }
    result["batched_generation_ratio"] = result["batched_tokens_per_s"] / result["single_tokens_per_s"]
    print(f"SmolLM2-135M-Instruct on {result['device']} ({result['torch_threads']} threads), "
          f"{batch} conversations, max_new_tokens={max_new_tokens}:")
    print(f"  one at a time: {single_tokens} tokens in {single_s:.2f} s = {result['single_tokens_per_s']:.1f} tokens/s")
    print(f"  batched ({batch}): {batched_tokens} tokens in {batched_s:.2f} s = {result['batched_tokens_per_s']:.1f} tokens/s")
    print(f"  batched_generation_ratio = {result['batched_generation_ratio']:.2f}x"
          f" (same greedy texts: {result['same_texts']})")
    return result


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--batch", type=int, default=8, help="conversations per batch (default 8)")
    parser.add_argument("--max-new-tokens", type=int, default=32, help="tokens generated per conversation (default 32)")
    parser.add_argument("--device", default="cpu", help="cpu, cuda or auto (default cpu)")
    parser.add_argument("--threads", type=int, default=None, help="torch CPU threads (default: torch's choice)")
    parser.add_argument("--json", action="store_true", help="also print the result dict as JSON")


def main(args: argparse.Namespace | None = None) -> int:
    if args is None:
        parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
        add_arguments(parser)
        args = parser.parse_args()
    result = run(batch=args.batch, max_new_tokens=args.max_new_tokens, device=args.device, threads=args.threads)
    if args.json:
        print(json.dumps(result, indent=2, allow_nan=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
