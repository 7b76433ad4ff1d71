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
