"""How the offline scripted human behaves on official-style backend records (hidden information =
the ground-truth code): does it read code out, and does it reveal what matters?

Official-style records are built from the embedded tasks and from generated tasks by putting the
ground-truth code in ``hidden_information`` (as the official ColBench files do). On each record the
human is asked the same five generic questions (:data:`QUESTIONS`) in one dialogue, and we measure:

* ``leak_rate``: the share of records where some reply shares a verbatim span of more than
  :data:`LEAK_CHARS` characters with the code, string-literal contents masked (string values the
  function outputs are meant to be quoted);
* ``longest_span``: the longest such span over all replies;
* ``literal_recall``: the share of the code's informative literals (numbers other than 0, 1 and 2,
  strings of three or more characters, docstrings excluded) that appear in the replies (a number
  counts in any of its written forms: ``0.25``, ``25 percent``);
* ``same_reply_pairs``: asked one at a time (no dialogue), the share of pairs of different questions
  that get the identical reply.

``python -m studies.offline_human.measure [--json]``
"""
from __future__ import annotations

import argparse
import ast
import json
from typing import Any, Iterable, Sequence

from colbench.audit.values import LEAK_CHARS, literal_revealed, longest_shared_span, masked_code

__all__ = ["QUESTIONS", "LEAK_CHARS", "official_style", "masked_code", "longest_shared_span", "informative_literals",
           "literal_revealed", "measure", "main"]

QUESTIONS = ("What should the function return?", "What numbers, rates or thresholds should I use?",
             "What are the conditions and special cases?", "Which words, names or categories matter?",
             "How should the result be rounded or formatted?")


def official_style(task: Any) -> Any:
    """The task as an official ColBench record: its hidden information is its ground-truth code."""
    from colbench_env.tasks import task_from_record

    record = task.to_record()
    record["hidden_information"] = task.ground_truth
    return task_from_record(record)


def informative_literals(code: str) -> set:
    """Numbers other than 0, 1, 2 (negative ones with their sign) and strings of 3+ characters,
    docstrings excluded."""
    tree = ast.parse(code)
    skip: set[int] = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                and isinstance(body[0].value.value, str):
            skip.add(id(body[0].value))
    out: set = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant) \
                and type(node.operand.value) in (int, float):
            skip.add(id(node.operand))
            if -node.operand.value not in (0, 1, 2):
                out.add(-node.operand.value)
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and id(node) not in skip:
            v = node.value
            if type(v) in (int, float) and v not in (0, 1, 2):
                out.add(v)
            elif isinstance(v, str) and len(v) >= 3:
                out.add(v)
    return out


def measure(tasks: Iterable[Any], simulator: Any = None, questions: Sequence[str] = QUESTIONS) -> dict:
    """Leak rate, longest span and literal recall of ``simulator`` (scripted by default) on the
    official-style versions of ``tasks``; ``dialogues`` holds every exchange."""
    from colbench_env.simulators.scripted_backend import ScriptedBackendSimulator

    sim = simulator or ScriptedBackendSimulator()
    n_tasks = leaky = hits = total = same = pairs = 0
    longest = ""
    dialogues = []
    for task in tasks:
        rec = official_style(task)
        code = rec.hidden_information
        masked = masked_code(code)
        dialogue: list[dict] = []
        leaked = False
        for q in questions:
            dialogue.append({"role": "assistant", "content": q})
            reply = sim.reply(rec, dialogue)
            dialogue.append({"role": "user", "content": reply})
            span = longest_shared_span(reply, masked)
            longest = max(longest, span, key=len)
            leaked |= len(span) > LEAK_CHARS
        told = " ".join(m["content"] for m in dialogue if m["role"] == "user")
        literals = informative_literals(code)
        hits += sum(literal_revealed(x, told) for x in literals)
        total += len(literals)
        n_tasks += 1
        leaky += leaked
        alone = [sim.reply(rec, [{"role": "assistant", "content": q}]) for q in questions]
        same += sum(a == b for i, a in enumerate(alone) for b in alone[i + 1:])
        pairs += len(alone) * (len(alone) - 1) // 2
        dialogues.append({"task_id": rec.task_id, "dialogue": dialogue,
                          "missing": sorted(map(repr, (x for x in literals if not literal_revealed(x, told))))})
    return {"tasks": n_tasks, "leak_rate": leaky / max(n_tasks, 1), "longest_span": longest,
            "longest_span_chars": len(longest), "literals": total, "literal_recall": hits / max(total, 1),
            "same_reply_pairs": same / max(pairs, 1), "dialogues": dialogues}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--generated", type=int, default=100, help="generated tasks per difficulty (seeds 0..N-1)")
    p.add_argument("--json", action="store_true", help="print one JSON object as the last line")
    a = p.parse_args(argv)
    from colbench_env.tasks import default_tasks, load_tasks

    sets = {"embedded": default_tasks("backend")}
    for d in (1, 2, 3, 4):
        sets[f"generated:{a.generated}:{d}"] = load_tasks(f"generated:{a.generated}:{d}")
    results = {}
    for name, tasks in sets.items():
        r = measure(tasks)
        r.pop("dialogues")
        results[name] = r
        print(f"{name:18s} tasks {r['tasks']:4d}  leak rate {r['leak_rate']:.3f}  longest shared span "
              f"{r['longest_span_chars']} chars ({r['longest_span']!r})  literal recall {r['literal_recall']:.3f} "
              f"of {r['literals']}  same-reply pairs {r['same_reply_pairs']:.3f}")
    if a.json:
        print(json.dumps(results))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
