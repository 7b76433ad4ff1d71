"""critic-ranking (issue 17, part 2): the pure measures against hand-computed values, continuation
episodes with a forced first action (through a served policy), and one tiny end-to-end run on a
random Llama that resumes without new work."""
from __future__ import annotations

import argparse
import dataclasses
import json

import numpy as np
import pytest

from colbench.cli import critic_ranking as cr_cli
from colbench.critics import ranking as cr
from colbench.stats import bootstrap_mean, paired_bootstrap


# ---- pure measures -----------------------------------------------------------------------------------------
def test_pairwise_ranking_counts_critic_ties_half_and_skips_value_ties():
    values = [0.5, 0.2, 0.2, 1.0]
    scores = [3.0, 1.0, 2.0, 3.0]
    # differing pairs: (0,1) right, (0,2) right, (0,3) critic tie 1/2, (1,3) right, (2,3) right; (1,2) skipped
    assert cr.pairwise_ranking(values, scores) == (4.5, 5)
    assert cr.pairwise_ranking([0.0, 1.0], [1.0, 0.0]) == (0.0, 1)
    assert cr.pairwise_ranking([0.3, 0.3, 0.3], [1.0, 2.0, 3.0]) == (0.0, 0)
    with pytest.raises(ValueError):
        cr.pairwise_ranking([0.0, 1.0], [1.0])


def test_best_of_n_averages_the_tied_top_candidates():
    values = [0.5, 0.2, 0.2, 1.0]
    assert cr.best_of_n(values, [3.0, 1.0, 2.0, 3.0]) == pytest.approx(0.75)
    assert cr.best_of_n(values, [0.0, 5.0, 1.0, 2.0]) == pytest.approx(0.2)
    assert cr.best_of_n(values, [1.0, 1.0, 1.0, 1.0]) == pytest.approx(0.475)


def test_candidate_values_are_means_over_continuations():
    recs = [{"candidate": 0, "reward": 1.0, "success": True}, {"candidate": 1, "reward": 0.2, "success": False},
            {"candidate": 0, "reward": 0.5, "success": False}, {"candidate": 2, "reward": None, "success": None}]
    values, succ, counts = cr.candidate_values(recs, 3)
    assert values == pytest.approx([0.75, 0.2, 0.0])
    assert succ == pytest.approx([0.5, 0.0, 0.0])
    assert counts == [2, 1, 1]
    with pytest.raises(ValueError, match=r"\[3\]"):
        cr.candidate_values(recs, 4)


def test_value_examples_cut_after_each_agent_action():
    rec = {"task": {"task_id": "x"}, "reward": 0.4, "dialogue_history": [
        {"role": "assistant", "content": "q"}, {"role": "user", "content": "r"}, {"role": "assistant", "content": "a"}]}
    ex = cr.value_examples([rec])
    assert [len(r["dialogue_history"]) for r, _ in ex] == [1, 3]
    assert [t for _, t in ex] == [0.4, 0.4]
    assert ex[0][0]["dialogue_history"][-1]["content"] == "q"


