"""A policy served by a real third-party server, `transformers serve` (issue 33, part 3): the
names a server knows models under, `colbench run --agent openai` against it compared with the
local SmolLM2 path, vLLM's LoRA-loading request."""
import argparse
import dataclasses
import json
from pathlib import Path

import gymnasium as gym
import pytest

import colbench_env  # noqa: F401
from colbench.agents.served import load_lora_adapter, served_model_name, served_policy
from colbench_env.trajectories import read_trajectories

from openai_test_server import OpenAITestServer
from transformers_serve import TransformersServe, available


def test_served_model_names(tmp_path):
    out = tmp_path / "out"
    assert served_model_name(out / "models" / "sweet-rl", out) == "models/sweet-rl"
    assert served_model_name(str(out / "models" / "rft") + "/", str(out)) == "models/rft"
    assert served_model_name("meta-llama/Llama-3.1-8B-Instruct", out) == "meta-llama/Llama-3.1-8B-Instruct"
    assert served_model_name(tmp_path / "elsewhere", out) == str(tmp_path / "elsewhere")
    agent = served_policy("http://127.0.0.1:9/v1,http://127.0.0.1:10/v1", out / "models" / "sft", run_dir=out,
                          max_turns=3)
    assert agent.lm.model == "models/sft" and agent.lm.base_urls == ["http://127.0.0.1:9/v1", "http://127.0.0.1:10/v1"]
    assert agent.batched is False and agent.max_turns == 3


def test_load_lora_adapter_sends_vllms_request_to_every_server(tmp_path):
    adapter = tmp_path / "ckpt" / "sft" / "policy"
    adapter.mkdir(parents=True)
    with pytest.raises(FileNotFoundError, match="no adapter_config.json"):
        load_lora_adapter("http://127.0.0.1:9/v1", "models/sft", adapter)
    (adapter / "adapter_config.json").write_text("{}")
    with OpenAITestServer() as a, OpenAITestServer() as b:
        load_lora_adapter([a.url, b.url], "models/sft", adapter)
        for s in (a, b):
            assert s.state.requests == [{"lora_name": "models/sft", "lora_path": str(adapter.resolve())}]
        with pytest.raises(RuntimeError, match=r"/v2/load_lora_adapter refused to load adapter 'models/sft'.*HTTP 404"):
            load_lora_adapter(a.url.replace("/v1", "/v2"), "models/sft", adapter)
        # a resumed run: servers that list the name from this path are left as they are (vLLM refuses a
        # second load of a name), a name loaded from another path is an error, not another run's adapter
        load_lora_adapter([a.url, b.url], "models/sft", adapter)
        assert len(a.state.requests) == len(b.state.requests) == 1
        other = tmp_path / "other" / "ckpt" / "sft" / "policy"
        other.mkdir(parents=True)
        (other / "adapter_config.json").write_text("{}")
        with pytest.raises(RuntimeError, match=rf"127\.0\.0\.1:{a.port}/v1 already serves a model named 'models/sft' "
                                               rf"\(from {adapter.resolve()}\), not the adapter {other.resolve()}"):
            load_lora_adapter(a.url, "models/sft", other)
        assert len(a.state.requests) == 1


def _pipeline_cli(*argv) -> int:
    from colbench.cli.pipeline import add_arguments, main

    parser = argparse.ArgumentParser()
    add_arguments(parser)
    return main(parser.parse_args([str(a) for a in argv]))


