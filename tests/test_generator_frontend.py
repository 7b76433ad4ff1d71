"""The procedural frontend task generator (colbench_env.generator.frontend), the scripted frontend
human's answers on its tasks, and the ``generated-frontend:N:difficulty[:family]`` spec.

The browser tests render in the real headless Chromium: every hidden fact changes the render (the
ground truth against the page with that one fact back at its default), and an episode of
ColBench-Frontend-v0 runs end to end on generated tasks.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest

from colbench_env.generator.frontend import (FACTS, FRONTEND_FAMILIES, MINI_FAMILIES, generate_frontend_task,
                                             generate_frontend_tasks, page_fact_names, page_for)
from colbench_env.generator.frontend_templates import (ACCENTS, BACKGROUNDS, BUSINESSES, COUNT_WORDS, mini_page_html,
                                                       page_html)
from colbench_env.simulators.scripted_frontend import (ALL_TOLD, DONT_KNOW_PAGE, ScriptedFrontendSimulator,
                                                       generated_facts)
from colbench_env.tasks import FrontendTask, default_tasks, generated_spec, load_tasks, parse_generated_spec, \
    task_from_record
from html_checks import CDN, PICSUM, foreign_urls, leaked_classes, structure

FACT_NAMES = tuple(f.name for f in FACTS)
TOP = len(FACT_NAMES)
TAG = re.compile(r"</?[a-zA-Z][^>]*>|<!")


def _tasks(families=("all", "simple")):
    """Seeds 0..59 at every difficulty of "all", 0..29 of the other ``families``."""
    out = [generate_frontend_task(s, d) for d in range(1, TOP + 1) for s in range(60)] if "all" in families else []
    return out + [generate_frontend_task(s, d, f) for f in families if f != "all"
                  for d in range(1, len(FRONTEND_FAMILIES[f]) + 1) for s in range(30)]


TASKS = _tasks()  # the full pages
MINI_TASKS = _tasks(tuple(MINI_FAMILIES))


def _gen(task):
    return task.extra["generator"]


# --------------------------------------------------------------------------------------------- generator

def test_deterministic_byte_for_byte_within_and_across_processes():
    here = [json.dumps(generate_frontend_task(s, d).to_record()) for d in (1, 3, 6) for s in range(12)]
    assert here == [json.dumps(generate_frontend_task(s, d).to_record()) for d in (1, 3, 6) for s in range(12)]
    code = ("import json; from colbench_env.generator.frontend import generate_frontend_task as g; "
            "print(json.dumps([json.dumps(g(s, d).to_record()) for d in (1, 3, 6) for s in range(12)]))")
    env = dict(os.environ, PYTHONHASHSEED="4321")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == here


def test_split_by_seed_and_task_ids():
    for t in TASKS:
        assert t.split == ("test" if _gen(t)["seed"] % 5 == 0 else "train")
    assert [t.task_id for t in generate_frontend_tasks(3, 2, split="test", start=1)] == [
        "gen-frontend-d2-5", "gen-frontend-d2-10", "gen-frontend-d2-15"]
    assert [t.task_id for t in generate_frontend_tasks(4, split="train")] == [
        "gen-frontend-d1-1", "gen-frontend-d1-2", "gen-frontend-d1-3", "gen-frontend-d1-4"]
    assert generate_frontend_task(7, 2, "simple").task_id == "gen-frontend-simple-d2-7"
    assert generate_frontend_tasks(0) == []


def test_each_difficulty_adds_one_fact_to_the_same_page():
    for family, names in FRONTEND_FAMILIES.items():
        for seed in range(60):
            levels = [generate_frontend_task(seed, d, family) for d in range(1, len(names) + 1)]
            first = _gen(levels[0])
            for d, task in enumerate(levels, 1):
                gen = _gen(task)
                assert (gen["template"], gen["name"], gen["hero"]) == (first["template"], first["name"], first["hero"])
                assert gen["difficulty"] == d and len(gen["facts"]) == d
                if d > 1:
                    assert gen["facts"][: d - 1] == _gen(levels[d - 2])["facts"]
                assert all(f["name"] in names and f["value"] != f["default"] for f in gen["facts"])
                assert sorted(f["name"] for f in gen["facts"] + gen["stated"]) == sorted(page_fact_names(family))
                assert all(f["value"] == f["default"] for f in gen["stated"])
                assert task.extra["generic_solution"] == levels[0].extra["generic_solution"]
                assert task.ground_truth != task.extra["generic_solution"]
            # at the top level every fact of the family is hidden; the rest stay at their default
            assert {f["name"] for f in _gen(levels[-1])["facts"]} == set(names)


def test_a_fact_is_what_its_name_says_in_the_page():
    """Each hidden fact's value shows in the ground truth where the generic page has the default."""
    for t in TASKS:
        gt, generic = t.ground_truth, t.extra["generic_solution"]
        assert '<nav class="bg-blue-500' in generic and "grid-cols-3" in generic and 'body class="bg-white' in generic
        assert f"<h1 class=\"text-4xl font-bold mb-4\">Welcome to {_gen(t)['name']}</h1>" in generic
        for f in _gen(t)["facts"]:
            v = f["value"]
            if f["name"] == "theme":
                assert 'body class="bg-gray-900 text-gray-100"' in gt
            elif f["name"] == "accent":
                assert f'<nav class="bg-{v}-500' in gt and f'<footer class="bg-{v}-500' in gt
                assert "bg-blue-500" not in gt
            elif f["name"] == "background":
                assert f"bg-{v}-700 text-white px-8 py-16" in gt
            elif f["name"] == "headline":
                assert f">{v}</h1>" in gt
            elif f["name"] == "cards":
                assert f"grid-cols-{v}" in gt and gt.count('rounded-lg p-6') == v
            else:
                assert gt.index('<section class="px-8 py-12">') > gt.index("py-12 text-center")