def test_summary_is_the_bootstrap_over_tasks_of_hand_computed_per_task_values():
    states = [{"task_id": "a", "values": [1.0, 0.0, 0.5], "successes": [1.0, 0.0, 0.0]},
              {"task_id": "b", "values": [0.2, 0.4, 0.2], "successes": [0.0, 0.0, 0.0]},
              {"task_id": "c", "values": [0.3, 0.3, 0.3], "successes": [0.0, 0.0, 0.0]}]  # no differing pair
    scores = {"sweet_with_info": {"a": [2.0, 0.0, 1.0], "b": [1.0, 0.0, 1.0], "c": [0.0, 1.0, 2.0]},
              "random": {"a": [0.0, 1.0, 0.0], "b": [0.0, 0.0, 0.0], "c": [5.0, 1.0, 2.0]}}
    s = cr.summarize_critics(states, scores, resamples=500, seed=3)
    assert (s["n_tasks"], s["n_tasks_ranked"]) == (3, 2)
    # sweet: task a 3/3; task b pairs (0,1) wrong, (1,2) wrong -> 0/2.  random: a: (0,1) wrong, (0,2) tie, (1,2)
    # wrong... values a: 1.0 > 0.5 > 0.0; scores [0,1,0]: (0>1)? no -> 0; (0 vs 2) tie -> .5; (2 vs 1) 0 < 1 -> 0
    acc_sweet, acc_random = [1.0, 0.0], [0.5 / 3, 0.5]
    expect = bootstrap_mean(acc_sweet, resamples=500, seed=3).as_dict()
    assert s["rows"]["sweet_with_info"]["ranking_accuracy"] == pytest.approx(expect)
    assert s["rows"]["random"]["ranking_accuracy"]["mean"] == pytest.approx(np.mean(acc_random))
    assert s["rows"]["sweet_with_info"]["ranking_pairs"] == 5
    # best-of-N: sweet picks a:1.0, b: tie of 0.2 and 0.2 -> 0.2, c: 0.3; random: a 0.0, b mean 0.8/3, c 0.3
    bv_sweet, bv_random = [1.0, 0.2, 0.3], [0.0, 0.8 / 3, 0.3]
    assert s["rows"]["sweet_with_info"]["best_value"]["mean"] == pytest.approx(np.mean(bv_sweet))
    assert s["rows"]["random"]["best_value"]["mean"] == pytest.approx(np.mean(bv_random))
    assert s["rows"]["oracle"]["best_value"]["mean"] == pytest.approx(np.mean([1.0, 0.4, 0.3]))
    assert s["rows"]["oracle"]["best_success"]["mean"] == pytest.approx(1 / 3)
    assert s["rows"]["mean_candidate"]["best_value"]["mean"] == pytest.approx(np.mean([0.5, 0.8 / 3, 0.3]))
    comp = s["comparisons"]["sweet_with_info - random"]
    assert comp["best_value"] == pytest.approx(paired_bootstrap(bv_sweet, bv_random, resamples=500, seed=3).as_dict())
    assert comp["ranking_accuracy"]["diff_mean"] == pytest.approx(np.mean(acc_sweet) - np.mean(acc_random))


# ---- continuations: a forced first action, then the (served) policy ----------------------------------------
def test_continuations_play_the_candidate_then_the_served_policy_and_retry_failed_episodes(tmp_path):
    """Each candidate is the first action of an episode the policy then finishes: here a policy
    served by a real HTTP server on 127.0.0.1 (it echoes its prompt). An episode whose policy request
    fails is not recorded, the stage says so (StageFailed), and a rerun plays it; wave 1 skips the
    candidates that answered at once. Each request is one policy turn after the candidate, asked for
    the policy by its path."""
    from openai_test_server import OpenAITestServer

    from colbench.errors import StageFailed
    from colbench_env.tasks import generated_spec, load_tasks

    tasks = load_tasks(generated_spec(2, 1, "rate"), kind="backend", split="test")
    answer = "OUTPUT: I WANT TO ANSWER:\n```python\ndef f():\n    return 2\n```"
    cands = {tasks[0].task_id: ["OUTPUT: What rate do you use, zebra?", answer],
             tasks[1].task_id: [answer, "OUTPUT: Which unit do you want?"]}
    out = tmp_path / "run"
    out.mkdir()
    policy = str(tmp_path / "policy")
    with OpenAITestServer(mode="failon:zebra") as bad:  # refuses the requests of task 0's question episode
        cfg = cr.RankingConfig(out_dir=str(out), policy=policy, policy_base_url=bad.url, n_test_tasks=2,
                               n_candidates=2, n_continuations=2, episodes_in_flight=3)
        with pytest.raises(StageFailed, match=r"continuations\.jsonl: 1 of 4 continuation episodes of wave 0 ended "
                                              r"with an error \(first: agent failed: .*HTTP 400"):
            cr.continue_candidates(cfg, out, tasks, cands)
    first = [json.loads(x) for x in (out / "continuations.jsonl").read_text().splitlines()]
    assert sorted(r["episode_id"] for r in first) == sorted(f"{t.task_id}/c{i}/m0" for t in tasks for i in range(2)
                                                            if (t, i) != (tasks[0], 0))
    with OpenAITestServer() as good:
        conts = cr.continue_candidates(dataclasses.replace(cfg, policy_base_url=good.url), out, tasks, cands)
        requests = list(good.state.requests)
    by = {r["episode_id"]: r for r in conts}
    t0, t1 = tasks[0].task_id, tasks[1].task_id
    # wave 1 continues the two questions only; the answers ended their episodes (played once)
    assert sorted(by) == sorted([f"{t0}/c0/m0", f"{t0}/c1/m0", f"{t1}/c0/m0", f"{t1}/c1/m0", f"{t0}/c0/m1",
                                 f"{t1}/c1/m1"])
    assert len([json.loads(x) for x in (out / "continuations.jsonl").read_text().splitlines()]) == 6
    for eid, r in by.items():
        task_id, c, m = eid.split("/")
        assert (r["task_id"], r["candidate"], r["repeat"]) == (task_id, int(c[1:]), int(m[1:]))
        assert r["dialogue_history"][0]["output"] == cands[task_id][r["candidate"]] and "error" not in r
        assert r["agent_turns"] == sum(1 for x in r["dialogue_history"] if x["role"] == "assistant")
        assert (r["agent_turns"] == 1) == (cands[task_id][r["candidate"]] == answer)
    # the good server made every policy turn after the candidates of the three episodes it ran
    assert len(requests) == sum(by[e]["agent_turns"] - 1 for e in (f"{t0}/c0/m0", f"{t0}/c0/m1", f"{t1}/c1/m1"))
    assert {q["model"] for q in requests} == {policy}
    assert by[f"{t1}/c1/m1"]["dialogue_history"] == by[f"{t1}/c1/m0"]["dialogue_history"]  # a deterministic server
    # candidates from the server too: N choices of one request per task (episodes_in_flight // N tasks per call)
    with OpenAITestServer() as good:
        sampled = cr.sample_candidates(dataclasses.replace(cfg, policy_base_url=good.url), out, tasks)
        requests = list(good.state.requests)
    assert [len(requests), {q["n"] for q in requests}, {q["model"] for q in requests}] == [2, {2}, {policy}]
    assert {q["temperature"] for q in requests} == {cfg.candidate_temperature}
    for t in tasks:
        assert [c.split(" ")[0] for c in sampled[t.task_id]] == ["ECHO[0]", "ECHO[1]"]
        assert t.problem_description in sampled[t.task_id][0]