def test_pipeline_policy_server_options_and_their_checks(tmp_path, capsys):
    """--policy-base-url (repeated or comma-separated, as --simulator-base-url) and --policy-lora:
    normalised and checked before anything is written; a resume may change the server's URL but
    not switch between a served and a local policy (one line naming config.json and the field)."""
    import dataclasses

    from colbench.cli.pipeline import add_arguments
    from colbench.pipeline import PRESETS, PipelineConfig, check_resume
    from colbench.pipeline.resume import human_version_field

    parser = argparse.ArgumentParser()
    add_arguments(parser)
    args = parser.parse_args(["--policy-base-url", "http://127.0.0.1:9/v1", "--policy-base-url",
                              "http://127.0.0.1:10/v1/,http://127.0.0.1:11/v1", "--simulator-base-url",
                              "http://127.0.0.1:12/v1", "--simulator-base-url", "http://127.0.0.1:13/v1"])
    assert args.simulator_base_url == "http://127.0.0.1:12/v1,http://127.0.0.1:13/v1"
    cfg = PipelineConfig(policy_base_url=args.policy_base_url)
    assert cfg.policy_base_url == "http://127.0.0.1:9/v1,http://127.0.0.1:10/v1,http://127.0.0.1:11/v1"
    assert PipelineConfig(policy_base_url=["http://a:1/v1", "http://b:2/v1"]).policy_base_url == "http://a:1/v1,http://b:2/v1"
    lora = {**PRESETS["paper"], "trainer_overrides": {"rft": {"policy": {"full_finetune": False}}}}
    assert PipelineConfig(**lora, methods=("rft",), policy_base_url="http://a:1/v1", policy_lora=True).policy_lora
    for argv, msg in ((["--policy-base-url", "localhost:8000"], "policy_base_url: base_url must be an http(s) URL such "
                       "as 'http://localhost:8000/v1' (or several: a list or comma-separated), got 'localhost:8000'"),
                      (["--policy-lora"], "policy_lora: the adapters are loaded into the policy's server(s): set "
                                          "policy_base_url"),
                      (["--paper", "--policy-base-url", "http://a:1/v1", "--policy-lora"],
                       "policy_lora: rft fully fine-tunes its policy (trainer_overrides['rft'].policy."
                       "full_finetune): it leaves no LoRA adapter to load; serve its merged model (models/rft) instead")):
        assert _pipeline_cli(*argv, "--out-dir", tmp_path / "bad") == 2
        err = capsys.readouterr().err
        assert err == f"colbench pipeline: error: {msg}\n", err
    assert not (tmp_path / "bad").exists()
    out = tmp_path / "run"
    local = PipelineConfig(out_dir=str(out))
    out.mkdir()
    (out / "config.json").write_text(json.dumps({**dataclasses.asdict(local), **human_version_field(local)}))
    (out / "rollouts.jsonl").write_text('{"episode_id": "0"}\n')
    before = {p: p.read_bytes() for p in out.iterdir()}
    assert _pipeline_cli("--out-dir", out, "--policy-base-url", "http://127.0.0.1:9/v1") == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"colbench pipeline: error: {out / 'config.json'}: field 'policy_base_url': None, but this run asks "
                   "'http://127.0.0.1:9/v1' (its episodes were made with the former): use another --out-dir"], err
    assert {p: p.read_bytes() for p in out.iterdir()} == before
    served = dataclasses.replace(local, policy_base_url="http://127.0.0.1:9/v1")
    (out / "config.json").write_text(json.dumps({**dataclasses.asdict(served), **human_version_field(local)}))
    check_resume(dataclasses.replace(served, policy_base_url="http://127.0.0.1:10/v1", policy_lora=True))
    with pytest.raises(ValueError, match=r"field 'policy_base_url': 'http://127\.0\.0\.1:9/v1', but this run asks None"):
        check_resume(local)