def test_request_states_the_defaults_and_hides_the_hidden_values():
    for t in TASKS:
        text = t.problem_description
        assert "\n" not in text and 300 <= len(text) <= 700 and "<" not in text and "http" not in text
        assert leaked_classes(text, structure(t.ground_truth).classes) == []
        assert text.startswith("I want a landing page for my ")
        gen = _gen(t)
        for f in gen["stated"]:
            v = f["value"]
            said = {"theme": "A light theme: a white page with dark text.", "accent": f"a {v} navigation bar",
                    "background": "no background colour of its own", "headline": f'the headline "{v}"',
                    "cards": COUNT_WORDS[3], "order": "; then "}[f["name"]]
            assert said in text, (t.task_id, f["name"])
        for f in gen["facts"]:
            v = f["value"]
            hidden = {"theme": "theme", "accent": f" {v} ", "background": f"dark {v}", "headline": str(v),
                      "cards": f" {COUNT_WORDS.get(v, '?')} ", "order": "; then "}[f["name"]]
            assert hidden not in text, (t.task_id, f["name"], hidden)
        assert ("(I know how many I want)" in text) == ("cards" in {f["name"] for f in gen["facts"]})
        assert ("in the order I have in mind" in text) == ("order" in {f["name"] for f in gen["facts"]})


def test_pages_are_short_clean_tailwind_documents():
    pages = {p for t in TASKS for p in (t.ground_truth, t.extra["generic_solution"])}
    for html in pages:
        assert html.startswith('<html lang="en">') and html.endswith("</html>")
        assert 25 <= html.count("\n") + 1 <= 35 and len(html) <= 2600
        doc = structure(html)
        assert doc.errors == []
        assert len(doc.links) == 1 and doc.links[0][0].get("href") == CDN and "head" in doc.links[0][1]
        assert not {"script", "iframe", "object", "embed", "style", "base"} & set(doc.tags)
        assert not any(name.startswith("on") or name == "style" for _, name, _ in doc.attrs)
        assert foreign_urls(html) == []
        images = [(name, v) for tag, name, v in doc.attrs if tag == "img" and name in ("src", "alt")]
        assert all(PICSUM.fullmatch(v) if name == "src" else v.strip() for name, v in images)