def test_ranking_config_names_episodes_in_flight_and_refuses_a_switch_of_policy_server(tmp_path, capsys):
    p = argparse.ArgumentParser()
    cr_cli.add_arguments(p)
    args = p.parse_args(["--episodes-in-flight", "5", "--policy-base-url", "http://127.0.0.1:9/v1",
                         "--policy-base-url", "http://127.0.0.1:10/v1/"])
    assert args.episodes_in_flight == 5
    assert cr.RankingConfig(policy_base_url=args.policy_base_url).policy_base_url == \
        "http://127.0.0.1:9/v1,http://127.0.0.1:10/v1"
    with pytest.raises(ValueError, match="policy_base_url: base_url must be an http"):
        cr.RankingConfig(policy_base_url="127.0.0.1:9")
    out = tmp_path / "run"
    local = cr.RankingConfig(out_dir=str(out))
    out.mkdir()
    (out / "config.json").write_text(json.dumps(dataclasses.asdict(local)))
    (out / "candidates.jsonl").write_text('{"task_id": "x"}\n')
    cr.check_resume(local)
    with pytest.raises(ValueError, match=r"field 'policy_base_url': None, but this run asks 'http://127\.0\.0\.1:9/v1' "
                                         r"\(.*candidates\.jsonl was made with the former\)"):
        cr.check_resume(dataclasses.replace(local, policy_base_url="http://127.0.0.1:9/v1"))
    served = dataclasses.replace(local, policy_base_url="http://127.0.0.1:9/v1")
    (out / "config.json").write_text(json.dumps(dataclasses.asdict(served)))
    cr.check_resume(dataclasses.replace(served, policy_base_url="http://127.0.0.1:10/v1"))  # another server: free
    with pytest.raises(ValueError, match=r"field 'policy_base_url': 'http://127\.0\.0\.1:9/v1', but this run asks None"):
        cr.check_resume(local)


# ---- end to end --------------------------------------------------------------------------------------------
def _args(out, policy, extra, **kw):
    p = argparse.ArgumentParser()
    cr_cli.add_arguments(p)
    return p.parse_args(_argv(out, policy, extra, **kw))


def _argv(out, policy, extra, **kw):
    argv = ["--out-dir", str(out), "--policy", policy, "--n-train-tasks", "1", "--rollouts-per-task", "1",
            "--extra-trajectories", str(extra), "--n-test-tasks", "2", "--n-candidates", "2", "--n-continuations", "1",
            "--critic-epochs", "1", "--max-new-tokens", "8", "--episodes-in-flight", "4", "--bootstrap-resamples", "100"]
    for k, v in kw.items():
        argv += [f"--{k.replace('_', '-')}", str(v)]
    return argv


