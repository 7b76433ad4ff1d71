"""Capability probe: can the policy write the function once it knows every hidden fact?

For ``n`` generated tasks of a difficulty, the policy sees the dialogue after one question whose
answer is the task's whole hidden information, and must answer. The tests passed measure an upper
bound of what asking can buy this policy -- the check to run before choosing a difficulty for the
pipeline (a policy that scores 0 here cannot reach any success rate by collaborating).

    python -m studies.ask_family.probe_policy --model smollm2 --difficulty 1 --n 12
    python -m studies.ask_family.probe_policy --model smollm2 --family rate --prompt-style compact --n 16

``--first-turn K`` asks the other question a family needs answered first: does the policy *ask*? For
``n`` tasks it samples ``K`` first turns each (no dialogue yet) and hands each to the offline scripted
human (``volunteer=False`` by default: facts only in reply to questions). It counts the turns that
answer at once, that ask something at all, and that draw a hidden fact from the human -- a family
such as ``"ask"`` can separate training methods only if the last count is above zero, since every
method learns from the policy's own rollouts:

    python -m studies.ask_family.probe_policy --first-turn 8 --family ask --prompt-style compact --n 16 --temperature 1.0

``--oracle-first-turn`` bounds what *learning to ask* can buy: whole episodes through the real env
and scripted human in which the first turn is the perfect question (each hidden fact's own question
from the generator) and every later turn is the policy's (greedy by default). A method that learns
to ask can at best reach this score; if it is no better than zero-shot, the family cannot separate
methods by their credit assignment. ``--continue-from ROLLOUTS...`` does the same with the policy's
own recorded first turns that drew a hidden fact (e.g. a pipeline's ``rollouts.jsonl``):

    python -m studies.ask_family.probe_policy --oracle-first-turn --family rate --prompt-style compact --split test --n 48
    python -m studies.ask_family.probe_policy --continue-from OUT/seed-*/rollouts.jsonl --prompt-style compact
"""
from __future__ import annotations

import argparse
import json
import sys

from colbench_env.prompting import PROMPT_STYLES

__all__ = ["run", "main", "GivenFirstTurn", "oracle_first_turns", "recorded_first_turns", "run_given_first_turn"]


def _backend(model: str):
    """The embedded SmolLM2 (``"smollm2"``) or a local transformers model directory."""
    from colbench_env.lm import make_backend

    return make_backend("smollm2") if model == "smollm2" else make_backend("hf", model=model)


def run(model: str = "smollm2", difficulty: int = 1, n: int = 12, max_new_tokens: int = 128,
        temperature: float = 0.0, max_turns: int = 3, family: str = "all", prompt_style: str = "paper",
        split: str = "train") -> dict:
    from colbench_env.lm.base import SamplingParams
    from colbench_env.evaluation.backend import BackendEvaluator
    from colbench_env.generator import generate_tasks
    from colbench_env.protocol import parse_agent_turn
    from colbench_env.prompting import format_agent_messages

    tasks = generate_tasks(n, difficulty=difficulty, split=split, family=family)
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
                   volunteer: bool = False, seed: int = 0, split: str = "train") -> dict:
    """``k`` sampled first turns on each of ``n`` generated training tasks -> :func:`first_turn_stats`."""
    from colbench_env.lm.base import SamplingParams
    from colbench_env.generator import generate_tasks
    from colbench_env.prompting import format_agent_messages

    tasks = generate_tasks(n, difficulty=difficulty, split=split, family=family)
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


class GivenFirstTurn:
    """A policy whose first turn on a task is given -- ``first[problem_description]`` -- and whose
    later turns are ``policy``'s (anything :func:`colbench_env.rollout.policy_act_batch` takes)."""

    def __init__(self, first: dict[str, str], policy):
        self.first, self.policy = first, policy

    def act_batch(self, observations: list) -> list[str]:
        from colbench_env.rollout import policy_act_batch

        out: list = [None] * len(observations)
        later = []
        for i, o in enumerate(observations):
            if json.loads(o["dialogue"]):
                later.append(i)
            else:
                out[i] = self.first[o["problem_description"]]
        for i, a in zip(later, policy_act_batch(self.policy, [observations[i] for i in later]) if later else []):
            out[i] = a
        return out