def test_pipeline_stage_asks_the_server_by_run_dir_name_loads_the_adapter_and_stops_on_failures(tmp_path):
    """The evaluation stage of a trained method through a served policy: its LoRA adapter is loaded
    once under the name relative to the top-level out-dir (a seed's: ``seed-3/models/rft``), every
    turn asks for that name, greedily; nothing is sent when the file is complete. A server that
    refuses ends the stage with StageFailed, its episodes kept as errors and retried by a rerun."""
    from colbench.errors import StageFailed
    from colbench.pipeline import PipelineConfig, run_stage_episodes, task_split
    from colbench.pipeline.stages import policy_adapter

    top = tmp_path / "out"
    seed_dir = top / "seed-3"
    model = seed_dir / "models" / "rft"
    model.mkdir(parents=True)
    adapter = seed_dir / "ckpt" / "rft" / "policy"
    adapter.mkdir(parents=True)
    (adapter / "adapter_config.json").write_text("{}")
    eval_file = seed_dir / "eval" / "rft.jsonl"
    with OpenAITestServer() as server:
        cfg = PipelineConfig(out_dir=str(seed_dir), seed=3, policy="org/base-model", policy_base_url=server.url,
                             policy_lora=True, methods=("rft",), max_turns=2, n_test_tasks=3, episodes_in_flight=2)
        tasks = task_split(cfg, "test")

        def stage(n, path=eval_file, model_path=model):
            return run_stage_episodes(cfg, tasks[:n], str(model_path), path, repeats=1, temperature=0.0,
                                      desc="eval rft", run_dir=str(top))

        records = stage(2)
        reqs = server.state.requests
        assert reqs[0] == {"lora_name": "seed-3/models/rft", "lora_path": str(adapter.resolve())}
        chats = reqs[1:]
        assert len(chats) == sum(sum(1 for m in r["dialogue_history"] if m["role"] == "assistant") for r in records)
        assert {q["model"] for q in chats} == {"seed-3/models/rft"} and {q["temperature"] for q in chats} == {0.0}
        assert len(records) == 2 and all("error" not in r and r["reward"] is not None for r in records)
        n = len(reqs)
        assert stage(2) == records and len(reqs) == n  # complete: nothing sent, nothing loaded
        more = stage(3)  # one more episode: the server still lists the adapter, so it is not loaded again
        assert len(more) == 3 and not any("lora_name" in q for q in reqs[n:]) and len(reqs) > n
        # only this run's trained policies have an adapter here, not a base that lies in some models/ folder
        assert policy_adapter(cfg, model) == adapter.resolve() and policy_adapter(cfg, tmp_path / "models" / "base") is None
        zero_shot = stage(1, seed_dir / "eval" / "zero-shot.jsonl", "org/base-model")  # the base: by --policy
        assert zero_shot and {q.get("model") for q in reqs[len(reqs) - 2:]} == {"org/base-model"}
    with OpenAITestServer(mode="failon:I WANT TO ANSWER") as refusing:  # in every policy request (the prompt)
        cfg = dataclasses.replace(cfg, policy_base_url=refusing.url, policy_lora=False)
        with pytest.raises(StageFailed, match=rf"{seed_dir / 'rollouts.jsonl'}: 2 of 2 episodes ended with an error "
                                              r"\(first: agent failed: .*HTTP 400.*\); run the same command again"):
            run_stage_episodes(cfg, tasks[:2], "org/base-model", seed_dir / "rollouts.jsonl", repeats=1,
                               temperature=0.1, desc="collect", run_dir=str(top))
    assert [r.get("error", "")[:13] for r in read_trajectories(seed_dir / "rollouts.jsonl")] == ["agent failed:"] * 2
    with OpenAITestServer() as server:
        cfg = dataclasses.replace(cfg, policy_base_url=server.url)
        again = run_stage_episodes(cfg, tasks[:2], "org/base-model", seed_dir / "rollouts.jsonl", repeats=1,
                                   temperature=0.1, desc="collect", run_dir=str(top))
        assert len(again) == 2 and not any("error" in r for r in again) and server.state.requests


def colbench(capfd, *args):
    """``colbench ARGS --json`` in this process (:func:`cli_helpers.colbench_here`), checked to exit
    0: the JSON it printed last."""
    from cli_helpers import colbench_here

    p = colbench_here(capfd, *args)
    assert p.returncode == 0, p.stderr[-3000:]
    return json.loads(p.stdout.strip().splitlines()[-1])


@pytest.mark.skipif(not available(), reason="transformers serve needs the 'serve' extra (fastapi, uvicorn, openai)")
def test_colbench_run_through_transformers_serve_equals_the_local_policy(tmp_path, tiny_model_dir, capfd):
    """A tiny random Llama over the small tokenizer (ChatML; the suite's :func:`tiny_model_dir`)
    behind `transformers serve`, started in a run directory and asked for
    `models/base` (loaded on first request, by path), plays `colbench run --agent openai` with 2
    episodes in flight; the same episodes with the same model local (``--agent hf``) one at a time.
    Greedy decoding: where the agent's texts match, the whole record (reward included) matches.
    (Which model does not matter here, only that both paths run the same one: a 135M model only
    made each turn cost seconds, SmolLM2's 49,152-id tokenizer a third of the test.)"""
    tiny = tiny_model_dir(0, 32, "small")
    run_dir = tmp_path / "out"
    (run_dir / "models").mkdir(parents=True)
    (run_dir / "models" / "base").symlink_to(tiny, target_is_directory=True)
    name = served_model_name(run_dir / "models" / "base", run_dir)
    common = ["run", "--tasks", "generated:4:1:rate", "--episodes", 4, "--max-turns", 2, "--max-new-tokens", 24,
              "--prompt-style", "compact", "--json"]
    with TransformersServe(cwd=run_dir) as server:
        served = colbench(capfd, *common, "--agent", "openai", "--agent-base-url", server.url, "--agent-model", name,
                          "--episodes-in-flight", 2, "--out", tmp_path / "served.jsonl")
    local = colbench(capfd, *common, "--agent", "hf", "--agent-model", tiny, "--episodes-in-flight", 1,
                     "--out", tmp_path / "local.jsonl")
    assert served["count"] == local["count"] == 4 and served["errors"] == 0
    by_id = {p: {r["episode_id"]: r for r in read_trajectories(tmp_path / f"{p}.jsonl")} for p in ("served", "local")}

    def texts(rec):
        return [m["output"] for m in rec["dialogue_history"] if m["role"] == "assistant"]

    same = [k for k in by_id["local"] if texts(by_id["served"][k]) == texts(by_id["local"][k])]
    assert len(same) >= 3, [(texts(by_id["served"][k]), texts(by_id["local"][k])) for k in by_id["local"]]
    assert any(t.strip() for k in same for t in texts(by_id["local"][k]))  # something was generated and compared
    for k in same:  # token ids: the local model's; transformers serve gives none, only its counts
        assert without_tokens(by_id["served"][k]) == without_tokens(by_id["local"][k])
        for a, b in zip(by_id["local"][k]["dialogue_history"], by_id["served"][k]["dialogue_history"]):
            if a["role"] == "assistant":
                assert {"prompt_ids", "completion_ids"} <= a["tokens"].keys()
                assert b["tokens"].keys() == {"n_prompt", "n_completion"}
                assert b["tokens"]["n_completion"] == len(a["tokens"]["completion_ids"])


