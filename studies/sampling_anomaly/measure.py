"""Is the temperature-0.3 collapse of the ``--small`` pipeline's rollouts the policy or the sampler?

Three measurements (``python -m studies.sampling_anomaly.measure {check,sweep,margins}``); the findings
are written up in ``studies/sampling_anomaly/README.md``.

* ``check`` -- the sampling path against a hand-written sampler. For real pipeline states (the
  agent prompts of the committed zero-shot evaluation), a plain loop (one unpadded prompt, KV
  cache, ``softmax(logits / T)``, ``torch.multinomial``) is run with the same seed as
  :meth:`HFBackend.generate` with ``max_batch_size=1``: identical tokens mean the backend applies
  the temperature exactly once and nothing else (no top-k, top-p, repetition penalty from a
  ``generation_config``). Then the same conversations sampled in left-padded batches of 8: each
  sampled token's log-probability reported by the backend is compared with an unpadded forward
  pass, and the first token's empirical frequencies over many seeded draws with
  ``softmax(logits / T)`` (total variation distance).
* ``sweep`` -- the same tasks, policy and settings as the pipeline at temperatures 0 (greedy),
  0.05, 0.1, 0.2, 0.3, 0.5 and several seeds; the temperature-0.3 runs also one episode at a time
  (no batching, no padding).
* ``margins`` -- for every episode the greedy policy solved, how likely sampling at temperature
  ``T`` is to reproduce its answer turn token for token, and which tokens carry the risk.
"""
from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

RESULTS = Path(__file__).resolve().parent
PIPELINE = RESULTS.parent / "pipeline_small"


def _states(limit: int) -> list[list[dict]]:
    """Agent prompts (chat messages) of the committed greedy zero-shot evaluation's turns."""
    from colbench_env.prompting import format_agent_messages
    from colbench_env.trajectories import read_trajectories

    convs = []
    for rec in read_trajectories(PIPELINE / "eval" / "zero-shot.jsonl"):
        hist = rec["dialogue_history"]
        for i, m in enumerate(hist):
            if m["role"] == "assistant":
                convs.append(format_agent_messages(rec["task"]["problem_description"], hist[:i], max_turns=3,
                                                   style="compact"))
    # varied lengths: first turns and later turns interleaved
    return convs[:limit]


def hand_sample(model, prompt_ids: list[int], *, temperature: float, max_new_tokens: int, eos: set[int],
                seed: int) -> list[int]:
    """Plain ancestral sampling: one unpadded prompt, KV cache, ``softmax(logits / T)``, multinomial."""
    import torch

    torch.manual_seed(seed)
    ids = torch.tensor([prompt_ids])
    out, past = [], None
    with torch.inference_mode():
        for _ in range(max_new_tokens):
            res = model(input_ids=ids, past_key_values=past, use_cache=True)
            past = res.past_key_values
            probs = torch.softmax(res.logits[:, -1, :].float() / temperature, dim=-1)
            tok = int(torch.multinomial(probs, num_samples=1)[0, 0])
            out.append(tok)
            if tok in eos:
                break
            ids = torch.tensor([[tok]])
    return out


