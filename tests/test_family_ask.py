"""The generated "ask" family: the scripted human reveals the hidden number only when asked about it."""
from __future__ import annotations

from colbench_env.generator import TEMPLATES, generate_tasks
from colbench_env.simulators.scripted_backend import ScriptedBackendSimulator


def test_human_reveals_the_fact_only_when_asked():
    sim = ScriptedBackendSimulator()
    tasks = generate_tasks(12, difficulty=1, split="test", family="ask") + generate_tasks(12, 1, "train", family="ask")
    assert len({t.task_id for t in tasks}) == 24 and all(t.task_id.startswith("gen-ask-d1-") for t in tasks)
    numbers = set()
    for task in tasks:
        fact = task.extra["generator"]["facts"][0]
        template = TEMPLATES[task.extra["generator"]["template"]]
        arg = template.params.split(",")[0].strip()
        # what a draft-first policy writes: code from the request's own words, a wrong guess of the number
        for draft in (f"```python\n{template.signature}:\n    return {arg} * 12\n```",
                      f"Here is the function. {task.problem_description}",
                      f"I WANT TO ANSWER: ```python\n{template.signature}:\n    return round({arg} * 10, 2)\n```"):
            reply = sim.reply(task, [{"role": "assistant", "content": draft}])
            assert str(fact["value"]) not in reply and fact["sentence"] not in reply, (task.task_id, draft, reply)
        # asking about it (the fact's own question, or a plain question in other words) gets the number
        for question in (fact["question"], "What is your hourly rate?", "What are the details I need to know?"):
            reply = sim.reply(task, [{"role": "assistant", "content": question}])
            assert fact["sentence"] in reply, (task.task_id, question, reply)
        numbers.add(fact["value"])
    assert len(numbers) > 1  # the hidden number varies between tasks: it has to be asked for each
