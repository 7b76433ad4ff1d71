"""Capability probe: can the policy write the function once it knows every hidden fact?

For ``n`` generated tasks of a difficulty, the policy sees the dialogue after one question whose
answer is the task's whole hidden information, and must answer. The tests passed measure an upper
bound of what asking can buy this policy -- the check to run before choosing a difficulty for the
pipeline (a policy that scores 0 here cannot reach any success rate by collaborating).

    python -m benchmarks.probe_policy --model smollm2 --difficulty 1 --n 12
    python -m benchmarks.probe_policy --model smollm2 --family rate --prompt-style compact --n 16

``--first-turn K`` asks the other question a family needs answered first: does the policy *ask*? For
``n`` tasks it samples ``K`` first turns each (no dialogue yet) and hands each to the offline scripted
human (``volunteer=False`` by default: facts only in reply to questions). It counts the turns that
answer at once, that ask something at all, and that draw a hidden fact from the human -- a family
such as ``"ask"`` can separate training methods only if the last count is above zero, since every
method learns from the policy's own rollouts:

    python -m benchmarks.probe_policy --first-turn 8 --family ask --prompt-style compact --n 16 --temperature 1.0
"""
from __future__ import annotations

import argparse
import json

from colbench_env.prompting import PROMPT_STYLES

__all__ = ["run", "main"]


def _backend(model: str):
    """The embedded SmolLM2 (``"smollm2"``) or a local transformers model directory."""
    from colbench_env.lm import make_backend

    return make_backend("smollm2") if model == "smollm2" else make_backend("hf", model=model)


def run(model: str = "smollm2", difficulty: int = 1, n: int = 12, max_new_tokens: int = 128,
        temperature: float = 0.0, max_turns: int = 3, family: str = "all", prompt_style: str = "paper") -> dict:
    from colbench_env.lm.base import SamplingParams
    from colbench_env.evaluation.backend import BackendEvaluator
    from colbench_env.generator import generate_tasks
    from colbench_env.protocol import parse_agent_turn
    from colbench_env.prompting import format_agent_messages

    tasks = generate_tasks(n, difficulty=difficulty, split="train", family=family)
    backend = _backend(model)
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


def first_turn_stats(tasks: list, texts: list[list[str]], volunteer: bool = False) -> dict:
    """What the offline scripted human makes of each task's first turns (``texts[i]``: task ``i``'s).

    A turn with the answer marker ends the episode (counted in ``answers``, never sent to the human);
    every other turn is the message the human replies to, as the environment would send it. A reply
    *reveals* when it contains one of the task's hidden facts (:func:`extract_facts`)."""
    from colbench_env.protocol import parse_agent_turn
    from colbench_env.simulators.scripted_backend import ScriptedBackendSimulator, asks_something, extract_facts

    if len(texts) != len(tasks):
        raise ValueError(f"texts: one list per task expected ({len(tasks)}), got {len(texts)}")
    human = ScriptedBackendSimulator(volunteer=volunteer)
    turns = answers = asks = reveals = 0
    per_task, examples = {}, []
    for task, outs in zip(tasks, texts):
        facts = extract_facts(task)
        hits = 0
        for raw in outs:
            turns += 1
            turn = parse_agent_turn(raw)
            if turn.is_answer:
                answers += 1
                continue
            asks += asks_something(turn.message)
            reply = human.reply(task, [{"role": "assistant", "content": turn.message}])
            if any(f in reply for f in facts):
                hits += 1
                if len(examples) < 5:
                    examples.append({"task_id": task.task_id, "message": turn.message[:300], "reply": reply})
        reveals += hits
        per_task[task.task_id] = hits / len(outs) if outs else 0.0
    return {"turns": turns, "answers": answers, "asks": asks, "reveals": reveals, "volunteer": volunteer,
            "tasks_with_a_reveal": sum(1 for v in per_task.values() if v > 0), "per_task": per_task,
            "reveal_examples": examples}


def run_first_turn(model: str = "smollm2", difficulty: int = 1, n: int = 16, k: int = 8, max_new_tokens: int = 96,
                   temperature: float = 1.0, max_turns: int = 3, family: str = "ask", prompt_style: str = "compact",
                   volunteer: bool = False, seed: int = 0) -> dict:
    """``k`` sampled first turns on each of ``n`` generated training tasks -> :func:`first_turn_stats`."""
    from colbench_env.lm.base import SamplingParams
    from colbench_env.generator import generate_tasks
    from colbench_env.prompting import format_agent_messages

    tasks = generate_tasks(n, difficulty=difficulty, split="train", family=family)
    backend = _backend(model)
    try:
        convs = [format_agent_messages(t.problem_description, [], max_turns=max_turns, style=prompt_style)
                 for t in tasks for _ in range(k)]
        gens = []
        for i in range(0, len(convs), 16):  # batches of 16: distinct seeds, so the k samples differ
            gens += backend.generate(convs[i:i + 16], SamplingParams(
                max_new_tokens=max_new_tokens, temperature=temperature, top_p=1.0, seed=seed + i))
    finally:
        backend.close()
    texts = [[g.text for g in gens[j * k:(j + 1) * k]] for j in range(len(tasks))]
    r = first_turn_stats(tasks, texts, volunteer=volunteer)
    r.update({"model": model, "difficulty": difficulty, "family": family, "prompt_style": prompt_style, "n": n,
              "k": k, "temperature": temperature, "max_new_tokens": max_new_tokens})
    return r


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--model", default="smollm2", help="smollm2 or a local model directory")
    p.add_argument("--difficulty", type=int, default=1)
    p.add_argument("--n", type=int, default=12)
    p.add_argument("--temperature", type=float, default=0.0)
    p.add_argument("--family", default="all", help="generated tasks' template family (all, rate, ask)")
    p.add_argument("--prompt-style", default="paper", choices=PROMPT_STYLES)
    p.add_argument("--first-turn", type=int, default=0, metavar="K",
                   help="instead: K sampled first turns per task; how many ask, and draw a hidden fact")
    p.add_argument("--volunteer", action="store_true", help="with --first-turn: the human volunteers facts")
    p.add_argument("--max-new-tokens", type=int, default=None, help="tokens per generation (128; 96 with --first-turn)")
    a = p.parse_args(argv)
    if a.first_turn:
        r = run_first_turn(a.model, a.difficulty, a.n, a.first_turn, max_new_tokens=a.max_new_tokens or 96,
                           temperature=a.temperature, family=a.family, prompt_style=a.prompt_style,
                           volunteer=a.volunteer)
        print(f"{r['model']}, {r['n']} {r['family']} tasks x {r['k']} first turns at temperature {r['temperature']}, "
              f"{r['prompt_style']} prompt, human volunteer={r['volunteer']}: {r['answers']} answer at once, "
              f"{r['asks']} ask something, {r['reveals']} draw a hidden fact "
              f"({r['tasks_with_a_reveal']} of {r['n']} tasks)")
        print(json.dumps(r))
        return 0
    r = run(a.model, a.difficulty, a.n, max_new_tokens=a.max_new_tokens or 128, temperature=a.temperature, family=a.family, prompt_style=a.prompt_style)
    print(f"{r['model']} with every hidden fact told, difficulty {r['difficulty']}, family {r['family']}, "
          f"{r['prompt_style']} prompt: "
          f"{r['tests_passed_pct']:.1f}% tests passed, success {100 * r['success_rate']:.1f}% "
          f"({r['unparsable']} of {r['n']} answers do not even parse)")
    print(json.dumps(r))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
