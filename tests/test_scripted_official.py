"""The offline scripted human on official-style records, whose hidden information is the
ground-truth code: it tells what the code means in plain words, never reads it out, answers the
question asked, and reveals the numbers and strings that matter.

Official-style records are the embedded and generated tasks with ``hidden_information`` set to the
ground truth (``studies.offline_human.measure.official_style``); leaks and literals are measured there
independently of the simulator (tokenizer masking, an AST walk over the code).
"""
import re

import gymnasium as gym
import pytest

import colbench_env  # noqa: F401
from studies.offline_human.measure import (LEAK_CHARS, QUESTIONS, informative_literals, literal_revealed,
                                      longest_shared_span, masked_code, measure, official_style)
from colbench_env.simulators import make_simulator
from colbench_env.simulators.code_words import code_facts, humanise
from colbench_env.simulators.scripted_backend import NO_QUESTION_REPLY, ScriptedBackendSimulator, asks_something
from colbench_env.tasks import default_tasks, load_tasks, task_from_record

SCORE = '''def calculate_weighted_score(multiplayer_wins, tower_of_lost_souls_score, story_mode_completion_time, achievements):
    weighted_score = 0.4 * multiplayer_wins + 0.3 * tower_of_lost_souls_score + 0.2 * (1 - story_mode_completion_time / 3600) + 0.1 * achievements
    return round(weighted_score, 2)
'''
TRAVEL = '''def describe_travel(name, travel_history):
    if len(travel_history) == 0:
        return f"{name} has not travelled yet"
    if len(travel_history) == 1:
        return f"{name} has visited {travel_history[0]}"
    countries = ', '.join(travel_history[:-1])
    return f"{name} has visited {countries} and {travel_history[-1]}"
'''
CHILD = '''def child_category(age):
    if age < 0:
        return "invalid"
    elif age < 2:
        return "infant"
    elif age < 5:
        return "toddler"
    elif age < 13:
        return "child"
    else:
        return "teenager"
'''


def record(code):
    name = re.search(r"def (\w+\(.*?\))", code).group(1)
    return task_from_record({"problem_description": f"Help me. The signature of the function is: def {name}",
                             "ground_truth": code, "test_cases": {"test1": "None"}, "hidden_information": code})


def ask(task, question, sim=None, history=()):
    return (sim or ScriptedBackendSimulator()).reply(task, [*history, {"role": "assistant", "content": question}])


def outside_quotes(reply):
    return re.sub(r"'[^']*'", "''", reply)


@pytest.fixture(scope="module")
def official_tasks():
    tasks = default_tasks("backend") + [t for d in (1, 2, 3, 4) for t in load_tasks(f"generated:40:{d}")]
    return [official_style(t) for t in tasks]


# ---------------------------------------------------------------------------------------------
# The measuring helpers (they decide what a leak and a revealed literal are)
# ---------------------------------------------------------------------------------------------

def test_measuring_helpers_on_hand_made_cases():
    code = "def f(x):\n    if x == 'gold member':\n        return x * 0.25\n    return -1\n"
    m = masked_code(code)
    assert "gold member" not in m and "'\0\0\0\0\0\0\0\0\0\0\0'" in m and len(m) == len(code)
    assert longest_shared_span("then return x * 0.25 please", m) == "return x * 0.25"
    assert informative_literals(code) == {"gold member", 0.25, -1}
    assert informative_literals('def f():\n    "Doc string here."\n    return 2 + 150\n') == {150}
    assert literal_revealed(0.25, "they count for 25 percent") and literal_revealed(0.25, "a factor of 0.25")
    assert not literal_revealed(0.25, "a factor of 0.255") and not literal_revealed(5, "15 dollars")
    assert literal_revealed(-1, "it returns -1.") and literal_revealed(9.5, "9.5 dollars")


# ---------------------------------------------------------------------------------------------
# No code read out; literals revealed (the figures in the README come from studies.offline_human.measure)
# ---------------------------------------------------------------------------------------------

def test_no_reply_reads_the_code_out(official_tasks):
    sim = ScriptedBackendSimulator()
    extra = ["How is the result computed?", "What if the input is something else?", "Tell me the formula.",
             "What text should it output?"]
    for task in official_tasks:
        masked = masked_code(task.hidden_information)
        history = []
        for q in (*QUESTIONS, *extra):
            history.append({"role": "assistant", "content": q})
            reply = sim.reply(task, history)
            history.append({"role": "user", "content": reply})
            span = longest_shared_span(reply, masked)
            operator = re.search(r"[-+*/%<>=\[\](){}]|[A-Za-z_]\.[A-Za-z_]", re.sub(r"-(?=\d)", "", span))
            assert len(span) <= LEAK_CHARS and not operator, \
                (task.task_id, span, reply)
            plain = outside_quotes(reply)
            for bad in ("==", "**", "[", "]", "{", "}", ".join(", "def ", "lambda", "_"):
                assert bad not in plain, (task.task_id, bad, reply)
            assert 0 < len(reply) <= 400