def without_tokens(rec: dict) -> dict:
    """A record without its agent entries' ``tokens`` (what a policy that records none writes)."""
    return {**rec, "dialogue_history": [{k: v for k, v in m.items() if k != "tokens"} for m in rec["dialogue_history"]]}


def _seed_success(out, cfg, task, spec):
    """A successful rollout of ``task`` (the ground truth as the answer) in ``out/rollouts.jsonl`` as
    episode ``spec``, as if collected before an interruption: so a method has something to learn."""
    from colbench_env.evaluation.backend import BackendEvaluator
    from colbench_env.trajectories import append_jsonl

    with BackendEvaluator(workers=1) as ev:
        env = gym.make("ColBench-Backend-v0", tasks=[task], evaluator=ev, max_turns=cfg.max_turns)
        env.reset(seed=spec.seed)
        env.step(f"OUTPUT: I WANT TO ANSWER: ```python\n{task.ground_truth}\n```")
        append_jsonl(out / "rollouts.jsonl", [dict(env.unwrapped.trajectory_record(), episode_id=spec.episode_id)])


def test_pipeline_with_seeds_loads_each_trained_adapter_and_asks_for_it_by_name(tmp_path, tiny_model_dir):
    """The whole pipeline (2 seeds, rft, a tiny random Llama trained here) with --policy-lora against
    a stand-in vLLM server (it echoes its prompt): each seed's trained adapter, as the trainer saved
    it, is loaded as ``seed-<s>/models/rft`` before that seed's evaluation, which asks for that
    name; collection and zero-shot ask for the base by its path; config.json records the server."""
    from colbench.pipeline import PipelineConfig, run_pipeline, task_split
    from colbench.pipeline.resume import seed_configs
    from colbench_env.rollout import episode_specs

    tiny = tiny_model_dir(0, 32, "small")
    out = tmp_path / "out"
    with OpenAITestServer() as server:
        cfg = PipelineConfig(out_dir=str(out), policy=tiny, n_train_tasks=2, n_test_tasks=2, rollouts_per_task=1,
                             max_turns=1, max_new_tokens=8, methods=("rft",), seeds=(0, 1), bootstrap_resamples=50,
                             trainer_overrides={"rft": {"max_length": 512}}, policy_base_url=server.url,
                             policy_lora=True)
        for run_cfg in seed_configs(cfg):
            _seed_success(Path(run_cfg.out_dir), run_cfg, task_split(run_cfg, "train")[0],
                          episode_specs(2, n_tasks=2, seed=run_cfg.seed)[0])
        report = run_pipeline(cfg, preset="test")
        reqs = list(server.state.requests)
    assert [r["method"] for r in report["rows"]] == ["zero-shot", "rft"] * 2
    loads = [i for i, q in enumerate(reqs) if "lora_name" in q]
    assert [reqs[i] for i in loads] == [{"lora_name": f"seed-{s}/models/rft",
                                         "lora_path": str((out / f"seed-{s}" / "ckpt" / "rft" / "policy").resolve())}
                                        for s in (0, 1)]
    for s in (0, 1):
        assert json.loads((out / f"seed-{s}" / "ckpt" / "rft" / "policy" / "adapter_config.json").read_text())
    models = [q.get("model") for q in reqs]
    # seed 0: collection (1 episode) + zero-shot (2); load; rft (2); seed 1 likewise
    assert models == [tiny] * 3 + [None] + ["seed-0/models/rft"] * 2 + [tiny] * 3 + [None] + ["seed-1/models/rft"] * 2
    assert json.loads((out / "config.json").read_text())["policy_base_url"] == server.url


