"""SWEET-RL's candidates from the served policy (issue 49, part 1): ``candidate_base_url`` sends each
state's candidate request to an OpenAI-compatible server -- ``n`` choices in one request where the
server answers them, else one request per candidate -- seeded with the state's stream; a server that
dies in the middle of the stage leaves the states written so far, and a resumed update (against a
server restarted elsewhere) writes the same file as an uninterrupted one."""
import shutil

import pytest
import torch

from colbench.agents.sweet_rl import _CANDIDATE_STREAM, StageFiles, StageMismatch, SweetRL, SweetRLConfig
from colbench.benchmarks.stand_in_server import StandInServer, sampled_reply
from colbench_env.lm.base import BackendError, derived_seed
from openai_test_server import OpenAITestServer
from samples import BAD, GOOD, MID
from test_sweet_rl_stages import _config, _lines

DATA = [GOOD, BAD, MID]


@pytest.fixture(scope="module")
def model_dir(tiny_model_dir):
    """The suite's tiny Llama (hidden size 64) over the small tokenizer (:func:`tiny_models.small_tokenizer`):
    the candidates' requests and files do not depend on the tokenizer, and its logits
    cost ~25x less than over SmolLM2's 49,152 ids."""
    return tiny_model_dir(0, 64, "small")


def _chat_requests(server):
    return [r for r in server.state.requests if "messages" in r]


@pytest.fixture(scope="module")
def trainer(model_dir):
    torch.set_num_threads(1)
    return SweetRL(_config(model_dir))


@pytest.mark.parametrize("mode", [None, "onechoice"])
def test_one_request_of_n_per_state_seeded_by_its_stream(trainer, model_dir, mode):
    """A server that answers ``n`` choices gets one request per state: the policy's model name (by
    default), the state's context, ``n_candidates``, the candidate temperature and length, and the
    state's seed; one that answers a single choice is asked once per candidate, seeds counting up
    from the state's. The candidates are the server's texts, in order, with their finish reasons."""
    records = trainer.training_records(DATA)
    states = trainer.select_states(records)
    with OpenAITestServer(mode=mode) as server:
        t = SweetRL(_config(model_dir, candidate_base_url=server.url, candidate_max_new_tokens=5,
                            candidate_temperature=0.7))
        _, stats = t.step_pairs(records)
        requests = _chat_requests(server)
    assert stats["n_states"] == len(states)
    per_state = 1 if mode is None else 4
    assert len(requests) == per_state * len(states)
    for i, (_, turn) in enumerate(states):
        seed = derived_seed(3, _CANDIDATE_STREAM, 0, i)
        mine = [r for r in requests if r["seed"] in range(seed, seed + per_state)]
        assert [r["seed"] for r in mine] == list(range(seed, seed + per_state))
        for r in mine:
            assert r["model"] == model_dir and r["messages"] == turn.messages
            assert (r["max_tokens"], r["temperature"], r["top_p"]) == (5, 0.7, 1.0)
            assert r["n"] == 4 - (r["seed"] - seed)  # the rest of the candidates, asked again
    # the texts: choice k of the one request, or choice 0 of each of the n requests
    last_user = [m for m in states[0][1].messages if m["role"] == "user"][-1]["content"]
    with OpenAITestServer(mode=mode) as server:
        t = SweetRL(_config(model_dir, candidate_base_url=server.url))
        acts = t.sample_candidates(states[0][1].messages, 0)
    want = [f"ECHO[{k}] {last_user}" for k in range(4)] if mode is None else [f"ECHO[0] {last_user}"] * 4
    assert [str(a) for a in acts] == want and [a.finish_reason for a in acts] == ["stop"] * 4


