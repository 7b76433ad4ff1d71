"""`colbench view` in a real headless Chromium (network off, page from its file:// URL), on committed
episodes: the index, filters, search and sort; per-test tables against `colbench evaluate --explain`;
frontend pages; two runs compared against a hand count; the pipeline report."""
from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from colbench.viewer import write_pipeline_report, write_view
from colbench.viewer.browser import console_errors, goto, network_requests, offline_browser, open_report

pytestmark = [pytest.mark.slow, pytest.mark.browser, pytest.mark.timeout(300)]

REPO = Path(__file__).resolve().parents[1]
WARM = REPO / "studies/ask_family/warm_start/pipeline"
SMALL = REPO / "studies/pipeline_small"
SAMPLED = REPO / "studies/pipeline_rate_fixed/sampled_t0.3"
DATA = REPO / "tests/data"


def lines(path: Path) -> list[str]:
    return [ln for ln in path.read_text().splitlines() if ln.strip()]


def colbench(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "colbench", *args], capture_output=True, text=True, timeout=300,
                          cwd=REPO)


@pytest.fixture(scope="module")
def browser():
    with offline_browser((1400, 900)) as d:
        yield d


def check_clean(driver) -> None:
    """No console error or warning, no network request, since the last check."""
    assert console_errors(driver) == []
    assert network_requests(driver) == []


def wait_for(driver, js: str, want, timeout_s: float = 10.0):
    deadline = time.monotonic() + timeout_s
    while True:
        got = driver.execute_script(js)
        if got == want or time.monotonic() > deadline:
            return got
        time.sleep(0.05)


def erase(box) -> None:
    """Empty a text box the way a user does (select all, delete: an input event, as typing)."""
    from selenium.webdriver.common.keys import Keys

    box.send_keys(Keys.CONTROL, "a")
    box.send_keys(Keys.BACKSPACE)


CLICK_HEADER = ("Array.from(document.querySelectorAll('#index th')).find(th => th.textContent.trim() === arguments[0])"
                ".click();")
VISIBLE_ROWS = ("return Array.from(document.querySelectorAll('#index tbody tr')).filter(r => !r.hidden)"
                ".map(r => +r.dataset.i);")


# -- backend: index, filters, search, sort, two runs ------------------------------------------------
@pytest.fixture(scope="module")
def backend_pair(tmp_path_factory):
    """A = mt-dpo's first 40 greedy episodes, B = ppo's last 40 (seed 0 of the warm-start pipeline):
    32 tasks in both, 8 only in A, 8 only in B."""
    tmp = tmp_path_factory.mktemp("view_backend")
    a, b = tmp / "mt-dpo.jsonl", tmp / "ppo.jsonl"
    a.write_text("\n".join(lines(WARM / "seed-0/eval/mt-dpo.jsonl")[:40]) + "\n")
    b.write_text("\n".join(lines(WARM / "seed-0/eval/ppo.jsonl")[8:]) + "\n")
    out = tmp / "report.html"
    p = colbench("view", str(a), str(b), "--out", str(out), "--no-progress")
    assert p.returncode == 0, p.stderr[-3000:]
    assert p.stdout.startswith(f"wrote {out}: 80 episodes of 2 runs")
    return a, b, out