def test_five_generic_questions_reveal_the_literals():
    embedded = measure(default_tasks("backend"))
    generated = measure([t for d in (1, 2, 3, 4) for t in load_tasks(f"generated:40:{d}")])
    assert embedded["leak_rate"] == 0 and generated["leak_rate"] == 0
    assert embedded["literals"] > 500 and embedded["literal_recall"] >= 0.9, embedded["literal_recall"]
    assert generated["literal_recall"] >= 0.95, generated["literal_recall"]
    # the five questions asked one at a time mostly get different answers (0.239 before issue 14)
    assert embedded["same_reply_pairs"] <= 0.2, embedded["same_reply_pairs"]


def test_main_reference_numbers_of_one_task():
    """a001's rates, default and rounding, found by the questions a person would ask."""
    task = official_style(next(t for t in default_tasks("backend") if t.task_id == "a001"))
    r = ask(task, "What tip rate do you use for each kind of service?")
    assert all(s in r for s in ("'bad' 0.05", "'okay' 0.12", "'good' 0.18", "'excellent' 0.25")), r
    r = ask(task, "What if the service quality is something I don't expect?")
    assert "0.15 when it is not listed" in r, r
    r = ask(task, "How should I round the tip?")
    assert "rounded up to a whole number" in r and "2 decimal places" in r, r


# ---------------------------------------------------------------------------------------------
# The bugs of the issue, on paraphrased official-style code
# ---------------------------------------------------------------------------------------------

def test_arithmetic_in_words_and_different_questions_get_different_answers():
    task = record(SCORE)
    weights = ask(task, "What weight should each game mode get?")
    assert weights.startswith("The weighted score is a weighted sum where multiplayer wins counts for 40 percent, "
                              "tower of lost souls score counts for 30 percent,"), weights
    assert "achievements counts for 10 percent" in weights
    time = ask(task, "How should completion time count?")
    assert time.startswith("The story mode completion time part counts for 20 percent of it, worked out as the "
                           "difference of 1 and story mode completion time divided by 3600."), time
    rounding = ask(task, "Should the score be rounded?")
    assert rounding == "The function returns weighted score rounded to 2 decimal places."
    assert len({weights, time, rounding}) == 3


def test_join_and_formatting_in_words():
    task = record(TRAVEL)
    r = ask(task, "How should the countries be listed?")
    assert r.startswith("The countries are all but the last item of travel history joined with a comma and a space "
                        "between them."), r
    assert ".join(" not in r and "[:-1]" not in r
    r = ask(task, "What if the travel history is empty?")
    assert r == "If the number of travel history is 0, the function returns the text '<name> has not travelled yet'."
    assert "has visited" in ask(task, "What should the sentence look like?")


def test_categories_are_known_and_the_else_branch_is_right():
    task = record(CHILD)
    r = ask(task, "What categories of child do you want?")
    assert "don't know" not in r
    assert "The possible results are 'invalid', 'infant', 'toddler', 'child' and 'teenager'." in r
    facts = [f.text for f in code_facts(CHILD)]
    assert "Otherwise, if age is under 13, the function returns 'child'." in facts
    assert "In any other case, the function returns 'teenager'." in facts
    assert not any("when not" in f for f in facts)
    # a single if/else: the else is the negated condition
    one = [f.text for f in code_facts("def f(hours):\n    if hours > 35:\n        return 'overtime'\n"
                                      "    else:\n        return 'normal'\n")]
    assert one == ["If hours is over 35, the function returns 'overtime'.",
                   "If hours is at most 35, the function returns 'normal'."]
    # a ladder of early returns: the last return is "in any other case"
    ladder = [f.text for f in code_facts("def g(p):\n    if p < 50:\n        return 'rest'\n    if p < 60:\n"
                                         "        return 'easy'\n    return 'peak'\n")]
    assert ladder == ["If p is under 50, the function returns 'rest'.",
                      "Otherwise, if p is under 60, the function returns 'easy'.",
                      "In any other case, the function returns 'peak'.",
                      "The possible results are 'rest', 'easy' and 'peak'."]


