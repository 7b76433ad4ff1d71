"""Trainers on a tiny random Llama with SmolLM2's tokenizer: masks, directions of the updates,
parameters actually changing, checkpoints/resume, the CLI, collection from the real env.

The tokenizer, the tiny model and the sample trajectories are shared fixtures (``conftest.py``).
"""
from __future__ import annotations

import json

import pytest
import torch
from samples import BAD, GOOD, MID, traj

from colbench.agents.mt_dpo import MultiTurnDPO, MultiTurnDPOConfig, trajectory_pairs
from colbench.agents.ppo import PPO, PPOConfig
from colbench.agents.rft import RejectionFineTuning, RFTConfig
from colbench.agents.sweet_rl import SweetRL, SweetRLConfig
from colbench.agents.tokenize import agent_turns, collate, tokenize_trajectory, tokenize_turn
from colbench.agents.trainer_base import ConfigError


def changed(before: dict, after: dict) -> bool:
    return any(not torch.equal(before[k], after[k]) for k in before)


def mask_tokens(seqs) -> int:
    return sum(sum(s.mask) for s in seqs)


# ---- tokenisation ---------------------------------------------------------------------------------
@pytest.mark.parametrize("thought", [True, False])
def test_masks_cover_exactly_the_agent_actions(tok, thought):
    # with a thought before OUTPUT:, the next turn's context shows only the message (as the reference's
    # agent sees it), so the turns cannot share one sequence; without one the paper prompt is
    # prefix-consistent and both turns are packed into one sequence
    record = GOOD if thought else traj(["What number do you add?", "I WANT TO ANSWER: def f(x): return x + 7"],
                                       ["I add seven."], 1.0)
    seqs = tokenize_trajectory(tok, record)
    assert len(seqs) == (2 if thought else 1)
    turns = agent_turns(record)
    assert [t.action for t in turns] == [m["output"] for m in record["dialogue_history"] if m["role"] == "assistant"]
    expected = 0
    for t in turns:
        single = tokenize_turn(tok, t.messages, t.action)
        expected += sum(single.mask)
    assert mask_tokens(seqs) == expected
    trained = [tok.decode([i for i, m in zip(s.input_ids[a:b], s.mask[a:b]) if m]) for s in seqs for a, b in s.turn_spans]
    assert len(trained) == 2 and trained[0].startswith(turns[0].action) and trained[1].startswith(turns[1].action)
    assert all(tx.strip().endswith("<|im_end|>") for tx in trained)
    # the human's reply and the task text are never trained
    text_masked = tok.decode([i for s in seqs for i, m in zip(s.input_ids, s.mask) if m])
    assert "seven" not in text_masked and "my number" not in text_masked


def test_simulator_text_does_not_change_the_trained_tokens(tok):
    long_reply = traj(["What should be added? OUTPUT: What number do you add?",
                       "I WANT TO ANSWER: def f(x): return x + 7"],
                      ["I add seven, and here is a much longer reply from the simulated human " * 5], 1.0)
    a, b = tokenize_trajectory(tok, GOOD), tokenize_trajectory(tok, long_reply)
    assert len(b[-1]) > len(a[-1])  # the last turn's context holds the reply
    assert mask_tokens(a) == mask_tokens(b)
    ta = [i for s in a for i, m in zip(s.input_ids, s.mask) if m]
    tb = [i for s in b for i, m in zip(s.input_ids, s.mask) if m]
    assert ta == tb


def test_history_in_one_message_falls_back_to_one_sequence_per_turn(tok, model_dir):
    def one_message(task, history):
        text = "\n".join(f"{m['role']}: {m['content']}" for m in history)
        return [{"role": "user", "content": task["problem_description"] + "\nHistory:\n" + text}]

    seqs = tokenize_trajectory(tok, GOOD, formatter=one_message)
    assert len(seqs) == 2 and all(len(s.turn_spans) == 1 for s in seqs)
    # packed and per-turn tokenisation give the same trajectory log-probability
    trainer = MultiTurnDPO(MultiTurnDPOConfig(policy={"model_name_or_path": model_dir}))
    packed = trainer.trajectory_logprob(GOOD)
    per_turn = tokenize_trajectory(tok, GOOD, multi_turn=False)
    lm = trainer.policy
    with torch.no_grad():
        b = lm.batch(per_turn)
        total = float((lm.token_logps(b) * b["loss_mask"]).sum())
    assert total == pytest.approx(packed, rel=1e-4, abs=1e-3)