def check(args: argparse.Namespace) -> dict:
    import torch

    from colbench_env.lm import HFBackend, SamplingParams

    torch.set_num_threads(args.threads)
    b1 = HFBackend("smollm2", max_batch_size=1)
    b8 = HFBackend(b1.model, tokenizer=b1.tokenizer, max_batch_size=8)
    tok, model = b1.tokenizer, b1.model
    convs = _states(args.states)
    eos = set(b1._eos_ids)
    report: dict = {"temperature": args.temperature, "states": len(convs)}

    # 1. identical tokens: backend (batch 1) vs the hand-written sampler, same seed
    same, total_tokens = 0, 0
    for k, conv in enumerate(convs):
        prompt = tok(b1.prompt_texts([conv])[0], add_special_tokens=False)["input_ids"]
        g = b1.generate([conv], SamplingParams(max_new_tokens=args.tokens, temperature=args.temperature, seed=100 + k,
                                               return_logprobs=True))[0]
        h = hand_sample(model, prompt, temperature=args.temperature, max_new_tokens=args.tokens, eos=eos, seed=100 + k)
        same += int(g.token_ids == h[:len(g.token_ids)])
        total_tokens += len(g.token_ids)
    report["identical_to_hand_sampler"] = f"{same}/{len(convs)}"
    report["tokens_compared"] = total_tokens
    print(json.dumps(report), flush=True)

    # 2. batched (left-padded, 8 per batch) sampling: reported log-probs vs an unpadded forward pass
    gens = b8.generate(convs, SamplingParams(max_new_tokens=args.tokens, temperature=args.temperature, seed=7,
                                             return_logprobs=True))
    worst, worst_t = 0.0, 0.0
    for conv, g in zip(convs, gens):
        prompt = tok(b1.prompt_texts([conv])[0], add_special_tokens=False, return_tensors="pt")["input_ids"]
        ids = torch.cat([prompt, torch.tensor([g.token_ids])], dim=1)
        with torch.inference_mode():
            logits = model(ids).logits[0, prompt.shape[1] - 1:-1].float()
        lp = torch.log_softmax(logits, -1).gather(1, torch.tensor(g.token_ids)[:, None]).squeeze(1)
        worst = max(worst, float((lp - torch.tensor(g.logprobs)).abs().max()))
        lpt = torch.log_softmax(logits / args.temperature, -1).gather(1, torch.tensor(g.token_ids)[:, None]).squeeze(1)
        worst_t = min(worst_t, float(lpt.min()))
    report["batched_logprob_max_abs_diff_vs_unpadded"] = worst
    report["batched_min_tempered_logprob_of_a_sampled_token"] = worst_t
    print(json.dumps(report), flush=True)

    # 3. first-token frequencies over many seeded batched draws vs softmax(logits / T)
    tv = []
    for conv in convs[: args.freq_states]:
        prompt = tok(b1.prompt_texts([conv])[0], add_special_tokens=False, return_tensors="pt")["input_ids"]
        with torch.inference_mode():
            p = torch.softmax(model(prompt).logits[0, -1].float() / args.temperature, -1)
        # the conversation among 7 others of different lengths, so it is left-padded in its batch
        batch = [conv] + convs[-7:]
        counts: dict[int, int] = {}
        for s in range(args.draws):
            g = b8.generate(batch, SamplingParams(max_new_tokens=1, temperature=args.temperature, seed=1000 + s,
                                                  return_logprobs=True))[0]
            counts[g.token_ids[0]] = counts.get(g.token_ids[0], 0) + 1
        keys = set(counts) | set(torch.topk(p, 20).indices.tolist())
        tv.append(0.5 * (sum(abs(counts.get(t, 0) / args.draws - float(p[t])) for t in keys)
                         + float(1 - p[list(keys)].sum())))
    report["first_token_tv_distance"] = tv
    report["first_token_draws_per_state"] = args.draws
    return report


def sweep(args: argparse.Namespace) -> dict:
    from colbench.pipeline import PipelineConfig, base_policy, run_stage_episodes, task_split
    from colbench_env.metrics import summarize

    out = Path(args.out_dir)
    out.mkdir(parents=True, exist_ok=True)
    rows = []
    for split in args.splits:
        for temp in args.temperatures:
            for seed in (args.seeds if temp > 0 else [0]):
                for bs in ([8, 1] if (temp == 0.3 and seed == args.seeds[0] and args.unbatched) else [8]):
                    cfg = PipelineConfig(out_dir=str(out), seed=seed, episodes_in_flight=bs)
                    tasks = task_split(cfg, split)
                    t0 = time.perf_counter()
                    recs = run_stage_episodes(cfg, tasks, base_policy(cfg), out / f"{split}_T{temp}_s{seed}_b{bs}.jsonl",
                                        repeats=1, temperature=temp, desc=f"{split} T={temp} seed={seed} batch={bs}")
                    m = summarize(recs)
                    rows.append({"split": split, "temperature": temp, "seed": seed, "batch_size": bs,
                                 "episodes": m["count"], "tests_passed_pct": m["tests_passed_pct"],
                                 "solved": sum(1 for r in recs if r.get("success")),
                                 "seconds": round(time.perf_counter() - t0, 1)})
                    print(json.dumps(rows[-1]), flush=True)
    return {"rows": rows}