def test_index_counts_filters_search_and_sort(browser, backend_pair):
    a, b, out = backend_pair
    recs = [json.loads(ln) for ln in lines(a) + lines(b)]
    open_report(browser, out)
    check_clean(browser)
    assert browser.execute_script("return document.querySelectorAll('#index tbody tr').length") == len(recs) == 80
    assert browser.find_element("id", "n-total").text == "80" and browser.find_element("id", "n-shown").text == "80"
    tasks = browser.execute_script("return Array.from(document.querySelectorAll('#index tbody tr td.tid'))"
                                   ".map(td => td.textContent.trim());")
    assert tasks == [r["task_id"] for r in recs]

    # filter: solved episodes only
    from selenium.webdriver.support.ui import Select

    Select(browser.find_element("id", "f-outcome")).select_by_value("solved")
    solved = [i for i, r in enumerate(recs) if r["success"]]
    assert browser.execute_script(VISIBLE_ROWS) == solved and len(solved) == 22
    assert browser.find_element("id", "n-shown").text == "22"
    Select(browser.find_element("id", "f-run")).select_by_value("1")  # and run B
    assert browser.execute_script(VISIBLE_ROWS) == [i for i in solved if i >= 40]
    Select(browser.find_element("id", "f-run")).select_by_value("")
    Select(browser.find_element("id", "f-outcome")).select_by_value("")

    # search by task id: that task's episode in each run
    box = browser.find_element("id", "f-search")
    box.send_keys("gen-rate-d1-45")
    want = [i for i, r in enumerate(recs) if re.search(r"gen-rate-d1-45\b", json.dumps(r))]
    assert wait_for(browser, VISIBLE_ROWS, want) == want and len(want) == 2
    # search by text of the dialogue: every row shown has the words, every episode whose dialogue has them is shown
    erase(box)
    box.send_keys("percent off")
    time.sleep(0.5)  # the search runs 120 ms after the last key
    shown = browser.execute_script("return +document.querySelector('#n-shown').textContent")
    rows = browser.execute_script(VISIBLE_ROWS)
    said = {i for i, r in enumerate(recs)
            if any("percent off" in m["content"].lower() for m in r["dialogue_history"])}
    assert said and said <= set(rows) and shown == len(rows) < 80
    assert all("percent off" in json.dumps(recs[i]).lower() for i in rows)
    erase(box)
    assert wait_for(browser, "return document.querySelector('#n-shown').textContent", "80") == "80"

    # sort by reward, then reversed (ties keep file order)
    browser.execute_script(CLICK_HEADER, "reward")
    order = browser.execute_script("return Array.from(document.querySelectorAll('#index tbody tr')).map(r => +r.dataset.i);")
    assert order == sorted(range(80), key=lambda i: (recs[i]["reward"], i))
    browser.execute_script(CLICK_HEADER, "reward")
    order = browser.execute_script("return Array.from(document.querySelectorAll('#index tbody tr')).map(r => +r.dataset.i);")
    assert order == sorted(range(80), key=lambda i: (-recs[i]["reward"], i))
    check_clean(browser)


def test_two_runs_counts_match_a_hand_count(browser, backend_pair):
    a, b, out = backend_pair
    sa = {json.loads(ln)["task_id"]: json.loads(ln)["success"] for ln in lines(a)}
    sb = {json.loads(ln)["task_id"]: json.loads(ln)["success"] for ln in lines(b)}
    # by hand from the two files: solved by mt-dpo and not ppo: d1-50, 65, 75, 110, 175, 205; the reverse:
    # d1-45, 80; both: 4 tasks; neither: 20; d1-0..35 only in A; d1-200..235 only in B
    hand = {"a_only": 6, "b_only": 2, "both": 4, "neither": 20, "only_a": 8, "only_b": 8}
    common = [k for k in sa if k in sb]
    assert hand == {"a_only": sum(sa[k] and not sb[k] for k in common), "b_only": sum(sb[k] and not sa[k] for k in common),
                    "both": sum(sa[k] and sb[k] for k in common), "neither": sum(not sa[k] and not sb[k] for k in common),
                    "only_a": len(set(sa) - set(sb)), "only_b": len(set(sb) - set(sa))}
    open_report(browser, out, "#/compare/0")
    counts = browser.execute_script("""return Object.fromEntries(Array.from(
        document.querySelectorAll('#view-compare-0 button.cat[data-cat]:not([data-cat=""])'))
        .map(b => [b.dataset.cat, +b.querySelector('b').textContent]));""")
    assert counts == hand
    browser.execute_script("document.querySelector('#view-compare-0 button.cat-a_only').click();")
    shown = browser.execute_script("return Array.from(document.querySelectorAll('#view-compare-0 tbody tr'))"
                                   ".filter(r => !r.hidden).map(r => r.querySelector('td.tid').textContent.trim());")
    assert shown == [f"gen-rate-d1-{n}" for n in (50, 65, 75, 110, 175, 205)]
    browser.find_element("link text", "gen-rate-d1-50").click()  # the side-by-side view of that task
    assert wait_for(browser, "return (window.colbench.shown || '').startsWith('#/pair/0/')", True)
    sides = browser.execute_script("""return ['#pair-a', '#pair-b'].map(s => Array.from(
        document.querySelectorAll(s + ' article.episode')).map(a => [a.querySelector('.tid').textContent,
        a.querySelector('dd.reward').textContent]));""")
    assert sides == [[["gen-rate-d1-50", "1.000"]], [["gen-rate-d1-50", "0.000"]]]
    assert "def " in browser.find_element("id", "pair-task").text or "I want" in browser.find_element("id", "pair-task").text
    check_clean(browser)