def test_sliced_logits_equal_full_logits(tok, model_dir):
    trainer = RejectionFineTuning(RFTConfig(policy={"model_name_or_path": model_dir}))
    lm = trainer.policy
    seqs = tokenize_trajectory(tok, GOOD) + tokenize_trajectory(tok, BAD)
    b = lm.batch(seqs)
    sliced = lm.token_logps(b, reference=True)
    with torch.no_grad():
        from colbench.agents.losses import token_logprobs

        full = token_logprobs(lm.forward_logits(b, reference=True), b["input_ids"])
    m = b["loss_mask"].bool()
    assert torch.allclose(sliced[m], full[m], atol=1e-5)
    assert collate(seqs, tok.pad_token_id)["loss_mask"].sum() == mask_tokens(seqs)


# ---- trainers -------------------------------------------------------------------------------------
def test_rft_raises_logprob_of_successful_turns_only(model_dir):
    trainer = RejectionFineTuning(RFTConfig(policy={"model_name_or_path": model_dir, "learning_rate": 1e-2}, epochs=6,
                                                      sequences_per_batch=2))
    before_lp = trainer.mean_logprob([GOOD])
    params = trainer.policy.trainable_parameters()
    m = trainer.update([GOOD, BAD, MID])
    assert m["n_trajectories"] == 1 and m["n_tokens"] > 0
    assert changed(params, trainer.policy.trainable_parameters())
    assert trainer.mean_logprob([GOOD]) > before_lp + 0.5
    with pytest.raises(ValueError, match="none of the 2 trajectories"):
        trainer.update([BAD, MID])


def _page_rollouts():
    """Frontend-like rollouts: similarities of two tasks, no ``success`` (ids for checking)."""
    task_a = {"problem_description": "page A", "ground_truth": "<html>A</html>", "task_id": "a"}
    task_b = {"problem_description": "page B", "ground_truth": "<html>B</html>", "task_id": "b"}
    recs = [traj([f"I WANT TO ANSWER: <html>{i}</html>"], [], r, task)
            for i, (task, r) in enumerate(((task_a, 0.9), (task_a, 0.61), (task_a, 0.9), (task_a, 0.6),
                                           (task_b, 0.0), (task_b, 0.0), (task_b, 0.005), (task_b, 0.5)))]
    return recs


def test_rft_keeps_each_tasks_best_rollouts_for_a_continuous_reward():
    from colbench.agents.rft import kept_trajectories

    r = _page_rollouts()
    # by hand: task a's best is 0.9 (two rollouts, both kept); task b's is 0.5 (one)
    assert kept_trajectories(r, 0.01, "task_best") == [r[0], r[2], r[7]]
    assert kept_trajectories(r, 0.95, "task_best") == []  # the best must still reach the threshold
    assert kept_trajectories(r, 0.5, "threshold") == [r[0], r[1], r[2], r[3], r[7]]
    assert kept_trajectories([GOOD, BAD, MID]) == [GOOD]  # the backend's default: successes
    with pytest.raises(ValueError, match="field 'selection'"):
        RFTConfig(selection="best")


