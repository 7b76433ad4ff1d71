"""Capability probe: can the policy write the function once it knows every hidden fact?

For ``n`` generated tasks of a difficulty, the policy sees the dialogue after one question whose
answer is the task's whole hidden information, and must answer. The tests passed measure an upper
bound of what asking can buy this policy -- the check to run before choosing a difficulty for the
pipeline (a policy that scores 0 here cannot reach any success rate by collaborating).

    python -m benchmarks.probe_policy --model smollm2 --difficulty 1 --n 12
    python -m benchmarks.probe_policy --model smollm2 --family rate --prompt-style compact --n 16
"""
from __future__ import annotations

import argparse
import json

from colbench_env.prompting import PROMPT_STYLES

__all__ = ["run", "main"]


def run(model: str = "smollm2", difficulty: int = 1, n: int = 12, max_new_tokens: int = 128,
        temperature: float = 0.0, max_turns: int = 3, family: str = "all", prompt_style: str = "paper") -> dict:
    from colbench_env.lm import make_backend
    from colbench_env.lm.base import SamplingParams
    from colbench_env.evaluation.backend import BackendEvaluator
    from colbench_env.generator import generate_tasks
    from colbench_env.protocol import parse_agent_turn
    from colbench_env.prompting import format_agent_messages

    tasks = generate_tasks(n, difficulty=difficulty, split="train", family=family)
    backend = make_backend("smollm2") if model == "smollm2" else make_backend("hf", model=model)
    convs = []
    for t in tasks:
        dialogue = [{"role": "assistant", "content": "What exactly do you want?",
                     "output": "OUTPUT: What exactly do you want?"},
                    {"role": "user", "content": t.hidden_information}]
        convs.append(format_agent_messages(t.problem_description, dialogue, max_turns=max_turns, style=prompt_style))
    gens = backend.generate(convs, SamplingParams(max_new_tokens=max_new_tokens, temperature=temperature,
                                                  top_p=0.9 if temperature > 0 else 1.0, seed=0))
    backend.close()
    with BackendEvaluator(workers=2) as ev:
        # the generation is read as a last turn's answer (the env's protocol)
        scores = ev.score_many([(t, parse_agent_turn(g.text, last_turn=True).answer) for t, g in zip(tasks, gens)])
    return {"model": model, "difficulty": difficulty, "family": family, "prompt_style": prompt_style, "n": n,
            "tests_passed_pct": 100 * sum(s.reward for s in scores) / n,
            "success_rate": sum(s.success for s in scores) / n,
            "unparsable": sum(1 for s in scores if s.reason and "failed to load" in s.reason),
            "per_task": {t.task_id: s.reward for t, s in zip(tasks, scores)}}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--model", default="smollm2", help="smollm2 or a local model directory")
    p.add_argument("--difficulty", type=int, default=1)
    p.add_argument("--n", type=int, default=12)
    p.add_argument("--temperature", type=float, default=0.0)
    p.add_argument("--family", default="all", help="generated tasks' template family (all, rate)")
    p.add_argument("--prompt-style", default="paper", choices=PROMPT_STYLES)
    a = p.parse_args(argv)
    r = run(a.model, a.difficulty, a.n, temperature=a.temperature, family=a.family, prompt_style=a.prompt_style)
    print(f"{r['model']} with every hidden fact told, difficulty {r['difficulty']}, family {r['family']}, "
          f"{r['prompt_style']} prompt: "
          f"{r['tests_passed_pct']:.1f}% tests passed, success {100 * r['success_rate']:.1f}% "
          f"({r['unparsable']} of {r['n']} answers do not even parse)")
    print(json.dumps(r))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