# -- per-test tables == colbench evaluate --explain -------------------------------------------------
def _explain_rows(text: str) -> tuple[str, list[tuple[str, str, str]]]:
    """(header line, [(test, status, detail)]) of one record's `colbench evaluate --explain` output."""
    out = text.splitlines()
    head = out[1]
    k = next(i for i, ln in enumerate(out) if ln.startswith("test ") and "status" in ln)
    s, d = out[k].index("status"), out[k].index("detail")
    rows = [(ln[:s].strip(), ln[s:d].strip(), ln[d:]) for ln in out[k + 1:] if ln.strip()]
    return head, rows


def _detail(status: str, expected: str, got: str, message: str) -> str:
    """What `--explain` prints in its detail column, from the view's expected/got/detail cells."""
    if status == "passed":
        return f"got {got}" if got else ""
    if status == "wrong_output":
        return f"expected {expected}, got {got}" + (f" ({message})" if message else "")
    return message


def test_per_test_tables_match_colbench_evaluate_explain(browser, tmp_path):
    picks = [(SMALL / "eval/rft.jsonl", 12),  # 5 of 10 tests passed
             (SAMPLED / "seed-0/eval/zero-shot.sampled.jsonl", 19),  # exceptions and wrong outputs
             (SAMPLED / "seed-1/eval/ppo.sampled.jsonl", 19),  # an unsupported result
             (WARM / "seed-0/eval/grpo.sampled.jsonl", 83),  # the function is missing
             (SAMPLED / "seed-0/eval/rft.sampled.jsonl", 2)]  # no code
    src = tmp_path / "mixed.jsonl"
    src.write_text("".join(lines(p)[n - 1] + "\n" for p, n in picks))
    out = tmp_path / "mixed.html"
    res = write_view([src], out, progress=False)
    assert res.scored == 5 and res.episodes == 5
    open_report(browser, out)
    seen = set()
    for i in range(5):
        goto(browser, f"#/episode/{i}")
        view = browser.execute_script("""
            var body = document.querySelector('#episode-body');
            return {head: body.querySelector('.tests-head').textContent,
                    reward: body.querySelector('dd.reward').textContent,
                    rows: Array.from(body.querySelectorAll('table.tests-table tbody tr')).map(tr =>
                      ['t-name', 't-call', 't-status', 't-expected', 't-got', 't-message']
                        .map(c => tr.querySelector('td.' + c).textContent))};""")
        p = colbench("evaluate", "--explain", f"{src}:{i + 1}", "--no-progress")
        assert p.returncode == 0, p.stderr
        head, rows = _explain_rows(p.stdout)
        m = re.match(r"reward (\S+) \((\d+)/(\d+) tests passed, reference semantics\)", head)
        assert m and view["head"] == f"{m[2]}/{m[3]} tests passed, reference semantics"
        assert view["reward"] == m[1]
        assert [(r[0], r[2], _detail(r[2], r[3], r[4], r[5])) for r in view["rows"]] == rows
        task = json.loads(lines(src)[i])["task"]
        assert [r[1] for r in view["rows"]] == [task["test_cases"][r[0]] for r in view["rows"]]
        seen |= {r[1] for r in rows}
    assert seen == {"passed", "wrong_output", "exception", "unsupported_result", "missing_function", "no_code"}
    check_clean(browser)