def test_pairs_by_reward_difference_for_a_continuous_reward(model_dir):
    from colbench.agents.mt_dpo import all_ordered_pairs

    r = _page_rollouts()
    pairs = [(r.index(a), r.index(b)) for a, b in trajectory_pairs(r, success_threshold=0.0, min_reward_gap=0.02,
                                                                    pairing="all_ordered")]
    # by hand: a: 0.9 > 0.61, 0.6 (both 0.9s); 0.61 vs 0.6 is within the gap. b: 0.5 > 0, 0, 0.005;
    # 0.005 vs 0 is within the gap
    assert pairs == [(0, 1), (0, 3), (2, 1), (2, 3), (7, 4), (7, 5), (7, 6)]
    assert [(r.index(a), r.index(b)) for a, b in all_ordered_pairs(r, 0.02)] == pairs
    # best_vs_lower: the first best of each task vs every lower one (the reference's backend pairs)
    assert [(r.index(a), r.index(b)) for a, b in trajectory_pairs(r, success_threshold=0.0, min_reward_gap=0.02)] == \
        [(0, 1), (0, 3), (7, 4), (7, 5), (7, 6)]
    with pytest.raises(ValueError, match="field 'pairing'"):
        MultiTurnDPOConfig(pairing="all")
    # no pair: the error names the rule (a: 0.61 vs 0.6 alone are within the gap)
    trainer = MultiTurnDPO(MultiTurnDPOConfig(policy={"model_name_or_path": model_dir}, pairing="all_ordered",
                                              success_threshold=0.0, min_reward_gap=0.02))
    with pytest.raises(ValueError, match="has two rollouts whose rewards differ by more than 0.02, so there is no"):
        trainer.update([r[1], r[3]])


def test_frontend_sweet_rl_critic_sees_the_target_page(model_dir):
    """The pipeline's frontend SWEET-RL (trainer_config of --small --env ColBench-Frontend-v0): the
    critic's context is the agent's with the target HTML, and only it, before the instructions; the
    policy's context holds no page; the critic pairs are MT-DPO's (pairs by reward difference)."""
    from colbench.agents.mt_dpo import all_ordered_pairs
    from colbench.agents.sweet_rl import INFO_HEADER, critic_pairs
    from colbench.pipeline import PipelineConfig, preset_settings, trainer_config
    from colbench_env.prompting import agent_instructions

    cfg = PipelineConfig(**preset_settings("small", "ColBench-Frontend-v0"))
    trainer = SweetRL(trainer_config(cfg, "sweet-rl", model_dir))
    r = _page_rollouts()
    rec = r[1]
    history = rec["dialogue_history"][:0]
    agent = trainer.formatter(rec["task"], history)
    critic = trainer._critic_formatter(rec["task"])(rec["task"], history)
    # by hand: the header, "ground_truth:", the target page, a blank line, the frontend instructions
    assert critic[0]["content"] == (f"{INFO_HEADER}\nground_truth:\n<html>A</html>\n\n"
                                    f"{agent_instructions('frontend', 2, 'compact')}")
    assert critic[1:] == agent[1:] and agent[0]["content"] == agent_instructions("frontend", 2, "compact")
    assert not any("<html>A</html>" in m["content"] for m in agent)
    assert critic_pairs(r, trainer.config.min_reward_gap, trainer.config.critic_pairs) == all_ordered_pairs(r, 0.02)


def test_mt_dpo_moves_chosen_up_relative_to_rejected(model_dir):
    assert [(id(a), id(b)) for a, b in trajectory_pairs([GOOD, BAD, MID])] == [(id(GOOD), id(BAD)), (id(GOOD), id(MID))]
    trainer = MultiTurnDPO(MultiTurnDPOConfig(policy={"model_name_or_path": model_dir, "learning_rate": 5e-3}, epochs=3,
                                              beta=0.1, nll_coef=0.1))

    def margin():
        return ((trainer.trajectory_logprob(GOOD) - trainer.trajectory_logprob(GOOD, reference=True))
                - (trainer.trajectory_logprob(BAD) - trainer.trajectory_logprob(BAD, reference=True)))

    assert margin() == pytest.approx(0.0, abs=1e-4)  # LoRA starts at zero: policy == reference
    params = trainer.policy.trainable_parameters()
    m = trainer.update([GOOD, BAD, MID])
    assert m["n_pairs"] == 2
    assert changed(params, trainer.policy.trainable_parameters())
    assert margin() > 1.0
    with pytest.raises(ValueError, match=r"mt-dpo: no task among the 2 trajectories has a rollout with reward >= 1 and a worse one, so "
                                         r"there is no \(chosen, rejected\) pair; sampled rollouts give them"):
        trainer.update([BAD, MID])


