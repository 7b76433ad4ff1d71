"""``colbench demo``: a first look at ColBench in about two minutes on a laptop CPU.

1. The embedded SmolLM2-135M-Instruct agent (compact prompt) talks with the scripted human on a few
   held-out tasks (batched); one of the dialogues is printed turn by turn -- the first task it
   solved, so said -- with the answer's score.
2. A short table showing that the environment tells agents apart, on the same held-out tasks
   (generated tasks of the ``rate`` family, which this 135M model can sometimes solve):

   * **lower bound** -- the scripted agent: asks two generic questions, answers ``return None``;
   * **SmolLM2-135M** -- the embedded model, compact prompt, greedy;
   * **upper bound** -- :class:`HiddenInfoOracle`: asks one question, then answers with the task's
     hidden ground truth. It reads information no real agent has; it only shows the ceiling.

3. The next command to try.

Runs resume from ``--out-dir`` (delete it to rerun from scratch). Needs the ``lm`` extra.
"""
from __future__ import annotations

import argparse
import sys
import textwrap
import time
from pathlib import Path

from colbench.runs import RunConfig, run

__all__ = ["HiddenInfoOracle", "add_arguments", "main", "demo"]

SETTINGS = dict(tasks_family="rate", max_turns=3, max_new_tokens=96, prompt_style="compact")


class HiddenInfoOracle:
    """The upper bound of the demo table: NOT a fair agent. It asks one question, then answers with
    the ground truth of the task -- looked up by problem description in the task list it was given,
    i.e. it reads the hidden information."""

    def __init__(self, tasks):
        self.truth = {t.problem_description: t.ground_truth for t in tasks}
        if len(self.truth) != len(tasks):
            raise ValueError("HiddenInfoOracle needs tasks with distinct problem descriptions")

    def act(self, observation: dict) -> str:
        if observation["dialogue"] == "[]":
            return "OUTPUT: Could you tell me exactly how it should work?"
        return "OUTPUT: I WANT TO ANSWER:\n```python\n" + self.truth[observation["problem_description"]] + "\n```"


def _say(who: str, text: str, width: int = 100) -> None:
    body = textwrap.indent(text.strip() or "(empty)", " " * 10)[10:]
    print(f"  {who:<7} {body}"[: 20 * width], flush=True)


def print_dialogue(rec: dict) -> None:
    """A recorded episode, turn by turn: agent, human, ..., then the answer's score."""
    from colbench_env.protocol import parse_agent_turn

    print(f"task {rec['task_id']}: {rec['task']['problem_description']}\n")
    agent_turns = [m for m in rec["dialogue_history"] if m["role"] == "assistant"]
    k = 0
    for m in rec["dialogue_history"]:
        if m["role"] == "assistant":
            k += 1
            parsed = parse_agent_turn(m.get("output", m["content"]), last_turn=k == len(agent_turns))
            _say(f"AGENT {k}", ("[answer] " + parsed.answer.strip()) if parsed.is_answer else parsed.message)
        else:
            _say("HUMAN", m["content"])
    total = len(rec["task"]["test_cases"]) if isinstance(rec["task"]["test_cases"], dict) else "?"
    print(f"\n  score: {rec.get('tests_passed', round(rec['reward'] * total) if total != '?' else '?')}/{total} "
          f"hidden tests passed (reward {rec['reward']:.2f}, success {rec.get('success')})", flush=True)


def demo_tasks(n: int) -> list:
    """The first ``n`` held-out tasks of the ``rate`` family with distinct problem descriptions (the
    family has 7; generated tasks of one template share the description and differ in the hidden
    number, so the oracle could not tell them apart)."""
    from colbench.errors import UsageError
    from colbench_env.generator import generate_tasks

    out: dict = {}
    for t in generate_tasks(100, difficulty=1, split="test", family=SETTINGS["tasks_family"]):
        out.setdefault(t.problem_description, t)
    if n > len(out):
        raise UsageError(f"--tasks {n}: the demo has {len(out)} distinct tasks")
    return list(out.values())[:n]


