"""ColBench-Frontend-v0 and the PettingZoo frontend env in the real browser, with the scripted
frontend simulator."""
import json
import warnings

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, parallel_api_test

import colbench_env
from colbench_env.evaluation.render import Renderer
from colbench_env.simulators.scripted_frontend import ScriptedFrontendSimulator, colour_name, page_structure

pytestmark = pytest.mark.browser

CDN = '<link href="https://cdn.jsdelivr.net/npm/tailwindcss@2.2.19/dist/tailwind.min.css" rel="stylesheet">'
TARGET = f"""<html><head>{CDN}</head><body class="bg-gray-100">
<header class="bg-green-500 text-white p-8"><h1 class="text-4xl font-bold">Green Leaf Bakery</h1></header>
<section class="p-8 grid grid-cols-3 gap-4">
  <div class="bg-white p-4 rounded shadow"><h2 class="text-xl">Fresh Bread</h2><p>Baked daily.</p></div>
  <div class="bg-white p-4 rounded shadow"><h2 class="text-xl">Cakes</h2><p>For every party.</p></div>
  <div class="bg-white p-4 rounded shadow"><h2 class="text-xl">Coffee</h2><p>Locally roasted.</p></div>
</section>
<section class="p-8"><h2 class="text-2xl">Visit Us</h2><img src="https://picsum.photos/id/48/400/200"></section>
</body></html>"""
DRAFT = f"""<html><head>{CDN}</head><body class="bg-white">
<header class="bg-blue-500 text-white p-4"><h1 class="text-2xl">Bakery</h1></header>
<section class="p-8"><h2>Fresh Bread</h2></section></body></html>"""
TASKS = [{"task_id": "bakery", "problem_description": "A page for my bakery, fresh and friendly.", "ground_truth": TARGET},
         {"task_id": "draft", "problem_description": "A simple page for my shop.", "ground_truth": DRAFT}]


@pytest.fixture(scope="module")
def renderer():
    with Renderer(pool_size=1) as r:
        yield r


def test_frontend_checkers(renderer):
    env = gym.make("ColBench-Frontend-v0", tasks=TASKS, renderer=renderer, max_turns=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(env.unwrapped)
    api_test(colbench_env.aec_env("frontend", tasks=TASKS, renderer=renderer, max_turns=3), num_cycles=6)
    parallel_api_test(colbench_env.parallel_env("frontend", tasks=TASKS, renderer=renderer, max_turns=3), num_cycles=6)


def test_human_observes_both_renders(renderer):
    aec = colbench_env.aec_env("frontend", tasks=TASKS, renderer=renderer)
    aec.reset(options={"task_id": "bakery"})
    obs = aec.observe("human")
    assert not obs["agent_render"].any() and obs["target_render"].any()
    assert "ground_truth" not in json.dumps({k: v for k, v in aec.observe("agent").items()})
    assert set(aec.observe("agent")) == {"problem_description", "dialogue"}
    aec.step(f"Here is a draft. OUTPUT: How is this? {DRAFT}")
    obs = aec.observe("human")
    assert obs["agent_render"].any() and obs["agent_render"].shape == obs["target_render"].shape
    assert obs["agent_render"].dtype == np.uint8


def test_scripted_frontend_episode(renderer):
    env = gym.make("ColBench-Frontend-v0", tasks=TASKS, renderer=renderer)
    env.reset(options={"task_id": "bakery"})
    obs, r, term, *_ = env.step("OUTPUT: What kind of page do you want?")
    first = json.loads(obs["dialogue"])[-1]["content"]
    assert "haven't shown me a page" in first and "Green Leaf Bakery" in first
    obs, r, term, *_ = env.step(f"OUTPUT: How about this? {DRAFT}")
    feedback = json.loads(obs["dialogue"])[-1]["content"]
    assert "should be green, not blue" in feedback, feedback
    assert "<" not in feedback and "bg-" not in feedback and len(feedback) <= 1000
    obs, r_draft, term, trunc, info = env.step(f"OUTPUT: I WANT TO ANSWER: {DRAFT}")
    assert term and 0 < r_draft < 0.95
    env.reset(options={"task_id": "bakery"})
    obs, r_exact, term, trunc, info = env.step(f"OUTPUT: I WANT TO ANSWER: {TARGET}")
    assert term and r_exact > 0.99 and r_exact > r_draft
    env.reset(options={"task_id": "bakery"})
    obs, r_none, term, trunc, info = env.step("OUTPUT: I WANT TO ANSWER: sorry, no page")
    assert term and r_none == 0.0 and "no <html>" in info["eval_reason"]


def test_the_scripted_agent_is_a_frontend_lower_bound(renderer):
    """On the frontend env the scripted agent asks about style and sections, then answers with a
    plain page whatever it was told: its reward is that page's similarity to the target, scored here
    independently (render both, compare), above 0 and below a page that follows the target."""
    from colbench.agents import ScriptedAgent
    from colbench_env.evaluation.similarity import similarity
    from colbench_env.protocol import extract_html

    agent = ScriptedAgent(kind="frontend")
    env = gym.make("ColBench-Frontend-v0", tasks=TASKS, renderer=renderer)
    obs, _ = env.reset(options={"task_id": "bakery"})
    done = False
    while not done:
        obs, reward, terminated, truncated, info = env.step(agent(obs))
        done = terminated or truncated
    record = env.unwrapped.trajectory_record()
    asked = [m["content"] for m in record["dialogue_history"] if m["role"] == "assistant"][:2]
    assert "colours" in asked[0] and "sections" in asked[1] and "function" not in " ".join(asked)
    page = extract_html(record["answer"])
    assert page == ScriptedAgent.plain_page(TASKS[0]["problem_description"])
    assert "A page for my bakery, fresh and friendly." in page
    expected = similarity(renderer.render(page), renderer.render(TARGET))
    assert reward == pytest.approx(expected, abs=1e-6) and 0.05 < reward < 0.9
    env.close()


def test_structure_and_colour_names():
    s = page_structure(TARGET)
    assert s.headings[0] == ("h1", "Green Leaf Bakery") and s.counts["section"] == 2 and s.max_grid_cols == 3
    assert colour_name((16, 185, 129)) == "green" and colour_name((254, 254, 254)) == "white"
    assert colour_name((243, 244, 246)) == "very light gray" and colour_name((30, 58, 138)) == "very dark blue"
    sim = ScriptedFrontendSimulator()
    task = colbench_env.load_tasks(TASKS, kind="frontend")[0]
    same = sim.reply(task, [{"role": "assistant", "content": TARGET}], {"agent": None, "target": None})
    assert "haven't shown me a page" in same