def test_sweet_rl_step_dpo_moves_critic_preferred_action_up(tiny_model_dir):
    # the small-vocabulary tiny Llama: what is checked does not hang on the vocabulary, which costs a
    # fiftieth of SmolLM2's here
    model = tiny_model_dir(0, 64, tokenizer="small-smollm2-template")
    cfg = SweetRLConfig(policy={"model_name_or_path": model, "learning_rate": 5e-3},
                        critic={"learning_rate": 5e-3, "epochs": 2}, epochs=3, state_fraction=1.0, n_candidates=4,
                        pairs_per_state=4, nll_coef=0.05, beta=1.0, seed=0,
                        critic_pairs="all_ordered")  # every ordered pair: MID vs BAD too
    trainer = SweetRL(cfg)
    crit_before = trainer.critic.trainable_parameters()
    m_critic = trainer.update_critic([GOOD, BAD, MID])
    assert m_critic["n_critic_pairs"] == 3
    assert changed(crit_before, trainer.critic.trainable_parameters())
    # injected candidates at every state; the critic's ranking decides chosen/rejected
    cands = {}
    for rec in (GOOD, BAD, MID):
        for t in agent_turns(rec):
            cands[("t0", t.index)] = [t.action, "no", "I WANT TO ANSWER: pass", "OUTPUT: ok"]
    pairs, stats = trainer.step_pairs([GOOD, BAD, MID], candidates=cands)
    assert stats["n_step_pairs"] == len(pairs) > 0 and stats["mean_advantage_gap"] > 0
    policy = trainer.policy

    def margins():
        out = []
        with torch.no_grad():
            for c, r in pairs:
                b = policy.batch(c + r)
                cur = (policy.token_logps(b) * b["loss_mask"]).sum(-1)
                ref = (policy.token_logps(b, reference=True) * b["loss_mask"]).sum(-1)
                out.append(float((cur[0] - ref[0]) - (cur[1] - ref[1])))
        return out

    params = policy.trainable_parameters()
    m = trainer.update_policy(pairs)
    assert changed(params, policy.trainable_parameters())
    after = margins()
    assert sum(after) / len(after) > 0.5 and m["policy_reward_accuracy"] > 0.5


def test_sweet_rl_full_update_samples_candidates(model_dir):
    cfg = SweetRLConfig(policy={"model_name_or_path": model_dir, "learning_rate": 1e-3}, n_candidates=4,
                        pairs_per_state=2, state_fraction=0.5, max_new_tokens=6, seed=1)
    trainer = SweetRL(cfg)
    params = trainer.policy.trainable_parameters()
    m = trainer.update([GOOD, BAD, MID])
    for key in ("critic_loss", "n_critic_pairs", "n_step_pairs", "policy_loss", "policy_reward_accuracy"):
        assert key in m, key
    assert m["n_step_pairs"] > 0
    assert changed(params, trainer.policy.trainable_parameters())


def test_ppo_raises_probability_of_positive_advantage_turns(model_dir):
    win = traj(["OUTPUT: Is it plus seven?", "I WANT TO ANSWER: def f(x): return x + 7"], ["Yes."], 1.0)
    lose = traj(["OUTPUT: Tell me everything.", "I WANT TO ANSWER: def f(x): return 0"], ["No."], 0.0)
    trainer = PPO(PPOConfig(policy={"model_name_or_path": model_dir, "learning_rate": 3e-3}, update_epochs=3,
                            trajectories_per_batch=2, kl_coef=0.01))
    w0, l0 = sum(trainer.turn_logprobs(win)), sum(trainer.turn_logprobs(lose))
    params = trainer.policy.trainable_parameters()
    head = trainer.value_head.weight.detach().clone()
    m = trainer.update([win, lose, win, lose])
    for key in ("approx_kl", "clipfrac", "explained_variance", "pg_loss", "v_loss", "kl"):
        assert key in m, key
    assert m["n_turns"] == 8 and m["mean_reward"] == 0.5
    assert changed(params, trainer.policy.trainable_parameters())
    assert not torch.equal(head, trainer.value_head.weight)
    assert sum(trainer.turn_logprobs(win)) > w0 + 0.5
    assert sum(trainer.turn_logprobs(lose)) < l0 - 0.5