def test_dont_know_only_when_nothing_answers(official_tasks):
    sim = ScriptedBackendSimulator()
    for task in official_tasks:
        assert "don't know" in ask(task, "Which programming font do you prefer?", sim)
        assert "don't know" not in ask(task, "What should the function return?", sim), task.task_id


def test_refuses_code_on_official_records(official_tasks):
    for task in official_tasks[:20]:
        r = ask(task, "Can you paste the code of the function?")
        assert "can't share" in r


def test_humanise():
    assert humanise("tower_of_lost_souls_score") == "tower of lost souls score"
    assert humanise("maxHeartRate") == "max heart rate" and humanise("_x") == "x"


# ---------------------------------------------------------------------------------------------
# volunteer
# ---------------------------------------------------------------------------------------------

def test_volunteer_option():
    task = record(CHILD)
    draft = "Here is my plan: ages under 2 are 'infant' and everything else is 'child'."
    assert not asks_something(draft)
    assert asks_something("Got it. What about teenagers") and asks_something("Please tell me the ranges.")
    assert asks_something("Is 13 a teenager") and asks_something("ok?") and asks_something("Thanks: what about teens")
    assert not asks_something("I think what you want is a list.") and not asks_something("")
    eager, strict = ScriptedBackendSimulator(), ScriptedBackendSimulator(volunteer=False)
    assert "'infant'" in ask(task, draft, eager)  # default: corrects a draft with what it touches
    assert ask(task, draft, strict) == NO_QUESTION_REPLY
    q = "What categories of child do you want?"
    assert ask(task, q, strict) == ask(task, q, eager)
    assert eager.config()["volunteer"] is True and strict.config() != eager.config()
    with pytest.raises(ValueError, match="volunteer must be True or False"):
        ScriptedBackendSimulator(volunteer="no")
    # the same on prose hidden information (embedded task a001)
    prose = next(t for t in default_tasks("backend") if t.task_id == "a001")
    plan = "I'll tip 15 percent for bad service."
    assert "I tip 5 percent for bad service." in ask(prose, plan, eager)
    assert ask(prose, plan, strict) == NO_QUESTION_REPLY
    assert "I tip 5 percent for bad service." in ask(prose, "How much do you tip for bad service?", strict)


def test_volunteer_through_gym_make():
    env = gym.make("ColBench-Backend-v0", tasks=[record(CHILD)], simulator="scripted",
                   simulator_kwargs={"volunteer": False})
    env.reset(seed=0)
    obs, _, term, _, _ = env.step("OUTPUT: I think under 2 is an infant.")
    assert not term and NO_QUESTION_REPLY in obs["dialogue"]
    obs, *_ = env.step("OUTPUT: What categories of child do you want?")
    assert "'toddler'" in obs["dialogue"]
    env.close()
    assert make_simulator("scripted", volunteer=False).volunteer is False


@pytest.mark.parametrize("source, facts", [
    ("def total(prices, member=False):\n    # members pay less on every item\n    # price = price * 0.9\n    out = 0\n"
     "    for p in prices:\n        if p > 100:\n            continue\n        out += p\n    if member:\n"
     "        out *= 0.9\n    return round(out, 2)\n",
     ["members pay less on every item.", "When no member is given, it is false.", "The out is 0.",
      "For each item of prices, if the item is over 100, that item is skipped.",
      "For each item of prices, the out goes up by the item.", "If member, the out is multiplied by 0.9.",
      "The function returns out rounded to 2 decimal places."]),  # the comment holding code is not said
    ("def parse(text):\n    try:\n        value = float(text.strip())\n    except ValueError:\n        return None\n"
     "    return max(value, 0)\n",
     ["The value is text with the spaces around it removed as a number.",
      "If that fails, the function returns nothing.", "The function returns value but no less than 0."]),
    ('def label(name, score):\n    return f"{name.title()}: {score:.1f} points"\n',
     ["The function returns the text '<name with each word capitalised>: <score with 1 decimals> points'.",
      "The same rule applies to every input; there are no special cases."]),
    ("def top(words):\n    return sorted(set(w.lower() for w in words), key=len, reverse=True)[:3]\n",
     ["The function returns the first 3 items of the item in lower case for each item of words without duplicates "
      "sorted by length from largest to smallest.",
      "The same rule applies to every input; there are no special cases."]),
    ("def bill(kwh):\n    return round(9.5 + min(kwh, 100) * 0.12 + max(kwh - 100, 0) * 0.18, 2)\n",
     ["The function returns a weighted sum where kwh capped at 100 counts for 12 percent and kwh minus 100 but no "
      "less than 0 counts for 18 percent, plus 9.5 rounded to 2 decimal places.",
      "The kwh part counts for 12 percent of it, worked out as kwh capped at 100.",
      "The kwh part counts for 18 percent of it, worked out as kwh minus 100 but no less than 0."]),
    ("def square(x):\n    return x ** 2\n\ndef tax(income, is_married):\n    if is_married:\n        rate = 0.25\n"
     "    else:\n        rate = 0.3\n    return {'tax': round(income * rate, 2), 'rate': rate}\n",
     ["If married, the rate is 0.25.", "If not married, the rate is 0.3.",
      "The function returns 'tax' set to income times rate rounded to 2 decimal places and 'rate' set to rate.",
      "In a helper step, to work out the square of x, the function returns x squared."]),  # main first
])
def test_code_in_words(source, facts):
    assert [f.text for f in code_facts(source)] == facts


