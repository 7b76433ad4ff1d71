"""The critic-analysis benchmark: held-out pairwise accuracy of three critics on the colour tasks.

Real tiny random Llamas, real LoRA training; nothing is mocked. The command's default model (a tiny
Llama over SmolLM2's tokenizer) runs in :func:`test_main_json_and_out`; the other runs load a tiny
Llama over the small-vocabulary tokenizer (the ``tiny_model_dir`` and ``small_tok`` fixtures), whose
vocabulary projection costs a fiftieth of SmolLM2's.
"""
from __future__ import annotations

import argparse
import json

import pytest
import torch

from colbench.cli import critic_analysis as ca_cli
from colbench.critics import analysis as ca

KEYS = ("pairwise_accuracy_logprob_with_info", "pairwise_accuracy_logprob_without_info",
        "pairwise_accuracy_value_head_with_info")


@pytest.fixture(scope="module")
def result(tiny_model_dir):
    torch.set_num_threads(1)
    # every critic on the same tiny Llama (seed 1, as the default critic's), 12 epochs: the with-info
    # critic ranks every held-out pair right on each of 4 model seeds tried (8 epochs: 3 of 4)
    return ca.run(n_train_tasks=12, n_test_tasks=6, epochs=12, seed=0,
                  model=tiny_model_dir(seed=1, hidden_size=64, tokenizer="small-smollm2-template"))


def test_held_out_pairs_are_unseen_and_ordered():
    train = {r["task"]["task_id"] for g in ca.colour_data(range(12), 0) for r in g}
    groups = ca.colour_data(range(12, 18), 1)
    assert not train & {r["task"]["task_id"] for g in groups for r in g}
    for g in groups:
        assert sorted(r["reward"] for r in g) == [0.0, 0.0, 1.0]


def test_pairwise_accuracy_counts_ties_half():
    a, b, c = {"s": 2.0}, {"s": 1.0}, {"s": 1.0}
    assert ca.pairwise_accuracy(lambda r: r["s"], [(a, b), (b, a), (b, c)]) == pytest.approx(0.5)
    with pytest.raises(ValueError, match="no pairs"):
        ca.pairwise_accuracy(lambda r: 0.0, [])


def test_training_info_beats_no_info_on_held_out_tasks(result):
    print(ca.markdown_table(result))
    for k in KEYS:
        assert 0.0 <= result[k] <= 1.0
    assert result["n_test_pairs"] == 12 and result["n_train_pairs"] == 24
    assert result["pairwise_accuracy_logprob_with_info"] >= 0.9
    assert result["pairwise_accuracy_logprob_with_info"] >= result["pairwise_accuracy_logprob_without_info"] + 0.25


def test_value_head_trains(small_tok):
    """The value head's LoRA and head parameters move under the Bradley-Terry loss."""
    from colbench.agents.sweet_rl import all_ordered_pairs

    torch.set_num_threads(1)
    tok = small_tok
    vh = ca.ValueHeadCritic(ca._tiny_llama(tok, 1), tok, ca.short_formatter, lora_r=4, lora_alpha=8,
                            learning_rate=1e-2)
    recs = [r for g in ca.colour_data(range(2), 0) for r in g]
    assert "favourite colour is" in tok.decode(vh.state_ids(recs[0]))  # the critic sees the hidden info
    before = vh.head.weight.detach().clone()
    lora_before = {n: p.detach().clone() for n, p in vh.model.named_parameters() if p.requires_grad}
    vh.train_pairs(all_ordered_pairs(recs, 0.0), epochs=1, batch_size=2)
    assert not torch.equal(before, vh.head.weight)
    assert any(not torch.equal(lora_before[n], p) for n, p in vh.model.named_parameters() if p.requires_grad)


