"""Scores across runs: pass@k / pass^k (checked by hand and against the subsets they estimate), the
spread across trials, infrastructure errors left out, the noise floor of a comparison, and the
human's identity on records and reports (the served model id as the real stand-in server reports it)."""
import itertools
import json
import math

import gymnasium as gym
import pytest

import colbench_env  # noqa: F401
from colbench.agents import ScriptedAgent
from colbench.comparison import format_paired_comparison, paired_comparison
from colbench_env.metrics import (format_report, infrastructure_error, pass_at_k, pass_hat_k, summarize,
                                  trial_metrics)
from colbench_env.rollout import episode_specs, run_episodes
from colbench_env.simulators import make_simulator
from colbench_env.simulators.identity import describe_humans, humans_warning, run_humans, same_human

from cli_helpers import colbench, last_json
from openai_test_server import OpenAITestServer


# ---------------------------------------------------------------------------------------------------- estimators
@pytest.mark.parametrize("n, c, k, at, hat", [
    (5, 2, 1, 2 / 5, 2 / 5),          # k = 1: both are c / n
    (5, 2, 2, 1 - 3 / 10, 1 / 10),    # C(3,2)=3, C(5,2)=10, C(2,2)=1
    (5, 2, 3, 1 - 1 / 10, 0.0),       # k > c: pass^k = 0; C(3,3)=1, C(5,3)=10
    (5, 2, 4, 1.0, 0.0),              # n - c < k: every 4 of 5 trials hold a success
    (5, 2, 5, 1.0, 0.0),              # k = n
    (5, 5, 5, 1.0, 1.0),              # c = n, k = n
    (4, 4, 2, 1.0, 1.0),              # c = n
    (4, 0, 1, 0.0, 0.0),              # c = 0
    (4, 0, 4, 0.0, 0.0),              # c = 0, k = n
    (3, 1, 2, 1 - 1 / 3, 0.0),        # C(2,2)=1, C(3,2)=3
])
def test_estimators_on_small_cases_by_hand(n, c, k, at, hat):
    assert pass_at_k(n, c, k) == pytest.approx(at)
    assert pass_hat_k(n, c, k) == pytest.approx(hat)


def test_estimators_are_the_means_over_every_k_subset_of_the_trials():
    """The unbiased estimators are, by definition, the share of the C(n, k) subsets of k trials that
    hold a success (pass@k) / hold only successes (pass^k): enumerate them."""
    for n in range(1, 7):
        for c in range(n + 1):
            trials = [True] * c + [False] * (n - c)
            for k in range(1, n + 1):
                subsets = list(itertools.combinations(trials, k))
                assert pass_at_k(n, c, k) == pytest.approx(sum(any(s) for s in subsets) / len(subsets))
                assert pass_hat_k(n, c, k) == pytest.approx(sum(all(s) for s in subsets) / len(subsets))


@pytest.mark.parametrize("n, c, k", [(3, 1, 0), (3, 1, 4), (3, 4, 1), (3, -1, 1)])
def test_estimators_refuse_counts_that_do_not_fit(n, c, k):
    with pytest.raises(ValueError):
        pass_at_k(n, c, k)
    with pytest.raises(ValueError):
        pass_hat_k(n, c, k)


# ---------------------------------------------------------------------------------------------------- trials
def _rec(task, eid, success, reward=None, **extra):
    return {"task": {"task_id": task, "problem_description": "p", "ground_truth": "g", "test_cases": {"t1": "f()"},
                     "hidden_information": "h"},
            "dialogue_history": [{"role": "assistant", "content": "x"}], "answer": "",
            "reward": (1.0 if success else 0.25) if reward is None else reward, "success": success,
            "task_id": task, "episode_id": str(eid), **extra}


def _three_tasks():
    """Task A: success, failure, success; B: failure, failure and one infrastructure error; C: three
    successes. Shuffled: trials are ordered by episode id, not by line."""
    recs = [_rec("A", 0, True), _rec("A", 1, False), _rec("A", 2, True),
            _rec("B", 3, False), _rec("B", 4, False, reward=0.0, error="simulator failed: HTTP 500"), _rec("B", 5, False),
            _rec("C", 6, True), _rec("C", 7, True), _rec("C", 8, True)]
    order = [8, 3, 0, 5, 1, 7, 4, 2, 6]
    return [recs[i] for i in order]