# -- frontend: pages and similarities ---------------------------------------------------------------
def test_frontend_pages_load_and_similarity_is_the_reward(browser, tmp_path):
    from colbench_env.evaluation.trajectory_scoring import win_rate

    a, b = DATA / "view_frontend_a.jsonl", DATA / "view_frontend_b.jsonl"
    out = tmp_path / "frontend.html"
    res = write_view([a, b], out, progress=False)
    assert res.episodes == 16 and res.scored == 0
    recs = [json.loads(ln) for ln in lines(a)]
    open_report(browser, out, "#/episode/2")
    wait_for(browser, "return Array.from(document.querySelectorAll('#episode-body img.shot')).every(i => i.complete)", True)
    imgs = browser.execute_script("return Array.from(document.querySelectorAll('#episode-body img.shot'))"
                                  ".map(i => [i.alt, i.naturalWidth, i.naturalHeight]);")
    # A showed a page at turns 2 and 3: each beside the target
    assert [alt for alt, _, _ in imgs] == ["the agent's page at turn 2", "the target page",
                                           "the agent's page at turn 3", "the target page"]
    assert all(w == 640 and h > 300 for _, w, h in imgs), imgs
    sims = browser.execute_script("return Array.from(document.querySelectorAll('#episode-body b.sim')).map(b => b.textContent);")
    assert len(sims) == 2 and sims[-1] == f"{recs[2]['reward']:.3f}"  # the answer's page is what was scored
    counts = browser.execute_script("""return Object.fromEntries(Array.from(
        document.querySelectorAll('#view-compare-0 button.cat[data-cat]:not([data-cat=""])'))
        .map(b => [b.dataset.cat, +b.querySelector('b').textContent]));""")
    wr = win_rate(recs, [json.loads(ln) for ln in lines(b)])  # what `colbench evaluate --compare` counts
    assert counts == {"win": wr["wins"], "loss": wr["losses"], "tie": wr["ties"]} and wr["tasks"] == 8
    check_clean(browser)


# -- the pipeline's report --------------------------------------------------------------------------
def test_pipeline_report_of_a_committed_out_dir(browser, tmp_path):
    out = tmp_path / "report.html"
    res = write_pipeline_report(SMALL, out=out, progress=False)
    assert res.episodes == 16 * 6 and res.runs == 6
    open_report(browser, out)
    assert browser.execute_script("return location.hash || ''") in ("", "#/results")
    rows = json.loads((SMALL / "results.json").read_text())["rows"]
    table = browser.execute_script("return Array.from(document.querySelectorAll('#view-results table.results tbody tr'))"
                                   ".map(tr => tr.cells[0].textContent);")
    assert table == [r["method"] for r in rows]
    assert wait_for(browser, "var i = document.querySelector('#view-results figure.plot img');"
                             "return i.complete && i.naturalWidth;", 0) > 0
    # each trained method against zero-shot: every count from the two eval files
    tabs = browser.execute_script("return Array.from(document.querySelectorAll('select.pick-compare')[0].options)"
                                  ".map(o => o.textContent);")
    assert tabs == ["rft vs zero-shot", "mt-dpo vs zero-shot", "ppo vs zero-shot", "grpo vs zero-shot",
                    "sweet-rl vs zero-shot"]
    zs = {json.loads(ln)["task_id"]: json.loads(ln)["success"] for ln in lines(SMALL / "eval/zero-shot.jsonl")}
    ppo = {json.loads(ln)["task_id"]: json.loads(ln)["success"] for ln in lines(SMALL / "eval/ppo.jsonl")}
    counts = browser.execute_script("""return Object.fromEntries(Array.from(
        document.querySelectorAll('#view-compare-2 button.cat[data-cat]:not([data-cat=""])'))
        .map(b => [b.dataset.cat, +b.querySelector('b').textContent]));""")
    # ppo solves d1-55 and d1-70 besides the 5 tasks zero-shot solves
    assert counts == {"a_only": 2, "b_only": 0, "both": 5, "neither": 9} == {
        "a_only": sum(ppo[k] and not zs[k] for k in zs), "b_only": sum(zs[k] and not ppo[k] for k in zs),
        "both": sum(zs[k] and ppo[k] for k in zs), "neither": sum(not zs[k] and not ppo[k] for k in zs)}
    check_clean(browser)