def _extra_file(path, task_split="train"):
    from colbench_env.tasks import generated_spec, load_tasks

    tasks = load_tasks(generated_spec(2, 1, "rate"), kind="backend", split=task_split)
    lines = []
    for t in tasks:
        for reward in (1.0, 0.0):
            lines.append({"task": t.to_record(), "reward": reward, "success": reward == 1.0, "answer": "x",
                          "dialogue_history": [{"role": "assistant", "content": "x", "output": f"OUTPUT: {reward}"}]})
    path.write_text("".join(json.dumps(r) + "\n" for r in lines))
    return path


@pytest.fixture(scope="module")
def tiny_policy(tiny_model_dir):
    """A tiny random Llama over the small-vocabulary tokenizer: the run's stages, files and resume do
    not hang on the vocabulary, whose projection costs a fiftieth of SmolLM2's here."""
    return tiny_model_dir(0, 64, tokenizer="small-smollm2-template")


def test_end_to_end_on_a_tiny_llama_and_rerun_resumes(tmp_path, tiny_policy, capsys):
    import torch

    torch.set_num_threads(1)
    extra = _extra_file(tmp_path / "extra.jsonl")
    out = tmp_path / "run"
    assert cr_cli.main(_args(out, tiny_policy, extra)) == 0
    for name in ("train_rollouts.jsonl", "candidates.jsonl", "continuations.jsonl", "scores.jsonl", "results.json",
                 "results.md", "results.png", "config.json"):
        assert (out / name).exists(), name
    res = json.loads((out / "results.json").read_text())
    assert res["data"]["n_states"] == 2 and res["data"]["n_candidates"] == 2
    assert res["data"]["n_train_rollouts"] == 5 and res["data"]["n_extra_rollouts"] == 4
    assert res["data"]["n_sweet_pairs"] == 2  # one (1.0, 0.0) pair per extra task; the collected one adds none
    assert set(res["summary"]["rows"]) == {*cr.CRITICS, *cr.BASELINES}
    cands = [json.loads(x) for x in (out / "candidates.jsonl").read_text().splitlines()]
    assert [len(c["candidates"]) for c in cands] == [2, 2]
    conts = [json.loads(x) for x in (out / "continuations.jsonl").read_text().splitlines()]
    assert len(conts) == 4 and {(c["task_id"], c["candidate"]) for c in conts} == {
        (c["task_id"], i) for c in cands for i in range(2)}
    for c in conts:  # each continuation starts with its candidate
        want = next(x for x in cands if x["task_id"] == c["task_id"])["candidates"][c["candidate"]]
        assert c["dialogue_history"][0]["output"] == want
    scores = [json.loads(x) for x in (out / "scores.jsonl").read_text().splitlines()]
    assert [s["critic"] for s in scores] == list(cr.CRITICS)
    assert all(len(v) == 2 for s in scores for v in s["scores"].values())
    sizes = {n: (out / n).read_text() for n in ("train_rollouts.jsonl", "candidates.jsonl", "continuations.jsonl",
                                                  "scores.jsonl")}
    assert cr_cli.main(_args(out, tiny_policy, extra)) == 0  # rerun: every stage is found finished
    assert {n: (out / n).read_text() for n in sizes} == sizes
    log = [json.loads(x) for x in (out / "invocations.jsonl").read_text().splitlines()]  # colbench.provenance
    assert [x["command"] for x in log] == ["critic-ranking"] * 2
    capsys.readouterr()
    p = argparse.ArgumentParser()
    cr_cli.add_arguments(p)
    only = p.parse_args([*_argv(out, tiny_policy, extra), "--stages", "continue"])
    assert cr_cli.main(only) == 0  # a stage without the report stage says so instead of crashing
    assert capsys.readouterr().out.strip().endswith("no report (run --stages report)")
    assert {n: (out / n).read_text() for n in sizes} == sizes
    assert json.loads((out / "results.json").read_text())["summary"]["rows"] == res["summary"]["rows"]
    # a resume with a setting the files were made with changed would report them as the new setting's:
    # one line naming config.json, the field and the file; exit 2; nothing written
    before = {p: p.read_bytes() for p in out.iterdir()}
    for kw, field, made in (({"critic_learning_rate": 5e-3}, "critic_learning_rate", "scores.jsonl"),
                            ({"candidate_temperature": 1.0}, "candidate_temperature", "candidates.jsonl"),
                            ({"continue_temperature": 0.5}, "continue_temperature", "continuations.jsonl"),
                            ({"rollout_temperature": 0.5}, "rollout_temperature", "train_rollouts.jsonl"),
                            ({"value_head_epochs": 3}, "value_head_epochs", "scores.jsonl")):
        capsys.readouterr()
        assert cr_cli.main(_args(out, tiny_policy, extra, **kw)) == 2, kw
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and f"config.json: field '{field}'" in err[0] and f"{made} was made with" in err[0], err
    assert {p: p.read_bytes() for p in out.iterdir()} == before
    free = cr.RankingConfig(**{**json.loads((out / "config.json").read_text()), "bootstrap_resamples": 7,
                               "episodes_in_flight": 1, "critics": ["random"], "stages": ["report"]})
    cr.check_resume(free)  # free to change: episodes in flight, resamples, critics, stages
    with pytest.raises(ValueError, match="value_head_epochs must be a positive integer"):
        dataclasses.replace(free, value_head_epochs=0)
    (out / "scores.jsonl").unlink()  # no critic has scored yet: more held-out tasks extend the run
    cr.check_resume(dataclasses.replace(free, n_test_tasks=3))