@pytest.fixture(scope="module")
def tailwind():
    from html_checks import stylesheet as _stylesheet, tailwind_classes

    path = _stylesheet()
    if path is None:
        pytest.skip("tailwind-2.2.19.min.css not found in $COLBENCH_ASSETS or ./assets (run `make assets`)")
    return tailwind_classes(path.read_text(encoding="utf-8"))


def test_every_class_exists_in_tailwind_2_2_19(tailwind):
    """Over every business, welcome look, accent, background, count, order and theme."""
    used = set()
    for business in BUSINESSES:
        for hero in ("centered", "split"):
            for accent, background, cards, order, theme in (
                    *[(a, None, 3, "cards first", "light") for a in ACCENTS],
                    *[("blue", b, 2, "info first", "dark") for b in BACKGROUNDS],
                    ("red", "green", 4, "cards first", "dark")):
                used |= structure(page_html(business, "Name", hero, {
                    "theme": theme, "accent": accent, "background": background, "headline": "Hello",
                    "cards": cards, "order": order})).classes
    assert {f"bg-{a}-500" for a in ACCENTS} | {f"bg-{b}-700" for b in BACKGROUNDS} <= used
    assert {"grid-cols-2", "grid-cols-3", "grid-cols-4", "italic", "bg-gray-900"} <= used
    assert sorted(used - tailwind) == []
    assert used >= set().union(*(structure(t.ground_truth).classes for t in TASKS))


def test_bad_arguments_and_specs():
    with pytest.raises(ValueError, match=re.escape("difficulty must be an integer from 1 to 6 (how many hidden "
                                                   "facts matter), got 7")):
        generate_frontend_task(0, 7)
    message = "from 1 to 3 (how many hidden facts matter in family 'simple'), got 4"
    with pytest.raises(ValueError, match=re.escape(message)):
        generate_frontend_task(0, 4, "simple")
    for bad in (0, True, "2", 2.0):
        with pytest.raises(ValueError, match="difficulty must be an integer"):
            generate_frontend_tasks(2, difficulty=bad)
    with pytest.raises(ValueError, match=re.escape("family must be one of ['all', 'mini', 'simple'], got 'rate'")):
        generate_frontend_task(0, 1, "rate")
    with pytest.raises(ValueError, match="seed must be a non-negative integer, got -1"):
        generate_frontend_task(-1)
    with pytest.raises(ValueError, match="split must be"):
        generate_frontend_tasks(2, split="dev")
    with pytest.raises(ValueError, match="makes backend tasks; generated frontend tasks are 'generated-frontend:"):
        load_tasks("generated:2", kind="frontend")
    with pytest.raises(ValueError, match="makes frontend tasks"):
        load_tasks("generated-frontend:2")
    with pytest.raises(ValueError, match=re.escape("N and difficulty must be integers ('generated-frontend:N:")):
        load_tasks("generated-frontend:x", kind="frontend")
    with pytest.raises(ValueError, match=re.escape("or 'generated-frontend:N:difficulty:family'")):
        load_tasks("generated-frontends:2", kind="frontend")


def test_spec_loads_the_generator_tasks():
    loaded = load_tasks("generated-frontend:6:2", kind="frontend")
    assert [t.to_record() for t in loaded] == [generate_frontend_task(s, 2).to_record() for s in range(6)]
    assert [t.task_id for t in load_tasks("generated-frontend:2:1:simple", kind="frontend", split="test")] == [
        "gen-frontend-simple-d1-0", "gen-frontend-simple-d1-5"]
    assert len(load_tasks("generated-frontend", kind="frontend")) == 100
    assert generated_spec(8, 3, kind="frontend") == "generated-frontend:8:3:all"
    assert parse_generated_spec("generated-frontend:8:3:simple") == (8, 3, "simple")
    assert generated_spec(8, 3) == "generated:8:3:all"  # the backend spelling is unchanged
    with pytest.raises(ValueError, match="from 1 to 3"):
        generated_spec(2, 5, "simple", kind="frontend")


