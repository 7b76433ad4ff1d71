"""SWEET-RL's resumable stages (``SweetRL.update(..., stage_dir=...)``): the critic and every scored
state are kept as they are made; an interrupted update, resumed, equals an uninterrupted one; files
made with other settings or other trajectories are refused, naming the file and field."""
import json

import pytest
import torch

from colbench.agents.sweet_rl import StageFiles, StageMismatch, SweetRL, SweetRLConfig
from samples import BAD, GOOD, MID


@pytest.fixture(scope="module")
def model_dir(tiny_model_dir):
    """The suite's tiny Llama (hidden size 64) over the small tokenizer (:func:`tiny_models.small_tokenizer`):
    what is checked here does not depend on the tokenizer, and its logits cost ~25x
    less than over SmolLM2's 49,152 ids."""
    return tiny_model_dir(0, 64, "small")


def _config(model_dir, **kw):
    return SweetRLConfig(**{"policy": {"model_name_or_path": model_dir, "learning_rate": 1e-3},
                            "critic": {"learning_rate": 1e-3}, "n_candidates": 4, "pairs_per_state": 2,
                            "state_fraction": 1.0, "max_new_tokens": 6, "critic_pairs": "all_ordered", "seed": 3, **kw})


def _lines(path):
    return [json.loads(x) for x in path.read_text().splitlines() if x.strip()]


class _Interrupt(BaseException):
    pass


def _policy_state(trainer):
    return {k: v.detach().clone() for k, v in trainer.policy.trainable_parameters().items()}


@pytest.fixture(scope="module")
def uninterrupted(model_dir, tmp_path_factory):
    """One update with stage files, one without: the reference every resumed run is compared with."""
    d = tmp_path_factory.mktemp("stages") / "a"
    t = SweetRL(_config(model_dir))
    m = t.update([GOOD, BAD, MID], stage_dir=d)
    plain = SweetRL(_config(model_dir))
    m_plain = plain.update([GOOD, BAD, MID])
    return {"dir": d, "metrics": m, "params": _policy_state(t), "plain_metrics": m_plain,
            "plain_params": _policy_state(plain)}


def test_stage_files_change_nothing_and_hold_every_state(uninterrupted):
    u = uninterrupted
    lines = _lines(u["dir"] / "candidates.jsonl")
    header, states = lines[0]["header"], lines[1:]
    assert header["format"] == StageFiles.FORMAT and header["critic"]["n_critic_pairs"] == 3
    # every agent turn of the three trajectories is a state (state_fraction 1.0), each scored once
    n_turns = sum(1 for rec in (GOOD, BAD, MID) for e in rec["dialogue_history"] if e["role"] == "assistant")
    assert [s["state"] for s in states] == list(range(n_turns)) == list(range(int(u["metrics"]["n_states"])))
    assert all(len(s["actions"]) == len(s["scores"]) == 4 for s in states)
    assert json.loads((u["dir"] / "critic.json").read_text())["metrics"]["critic_loss"] == u["metrics"]["critic_loss"]
    # writing the stage files does not change the update
    for k in ("critic_loss", "n_step_pairs", "mean_advantage_gap", "policy_loss"):
        assert u["metrics"][k] == u["plain_metrics"][k], k
    for k, v in u["params"].items():
        assert torch.equal(v, u["plain_params"][k]), k