def margins(args: argparse.Namespace) -> dict:
    """For each greedy-solved episode: the probability that sampling at temperature T reproduces its
    last (scored) turn, and the whole episode (every agent turn; the scripted human's replies are then
    the same), given the same contexts. Each turn's text is re-tokenised with trailing whitespace
    stripped (a turn cut at ``max_new_tokens`` may end in a whitespace token that re-tokenises
    differently)."""
    import torch

    from colbench_env.lm import HFBackend
    from colbench_env.prompting import format_agent_messages
    from colbench_env.trajectories import read_trajectories

    torch.set_num_threads(args.threads)
    b = HFBackend("smollm2")
    tok, model = b.tokenizer, b.model
    rows = []
    for rec in read_trajectories(args.trajectories):
        if not rec.get("success"):
            continue
        hist = rec["dialogue_history"]
        turns = []  # (token ids, logits) of every agent turn
        for j, m in enumerate(hist):
            if m["role"] != "assistant":
                continue
            conv = format_agent_messages(rec["task"]["problem_description"], hist[:j], max_turns=3, style="compact")
            prompt = tok(b.prompt_texts([conv])[0], add_special_tokens=False)["input_ids"]
            action = tok((m.get("output") or m["content"]).rstrip(), add_special_tokens=False)["input_ids"]
            with torch.inference_mode():
                logits = model(torch.tensor([prompt + action])).logits[0, len(prompt) - 1:-1].float()
            turns.append((action, logits))
        row = {"task_id": rec["task"].get("task_id"), "turns": len(turns), "tokens": sum(len(a) for a, _ in turns)}
        for t in args.temperatures:
            lps = [float(torch.log_softmax(lg / t, -1).gather(1, torch.tensor(a)[:, None]).sum()) for a, lg in turns]
            row[f"p_last_turn_T{t}"] = math.exp(lps[-1])
            row[f"p_episode_T{t}"] = math.exp(sum(lps))
        risky = []
        for a, lg in turns:
            p1 = torch.softmax(lg, -1).gather(1, torch.tensor(a)[:, None]).squeeze(1)
            risky += [(tok.decode([a[k]]), round(float(p1[k]), 3)) for k in range(len(a)) if float(p1[k]) < 0.6]
        row["tokens_below_p0.6_at_T1"] = risky
        rows.append(row)
        print(json.dumps(row), flush=True)
    return {"rows": rows}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m studies.sampling_anomaly.measure", description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("check")
    c.add_argument("--temperature", type=float, default=0.3)
    c.add_argument("--states", type=int, default=16)
    c.add_argument("--tokens", type=int, default=48)
    c.add_argument("--freq-states", type=int, default=3)
    c.add_argument("--draws", type=int, default=300)
    c.add_argument("--threads", type=int, default=1)
    s = sub.add_parser("sweep")
    s.add_argument("--out-dir", default=str(RESULTS / "sweep"))
    s.add_argument("--splits", nargs="+", default=["test"])
    s.add_argument("--temperatures", nargs="+", type=float, default=[0.0, 0.05, 0.1, 0.2, 0.3, 0.5])
    s.add_argument("--seeds", nargs="+", type=int, default=[0, 1])
    s.add_argument("--unbatched", action="store_true", help="also run T=0.3 one episode at a time")
    m = sub.add_parser("margins")
    m.add_argument("--trajectories", default=str(PIPELINE / "eval" / "zero-shot.jsonl"))
    m.add_argument("--temperatures", nargs="+", type=float, default=[0.1, 0.3, 0.5, 1.0])
    m.add_argument("--threads", type=int, default=1)
    args = p.parse_args(argv)
    res = {"check": check, "sweep": sweep, "margins": margins}[args.cmd](args)
    print(json.dumps(res, indent=1, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