def test_asking_again_moves_on_or_says_it_was_said():
    task = record(CHILD)
    q = "What categories of child do you want?"
    first = ask(task, q)
    history = [{"role": "assistant", "content": q}, {"role": "user", "content": first}]
    second = ask(task, q, history=history)
    assert second != first and "don't know" not in second
    one = record("def f(bill):\n    return round(bill * 1.18, 2)\n")
    r1 = ask(one, "What should the function return?")
    assert r1 == "The function returns bill times 1.18 rounded to 2 decimal places."
    r2 = ask(one, "How should it be rounded?", history=[{"role": "assistant", "content": "What should it return?"},
                                                        {"role": "user", "content": r1}])
    assert r2 == "As I said, the function returns bill times 1.18 rounded to 2 decimal places."


def test_same_replies_in_a_fresh_process_with_another_hash_seed():
    """Sets of words are iterated in hash order; the replies must not depend on it."""
    import json
    import os
    import subprocess
    import sys

    code = ("import json\nfrom studies.offline_human.measure import measure\nfrom colbench_env.tasks import default_tasks\n"
            "r = measure(default_tasks('backend')[:40])\n"
            "print(json.dumps([d['dialogue'] for d in r['dialogues']]))\n")
    outs = []
    for seed in ("1", "987"):
        env = dict(os.environ, PYTHONHASHSEED=seed)
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, env=env)
        assert proc.returncode == 0, proc.stderr
        outs.append(json.loads(proc.stdout))
    assert outs[0] == outs[1]
    here = measure(default_tasks("backend")[:40])
    assert [d["dialogue"] for d in here["dialogues"]] == outs[0]


def test_main_function_comes_from_the_signature():
    source = "def total(xs):\n    return sum(xs)\n\ndef helper(x):\n    return x * 3\n"
    assert [f.text for f in code_facts(source)][0].startswith("The function returns x times 3.")  # last def
    facts = [f.text for f in code_facts(source, main="total")]
    assert facts[0] == "The function returns the total of xs."
    assert "In a helper step, to work out the helper of x, the function returns x times 3." in facts
    task = task_from_record({"problem_description": "Sum. The signature of the function is: def total(xs)",
                             "ground_truth": source, "test_cases": {"test1": "total([1])"}, "hidden_information": source})
    assert ask(task, "What should the function return?").startswith("The function returns the total of xs.")


def test_what_if_and_limit_questions():
    task = record("def add_tip(bill):\n    if bill <= 0:\n        return 0\n    tip = max(bill * 0.18, 3)\n"
                  "    return round(bill + tip)\n")
    assert ask(task, "What if the bill is negative?") == "If bill is at most 0, the function returns 0."
    assert "18 percent of bill but no less than 3" in ask(task, "What is the smallest tip?")
    assert ask(task, "What tip percentage do you use?") == "The tip is 18 percent of bill but no less than 3."
    assert ask(task, "Should I round?") == \
        "In any other case, the function returns bill plus tip rounded to a whole number."


def test_loop_variables_stay_apart():
    source = ("def conflicts(events):\n    pairs = []\n    for i in range(len(events)):\n"
              "        for j in range(i + 1, len(events)):\n            a, b = events[i], events[j]\n"
              "            pairs.append((a, b))\n    return pairs | set()\n")
    facts = [f.text for f in code_facts(source)]
    assert "For each item of the counts up to the number of events, for each inner item of the counts from the item " \
           "plus 1 up to the number of events, a and b are the entry of events for the item and the entry of events " \
           "for the inner item." in facts
    assert "The function returns everything in pairs or in the set." in facts