def test_round_trip_through_records_keeps_what_the_human_needs():
    for t in TASKS[::11]:
        rec = json.loads(json.dumps(t.to_record()))
        back = task_from_record(rec, kind="frontend")
        assert isinstance(back, FrontendTask) and back == t and back.to_record() == rec
        assert back.extra == t.extra and generated_facts(back) == generated_facts(t)


# --------------------------------------------------------------------------------------------- mini pages

def test_mini_pages_are_the_simple_family_on_seven_lines():
    """The "mini" family: a seed's business, name and fact values are the "simple" family's; its
    page is the navigation bar, the welcome section and the footer, in 7 lines; every hidden fact
    shows in it where the generic page has the default; the request states the page's other facts."""
    assert page_fact_names("mini") == ("accent", "background", "headline") and page_fact_names("simple") == FACT_NAMES
    for t in MINI_TASKS:
        gen = _gen(t)
        seed, d = gen["seed"], gen["difficulty"]
        twin = _gen(generate_frontend_task(seed, d, "simple"))
        assert t.task_id == f"gen-frontend-mini-d{d}-{seed}" and t.split == ("test" if seed % 5 == 0 else "train")
        assert (gen["template"], gen["name"], gen["hero"]) == (twin["template"], twin["name"], "centered")
        assert [(f["name"], f["value"]) for f in gen["facts"]] == [(f["name"], f["value"]) for f in twin["facts"]]
        assert sorted(f["name"] for f in gen["facts"] + gen["stated"]) == ["accent", "background", "headline"]
        gt, generic = t.ground_truth, t.extra["generic_solution"]
        values = {"accent": "blue", "background": None, "headline": f"Welcome to {gen['name']}"}
        assert generic == mini_page_html(gen["name"], values)
        assert gt == mini_page_html(gen["name"], {**values, **{f["name"]: f["value"] for f in gen["facts"]}})
        for html in (gt, generic):
            doc = structure(html)
            assert html.count("\n") + 1 == 7 and len(html) <= 520 and doc.errors == []
            assert [a.get("href") for a, _ in doc.links] == [CDN] and foreign_urls(html) == []
            assert set(doc.tags) <= {"html", "head", "link", "body", "nav", "section", "h1", "footer"}
        for f in gen["facts"]:
            v = f["value"]
            want = {"accent": f'<footer class="bg-{v}-500', "background": f'<section class="bg-{v}-700 text-white',
                    "headline": f">{v}</h1>"}[f["name"]]
            assert want in gt and want not in generic
        text = t.problem_description
        assert text.startswith("I want a landing page for my ") and "\n" not in text and "<" not in text
        assert leaked_classes(text, structure(gt).classes) == []
        hidden = {f["name"] for f in gen["facts"]}
        assert ("a blue navigation bar" in text) == ("accent" not in hidden)
        assert ("no background colour of its own" in text) == ("background" not in hidden)
        assert (f'the headline "Welcome to {gen["name"]}"' in text) == ("headline" not in hidden)
        for f in gen["facts"]:
            v = f["value"]
            assert {"accent": f" {v} ", "background": f"dark {v}", "headline": str(v)}[f["name"]] not in text
        assert "button" not in " ".join(f["sentence"] + f["question"] for f in gen["facts"] + gen["stated"])