def test_trial_metrics_by_hand():
    t = trial_metrics(_three_tasks())
    assert (t["trials"], t["tasks"], t["episodes"], t["errors"]) == (3, 3, 8, 1)
    # per task (n, c): A (3, 2), B (2, 0), C (3, 3); k = 3 only over A and C
    assert t["tasks_at_k"] == {"1": 3, "2": 3, "3": 2}
    assert t["pass_at_k"]["1"] == pytest.approx(100 * (2 / 3 + 0 + 1) / 3)
    assert t["pass_at_k"]["2"] == pytest.approx(100 * (1 + 0 + 1) / 3)        # A: 1 - C(1,2)/C(3,2) = 1
    assert t["pass_at_k"]["3"] == pytest.approx(100.0)
    assert t["pass_hat_k"]["2"] == pytest.approx(100 * (1 / 3 + 0 + 1) / 3)  # A: C(2,2)/C(3,2) = 1/3
    assert t["pass_hat_k"]["3"] == pytest.approx(100 * (0 + 1) / 2)
    assert t["flip_share"] == pytest.approx(1 / 3)  # only A's verdict differs between its trials
    # trial j = the j-th scored episode of each task by episode id: successes (A, B, C)
    # 1: (S, F, S) 2: (F, F, S) 3: (S, -, S); B's errored episode 4 is left out, so B's 2nd trial is episode 5
    assert [p["success_rate_pct"] for p in t["per_trial"]] == pytest.approx([200 / 3, 100 / 3, 100.0])
    assert [p["episodes"] for p in t["per_trial"]] == [3, 3, 2]
    s = t["spread"]["success_rate_pct"]
    assert s["mean"] == pytest.approx(100 * 5 / 8)  # over every scored episode
    assert s["sd"] == pytest.approx(100 / 3)  # sample sd of (66.7, 33.3, 100)
    assert (s["min"], s["max"]) == pytest.approx((100 / 3, 100.0))
    tp = t["spread"]["tests_passed_pct"]
    assert tp["mean"] == pytest.approx(100 * (5 * 1.0 + 3 * 0.25) / 8)


def test_summarize_leaves_infrastructure_errors_out_and_counts_them():
    recs = _three_tasks()
    m = summarize(recs)
    assert (m["count"], m["errors"]) == (9, 1)
    assert m["success_rate"] == pytest.approx(5 / 8)
    assert m["tests_passed_pct"] == pytest.approx(100 * (5 + 3 * 0.25) / 8)
    assert m["trials"]["trials"] == 3 and m["human"] == [None]
    text = format_report(m)
    assert "human: unknown" in text and "1 infrastructure error left out" in text
    assert "pass^k     55.6   44.4   50.0" in text  # (100 * 5/9, 100 * 4/9, 50)
    assert "k=3: over the 2 tasks with >= 3 trials" in text


def test_what_counts_as_an_infrastructure_error():
    assert infrastructure_error({"error": "agent failed: timeout"}) == "agent failed: timeout"
    assert infrastructure_error({"eval_reason": "target page failed to render: boom"})
    # the answer's own page failing to render is the answer's: scored 0, not left out
    assert infrastructure_error({"eval_reason": "answer page failed to render: boom"}) is None
    assert infrastructure_error({"eval_reason": "1/3 tests failed"}) is None


def test_one_trial_per_task_has_no_trials_block():
    m = summarize([_rec("A", 0, True), _rec("B", 1, False)])
    assert "trials" not in m and "pass^k" not in format_report(m)


# ---------------------------------------------------------------------------------------------------- noise floor
def _run(pattern, human=None):
    """Tasks T0.. with the given per-trial successes."""
    recs = []
    for t, trials in enumerate(pattern):
        for j, s in enumerate(trials):
            recs.append(_rec(f"T{t}", t * 10 + j, bool(s), **({"human": human} if human else {})))
    return recs


SCRIPTED = {"kind": "scripted", "class": "ScriptedBackendSimulator", "version": 3, "volunteer": True, "max_facts": 2}


def test_paired_difference_flip_noise_and_its_call_out():
    a = _run([(1, 1), (1, 0), (0, 0), (1, 1)], SCRIPTED)
    b = _run([(1, 0), (1, 1), (0, 0), (1, 1)], SCRIPTED)
    c = paired_comparison(a, b, labels=("a", "b"), resamples=2000)
    sr = c["metrics"]["success_rate_pct"]
    # per task means a: 100, 50, 0, 100; b: 50, 100, 0, 100 -> differences +50, -50, 0, 0
    assert (sr["a"], sr["b"], sr["diff_mean"]) == pytest.approx((62.5, 62.5, 0.0))
    assert sr["diff_low"] < 0 < sr["diff_high"] and not sr["significant"]
    assert c["flip_share"] == [pytest.approx(0.25), pytest.approx(0.25)]
    assert c["noise_note"].startswith("note: the success-rate difference (+0.0 points) is smaller than the runs' own "
                                      "flip noise (25.0% of a's and 25.0% of b's tasks")
    assert c["humans_warning"] is None
    text = format_paired_comparison(c)
    assert "flip noise: 25.0% of a's tasks (2 trials each)" in text and text.count("\n") == 4


