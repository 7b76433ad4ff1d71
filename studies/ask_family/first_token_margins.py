"""One-off analysis behind section 5b's note on PPO and GRPO (not library code; run from the repo root; results in warm_start/pipeline/):

    python -m studies.ask_family.first_token_margins \
        runs/p3_ws12/out/seed-1 runs/ws/ask25/models/rft ppo grpo mt-dpo rft

For every held-out task where a method's greedy first turn differs from the warm start's (zero-shot's),
that turn is fed to the warm start token by token; at the first token where the warm start's own
choice departs from it, the gap (nats) between the warm start's choice and the method's token says
how far the method had to move the warm start to flip that first turn."""
import sys
from collections import Counter

import torch
from transformers import AutoModelForCausalLM, AutoTokenizer

from colbench_env.prompting import record_messages
from colbench_env.trajectories import read_trajectories

seed_dir, warm_start, methods = sys.argv[1], sys.argv[2], sys.argv[3:]
tok = AutoTokenizer.from_pretrained(warm_start)
model = AutoModelForCausalLM.from_pretrained(warm_start, dtype=torch.float32).eval()


def episodes(method):
    return {r["task_id"]: r for r in read_trajectories(f"{seed_dir}/eval/{method}.jsonl")}


def first_turn(rec):
    return next(t["content"] for t in rec["dialogue_history"] if t["role"] == "assistant")


zero_shot = episodes("zero-shot")
for method in methods:
    gaps = []
    for tid, rec in episodes(method).items():
        text = first_turn(rec)
        if text == first_turn(zero_shot[tid]):
            continue
        prompt = tok.apply_chat_template(record_messages(rec["task"], [], max_turns=3, style="compact"),
                                         tokenize=False, add_generation_prompt=True)
        p_ids = tok(prompt, return_tensors="pt", add_special_tokens=False).input_ids
        t_ids = tok(text, return_tensors="pt", add_special_tokens=False).input_ids
        with torch.no_grad():
            logp = torch.log_softmax(model(torch.cat([p_ids, t_ids], 1)).logits[0, p_ids.shape[1] - 1:-1], -1)
        for i, target in enumerate(t_ids[0].tolist()):
            own = int(logp[i].argmax())
            if own != target:
                template = rec["task"]["generator"]["template"]
                gaps.append((template, i, round(float(logp[i, own] - logp[i, target]), 3),
                             tok.decode([own]), tok.decode([target])))
                break
    print(f"{method}: {len(gaps)} of {len(zero_shot)} first turns differ from zero-shot's")
    for (template, pos, gap, own, target), n in sorted(Counter(gaps).items(), key=lambda x: x[0][2]):
        print(f"  {template}: {n} tasks, token {pos}: warm start {own!r}, {method} {target!r}, gap {gap} nats")