def test_the_compact_prompts_worked_pages_are_mini_pages():
    """The compact frontend prompt writes its example pages out; they are the generator's mini pages,
    and each example's request has the shape of a generated mini request."""
    from colbench_env.prompting import COMPACT_FRONTEND_EXAMPLE

    answers = [m["content"] for m in COMPACT_FRONTEND_EXAMPLE if m["role"] == "assistant" and "<html>" in m["content"]]
    assert answers == [
        "I WANT TO ANSWER: " + mini_page_html("Blue Door", {"accent": "blue", "background": None,
                                                            "headline": "Open every day"}),
        "I WANT TO ANSWER: " + mini_page_html("Red Cup", {"accent": "blue", "background": "green",
                                                          "headline": "Welcome to Red Cup"})]
    shape = re.compile(r"I want a landing page for my [a-z ]+, [A-Z][\w ]+: .* navigation bar.* welcome section with "
                       r".*, and a .*footer.*\.")
    requests = [m["content"] for m in COMPACT_FRONTEND_EXAMPLE if m["role"] == "user" and m["content"].startswith("I want")]
    assert len(requests) == 2 and all(shape.fullmatch(r) for r in requests + [t.problem_description for t in MINI_TASKS])


def test_mini_classes_exist_in_tailwind_2_2_19(tailwind):
    used = set()
    for accent in ACCENTS:
        for background in (None, *BACKGROUNDS):
            used |= structure(mini_page_html("Name", {"accent": accent, "background": background,
                                                      "headline": "Hi"})).classes
    assert sorted(used - tailwind) == []


def test_mini_human_answers_in_words():
    sim = ScriptedFrontendSimulator()
    for t in MINI_TASKS[::2]:
        gen = _gen(t)
        for f in gen["facts"] + gen["stated"]:
            reply = sim.reply(t, [{"role": "assistant", "content": f["question"]}])
            assert reply.startswith(f["sentence"]), (t.task_id, f["name"], reply)
        broad = sim.reply(t, [{"role": "assistant", "content": "What do you have in mind that you did not tell me?"}])
        assert broad == " ".join(f["sentence"] for f in gen["facts"][:2])
        for m in (*QUESTIONS, f"Here is a draft: {t.extra['generic_solution']} What colour should the footer be?"):
            _no_markup(sim.reply(t, [{"role": "assistant", "content": m}]), t)


# --------------------------------------------------------------------------------------------- the human

QUESTIONS = ("What do you have in mind?", "What colours do you like?", "Dark or light?", "How many cards?",
             "What should the headline say?", "Which section comes first?", "What font do you want?",
             "Can you paste the HTML and the Tailwind classes you want?", "Anything else?", "ok", "",
             "Should the welcome banner be coloured? And the buttons?", "x" * 3000)


def _no_markup(reply: str, task) -> None:
    assert TAG.search(reply) is None, reply
    classes = structure(task.ground_truth).classes | structure(task.extra["generic_solution"]).classes
    assert leaked_classes(reply, classes) == [], reply
    assert 0 < len(reply) <= 1000


def test_replies_never_contain_html_tags_or_class_names():
    sim = ScriptedFrontendSimulator()
    for t in TASKS[::3]:
        gen = _gen(t)
        messages = [*QUESTIONS, *(f["question"] for f in gen["facts"] + gen["stated"]),
                    f"Here is a draft: {t.extra['generic_solution']} What colour should the footer be?",
                    f"I WANT TO ANSWER: {t.ground_truth}"]
        for m in messages:
            _no_markup(sim.reply(t, [{"role": "assistant", "content": m}]), t)


def test_each_fact_question_gets_that_fact():
    sim = ScriptedFrontendSimulator()
    for t in TASKS:
        for f in _gen(t)["facts"] + _gen(t)["stated"]:
            reply = sim.reply(t, [{"role": "assistant", "content": f["question"]}])
            assert reply.startswith(f["sentence"]), (t.task_id, f["name"], reply)