def oracle_first_turns(tasks: list) -> list[list[tuple]]:
    """Each generated task's perfect first turn, the questions its hidden facts answer, as one round
    of ``(task, turn)`` (see :func:`run_given_first_turn`)."""
    return [[(t, " ".join(f["question"] for f in t.extra["generator"]["facts"])) for t in tasks]]


def recorded_first_turns(paths: list[str]) -> list[list[tuple]]:
    """The recorded first turns (the agent's message as sent) whose human reply holds one of the
    task's hidden facts, from trajectory files, with their tasks (read from the records), as rounds
    of ``(task, turn)``: round ``j`` holds the ``j``-th such turn of each problem description, so that
    no two episodes of a round look the same to the policy. Bad JSON or a record that is not a
    trajectory raises ``TrajectoryFormatError`` / ``TaskFormatError`` (both ``ValueError``) naming the
    file and line."""
    from colbench_env.records import task_from_record
    from colbench_env.simulators.scripted_backend import extract_facts
    from colbench_env.trajectories import read_jsonl, validate_trajectory

    found: dict[str, list[tuple]] = {}
    for path in paths:
        for n, rec in read_jsonl(path):
            validate_trajectory(rec, source=str(path), line=n)
            task = task_from_record(rec["task"], kind="backend", source=str(path), line=n)
            d = rec.get("dialogue_history", [])
            if len(d) < 2 or d[0]["role"] != "assistant" or d[1]["role"] != "user":
                continue
            if any(fact in d[1]["content"] for fact in extract_facts(task)):
                found.setdefault(task.problem_description, []).append((task, d[0]["content"]))
    rounds: list[list[tuple]] = []
    for pairs in found.values():
        for j, pair in enumerate(pairs):
            if j == len(rounds):
                rounds.append([])
            rounds[j].append(pair)
    return rounds


def run_given_first_turn(rounds: list[list[tuple]], policy, *, max_turns: int = 3, volunteer: bool = False) -> dict:
    """Whole episodes, through the env, the offline scripted human and the real scorer: one per
    ``(task, first_turn)`` of each round, the first turn given and the later ones ``policy``'s. The
    policy sees only the problem description, so the episodes of a round that share one must share
    their first turn (``ValueError`` otherwise). Success count with its exact (Clopper-Pearson) 95 %
    interval, mean % tests passed, and the episodes' records."""
    import gymnasium as gym
    from scipy.stats import binomtest

    import colbench_env  # noqa: F401
    from colbench_env.evaluation.backend import BackendEvaluator
    from colbench_env.metrics import summarize
    from colbench_env.rollout import EpisodeSpec, run_episodes
    from colbench_env.simulators import make_simulator

    tasks = list({t.task_id: t for r in rounds for t, _ in r}.values())
    index = {t.task_id: i for i, t in enumerate(tasks)}
    sim = make_simulator("scripted", kind="backend", volunteer=volunteer)
    records = []
    try:
        with BackendEvaluator(workers=2) as ev:
            for j, pairs in enumerate(rounds):
                first: dict[str, str] = {}
                for t, turn in pairs:
                    if first.setdefault(t.problem_description, turn) != turn:
                        raise ValueError(f"round {j}: two first turns for one problem description "
                                         f"({t.problem_description[:60]!r}...)")
                specs = [EpisodeSpec(f"{j}-{index[t.task_id]}", 0, {"task_index": index[t.task_id]}) for t, _ in pairs]
                records += run_episodes(lambda: gym.make("ColBench-Backend-v0", tasks=tasks, simulator=sim,
                                                         evaluator=ev, max_turns=max_turns),
                                        GivenFirstTurn(first, policy), specs, episodes_in_flight=8)
    finally:
        sim.close()
    n = len(records)
    wins = sum(1 for r in records if r.get("success"))  # as summarize counts them
    ci = binomtest(wins, n).proportion_ci(method="exact") if n else None
    return {"episodes": n, "successes": wins, "success_ci95": [ci.low, ci.high] if ci else None,
            "tests_passed_pct": summarize(records)["tests_passed_pct"], "records": records}