def test_a_server_that_dies_mid_stage_resumes_from_the_last_state_written(model_dir, tmp_path, monkeypatch):
    """Kill the stand-in server after the second state is written: the update stops (BackendError
    naming the kept states); resumed against a server started again on another port, it samples only
    the remaining states and writes the same candidates.jsonl, pairs and policy as an update whose
    server never died. Sampling locally in that stage directory instead is refused (another
    ``candidate_model``)."""
    timing = {"median_s": 0.01, "sigma": 0.5, "cap_s": 0.1}
    with StandInServer(**timing) as server:
        whole = SweetRL(_config(model_dir, candidate_base_url=server.url, candidate_model="sampler"))
        m_whole = whole.update(DATA, stage_dir=tmp_path / "whole")
    want = _lines(tmp_path / "whole" / "candidates.jsonl")
    states = want[1:]
    # the candidates are the server's seeded samples of each state
    t0 = SweetRL(_config(model_dir, candidate_base_url="http://127.0.0.1:9/v1", candidate_model="sampler"))
    first = t0.select_states(t0.training_records(DATA))[0][1]
    assert states[0]["actions"] == [sampled_reply(first.messages, derived_seed(3, _CANDIDATE_STREAM, 0, 0), k)
                                    for k in range(4)]
    assert len({a for s in states for a in s["actions"]}) > len(states)  # samples differ within a state

    d = tmp_path / "killed"
    server = StandInServer(**timing).__enter__()
    real_append = StageFiles.append_state
    written = []

    def append_then_kill(self, entry, **kw):
        real_append(self, entry, **kw)
        written.append(entry["state"])
        if len(written) == 2:
            server.kill()

    monkeypatch.setattr(StageFiles, "append_state", append_then_kill)
    try:
        with pytest.raises(BackendError, match=rf"sweet-rl candidates of state 2: .*failed after 5 attempt\(s\).*"
                                               rf"the 2 states scored so far are kept in {d}"):
            SweetRL(_config(model_dir, candidate_base_url=server.url, candidate_model="sampler")).update(
                DATA, stage_dir=d)
    finally:
        server.__exit__()
    monkeypatch.setattr(StageFiles, "append_state", real_append)
    assert [s["state"] for s in _lines(d / "candidates.jsonl")[1:]] == [0, 1]

    before = (d / "candidates.jsonl").read_bytes()
    with pytest.raises(StageMismatch, match=r"field 'signature\.config\.candidate_model': 'sampler', but this run has None"):
        SweetRL(_config(model_dir)).update(DATA, stage_dir=d)
    assert (d / "candidates.jsonl").read_bytes() == before

    with StandInServer(**timing) as again:
        resumed = SweetRL(_config(model_dir, candidate_base_url=again.url, candidate_model="sampler"))
        m = resumed.update(DATA, stage_dir=d)
        assert again.stats()["requests"] == len(states) - 2
    assert m["n_states_resumed"] == 2
    assert (d / "candidates.jsonl").read_bytes() == (tmp_path / "whole" / "candidates.jsonl").read_bytes()
    for k in ("critic_loss", "n_step_pairs", "mean_advantage_gap", "policy_loss"):
        assert m[k] == m_whole[k], k
    a, b = whole.policy.trainable_parameters(), resumed.policy.trainable_parameters()
    assert all(torch.equal(a[k], b[k]) for k in a)


def test_candidate_server_settings_are_checked():
    from colbench.agents.config import ConfigError

    with pytest.raises(ConfigError, match="field 'candidate_base_url': base_url must be an http"):
        SweetRLConfig(candidate_base_url="localhost:8000")
    with pytest.raises(ConfigError, match="field 'candidate_model'"):
        SweetRLConfig(candidate_model="  ")
    with pytest.raises(ConfigError, match="field 'candidate_timeout_s'"):
        SweetRLConfig(candidate_timeout_s=0)
    assert SweetRLConfig(candidate_base_url=["http://a:1/v1", "http://b:2/v1/"]).candidate_base_url == \
        "http://a:1/v1,http://b:2/v1"