def test_a_difference_beyond_the_flip_noise_is_not_called_out():
    a = _run([(1, 1)] * 6 + [(1, 0)])
    b = _run([(0, 0)] * 7)
    c = paired_comparison(a, b, resamples=2000)
    assert c["metrics"]["success_rate_pct"]["diff_mean"] == pytest.approx(100 * 6.5 / 7)
    assert c["noise_note"] is None and c["metrics"]["success_rate_pct"]["significant"]


def test_one_trial_per_task_gives_no_flip_share():
    c = paired_comparison(_run([(1,), (0,)]), _run([(0,), (0,)]), resamples=500)
    assert c["flip_share"] == [None, None] and c["noise_note"] is None
    assert "flip noise: unknown (A has 1 trial(s) per task" in format_paired_comparison(c)


def test_evaluate_compare_prints_the_noise_floor_and_the_humans_warning(tmp_path):
    a = _run([(1, 1), (1, 0), (0, 0)], SCRIPTED)
    served = {"kind": "served", "class": "LLMSimulator", "model": "org/model-70b", "model_requested": "m",
              "prompt_sha256": "ab" * 32, "temperature": 0.0, "max_tokens": 128, "version": "colbench-human-v2"}
    b = _run([(1, 0), (0, 0), (0, 0)], served)
    for name, recs in (("a", a), ("b", b)):
        (tmp_path / f"{name}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recs))
    p = colbench("evaluate", "--compare", tmp_path / "a.jsonl", tmp_path / "b.jsonl", "--no-progress", "--json")
    out = p.stdout
    assert "success rate %" in out and "difference +33.3" in out
    assert "flip noise: 33.3% of" in out
    warn = [ln for ln in out.splitlines() if ln.startswith("warning: the runs compared had different humans")]
    assert len(warn) == 1 and "served org/model-70b (prompt abababababab, temperature 0, max tokens 128)" in warn[0]
    j = last_json(p)
    assert j["paired"]["metrics"]["success_rate_pct"]["diff_mean"] == pytest.approx(100 / 3)


# ---------------------------------------------------------------------------------------------------- the human
def test_scripted_records_name_the_human_and_runs_compare_it(tmp_path):
    agent = ScriptedAgent(["OUTPUT: What rate?", "OUTPUT: I WANT TO ANSWER: def f():\n    return 1"])
    recs = run_episodes(lambda: gym.make("ColBench-Backend-v0", max_turns=3), agent, episode_specs(3, seed=0),
                        episodes_in_flight=2)
    assert all(r["human"]["kind"] == "scripted" and r["human"]["version"] == 3 for r in recs)
    assert describe_humans(run_humans(recs)) == "scripted (version 3)"
    quiet = make_simulator("scripted", volunteer=False).identity()
    assert same_human(recs[0]["human"], quiet) is False  # volunteer off is another human
    assert "volunteer off" in describe_humans([quiet])
    assert humans_warning({"a": run_humans(recs), "b": [quiet]}).startswith("warning: the runs compared had different")
    assert humans_warning({"a": run_humans(recs), "b": run_humans(recs)}) is None
    assert humans_warning({"a": run_humans(recs), "old": [None]}).startswith("note: the human of old is unknown")


def test_served_human_is_named_by_the_model_id_the_server_reports(tmp_path):
    """The record names the model the server says it served (the reply's ``model``), not the alias
    requested; a replay of its recorded replies is the same human."""
    agent = ScriptedAgent(["OUTPUT: What rate?", "OUTPUT: I WANT TO ANSWER: def f():\n    return 1"])
    cache = tmp_path / "human.jsonl"
    with OpenAITestServer(served_model="org/Served-Model-7B-Instruct") as server:
        kw = {"inner": "openai", "inner_kwargs": {"base_url": server.url, "model": "alias"}, "path": str(cache)}
        live = run_episodes(lambda: gym.make("ColBench-Backend-v0", simulator="record", simulator_kwargs=kw,
                                             max_turns=3), agent, episode_specs(2, seed=0), episodes_in_flight=2)
        assert {b["model"] for b in server.state.requests} == {"alias"}
    h = live[0]["human"]
    assert (h["kind"], h["model"], h["model_requested"]) == ("served", "org/Served-Model-7B-Instruct", "alias")
    assert (h["temperature"], h["max_tokens"]) == (0.0, 128)
    from colbench_env.simulators.prompts import BACKEND_HUMAN_PROMPT, BACKEND_HUMAN_SYSTEM
    import hashlib

    assert h["prompt_sha256"] == hashlib.sha256(f"{BACKEND_HUMAN_SYSTEM}\0{BACKEND_HUMAN_PROMPT}".encode()).hexdigest()
    stored = [json.loads(ln) for ln in cache.read_text().splitlines()]
    assert all(s["human"]["model"] == "org/Served-Model-7B-Instruct" for s in stored)
    replayed = run_episodes(lambda: gym.make("ColBench-Backend-v0", simulator="replay",
                                             simulator_kwargs={"path": str(cache)}, max_turns=3),
                            agent, episode_specs(2, seed=0), episodes_in_flight=1)
    r = replayed[0]["human"]
    assert r["kind"] == "replay" and r["of"]["model"] == "org/Served-Model-7B-Instruct"
    assert same_human(r, h) is True
    assert describe_humans(run_humans(replayed)).startswith("replay of served org/Served-Model-7B-Instruct (prompt ")


def test_a_store_recorded_before_identities_replays_as_its_config_says(tmp_path):
    from colbench_env.simulators.replay import RecordReplaySimulator

    config = {"class": "LLMSimulator", "kind": "backend", "prompt_version": "colbench-human-v2", "temperature": 0.0,
              "max_new_tokens": 128, "seed": None, "reply_limit": 400,
              "backend": {"class": "OpenAICompatBackend", "base_url": "http://x/v1", "model": "m70", "extra_body": {}}}
    store = tmp_path / "old.jsonl"
    store.write_text(json.dumps({"key": "k", "reply": "r", "config": config}) + "\n")
    ident = RecordReplaySimulator(None, store, mode="replay").identity()
    assert ident["kind"] == "replay"
    assert (ident["of"]["kind"], ident["of"]["model"], ident["of"]["model_requested"]) == ("served", None, "m70")
    assert describe_humans([ident]) == ("replay of served m70 (requested; no reply reported a model id) "
                                        "(prompt colbench-human-v2, temperature 0, max tokens 128)")


def test_colbench_run_with_rollouts_reports_pass_k_and_the_human(tmp_path):
    out = tmp_path / "run.jsonl"
    p = colbench("run", "--agent", "scripted", "--episodes", 4, "--rollouts-per-task", 2, "--out", out,
                 "--workers", 1, "--json")
    m = last_json(p)
    assert m["trials"]["trials"] == 2 and m["trials"]["pass_hat_k"] == {"1": 0.0, "2": 0.0}
    assert "human: scripted (version 3)" in p.stdout and "  pass^k" in p.stdout
    recs = [json.loads(ln) for ln in out.read_text().splitlines()]
    assert all(r["human"]["kind"] == "scripted" for r in recs)


def test_pipeline_stats_report_pass_k_of_the_sampled_evaluation_and_the_human(tmp_path):
    from colbench.pipeline import analyse_runs

    run = tmp_path / "seed-0"
    (run / "eval").mkdir(parents=True)
    greedy = _run([(1,), (0,), (1,)], SCRIPTED)
    sampled = _run([(1, 1, 0), (0, 0, 0), (1, 1, 1)], SCRIPTED)
    for name, recs in (("zero-shot", greedy), ("zero-shot.sampled", sampled)):
        (run / "eval" / f"{name}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recs))
    report = analyse_runs([run], tmp_path / "out", resamples=500)
    zs = report["modes"]["sampled"]["methods"]["zero-shot"]
    # per task (n, c): (3, 2), (3, 0), (3, 3)
    want_at = {"1": 100 * 5 / 9, "2": 100 * 2 / 3, "3": 100 * 2 / 3}
    want_hat = {"1": 100 * 5 / 9, "2": 100 * 4 / 9, "3": 100 / 3}
    assert {k: v["mean"] for k, v in zs["pass_at_k"].items()} == pytest.approx(want_at)
    assert {k: v["mean"] for k, v in zs["pass_hat_k"].items()} == pytest.approx(want_hat)
    assert "pass_at_k" not in report["modes"]["greedy"]["methods"]["zero-shot"]  # one episode per task
    md = (tmp_path / "out" / "stats.md").read_text()
    assert "Human: scripted (version 3)." in md and "| method | pass@1 | pass^1 | pass@2 | pass^2 | pass@3 | pass^3 |" in md
    assert f"| zero-shot | {want_at['1']:.1f} [" in md


def test_table_rows_have_pass_k_errors_and_the_human(tmp_path):
    p = colbench("table", "--agents", "scripted", "--episodes", 4, "--rollouts-per-task", 2, "--out-dir", tmp_path,
                 "--workers", 1, "--split", "train")
    assert p.returncode == 0, p.stderr[-2000:]
    md = (tmp_path / "table.md").read_text()
    assert md.splitlines()[0] == ("| agent | env | episodes | tests_passed_pct | success_rate_pct | similarity | "
                                  "win_rate_pct | pass@1 | pass^1 | pass@2 | pass^2 | errors | human |")
    assert "| 0.0 | 0.0 | 0.0 | 0.0 | 0 | scripted (version 3) |" in md.splitlines()[2]
    assert "warning:" not in p.stdout and last_json(p)["humans_warning"] is None


def test_view_shows_pass_k_the_paired_difference_and_the_humans_warning(tmp_path):
    pytest.importorskip("jinja2")
    from colbench.viewer import write_view

    a = _run([(1, 1), (1, 0), (0, 0)], SCRIPTED)
    b = _run([(1, 0), (0, 0), (0, 0)], {**SCRIPTED, "volunteer": False})
    for name, recs in (("a", a), ("b", b)):
        for r in recs:
            r["eval_tests"] = [{"test": "t1", "status": "passed" if r["success"] else "wrong_output"}]
        (tmp_path / f"{name}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recs))
    write_view([tmp_path / "a.jsonl", tmp_path / "b.jsonl"], tmp_path / "v.html", progress=False)
    page = (tmp_path / "v.html").read_text()
    assert '<table class="summary trials"><caption>a: 2 trials per task, 3 tasks, 6 episodes scored' in page
    assert "<td>pass^k %</td><td class=\"num\">50.0</td><td class=\"num\">33.3</td>" in page  # (1 + 0 + 0)/3 at k=2
    assert "<td>success rate %</td><td class=\"num\">50.0</td><td class=\"num\">16.7</td><td class=\"num\">+33.3</td>" in page
    assert "flip noise: 33.3% of A's tasks (2 trials each) and 33.3% of B's (2)" in page
    assert "warning: the runs compared had different humans: a: scripted (version 3); b: scripted (version 3, " \
           "volunteer off)" in page


def test_a_local_lm_human_is_named_by_the_model_it_loaded(model_dir):
    sim = make_simulator("hf", kind="backend", model=str(model_dir), max_new_tokens=16, temperature=0.5)
    try:
        ident = sim.identity()
    finally:
        sim.close()
    assert (ident["kind"], ident["temperature"], ident["max_tokens"], ident["version"]) == \
        ("local", 0.5, 16, "colbench-human-v2")
    assert ident["model"] == str(model_dir) and ident["model_requested"] is None
    assert describe_humans([ident]).startswith(f"local {model_dir} (prompt ")


def test_the_committed_study_runs_give_the_readmes_pass_k(tmp_path):
    """studies/scores_audit: the pass@k / pass^k tables of its README recompute from its episodes."""
    from pathlib import Path

    from colbench_env.trajectories import read_trajectories

    runs = Path(__file__).resolve().parents[1] / "studies" / "scores_audit" / "runs"
    sampled = summarize(read_trajectories(runs / "rate_T0.1.jsonl"))["trials"]
    assert {k: round(v, 1) for k, v in sampled["pass_at_k"].items()} == {"1": 8.3, "2": 12.5, "3": 12.5}
    assert {k: round(v, 1) for k, v in sampled["pass_hat_k"].items()} == {"1": 8.3, "2": 4.2, "3": 0.0}
    assert sampled["flip_share"] == 1 / 8 and round(sampled["spread"]["success_rate_pct"]["sd"], 1) == 7.2
    greedy = summarize(read_trajectories(runs / "rate_T0.jsonl"))["trials"]
    assert set(greedy["pass_at_k"].values()) == set(greedy["pass_hat_k"].values()) == {12.5}
    assert greedy["flip_share"] == 0.0