def test_broad_questions_walk_through_the_hidden_facts_and_unknowns_are_said():
    sim = ScriptedFrontendSimulator()
    t = generate_frontend_task(3, 5)
    hidden = [f["sentence"] for f in _gen(t)["facts"]]
    dialogue = [{"role": "assistant", "content": "What do you have in mind for the page?"}]
    first = sim.reply(t, dialogue)
    assert first == " ".join(hidden[:2])
    dialogue += [{"role": "user", "content": first}, {"role": "assistant", "content": "Anything else?"}]
    second = sim.reply(t, dialogue)
    assert second == " ".join(hidden[2:4])
    dialogue += [{"role": "user", "content": second}, {"role": "assistant", "content": "Any other details?"},
                 {"role": "user", "content": hidden[4]}, {"role": "assistant", "content": "Anything else?"}]
    assert sim.reply(t, dialogue) == ALL_TOLD
    assert sim.reply(t, [{"role": "assistant", "content": "What font do you want?"}]) == DONT_KNOW_PAGE
    # a page without a question gets no facts, only the differences (here from the HTML: no renders)
    draft = sim.reply(t, [{"role": "assistant", "content": f"Here is a first draft. {t.extra['generic_solution']}"}])
    assert draft and draft != DONT_KNOW_PAGE
    assert not any(f["sentence"] in draft for f in _gen(t)["facts"] + _gen(t)["stated"])


def test_official_tasks_keep_the_old_path():
    """The 32 embedded official-format tasks have no generator facts: the scripted human answers them
    as before (tests/test_env_frontend.py checks those replies), and its record/replay key is unchanged."""
    tasks = default_tasks("frontend")
    assert len(tasks) == 32 and all(generated_facts(t) is None for t in tasks)
    assert ScriptedFrontendSimulator().config() == {"class": "ScriptedFrontendSimulator", "max_points": 3, "version": 1}
    with pytest.raises(ValueError, match="max_facts"):
        ScriptedFrontendSimulator(max_facts=0)


# --------------------------------------------------------------------------------------------- browser

def _seeds_covering(predicate_keys, difficulty):
    """The first seed for each distinct value of ``predicate_keys(page_for(seed, difficulty))``."""
    found = {}
    seed = 0
    while seed < 500:
        key = predicate_keys(*page_for(seed, difficulty))
        found.setdefault(key, seed)
        seed += 1
    return sorted(found.values())


@pytest.fixture(scope="module")
def renderer():
    from colbench_env.evaluation.render import Renderer

    with Renderer(pool_size=2) as r:
        yield r


#: the most a page with one fact reverted may score against the ground truth (identical renders score 1)
MAX_REVERTED_SIMILARITY = 0.99


@pytest.mark.slow
@pytest.mark.browser
def test_every_hidden_fact_changes_the_render(renderer):
    """Render the ground truth and, for each hidden fact, the page with that one fact back at its
    default: the visual similarity to the ground truth drops below MAX_REVERTED_SIMILARITY, while a
    second render of the ground truth scores 1. At the top difficulty (the other five facts personal:
    one seed per welcome look and kind of cards) and at difficulty 1 (the reverted page is the
    generic solution: one seed per fact)."""
    from colbench_env.evaluation.similarity import VisualSimilarity

    sim = VisualSimilarity()
    cases = []  # (label, ground truth, reverted page)
    for seed in _seeds_covering(lambda page, *_: (page.hero, page.business.items_kind), TOP):
        page, values, defaults, active = page_for(seed, TOP)
        for name in active:
            cases.append((f"seed {seed} d{TOP} {name}", page_html(page.business, page.name, page.hero, values),
                          page_html(page.business, page.name, page.hero, {**values, name: defaults[name]})))
    for seed in _seeds_covering(lambda page, values, defaults, active: active[0], 1):
        t = generate_frontend_task(seed, 1)
        cases.append((f"seed {seed} d1 {_gen(t)['facts'][0]['name']}", t.ground_truth, t.extra["generic_solution"]))
    assert {label.split()[-1] for label, _, _ in cases} == set(FACT_NAMES)
    truths = sorted({c[1] for c in cases})
    images = dict(zip(truths, renderer.render_many(truths)))
    again = renderer.render_many(truths)
    assert all(sim(images[h], a) >= 0.9999 for h, a in zip(truths, again))
    reverted = renderer.render_many([c[2] for c in cases])
    scores = {label: sim(images[gt], img) for (label, gt, _), img in zip(cases, reverted)}
    assert all(s <= MAX_REVERTED_SIMILARITY for s in scores.values()), scores