def test_extra_trajectories_of_held_out_tasks_are_refused(tmp_path, tiny_policy, capsys):
    extra = _extra_file(tmp_path / "leak.jsonl", task_split="test")
    assert cr_cli.main(_args(tmp_path / "run", tiny_policy, extra)) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("colbench critic-ranking: error: ")
    assert "leak.jsonl:1: field 'task.task_id'" in err[0] and "held-out" in err[0]


def test_committed_results_follow_from_their_data_files():
    """studies/critic_ranking*/: every critic's mean ranking accuracy and best-of-N value in
    results.json, recomputed here from continuations.jsonl and scores.jsonl alone (true value = mean
    reward of a candidate's continuations; pairs of different value, a tie 1/2; the top candidate's
    value, tied tops averaged), and the committed config passes its own resume check."""
    from collections import defaultdict
    from pathlib import Path

    dirs = sorted((Path(__file__).resolve().parents[1] / "studies").glob("critic_ranking*/**/results.json"))
    assert len(dirs) >= 3
    for path in dirs:
        d = path.parent
        res = json.loads(path.read_text())
        data = d if (d / "continuations.jsonl").exists() else d.parent  # a variant reuses its parent's episodes
        n = res["data"]["n_candidates"]
        rewards = defaultdict(list)
        for line in (data / "continuations.jsonl").read_text().splitlines():
            r = json.loads(line)
            rewards[(r["task_id"], r["candidate"])].append(float(r["reward"] or 0.0))
        tasks = [s["task_id"] for s in res["states"]]
        values = {t: [sum(rewards[(t, i)]) / len(rewards[(t, i)]) for i in range(n)] for t in tasks}
        scores = {json.loads(x)["critic"]: json.loads(x)["scores"] for x in (d / "scores.jsonl").read_text().splitlines()}
        assert set(scores) == set(res["critics_finished"]), d
        for critic, sc in scores.items():
            accs, best = [], []
            for t in tasks:
                v, s = values[t], sc[t]
                pairs = [(i, j) for i in range(n) for j in range(n) if v[i] > v[j]]
                if pairs:
                    accs.append(sum(1.0 if s[i] > s[j] else 0.5 if s[i] == s[j] else 0.0 for i, j in pairs) / len(pairs))
                tops = [i for i in range(n) if s[i] == max(s)]
                best.append(sum(v[i] for i in tops) / len(tops))
            row = res["summary"]["rows"][critic]
            assert row["ranking_accuracy"]["mean"] == pytest.approx(sum(accs) / len(accs)), (d, critic)
            assert row["best_value"]["mean"] == pytest.approx(sum(best) / len(best)), (d, critic)
            assert len(accs) == res["summary"]["n_tasks_ranked"]
        cfg = cr.RankingConfig(**{**res["config"], "out_dir": str(d)})
        cr.check_resume(cfg)  # its config.json is the one that made its files
        if data != d:
            assert res["data"]["n_continuation_episodes"] == len(
                (data / "continuations.jsonl").read_text().splitlines())