@pytest.mark.skipif(not available(), reason="transformers serve needs the 'serve' extra (fastapi, uvicorn, openai)")
def test_pipeline_through_transformers_serve_equals_the_local_policy(tmp_path, capsys, tiny_model_dir):
    """`colbench pipeline --policy-base-url`, --small-sized and tiny (2 train and 2 test tasks, one
    method; the policy the suite's tiny random Llama over the small tokenizer, ChatML):
    collection, zero-shot and the trained method's evaluation through `transformers serve` started
    in the out-dir (it loads the base by its path, then `models/rft` on the first request for it);
    training here (a strong rft step, so the trained policy's texts differ from the base's). The
    same stages' episodes with the local policy (:func:`run_stage_episodes` without the URL) on the
    same models: greedy decoding, so where the agent's texts match the whole record (reward
    included) matches."""
    from colbench.pipeline import PipelineConfig, run_stage_episodes, task_split
    from colbench_env.rollout import episode_specs

    out = tmp_path / "out"
    tiny = tiny_model_dir(0, 32, "small")
    argv = ["--small", "--policy", tiny, "--out-dir", out, "--n-train-tasks", 2, "--n-test-tasks", 2,
            "--rollouts-per-task", 1, "--max-turns", 2, "--max-new-tokens", 32, "--rollout-temperature", 0,
            "--methods", "rft", "--episodes-in-flight", 2, "--bootstrap-resamples", 100,
            "--trainer-overrides", '{"rft": {"epochs": 2, "policy": {"learning_rate": 2e-3}}}']
    cfg = PipelineConfig(out_dir=str(out), policy=tiny, n_train_tasks=2, n_test_tasks=2, rollouts_per_task=1,
                         max_turns=2, max_new_tokens=32, rollout_temperature=0.0, methods=("rft",), episodes_in_flight=2)
    train, test = task_split(cfg, "train"), task_split(cfg, "test")
    # a random policy solves none of these: one successful rollout (the ground truth
    # as the answer) is already in the file, as if collected before an interruption, so rft trains
    _seed_success(out, cfg, train[0], episode_specs(2, n_tasks=2)[0])
    with TransformersServe(cwd=out) as server:
        assert _pipeline_cli(*argv, "--policy-base-url", server.url) == 0, capsys.readouterr().err[-3000:]
    config = json.loads((out / "config.json").read_text())
    assert config["policy_base_url"] == server.url
    assert json.loads((out / "models" / "rft" / "pipeline_done.json").read_text())["metrics"]
    served = {name: {r["episode_id"]: r for r in read_trajectories(out / name)}
              for name in ("rollouts.jsonl", "eval/zero-shot.jsonl", "eval/rft.jsonl")}
    local_cfg = dataclasses.replace(cfg, out_dir=str(tmp_path / "local"))
    assert local_cfg.policy_base_url is None
    from colbench.pipeline import base_policy

    runs = {"rollouts.jsonl": (train, base_policy(cfg), {"1"}), "eval/zero-shot.jsonl": (test, base_policy(cfg), None),
            "eval/rft.jsonl": (test, str(out / "models" / "rft"), None)}
    local = {}
    for name, (tasks, model, only) in runs.items():
        recs = run_stage_episodes(local_cfg, tasks, model, tmp_path / "local" / name.replace("/", "_"), repeats=1,
                                  temperature=0.0, desc=name, only=only)
        local[name] = {r["episode_id"]: r for r in recs}

    def texts(rec):
        return [m["output"] for m in rec["dialogue_history"] if m["role"] == "assistant"]

    pairs = [(name, k) for name in runs for k in local[name]]
    assert len(pairs) == 5 and all(k in served[name] for name, k in pairs)
    same = [(name, k) for name, k in pairs if texts(served[name][k]) == texts(local[name][k])]
    print(f"served vs local: {len(same)} of {len(pairs)} episodes with the same agent texts")
    assert len(same) >= 3, [(texts(served[n][k]), texts(local[n][k])) for n, k in pairs]
    for name, k in same:  # the served policy records its server's counts, the local one its ids; one tokenizer
        assert without_tokens(served[name][k]) == without_tokens(local[name][k])
        assert ({m["tokens"]["fingerprint"] for m in served[name][k]["dialogue_history"] if m["role"] == "assistant"}
                == {m["tokens"]["fingerprint"] for m in local[name][k]["dialogue_history"] if m["role"] == "assistant"})
    # the server played the trained policy, not the base: the strong rft step changed its greedy texts
    zero_shot, rft = served["eval/zero-shot.jsonl"], served["eval/rft.jsonl"]
    assert any(texts(rft[k]) != texts(zero_shot[k]) for k in rft)