def test_interrupted_candidates_resume_to_the_same_pairs_and_policy(model_dir, tmp_path, uninterrupted, monkeypatch):
    u = uninterrupted
    d = tmp_path / "b"
    appended = []
    real_append = StageFiles.append_state

    def append_then_stop(self, entry, **kw):
        real_append(self, entry, **kw)
        appended.append(entry["state"])
        if len(appended) == 2:
            raise _Interrupt  # Ctrl-C after the second state was written

    monkeypatch.setattr(StageFiles, "append_state", append_then_stop)
    with pytest.raises(_Interrupt):
        SweetRL(_config(model_dir)).update([GOOD, BAD, MID], stage_dir=d)
    monkeypatch.setattr(StageFiles, "append_state", real_append)
    assert len(_lines(d / "candidates.jsonl")) == 3  # header + 2 states
    # an append cut mid-line by the interruption: dropped on resume
    with open(d / "candidates.jsonl", "a") as f:
        f.write('{"state": 2, "task": "t0", "act')

    # the resumed update neither retrains the critic nor samples the states already done
    calls = {"critic": 0, "generate": 0}
    t = SweetRL(_config(model_dir))
    real_update_critic, real_generate = t.update_critic, t.policy.generate

    def count_critic(*a, **k):
        calls["critic"] += 1
        return real_update_critic(*a, **k)

    def count_generate(*a, **k):
        calls["generate"] += 1
        return real_generate(*a, **k)

    monkeypatch.setattr(t, "update_critic", count_critic)
    monkeypatch.setattr(t.policy, "generate", count_generate)
    m = t.update([GOOD, BAD, MID], stage_dir=d)
    n = u["metrics"]["n_states"]
    assert calls == {"critic": 0, "generate": n - 2} and m["n_states_resumed"] == 2
    # the same file, the same pairs, the same trained policy as without the interruption
    assert _lines(d / "candidates.jsonl") == _lines(u["dir"] / "candidates.jsonl")
    for k in ("critic_loss", "critic_accuracy", "n_step_pairs", "mean_advantage_gap", "policy_loss"):
        assert m[k] == u["metrics"][k], k
    for k, v in u["params"].items():
        assert torch.equal(v, _policy_state(t)[k]), k


def test_a_critic_retrained_after_its_files_were_lost_must_match_the_header(model_dir, tmp_path, uninterrupted):
    """The candidates alone survive (say, committed from another machine): the critic trains again and,
    training being deterministic, gives the recorded metrics, so the file's scores are its own."""
    import shutil

    d = tmp_path / "c"
    shutil.copytree(uninterrupted["dir"], d)
    shutil.rmtree(d / "critic")
    (d / "critic.json").unlink()
    lines = (d / "candidates.jsonl").read_text().splitlines()
    (d / "candidates.jsonl").write_text("\n".join(lines[:3]) + "\n")
    m = SweetRL(_config(model_dir)).update([GOOD, BAD, MID], stage_dir=d)
    assert m["n_states_resumed"] == 2 and m["policy_loss"] == uninterrupted["metrics"]["policy_loss"]
    # a header whose critic trained otherwise is refused
    e = tmp_path / "e"
    shutil.copytree(d, e)
    shutil.rmtree(e / "critic")
    (e / "critic.json").unlink()
    head, *rest = (e / "candidates.jsonl").read_text().splitlines()
    h = json.loads(head)
    h["header"]["critic"]["critic_loss"] += 0.5
    (e / "candidates.jsonl").write_text("\n".join([json.dumps(h), *rest]) + "\n")
    before = (e / "candidates.jsonl").read_bytes()
    with pytest.raises(StageMismatch, match=r"candidates\.jsonl: field 'header\.critic\.critic_loss'"):
        SweetRL(_config(model_dir)).update([GOOD, BAD, MID], stage_dir=e)
    assert (e / "candidates.jsonl").read_bytes() == before


def test_other_settings_or_trajectories_are_refused_and_nothing_changes(model_dir, uninterrupted):
    d = uninterrupted["dir"]
    before = {p: p.read_bytes() for p in d.rglob("*") if p.is_file()}
    with pytest.raises(StageMismatch, match=r"critic\.json: field 'signature\.config\.candidate_temperature': 1\.0, "
                                            r"but this run has 0\.7"):
        SweetRL(_config(model_dir, candidate_temperature=0.7)).update([GOOD, BAD, MID], stage_dir=d)
    with pytest.raises(StageMismatch, match=r"critic\.json: field 'signature\.trajectories_sha256'"):
        SweetRL(_config(model_dir)).update([GOOD, MID, BAD], stage_dir=d)
    with pytest.raises(StageMismatch, match=r"field 'signature\.config\.state_fraction': 1\.0, but this run has 0\.5"):
        SweetRL(_config(model_dir, state_fraction=0.5)).update([GOOD, BAD, MID], stage_dir=d)
    assert {p: p.read_bytes() for p in d.rglob("*") if p.is_file()} == before