def test_ppo_refuses_rewards_all_zero_and_keeps_undefined_metrics_out_of_json(model_dir, tmp_path, capsys):
    from colbench.agents.config import NoTrainingData

    cfg = PPOConfig(policy={"model_name_or_path": model_dir}, update_epochs=1)
    with pytest.raises(NoTrainingData, match=r"^ppo: all 2 trajectories have reward 0, so there is no return"):
        PPO.check_data([BAD, traj(["I WANT TO ANSWER: def f(x): return 1"], [], 0.0)], cfg)
    PPO.check_data([BAD, MID], cfg)  # one reward above 0 is something to follow
    trainer = PPO(cfg)
    with pytest.raises(NoTrainingData, match=r"^ppo: all 1 trajectories have reward 0"):
        trainer.update([BAD])
    assert trainer.updates == 0
    # one turn each, the same reward: every return is 1, so the explained variance is undefined (CleanRL: NaN)
    one = traj(["I WANT TO ANSWER: def f(x): return x + 7"], [], 1.0)
    m = trainer.update([one, one])
    assert m["explained_variance"] is None and m["n_turns"] == 2
    m = trainer._record({"loss": float("nan"), "kl": torch.tensor(float("inf")), "n": 3})  # a diverged update
    assert m == {"loss": None, "kl": None, "n": 3.0, "update": 2}
    err = capsys.readouterr().err
    assert "ppo update 2: loss is nan (kept as null)" in err and "ppo update 2: kl is inf (kept as null)" in err

    def no_constant(name):
        raise AssertionError(f"{name} in trainer.json")

    trainer.save(tmp_path / "ck")
    meta = json.loads((tmp_path / "ck" / "trainer.json").read_text(), parse_constant=no_constant)  # no NaN, Infinity
    assert [h["explained_variance"] for h in meta["history"][:1]] == [None]
    assert meta["history"][1]["loss"] is None

# ---- config, checkpoints, CLI, collection -------------------------------------------------------
def test_configs_validate_and_name_the_field():
    with pytest.raises(ConfigError, match="field 'beta'"):
        SweetRLConfig(beta=0)
    with pytest.raises(ConfigError, match="field 'n_candidates'"):
        SweetRLConfig(n_candidates=1)
    with pytest.raises(ConfigError, match="field 'state_fraction'"):
        SweetRLConfig(state_fraction=1.5)
    with pytest.raises(ConfigError, match="field 'clip_coef'"):
        PPOConfig(clip_coef=-1)
    with pytest.raises(ConfigError, match="field 'sequences_per_batch'"):
        RFTConfig(sequences_per_batch=0)
    with pytest.raises(ConfigError, match="field 'critic.lora_r'"):
        SweetRLConfig(critic={"lora_r": 0})
    with pytest.raises(ConfigError, match="field 'policy.learning_rate'"):
        PPOConfig(policy={"learning_rate": -1.0})
    d = SweetRLConfig()
    assert (d.beta, d.n_candidates, d.pairs_per_state, d.state_fraction) == (0.1, 16, 4, 0.1)


