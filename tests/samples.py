"""Sample scored trajectories in the official format (a one-task toy: ``f(x) = x + 7``), shared by the
trainer tests; a plain helper module like ``tiny_models`` (fixtures are in ``conftest.py``)."""

TASK = {"task_id": "t0", "problem_description": "Write f(x) that returns my number.",
        "ground_truth": "def f(x):\n    return x + 7", "hidden_information": "def f(x):\n    return x + 7",
        "test_cases": {"test1": "f(1)"}}


def traj(actions, replies, reward, task=TASK):
    """An official trajectory record: ``actions`` are the agent's raw generations, ``replies`` the human's."""
    dh = []
    for k, a in enumerate(actions):
        dh.append({"role": "assistant", "content": a.split("OUTPUT:")[-1].strip(), "output": a})
        if k < len(replies):
            dh.append({"role": "user", "content": replies[k]})
    return {"task": task, "dialogue_history": dh, "answer": actions[-1], "reward": reward}


GOOD = traj(["What should be added? OUTPUT: What number do you add?", "I WANT TO ANSWER: def f(x): return x + 7"],
            ["I add seven."], 1.0)
BAD = traj(["I WANT TO ANSWER: def f(x): return x"], [], 0.0)
MID = traj(["Hmm. OUTPUT: Is it a sum?", "I WANT TO ANSWER: def f(x): return x + 1"], ["Yes it is a sum."], 0.3)


def short_formatter(task: dict, history: list) -> list[dict]:
    """A short agent context (system line, problem, then the dialogue's messages) for tokenising tests."""
    from colbench_env.prompting import dialogue_messages

    return [{"role": "system", "content": "Help the user."}, {"role": "user", "content": task["problem_description"]},
            *dialogue_messages(history)]


#: chat conversations for the LM backends' generation tests (system prompt, multi-turn, short and long)
CHAT_CONVS = [
    [{"role": "user", "content": "hi"}],
    [{"role": "system", "content": "Be brief."},
     {"role": "user", "content": "Write a Python function that adds two numbers and explain it."}],
    [{"role": "user", "content": "What colour is the sky on a clear day, and why is it that colour?"}],
    [{"role": "user", "content": "ok"}, {"role": "assistant", "content": "Sure."}, {"role": "user", "content": "more"}],
]


#: two backend task records whose tests' expected outputs are numbers nothing else holds (the integration
#: tests look for the ground truths, the test calls and :data:`SECRET_OUTPUTS` in what the policy sees)
SCALE_TASK = {"task_id": "scale", "problem_description": "I want a function that scales a number the way my lab "
              "does. The signature of the function is: def scale(x)",
              "hidden_information": "Multiply x by the prime 7919, then add one.",
              "ground_truth": "def scale(x):\n    return x * 7919 + 1",
              "test_cases": {"test1": "scale(3)", "test2": "scale(11)", "test3": "scale(-2)", "test4": "scale(5)"}}
FEE_TASK = {"task_id": "fee", "problem_description": "I want a function for the late fee on a library book. "
            "The signature of the function is: def late_fee(days)",
            "hidden_information": "The fee is 0.35 dollars for each day late. The fee is capped at 5 dollars.",
            "ground_truth": "def late_fee(days):\n    return min(days * 0.35, 5)",
            "test_cases": {"test1": "late_fee(2)", "test2": "late_fee(10)", "test3": "late_fee(30)",
                           "test4": "late_fee(0)"}}
SECRET_OUTPUTS = ["23758", "87110", "15837", "39596"]  # scale(3), scale(11), scale(-2), scale(5)


def secrets(tasks) -> list[str]:
    """What a policy must never see of ``tasks``: their ground truths, their test calls, and
    :data:`SECRET_OUTPUTS` (outputs only the evaluator computes)."""
    return sorted({t["ground_truth"] for t in tasks} | {c for t in tasks for c in t["test_cases"].values()}
                  | set(SECRET_OUTPUTS))


def scripted_replies_hold(rebuilt) -> int:
    """``rebuilt``: ``(record, [(dialogue before the reply, logged reply), ...])`` per episode; asserts
    that every logged reply is what a fresh scripted human (ColBench's offline human) says there, cut
    to 400 characters, and returns how many replies there were."""
    from colbench_env.simulators.scripted_backend import ScriptedBackendSimulator
    from colbench_env.tasks import task_from_record

    human, n = ScriptedBackendSimulator(), 0
    for rec, replies in rebuilt:
        task = task_from_record(rec["task"])
        for dialogue, reply in replies:
            assert reply == human.reply(task, dialogue)[:400], (dialogue, reply)
        n += len(replies)
    return n


def colbench_evaluate(records, directory) -> list[dict]:
    """``colbench evaluate`` in a fresh process on ``records`` (written under ``directory``): the scored records."""
    import json
    import subprocess
    import sys

    src, out = directory / "to_score.jsonl", directory / "scored.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in records))
    p = subprocess.run([sys.executable, "-m", "colbench", "evaluate", str(src), "--out", str(out), "--workers", "1",
                        "--no-progress"], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr[-2000:]
    return [json.loads(line) for line in out.read_text().splitlines()]


def answered_record(task, page: str, episode_id: str, renderer, max_turns: int) -> dict:
    """A frontend episode whose one agent turn answers ``page``, recorded as collection and evaluation
    record it (scored in Chromium by ``renderer``)."""
    import gymnasium as gym

    env = gym.make("ColBench-Frontend-v0", tasks=[task], renderer=renderer, max_turns=max_turns)
    env.reset(seed=0)
    env.step(f"OUTPUT: I WANT TO ANSWER: {page}")
    rec = env.unwrapped.trajectory_record()
    rec["episode_id"] = episode_id
    env.close()
    return rec