def test_stage_parts_merge_in_state_order_and_resume_across_process_counts(tmp_path):
    """Part files (one per process) are read on resume whatever number of processes wrote them, and
    merged into candidates.jsonl in state order; a part made under another signature is refused."""
    sig = {"config": {}, "trajectories_sha256": "x", "n_trajectories": 1, "update": 0}
    keys = [(i, "t0", 2 * i) for i in range(5)]
    entry = lambda i: {"state": i, "task": "t0", "turn": 2 * i, "actions": ["a", "b"],  # noqa: E731
                       "finish_reasons": ["stop", "length"], "scores": [0.1 * i, -0.1]}
    stages = StageFiles(tmp_path, sig)
    assert stages.open_candidates(keys, {"critic_loss": 0.5}) == {}
    for i in (3, 1):
        stages.append_state(entry(i), part=1)
    stages.append_state(entry(0), part=0)
    # a resumed run with another number of processes sees every state of every part
    again = StageFiles(tmp_path, sig)
    assert sorted(again.open_candidates(keys, {"critic_loss": 0.5})) == [0, 1, 3]
    again.append_state(entry(4))  # one process now: straight into candidates.jsonl
    again.append_state(entry(2), part=2)
    again.merge_parts(keys)
    lines = _lines(tmp_path / "candidates.jsonl")
    assert [x.get("state") for x in lines] == [None, 0, 1, 2, 3, 4] and lines[1:] == [entry(i) for i in range(5)]
    assert not list(tmp_path.glob("candidates.part-*"))
    before = (tmp_path / "candidates.jsonl").read_bytes()
    again.merge_parts(keys)  # in order, no part: nothing rewritten
    assert (tmp_path / "candidates.jsonl").read_bytes() == before
    # a part file of another run
    other = StageFiles(tmp_path / "o", dict(sig, update=1))
    other.open_candidates(keys, {})
    other.append_state(entry(0), part=0)
    shutil.copy(tmp_path / "o" / "candidates.part-0.jsonl", tmp_path / "candidates.part-7.jsonl")
    with pytest.raises(StageMismatch, match=r"candidates\.part-7\.jsonl: field 'header\.signature\.update': 1, but this "
                                            r"run has 0"):
        StageFiles(tmp_path, sig).open_candidates(keys, {"critic_loss": 0.5})


def test_the_pipelines_sweet_rl_asks_the_policy_server_and_stops_resumably_when_it_is_down(model_dir, tmp_path):
    """--policy-base-url gives SWEET-RL's trainer config the server; a server that does not answer in
    the candidate stage stops the method with StageFailed (exit 1 on the command line), the trained
    critic kept in the stage files and no stage marker written, so that a rerun resumes."""
    from colbench.errors import StageFailed
    from colbench.pipeline import PipelineConfig, train_method, trainer_config

    overrides = {"sweet-rl": {"n_candidates": 2, "pairs_per_state": 1, "state_fraction": 1.0,
                              "critic_pairs": "all_ordered", "critic": {"learning_rate": 1e-3}}}
    cfg = PipelineConfig(out_dir=str(tmp_path), methods=("sweet-rl",), max_turns=3, max_new_tokens=6,
                         policy_base_url="http://127.0.0.1:9/v1", trainer_overrides=overrides)
    conf = trainer_config(cfg, "sweet-rl", model_dir)
    assert conf.candidate_base_url == "http://127.0.0.1:9/v1" and conf.candidate_model is None
    assert trainer_config(PipelineConfig(out_dir=str(tmp_path), methods=("sweet-rl",)), "sweet-rl",
                          model_dir).candidate_base_url is None
    with pytest.raises(StageFailed, match=r"sweet-rl: sweet-rl candidates of state 0: .*127\.0\.0\.1:9/v1.*the 0 states "
                                          r"scored so far are kept in .*stages/sweet-rl.*run the same command again"):
        train_method(cfg, "sweet-rl", model_dir, DATA, tmp_path)
    assert (tmp_path / "stages" / "sweet-rl" / "critic.json").exists()
    assert not (tmp_path / "models" / "sweet-rl" / "pipeline_done.json").exists()
