"""The reference ColBench backend scorer, re-stated for the tests from its documented semantics.

Written from the description in the issue and DESIGN.md (not copied): what the paper's numbers
used. Deliberately tiny and in-process (UNSAFE: tests only), with a globals namespace as bare as
the reference's scorer module (only ``signal`` of note), because the answers' functions see it.

Semantics:

* an answer containing any of the blocked substrings scores 0;
* fences: the text between the first ```` ```python ```` and the next ```` ``` ````; else, if any
  ```` ``` ```` is left, the text between the first two;
* for each test call, in order: the ground truth's definitions are executed *inside a function*
  (with ``exec`` and no namespaces: they land in that call's locals) and the call evaluated; any
  ``Exception`` gives ``None``; the same for the answer, under a 1-second ``SIGALRM`` (whose
  ``TimeoutError`` is an ``Exception`` too);
* the test passes when the ground truth's output is not ``None`` and ``==`` the answer's
  (a ``ValueError`` from ``==`` counts as a failure);
* reward = passed / number of tests.

Python <= 3.12 semantics of ``exec``/``eval`` without namespaces inside a function (one shared
``locals()`` dict) are assumed, as in the reference's environment.
"""
import signal

BLOCKED = ("import os", "from os", "import sys", "from sys", "sudo", "transformers", "exit(", "quit(", "argparse")


def _alarm(signum, frame):
    raise TimeoutError("timed out")


def output_of(definitions, call):
    try:
        exec(definitions)
        return eval(call)
    except Exception:
        return None


def reference_reward(ground_truth, answer, test_cases):
    for rule in BLOCKED:
        if rule in answer:
            return 0
    if "```python" in answer:
        answer = answer.split("```python")[1].split("```")[0]
    if "```" in answer:
        answer = answer.split("```")[1].split("```")[0]
    correct = 0
    for call in test_cases.values():
        expected = output_of(ground_truth, call)
        signal.signal(signal.SIGALRM, _alarm)
        signal.alarm(1)
        try:
            got = output_of(answer, call)
        except TimeoutError:
            got = None
        signal.alarm(0)
        try:
            if expected == got and expected is not None:
                correct += 1
        except ValueError:
            pass
    return correct / len(test_cases)