def demo(out_dir: str = "runs/demo", n_tasks: int = 7, episodes_in_flight: int = 7) -> list[dict]:
    """Run the demo; returns the table rows."""
    from colbench.agents.base import ScriptedAgent
    from colbench_env.trajectories import atomic_write_jsonl, read_trajectories

    s = SETTINGS
    out = Path(out_dir)
    tasks = demo_tasks(n_tasks)
    spec = out / "tasks.jsonl"
    atomic_write_jsonl(spec, [t.to_record() for t in tasks])
    common = dict(tasks=str(spec), max_turns=s["max_turns"], max_new_tokens=s["max_new_tokens"],
                  prompt_style=s["prompt_style"], episodes_in_flight=episodes_in_flight)
    agents = (("SmolLM2-135M", "the embedded model, compact prompt, greedy", None, {"agent": "smollm2"}),
              ("lower bound", "scripted: two generic questions, then `return None`", ScriptedAgent(),
               {"agent": "scripted"}),
              ("upper bound", "reads the HIDDEN ground truth -- not a fair agent", HiddenInfoOracle(tasks),
               {"agent": "colbench.cli.demo:HiddenInfoOracle"}))
    print(f"== 1. SmolLM2-135M-Instruct (the agent) and the scripted human (holds the hidden information) on "
          f"{n_tasks} held-out '{s['tasks_family']}' tasks, at most {s['max_turns']} turns each\n", flush=True)
    rows, smol_records = [], []
    for i, (name, what, agent, kw) in enumerate(agents):
        if i == 1:
            solved = [r for r in smol_records if r.get("success")]
            pick = min(solved or smol_records, key=lambda r: int(r["episode_id"]))
            print(f"\none dialogue, turn by turn ({'the first task it solved' if solved else 'it solved none'}):\n")
            print_dialogue(pick)
            print(f"\n== 2. does the environment tell agents apart? the same {n_tasks} tasks\n", flush=True)
        path = out / f"{name.replace(' ', '_').lower()}.jsonl"
        t0 = time.perf_counter()
        m = run(RunConfig(out=str(path), **common, **kw), agent=agent)
        rows.append({"agent": name, "what": what, **m, "seconds": time.perf_counter() - t0})
        if i == 0:
            smol_records = read_trajectories(path, tolerate_partial_last_line=True)
    rows = rows[1:2] + rows[:1] + rows[2:]  # lower bound, SmolLM2, upper bound
    print("\n| agent | what it is | % tests passed | success rate | mean turns |")
    print("|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['agent']} | {r['what']} | {r['tests_passed_pct']:.1f} | {100 * r['success_rate']:.1f} % "
              f"| {r['mean_turns']:.2f} |")
    print(f"\ntrajectories: {out}/*.jsonl (official ColBench format; 'colbench evaluate FILE' rescores one)")
    print("\n== 3. next: more tasks, your own agent, or the SWEET-RL pipeline")
    print("  colbench run --agent smollm2 --tasks generated:16:1:rate --split test --max-turns 3 \\\n"
          "      --max-new-tokens 96 --prompt-style compact --out runs/rate.jsonl")
    print("  colbench run --agent my_agent.py:MyAgent --out runs/mine.jsonl      # any Agent subclass or callable")
    print("  colbench pipeline --small                                           # RFT / MT-DPO / PPO / SWEET-RL")
    return rows


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--out-dir", default="runs/demo", help="trajectory files (resumed; delete to rerun)")
    p.add_argument("--tasks", type=int, default=7, dest="n_tasks", help="held-out tasks in the table (at most 7)")
    p.add_argument("--episodes-in-flight", type=int, default=7,
                   help="episodes in flight, each advancing on its own; a local model batches their turns")


def main(args: argparse.Namespace) -> int:
    from colbench.errors import UsageError

    if args.n_tasks < 1 or args.episodes_in_flight < 1:
        raise UsageError("--tasks and --episodes-in-flight must be >= 1")
    t0 = time.perf_counter()
    demo(args.out_dir, args.n_tasks, args.episodes_in_flight)
    print(f"\n(demo took {time.perf_counter() - t0:.0f} s)", file=sys.stderr)
    return 0