def _given_first_turn(a) -> int:
    from colbench_env.generator import generate_tasks
    from colbench_env.lm.base import SamplingParams
    from colbench_env.trajectories import atomic_write_jsonl

    from colbench.agents.base import LMAgent

    if a.continue_from:
        try:
            rounds = recorded_first_turns(a.continue_from)
        except ValueError as e:  # TrajectoryFormatError, TaskFormatError
            print(f"error: {e}", file=sys.stderr)
            return 2
        what = "the policy's recorded first turns that drew a hidden fact"
    else:
        rounds = oracle_first_turns(generate_tasks(a.n, difficulty=a.difficulty, split=a.split, family=a.family))
        what = "the perfect first question"
    agent = LMAgent(_backend(a.model), max_turns=a.max_turns, prompt_style=a.prompt_style,
                    sampling=SamplingParams(max_new_tokens=a.max_new_tokens or 96, temperature=a.temperature,
                                            seed=0 if a.temperature > 0 else None))
    try:
        r = run_given_first_turn(rounds, agent, max_turns=a.max_turns, volunteer=a.volunteer)
    finally:
        agent.close()
    ci = r["success_ci95"]
    where = "recorded" if a.continue_from else f"{a.split} {a.family}"
    print(f"{a.model}, {where} tasks, {a.prompt_style} prompt, {a.max_turns} turns, first turn = {what}, "
          f"later turns at temperature {a.temperature}, human volunteer={a.volunteer}: {r['successes']} of "
          f"{r['episodes']} episodes solved" + (f" (exact 95 % CI {100 * ci[0]:.1f}-{100 * ci[1]:.1f} %)" if ci else "")
          + f", {r['tests_passed_pct']:.1f} % tests passed")
    if a.out:
        atomic_write_jsonl(a.out, r["records"])
    print(json.dumps({k: v for k, v in r.items() if k != "records"}))
    return 0


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
    p.add_argument("--volunteer", action="store_true",
                   help="with --first-turn / --oracle-first-turn / --continue-from: the human volunteers facts")
    p.add_argument("--oracle-first-turn", action="store_true",
                   help="instead: whole episodes whose first turn is the perfect question, later turns the policy's")
    p.add_argument("--continue-from", nargs="+", metavar="ROLLOUTS",
                   help="instead: whole episodes whose first turn is a recorded one that drew a hidden fact")
    p.add_argument("--split", default="train", choices=("train", "test"), help="generated tasks' split")
    p.add_argument("--max-turns", type=int, default=3, help="with --oracle-first-turn / --continue-from")
    p.add_argument("--out", help="with --oracle-first-turn / --continue-from: write the episodes here (JSONL)")
    p.add_argument("--max-new-tokens", type=int, default=None, help="tokens per generation (128; 96 with --first-turn)")
    a = p.parse_args(argv)
    if a.oracle_first_turn or a.continue_from:
        return _given_first_turn(a)
    if a.first_turn:
        r = run_first_turn(a.model, a.difficulty, a.n, a.first_turn, max_new_tokens=a.max_new_tokens or 96,
                           temperature=a.temperature, family=a.family, prompt_style=a.prompt_style,
                           volunteer=a.volunteer, split=a.split)
        print(f"{r['model']}, {r['n']} {r['family']} tasks x {r['k']} first turns at temperature {r['temperature']}, "
              f"{r['prompt_style']} prompt, human volunteer={r['volunteer']}: {r['answers']} answer at once, "
              f"{r['asks']} ask something, {r['reveals']} draw a hidden fact "
              f"({r['tasks_with_a_reveal']} of {r['n']} tasks)")
        print(json.dumps(r))
        return 0
    r = run(a.model, a.difficulty, a.n, max_new_tokens=a.max_new_tokens or 128, temperature=a.temperature, family=a.family, prompt_style=a.prompt_style,
            split=a.split)
    print(f"{r['model']} with every hidden fact told, difficulty {r['difficulty']}, family {r['family']}, "
          f"{r['prompt_style']} prompt: "
          f"{r['tests_passed_pct']:.1f}% tests passed, success {100 * r['success_rate']:.1f}% "
          f"({r['unparsable']} of {r['n']} answers do not even parse)")
    print(json.dumps(r))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