def test_pipeline_report_pairs_seeds(tmp_path):
    """A multi-seed out-dir: one run per method over its seeds; an episode pairs with zero-shot's of
    the same seed and task only."""
    from colbench.viewer.data import compare_runs, load_runs
    from colbench.viewer.pipeline_report import pipeline_runs

    od = tmp_path / "out"
    for s in (0, 1):
        (od / f"seed-{s}/eval").mkdir(parents=True)
        for m in ("zero-shot", "rft"):
            src = WARM / f"seed-{s}/eval/{m}.jsonl"
            (od / f"seed-{s}/eval/{m}.jsonl").write_text("\n".join(lines(src)[:6]) + "\n")
        (od / f"seed-{s}/eval/grpo.jsonl").write_text("")  # an evaluation that has not started
    shutil.copy(WARM / "stats.json", od / "stats.json")
    shutil.copy(WARM / "stats.png", od / "stats.png")
    paths, labels, merge, groups, comps = pipeline_runs(od)
    assert labels == ["zero-shot", "rft"] and merge == [0, 0, 1, 1] and groups == ["seed-0", "seed-1"] * 2
    assert comps == [(1, 0)]
    runs = load_runs(paths, labels, groups=groups, merge=merge)
    c = compare_runs(runs, 1, 0)
    assert len(c.rows) == 12 and {r["group"] for r in c.rows} == {"seed-0", "seed-1"}
    for row in c.rows:
        (ia,), (ib,) = row["a"], row["b"]
        ea, eb = runs[1].episodes[ia - len(runs[0].episodes)], runs[0].episodes[ib]
        assert ea.group == eb.group == row["group"] and ea.task_id == eb.task_id == row["task_id"]
    res = write_pipeline_report(od, progress=False)
    assert res.path == str(od / "report.html") and res.episodes == 24
    html = (od / "report.html").read_text()
    assert "sampled evaluation (48 tasks x 3 seeds)" in html  # the statistics table from stats.json


def test_text_from_the_episodes_is_shown_never_run(browser, tmp_path):
    """Markup in a dialogue, answer, task or reason is text: escaped in the page, inert in the data block."""
    evil = '</script><script>window.pwned = 1</script><img src=x onerror="window.pwned = 2"><!--'
    task = {"task_id": "evil", "problem_description": f"Write f(x). {evil}", "ground_truth": "def f(x):\n    return x",
            "hidden_information": evil, "test_cases": {"test1": "f(1)"}}
    rec = {"task": task, "dialogue_history": [
        {"role": "assistant", "content": f"Which x? {evil}", "output": f"thinking {evil} OUTPUT: Which x? {evil}"},
        {"role": "user", "content": f"Any x. {evil}"},
        {"role": "assistant", "content": f"I WANT TO ANSWER: ```python\n{evil}\n```"}],
        "answer": f"```python\n{evil}\n```", "reward": 0.0, "success": False, "eval_reason": f"bad {evil}"}
    src = tmp_path / "evil.jsonl"
    src.write_text(json.dumps(rec) + "\n")
    out = tmp_path / "evil.html"
    write_view([src], out, progress=False)
    open_report(browser, out, "#/episode/0")
    assert browser.execute_script("return typeof window.pwned") == "undefined"
    text = browser.find_element("id", "episode-body").text
    assert text.count("window.pwned = 1") >= 4 and "Which x? </script><script>" in text
    assert browser.execute_script("return document.querySelectorAll('#episode-body script, #episode-body img:not(.shot)')"
                                  ".length") == 0
    browser.execute_script("document.querySelector('#f-search').value = 'onerror'; return window.colbench.applyFilters();")
    assert browser.find_element("id", "n-shown").get_attribute("textContent") == "1"
    check_clean(browser)