def test_zero_head_regression_first_step_is_adams_sign_step(small_tok):
    """head_init="zeros" (PPO's value head): every value starts at 0, the LoRA gets no gradient
    through a zero head, and Adam's first step moves each head parameter by exactly lr against the
    sign of its MSE gradient; the values after it, from hidden states computed here, match."""
    torch.set_num_threads(1)
    tok = small_tok
    lr = 1e-3
    vh = ca.ValueHeadCritic(ca._tiny_llama(tok, 1), tok, ca.short_formatter, lora_r=4, lora_alpha=8,
                            learning_rate=lr, head_init="zeros")
    recs = [r for g in ca.colour_data(range(2), 0) for r in g][:3]
    targets = [1.0, 0.0, 0.5]
    with torch.no_grad():
        assert vh.values(recs).tolist() == [0.0, 0.0, 0.0]
        body = getattr(vh.model.get_base_model(), vh.model.get_base_model().base_model_prefix)
        h = torch.stack([body(input_ids=torch.tensor([vh.state_ids(r)])).last_hidden_state[0, -1] for r in recs])
    lora = {n: p.detach().clone() for n, p in vh.model.named_parameters() if "lora_B" in n}
    vh.train_regression(list(zip(recs, targets)), epochs=1, batch_size=3)
    t = torch.tensor(targets)
    grad_w = (2 * (0 - t)[:, None] * h).mean(0)  # d MSE / d w at w = 0, b = 0
    grad_b = (2 * (0 - t)).mean()
    w = -lr * torch.sign(grad_w)
    b = -lr * torch.sign(grad_b)
    torch.testing.assert_close(vh.head.weight.detach()[0], w, atol=1e-6, rtol=1e-4)
    assert all(torch.equal(lora[n], p) for n, p in vh.model.named_parameters() if "lora_B" in n)
    with torch.no_grad():
        torch.testing.assert_close(vh.values(recs), h @ w + b, atol=1e-5, rtol=1e-4)
    with pytest.raises(ValueError, match="head_init"):
        ca.ValueHeadCritic(ca._tiny_llama(tok, 1), tok, ca.short_formatter, head_init="xavier")


def test_main_json_and_out(tmp_path, capsys):
    parser = argparse.ArgumentParser()
    ca_cli.add_arguments(parser)
    args = parser.parse_args(["--train-tasks", "2", "--test-tasks", "1", "--epochs", "1", "--value-head-epochs", "2", "--json",
                              "--out", str(tmp_path)])
    assert ca_cli.main(args) == 0
    out = capsys.readouterr().out.strip().splitlines()
    data = json.loads(out[-1])
    assert data["n_test_pairs"] == 2 and data["value_head_epochs"] == 2 and data["epochs"] == 1
    for k in KEYS:
        assert 0.0 <= data[k] <= 1.0
    assert "| critic |" in "\n".join(out)
    assert json.loads((tmp_path / "critic_analysis.json").read_text())[KEYS[0]] == data[KEYS[0]]
    assert "pairwise accuracy" in (tmp_path / "critic_analysis.md").read_text()
    bad = parser.parse_args(["--epochs", "0"])
    assert ca_cli.main(bad) == 2


def test_trajectory_split_holds_out_whole_tasks():
    recs = [r for g in ca.colour_data(range(7), 0) for r in g]
    train, test_pairs, counts = ca.trajectory_split(recs, holdout_every=3)
    held = {a["task"]["task_id"] for pair in test_pairs for a in pair}
    assert held == {"t0", "t3", "t6"}  # sorted task ids t0..t6, every 3rd from the first
    assert not held & {r["task"]["task_id"] for r in train}
    assert all(a["reward"] > b["reward"] and a["task"] is b["task"] for a, b in test_pairs)
    assert counts == {"n_train_tasks": 4, "n_test_tasks": 3, "n_train_pairs": 8, "n_test_pairs": 6, "n_records": 21}
    flat = [dict(r, reward=0.0) for r in recs]
    with pytest.raises(ValueError, match="no training pair: every rollout of those tasks has the same reward"):
        ca.trajectory_split(flat)
    with pytest.raises(ValueError, match="holdout_every must be an int >= 2"):
        ca.trajectory_split(recs, holdout_every=1)


def test_main_on_a_trajectory_file(tmp_path, capsys, tiny_model_dir):
    path = tmp_path / "rollouts.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for g in ca.colour_data(range(6), 0) for r in g))
    parser = argparse.ArgumentParser()
    ca_cli.add_arguments(parser)
    args = parser.parse_args(["--trajectories", str(path), "--epochs", "1", "--prompt-style", "compact",
                              "--max-turns", "3", "--max-length", "512", "--json",
                              "--model", tiny_model_dir(seed=1, hidden_size=64, tokenizer="small-smollm2-template")])
    assert ca_cli.main(args) == 0
    out = capsys.readouterr().out.strip().splitlines()
    data = json.loads(out[-1])
    assert (data["n_train_tasks"], data["n_test_tasks"], data["n_test_pairs"]) == (4, 2, 4)
    assert data["data"] == str(path) and data["prompt_style"] == "compact" and data["max_turns"] == 3
    assert all(0.0 <= data[k] <= 1.0 for k in KEYS) and f"Data: {path}" in out[0]
    with open(path, "a") as f:
        f.write('{"task": {"problem_description": "x"}, "dialogue_history": []}\n')
    assert ca_cli.main(args) == 2
    assert f"{path}:19" in capsys.readouterr().out  # the bad record is named by file and line