def test_save_load_resumes_adapter_optimizer_and_counters(model_dir, tmp_path):
    trainer = MultiTurnDPO(MultiTurnDPOConfig(policy={"model_name_or_path": model_dir, "learning_rate": 5e-3}))
    trainer.update([GOOD, BAD])
    trainer.save(tmp_path / "ck")
    lp = trainer.trajectory_logprob(GOOD)
    loaded = MultiTurnDPO.load(tmp_path / "ck")
    assert loaded.updates == 1 and len(loaded.history) == 1
    assert loaded.trajectory_logprob(GOOD) == pytest.approx(lp, abs=1e-4)
    assert loaded.policy.optimizer.state_dict()["state"]  # AdamW moments restored
    loaded.update([GOOD, BAD])
    assert loaded.updates == 2
    with pytest.raises(ValueError, match="algorithm 'mt-dpo', not 'rft'"):
        RejectionFineTuning.load(tmp_path / "ck")


def test_cli_trains_and_resumes(model_dir, tmp_path, capsys):
    from colbench.cli import main

    path = tmp_path / "trajs.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in (GOOD, BAD, MID)) + "\n")
    out = tmp_path / "run"
    assert main(["train", "rft", "--trajectories", str(path), "--model", model_dir, "--out", str(out),
                 "--config-json", '{"policy": {"learning_rate": 0.001, "lora_r": 4}}']) == 0
    assert json.loads((out / "trainer.json").read_text())["updates"] == 1
    assert main(["train", "rft", "--trajectories", str(path), "--out", str(out)]) == 0
    assert "resumed rft" in capsys.readouterr().out
    assert json.loads((out / "trainer.json").read_text())["updates"] == 2
    capsys.readouterr()
    assert main(["train", "ppo", "--trajectories", str(path), "--model", model_dir, "--out", str(tmp_path / "p"),
                 "--config-json", '{"nope": 1}']) == 2
    err = capsys.readouterr().err
    assert err.startswith("colbench train: error: ") and "unknown field" in err and len(err.splitlines()) == 1


def test_collect_runs_real_episodes_with_the_policy(model_dir):
    import gymnasium as gym

    import colbench_env  # noqa: F401  (registers the envs)

    trainer = RejectionFineTuning(RFTConfig(policy={"model_name_or_path": model_dir}, max_new_tokens=4,
                                            temperature=0.0))
    recs = trainer.collect(lambda: gym.make("ColBench-Backend-v0"), n_episodes=1)
    assert len(recs) == 1 and recs[0]["dialogue_history"][0]["role"] == "assistant"
    # the collected records feed the trainers' tokenisation directly
    assert mask_tokens(tokenize_trajectory(trainer.tokenizer, recs[0])) > 0


def test_trainer_contexts_are_the_agents_contexts(model_dir):
    """Trained contexts must be what the policy saw when acting: same instructions (turn budget and
    prompt style) for the formatter of recorded trajectories and for ``act`` on env observations."""
    import gymnasium as gym

    import colbench_env  # noqa: F401
    from colbench_env.prompting import agent_instructions, observation_to_messages, trajectory_turns

    env = gym.make("ColBench-Backend-v0", split="test", max_turns=3)
    obs, _ = env.reset(seed=0)
    env.step("OUTPUT: What exactly do you want?")
    obs, *_ = env.step("OUTPUT: Anything else?")
    rec = env.unwrapped.trajectory_record()
    dh = rec["dialogue_history"]
    assert [m["role"] for m in dh] == ["assistant", "user", "assistant", "user"]
    for style in ("paper", "compact"):
        trainer = RejectionFineTuning(RFTConfig(policy={"model_name_or_path": model_dir}, max_turns=3,
                                                prompt_style=style))
        assert trainer.formatter(rec["task"], [])[0]["content"] == agent_instructions("backend", 3, style)
        assert [trainer.formatter(rec["task"], dh[:i]) for i in (0, 2)] == \
            [ctx for ctx, _ in trajectory_turns(rec, max_turns=3, style=style)]
        assert trainer._observation_messages(obs) == observation_to_messages(obs, max_turns=3, style=style)
    with pytest.raises(ConfigError, match="field 'prompt_style'"):
        RFTConfig(prompt_style="tiny")
    with pytest.raises(ConfigError, match="field 'max_turns'"):
        RFTConfig(max_turns=0)