def test_a_state_that_is_not_this_runs_is_refused(model_dir, tmp_path):
    sig = {"config": {}, "trajectories_sha256": "x", "n_trajectories": 1, "update": 0}
    stages = StageFiles(tmp_path, sig)
    keys = [(0, "t0", 0), (1, "t0", 2)]
    assert stages.open_candidates(keys, {"critic_loss": 0.5}) == {}
    stages.append_state({"state": 1, "task": "t0", "turn": 2, "actions": ["a", "b"], "finish_reasons": ["stop", None],
                         "scores": [0.1, 0.2]})
    assert list(stages.open_candidates(keys, {"critic_loss": 0.5})) == [1]
    stages.append_state({"state": 0, "task": "other", "turn": 0, "actions": [], "finish_reasons": [], "scores": []})
    with pytest.raises(StageMismatch, match=r"candidates\.jsonl:3: field 'state': 0 \('other', turn 0\) is not one of "
                                            r"this run's states"):
        stages.open_candidates(keys, {"critic_loss": 0.5})


def test_pipeline_refuses_begun_stages_with_other_overrides(tmp_path):
    """The pipeline's resume check treats a method whose stage files were begun as a trained one: its
    trainer overrides may not change under it (the stage files would refuse later, after collection)."""
    import dataclasses

    from colbench.pipeline import PipelineConfig, check_resume
    from colbench_env.simulators.scripted_backend import VERSION

    old = PipelineConfig(out_dir=str(tmp_path), seed=0, methods=("sweet-rl",),
                         trainer_overrides={"sweet-rl": {"state_fraction": 1.0}})
    (tmp_path / "config.json").write_text(json.dumps({**dataclasses.asdict(old), "human_version": VERSION}))
    (tmp_path / "rollouts.jsonl").write_text('{"episode_id": "x"}\n')
    check_resume(dataclasses.replace(old, trainer_overrides={"sweet-rl": {"state_fraction": 0.5}}))  # nothing begun
    (tmp_path / "stages" / "sweet-rl").mkdir(parents=True)
    (tmp_path / "stages" / "sweet-rl" / "candidates.jsonl").write_text('{"header": {}}\n')
    check_resume(old)
    with pytest.raises(ValueError, match=r"config\.json: field 'trainer_overrides\.sweet-rl': \{'state_fraction': 1\.0\}, "
                                         r"but this run asks \{'state_fraction': 0\.5\} \(its episodes and the begun "
                                         r"stages of sweet-rl were made with the former\)"):
        check_resume(dataclasses.replace(old, trainer_overrides={"sweet-rl": {"state_fraction": 0.5}}))


def test_candidates_are_sampled_candidate_batch_at_a_time_from_the_states_stream(model_dir, monkeypatch):
    """``candidate_batch``: a state's candidates come from calls of that many (the last one the
    rest), one after the other from the state's seeded stream -- the texts of the same calls made by
    hand after seeding that stream; ``None`` is one call of ``n_candidates``. Not a positive int: refused."""
    from colbench.agents.config import ConfigError
    from colbench.agents.sweet_rl import _CANDIDATE_STREAM, derived_seed

    for batch, sizes in ((None, [5]), (2, [2, 2, 1]), (3, [3, 2])):
        t = SweetRL(_config(model_dir, n_candidates=5, candidate_batch=batch))
        calls = []
        real = type(t.policy).generate

        def spy(lm, messages, *, n=1, **kw):
            out = real(lm, messages, n=n, **kw)
            calls.append((n, [str(a) for a in out]))
            return out

        records = t.training_records([GOOD, BAD, MID])
        states = t.select_states(records)
        monkeypatch.setattr(type(t.policy), "generate", spy)
        t.step_pairs(records)
        monkeypatch.undo()
        assert [n for n, _ in calls] == sizes * len(states)
        first = [a for _, texts in calls[:len(sizes)] for a in texts]
        torch.manual_seed(derived_seed(t.config.seed, _CANDIDATE_STREAM, t.updates, 0))
        by_hand = [str(a) for n in sizes for a in t.policy.generate(states[0][1].messages, n=n, max_new_tokens=6,
                                                                     temperature=t.config.candidate_temperature)]
        assert first == by_hand and len(set(first)) > 1
    for bad in (0, -1, 2.5, True):
        with pytest.raises(ConfigError, match="candidate_batch"):
            _config(model_dir, candidate_batch=bad)