@pytest.mark.slow
@pytest.mark.browser
def test_every_hidden_fact_changes_a_mini_render(renderer):
    """Mini pages at difficulty 1, one seed per fact: the generic page (the fact at its default)
    scores at most MAX_REVERTED_SIMILARITY against the ground truth."""
    from colbench_env.evaluation.similarity import VisualSimilarity

    sim = VisualSimilarity()
    tasks = {_gen(t)["facts"][0]["name"]: t for t in (generate_frontend_task(s, 1, "mini") for s in range(40))}
    assert set(tasks) == {"accent", "background", "headline"}
    pages = [p for t in tasks.values() for p in (t.ground_truth, t.extra["generic_solution"])]
    images = renderer.render_many(pages)
    scores = {name: sim(images[2 * i], images[2 * i + 1]) for i, name in enumerate(tasks)}
    assert all(s <= MAX_REVERTED_SIMILARITY for s in scores.values()), scores


@pytest.mark.slow
@pytest.mark.browser
def test_gym_episode_end_to_end_with_the_scripted_agent(renderer):
    """``gym.make("ColBench-Frontend-v0", tasks="generated-frontend:4:2")``: a scripted agent asks
    the questions of the task's two hidden facts, shows the generic page, then answers; the human
    answers each question with its fact and names differences in words; the reward is the
    similarity of the two renders, computed here again."""
    import gymnasium as gym

    import colbench_env  # noqa: F401  (registers the envs)
    from colbench.agents import ScriptedAgent
    from colbench_env.evaluation.similarity import VisualSimilarity

    env = gym.make("ColBench-Frontend-v0", tasks="generated-frontend:4:2", renderer=renderer)
    tasks = env.unwrapped.pz.tasks
    assert [t.task_id for t in tasks] == [f"gen-frontend-d2-{s}" for s in range(4)]
    for index, answer in ((1, "generic_solution"), (2, "ground_truth")):
        task = tasks[index]
        facts = _gen(task)["facts"]
        generic = task.extra["generic_solution"]
        page = task.ground_truth if answer == "ground_truth" else generic
        agent = ScriptedAgent([f"OUTPUT: {facts[0]['question']}", f"OUTPUT: {facts[1]['question']}",
                               f"OUTPUT: Here is my draft. {generic} What do you think?",
                               f"OUTPUT: I WANT TO ANSWER: {page}"])
        obs, info = env.reset(options={"task_index": index})
        done = False
        while not done:
            obs, reward, terminated, truncated, info = env.step(agent.act(obs))
            done = terminated or truncated
        assert terminated and not truncated and info["task_id"] == task.task_id
        replies = [m["content"] for m in json.loads(obs["dialogue"]) if m["role"] == "user"]
        assert len(replies) == 3
        assert replies[0].startswith(facts[0]["sentence"]) and replies[1].startswith(facts[1]["sentence"])
        assert replies[2] and not any(f["sentence"] in replies[2] for f in facts)
        for r in replies:
            _no_markup(r, task)
        expected = VisualSimilarity()(*renderer.render_many([task.ground_truth, page]))
        assert reward == pytest.approx(expected, abs=1e-9)
        assert (reward > 0.9999) if answer == "ground_truth" else (reward < MAX_REVERTED_SIMILARITY)
    env.close()
