"""ColBench in TRL's ``GRPOTrainer`` (:mod:`colbench.integrations.trl`).

A tiny random Llama (a small tokenizer, :func:`tiny_models.small_tokenizer`; Qwen2.5's chat template
so that TRL parses its tool calls) is warm-started on a few demonstrations of the two tools, then trained with LoRA for two GRPO steps
on two ColBench backend tasks with the scripted human. The dialogues are rebuilt from TRL's own
completion logs (``completions/*.parquet``) and scored by ``colbench evaluate`` in a fresh process:
the scores equal the rewards TRL logged. The human's logged replies equal a fresh scripted human's;
the LoRA weights move; no prompt, reply or logged completion holds a ground truth or a test.
Frontend: the same environment class through its tools (no trainer), scored as ``colbench evaluate``
scores the recorded episode.

Served (TRL's OpenEnv pattern, :class:`ColBenchServerEnvironments`): the same warm-started policy
trains for two GRPO steps whose episodes are played on a ``colbench serve`` app started here
(uvicorn on 127.0.0.1, a free port); the server records every episode it finished, and the rewards
TRL logged are those episodes' rewards, rollout by rollout (matched by dialogue). The served
environment answers every tool call as the in-process one does (played side by side), and a
session the server reaped for idleness is replaced at the next reset.
"""
from __future__ import annotations

import glob
import json
import time

import pytest
import torch
from samples import FEE_TASK, SCALE_TASK, colbench_evaluate, scripted_replies_hold, secrets
from tiny_models import fit_chats, small_tokenizer, tiny_llama

from colbench.integrations._common import EpisodeParts
from colbench.integrations.trl import ColBenchEnvironments, ColBenchServerEnvironments, tool_instructions
from colbench_env.protocol import parse_agent_turn
from colbench_env.tasks import load_tasks

pytest.importorskip("trl")

TASKS = [SCALE_TASK, FEE_TASK]
# (question or None, answer) per task: asking then answering right, or guessing at once (wrong / 3 of 4 tests)
PLANS = {"scale": [("What do I multiply x by?", "def scale(x):\n    return 7919 * x + 1"),
                   (None, "def scale(x):\n    return 7919 * x")],
         "fee": [("How much is the fee per day?", "def late_fee(days):\n    return min(0.35 * days, 5)"),
                 (None, "def late_fee(days):\n    return 0.35 * days")]}
MAX_TURNS = 3
SECRETS = secrets(TASKS)


def _call(name: str, **arguments) -> dict:
    return {"role": "assistant", "content": "",
            "tool_calls": [{"type": "function", "function": {"name": name, "arguments": arguments}}]}


def _demonstrations(envs: ColBenchEnvironments) -> tuple[list[list[dict]], list]:
    """The plans played through the adapter's own tools (so the human's replies are the real ones)."""
    env, chats = envs(), []
    for row in envs.dataset():
        for question, answer in PLANS[row["task_id"]]:
            msgs = [row["prompt"][0], {"role": "user", "content": env.reset(**row)}]
            if question:
                msgs += [_call("ask_human", message=question),
                         {"role": "tool", "name": "ask_human", "content": env.ask_human(question)}]
            msgs += [_call("submit_answer", answer=answer),
                     {"role": "tool", "name": "submit_answer", "content": env.submit_answer(answer)}]
            chats.append(msgs)
    return chats, [env.ask_human, env.submit_answer]


@pytest.fixture(scope="module")
def policy_dir(tmp_path_factory):
    """A tiny Llama that calls the tools as the demonstrations do (branching between asking first and
    guessing at once), saved with a tokenizer whose chat template TRL parses tool calls from."""
    from trl.chat_template_utils import qwen2_5_chat_template

    torch.set_num_threads(1)
    with ColBenchEnvironments("backend", TASKS, max_turns=MAX_TURNS, eval_workers=1) as envs:
        chats, tools = _demonstrations(envs)
    # a small tokenizer that also learnt the demonstrations' tool calls as the template writes them
    plain = small_tokenizer(chat_template=qwen2_5_chat_template)
    tok = small_tokenizer(chat_template=qwen2_5_chat_template,
                          extra=[plain.apply_chat_template(c, tools=tools, tokenize=False) for c in chats])
    model = tiny_llama(tok, 0)
    loss = fit_chats(model, tok, chats, tools, steps=150, lr=5e-3)
    assert loss < 0.2, loss
    model.generation_config.eos_token_id = model.generation_config.pad_token_id = tok.eos_token_id
    d = tmp_path_factory.mktemp("tool_policy")
    model.save_pretrained(d)
    tok.save_pretrained(d)
    return str(d)


def _train(policy_dir, out, envs) -> dict:
    """Two GRPO steps (4 rollouts of one task each) with LoRA on ``envs``; TRL's logs and the LoRA weights."""
    from peft import LoraConfig
    from trl import GRPOConfig, GRPOTrainer

    args = GRPOConfig(output_dir=str(out), per_device_train_batch_size=4, num_generations=4, max_steps=2,
                      max_completion_length=192, temperature=0.7, learning_rate=1e-2, logging_steps=1,
                      log_completions=True, num_completions_to_print=0, report_to="none", use_cpu=True, bf16=False,
                      gradient_checkpointing=False, save_strategy="no", shuffle_dataset=False, seed=0)
    trainer = GRPOTrainer(model=policy_dir, args=args, train_dataset=envs.dataset(), environment_factory=envs,
                          peft_config=LoraConfig(r=8, lora_alpha=16, target_modules=["q_proj", "v_proj"],
                                                 task_type="CAUSAL_LM"))
    before = {n: p.detach().clone() for n, p in trainer.model.named_parameters() if "lora_" in n}
    trainer.train()
    after = {n: p.detach().clone() for n, p in trainer.model.named_parameters() if "lora_" in n}
    import pandas as pd

    rows = [r for f in sorted(glob.glob(str(out / "completions" / "*.parquet")))
            for r in pd.read_parquet(f).to_dict("records")]
    return {"rows": rows, "history": trainer.state.log_history, "before": before, "after": after,
            "dataset": envs.dataset(), "tools": trainer._env_tools[None], "out": out}


@pytest.fixture(scope="module")
def grpo(policy_dir, tmp_path_factory):
    """Two GRPO steps on in-process ColBench episodes."""
    with ColBenchEnvironments("backend", TASKS, max_turns=MAX_TURNS, eval_workers=1) as envs:
        return _train(policy_dir, tmp_path_factory.mktemp("grpo"), envs)


class _RecordingParts(EpisodeParts):
    """The server's shared parts, keeping the trajectory record of every episode its envs finish."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.finished: list[dict] = []

    def make_env(self):
        env = super().make_env()
        step = env.step

        def recording_step(action):
            out = step(action)
            if out[2] or out[3]:
                self.finished.append(env.trajectory_record())
            return out
        env.step = recording_step
        return env


@pytest.fixture(scope="module")
def served_grpo(policy_dir, tmp_path_factory):
    """Two GRPO steps whose episodes are played on a colbench serve app on 127.0.0.1 (4 sessions at
    most: one per rollout of TRL's generation batch); what the server finished."""
    pytest.importorskip("openenv")
    from serve_helpers import ServeThread

    from colbench.integrations.openenv import create_colbench_app

    parts = _RecordingParts("backend", TASKS, max_turns=MAX_TURNS, eval_workers=1)
    app = create_colbench_app("ColBench-Backend-v0", parts=parts, max_sessions=4, idle_timeout=600)
    try:
        with ServeThread(app) as server:
            with ColBenchServerEnvironments(server.url) as envs:
                run = _train(policy_dir, tmp_path_factory.mktemp("served_grpo"), envs)
            deadline = time.monotonic() + 30
            while app.state.colbench_sessions() and time.monotonic() < deadline:
                time.sleep(0.1)
            run["sessions_left"] = app.state.colbench_sessions()
    finally:
        parts.close()
    run["finished"] = list(parts.finished)
    return run


def _plain(x):
    """numpy/pyarrow containers from the parquet log as plain Python."""
    if isinstance(x, dict):
        return {k: _plain(v) for k, v in x.items()}
    if hasattr(x, "tolist") and not isinstance(x, str):
        x = x.tolist()
    if isinstance(x, (list, tuple)):
        return [_plain(v) for v in x]
    return x


def _rebuild(prompt: list[dict], completion: list[dict]) -> tuple[dict, list[tuple[list, str]]]:
    """The ColBench episode a logged rollout played, from TRL's log alone, by the adapter's documented
    mapping: each tool call that ran is one agent turn (``ask_human(m)`` = ``"OUTPUT:\\n" + m``,
    ``submit_answer(a)`` = ``"OUTPUT:\\nI WANT TO ANSWER:\\n" + a``); the tool result after an
    ``ask_human`` that did not end the episode is the human's reply. Returns the trajectory record and
    ``(dialogue before the reply, logged reply)`` pairs."""
    task = next(t for t in TASKS if t["problem_description"] == prompt[-1]["content"])
    dialogue, replies, answer, over = [], [], "", False
    for k, msg in enumerate(completion):
        if msg["role"] != "assistant" or not msg.get("tool_calls"):
            continue
        results = []
        for m in completion[k + 1:]:
            if m["role"] != "tool":
                break
            results.append(m["content"])
        for j, call in enumerate(msg["tool_calls"]):
            fn = call["function"]
            # the parquet log gives every row the union of argument keys, None where absent
            args = {a: v for a, v in (fn.get("arguments") or {}).items() if v is not None}
            result = results[j] if j < len(results) else None
            key = {"ask_human": "message", "submit_answer": "answer"}.get(fn["name"])
            ran = key is not None and set(args) == {key} and isinstance(args[key], str) and not over
            if not ran or (result is not None and result.startswith("{'error'")):
                continue
            action = ("OUTPUT:\n" + args[key]) if key == "message" else ("OUTPUT:\nI WANT TO ANSWER:\n" + args[key])
            turn = parse_agent_turn(action, last_turn=sum(m["role"] == "assistant" for m in dialogue) + 1 >= MAX_TURNS)
            dialogue.append({"role": "assistant", "content": turn.message, "output": turn.output})
            if turn.is_answer:
                answer, over = turn.answer, True
            elif result is not None:
                replies.append(([dict(m) for m in dialogue], result))
                dialogue.append({"role": "user", "content": result})
    return {"task": task, "dialogue_history": dialogue, "answer": answer}, replies


@pytest.mark.slow
def test_logged_rewards_are_colbench_evaluate_scores_of_the_logged_dialogues(grpo, tmp_path):
    rows = grpo["rows"]
    assert len(rows) == 8  # 2 steps x 4 rollouts
    rebuilt = [_rebuild(_plain(r["prompt"]), _plain(r["completion"])) for r in rows]
    n_replies = scripted_replies_hold(rebuilt)  # the human is ColBench's scripted human
    scored = colbench_evaluate([rec for rec, _ in rebuilt], tmp_path)
    logged = [float(r["ColBenchEnvironment"]) for r in rows]
    assert [s["reward"] for s in scored] == pytest.approx(logged, abs=1e-9)
    # not vacuous: the human was asked, some rewards are positive, a group's rewards differ
    assert n_replies > 0
    assert max(logged) > 0
    assert any(h.get("reward_std", 0) > 0 for h in grpo["history"])
    # TRL's step metrics are the mean of those rewards
    means = [h["rewards/ColBenchEnvironment/mean"] for h in grpo["history"] if "rewards/ColBenchEnvironment/mean" in h]
    assert means == pytest.approx([sum(logged[:4]) / 4, sum(logged[4:]) / 4])


@pytest.mark.slow
def test_grpo_moves_the_lora_weights(grpo):
    before, after = grpo["before"], grpo["after"]
    assert before and set(before) == set(after)
    moved = [n for n in before if not torch.equal(before[n], after[n])]
    assert any("lora_B" in n for n in moved), moved


@pytest.mark.slow
def test_the_policy_never_sees_ground_truth_or_tests(grpo):
    from transformers.utils import get_json_schema

    seen = [json.dumps(r) for r in grpo["dataset"]]                           # the prompts TRL starts from
    seen += [json.dumps(get_json_schema(t)) for t in grpo["tools"]]          # the tool schemas in the prompt
    seen += [json.dumps(_plain(r["prompt"])) + json.dumps(_plain(r["completion"])) for r in grpo["rows"]]
    text = "\n".join(seen)
    assert "7919" in text and "0.35" in text  # the human did tell the hidden facts
    assert [s for s in SECRETS if s in text] == []


def test_tools_follow_colbench_rules():
    with ColBenchEnvironments("backend", TASKS, max_turns=2, eval_workers=1) as envs:
        rows = envs.dataset(repeats=2)
        assert [r["task_id"] for r in rows] == ["scale", "scale", "fee", "fee"]
        assert rows[0]["prompt"] == [{"role": "system", "content": tool_instructions("backend", 2)},
                                     {"role": "user", "content": ""}]
        env = envs()
        with pytest.raises(ValueError, match="task_id"):
            env.reset(prompt=rows[0]["prompt"])
        assert env.reset(**rows[0]) == TASKS[0]["problem_description"]
        assert env.get_reward() == 0.0 and not env.done
        with pytest.raises(TypeError):
            env.ask_human(5)
        assert env.ask_human("What do I multiply x by?") == "Multiply x by the prime 7919, then add one."
        # the max_turns-th turn is the answer whatever the tool (ColBench's rule, applied by the env)
        assert "last turn" in env.ask_human("def scale(x):\n    return x * 7919 + 1")
        assert env.done and env.get_reward() == 1.0
        assert env.record["answer"] == "\ndef scale(x):\n    return x * 7919 + 1"
        with pytest.raises(ValueError, match="over"):
            env.submit_answer("def scale(x):\n    return 0")
        # I WANT TO ANSWER: in a message ends the episode with what follows it; unanswered scores 0
        env.reset(**rows[2])
        assert "received" in env.ask_human("I WANT TO ANSWER: def late_fee(days):\n    return 0")
        assert env.done and env.get_reward() == 0.0 and env.record["answer"] == " def late_fee(days):\n    return 0"
        env.reset(**rows[2])
        assert not env.done and env.get_reward() == 0.0


@pytest.mark.slow
@pytest.mark.browser
def test_frontend_tools_score_as_colbench_evaluate(tmp_path):
    tasks = load_tasks("default", kind="frontend")[:1]
    draft = '<html><body><h1 class="text-3xl">Bakery</h1></body></html>'
    final = '<html><body class="bg-yellow-50"><h1 class="text-4xl p-6">Bakery</h1><p>Open daily.</p></body></html>'
    with ColBenchEnvironments("frontend", [t.to_record() for t in tasks], max_turns=3) as envs:
        env = envs()
        env.reset(**envs.dataset()[0])
        reply = env.ask_human(draft)
        env.submit_answer(final)
        reward, record = env.get_reward(), env.record
    assert reply and 0 < reward < 1
    assert tasks[0].ground_truth not in reply
    (scored,) = colbench_evaluate([record], tmp_path)
    assert scored["reward"] == pytest.approx(reward, abs=1e-9)


@pytest.mark.slow
def test_guide_lines_train(docs_block, tmp_path):
    """The Integrations guide's lines, as written, in a script that has a ``model`` and ``args``: one GRPO step."""
    from trl import GRPOConfig
    from trl.chat_template_utils import qwen2_5_chat_template

    tok = small_tokenizer(chat_template=qwen2_5_chat_template)
    tiny_llama(tok, 1).save_pretrained(tmp_path / "model")
    tok.save_pretrained(tmp_path / "model")
    args = GRPOConfig(output_dir=str(tmp_path / "out"), max_steps=1, per_device_train_batch_size=2, num_generations=2,
                      max_completion_length=16, logging_steps=1, report_to="none", use_cpu=True, bf16=False,
                      gradient_checkpointing=False, save_strategy="no", seed=0)
    scope = {"model": str(tmp_path / "model"), "args": args}
    exec(docs_block("trl"), scope)
    trainer, colbench = scope["trainer"], scope["colbench"]
    try:
        assert len(trainer.train_dataset) == len(colbench.parts.tasks) > 0 and trainer.state.global_step == 1
        assert any("rewards/ColBenchEnvironment/mean" in h for h in trainer.state.log_history)
    finally:
        colbench.close()


@pytest.mark.slow
def test_served_rewards_are_the_servers_episode_rewards(served_grpo):
    """Every rollout TRL logged that reached an answer is one episode the server finished, with the same
    dialogue and the same reward; a rollout that never answered is no finished episode and scores 0."""
    rows, finished = served_grpo["rows"], served_grpo["finished"]
    assert len(rows) == 8  # 2 steps x 4 rollouts
    logged = [float(r["ColBenchEnvironment"]) for r in rows]
    rebuilt = [_rebuild(_plain(r["prompt"]), _plain(r["completion"]))[0] for r in rows]

    def key(task_id, dialogue):
        return task_id, json.dumps([{k: m[k] for k in ("role", "content")} for m in dialogue])
    served = {}
    for rec in finished:
        served.setdefault(key(rec["task_id"], rec["dialogue_history"]), []).append(rec["reward"])
    trained = {}
    for rec, reward in zip(rebuilt, logged):
        if rec["answer"]:
            trained.setdefault(key(rec["task"]["task_id"], rec["dialogue_history"]), []).append(reward)
        else:
            assert reward == 0.0
    assert {k: sorted(v) for k, v in trained.items()} == {k: sorted(v) for k, v in served.items()}
    # not vacuous: most rollouts answered, some rewards are positive, a group's rewards differ
    assert len(finished) >= 4 and max(logged) > 0 and any(h.get("reward_std", 0) > 0 for h in served_grpo["history"])
    assert served_grpo["sessions_left"] == 0  # close() ended every session


@pytest.mark.slow
def test_served_training_moves_the_lora_weights_and_hides_the_task(served_grpo):
    before, after = served_grpo["before"], served_grpo["after"]
    assert any("lora_B" in n and not torch.equal(before[n], after[n]) for n in before)
    text = "\n".join([json.dumps(r) for r in served_grpo["dataset"]]
                     + [json.dumps(_plain(r["prompt"])) + json.dumps(_plain(r["completion"])) for r in served_grpo["rows"]])
    assert "7919" in text and [s for s in SECRETS if s in text] == []


def test_served_tools_answer_as_in_process_and_survive_idle_reaping():
    """The same tool calls on an in-process environment and on a served one get the same replies,
    closing texts, errors, rewards and records' dialogues; after the server reaps the idle session
    (1 s timeout; the only session allowed) the next reset opens a new one."""
    pytest.importorskip("openenv")
    from serve_helpers import ServeThread

    from colbench.integrations.openenv import create_colbench_app

    def play(env, rows) -> list:
        seen = []

        def call(f, *a, **k):
            try:
                seen.append(f(*a, **k))
            except Exception as e:  # noqa: BLE001 - compared between the two
                seen.append((type(e).__name__, str(e)))
            seen.append((env.done, env.get_reward()))
        call(env.reset, **rows[0])
        call(env.ask_human, 5)
        call(env.ask_human, "What do I multiply x by?")
        call(env.ask_human, "def scale(x):\n    return x * 7919 + 1")  # the max_turns-th turn: the answer
        call(env.submit_answer, "def scale(x):\n    return 0")       # after the end
        seen.append([{k: m[k] for k in ("role", "content")} for m in env.record["dialogue_history"]])
        call(env.reset, **rows[2])
        call(env.submit_answer, "def late_fee(days):\n    return 0.35 * days")
        call(env.reset, **rows[1])
        call(env.ask_human, "I WANT TO ANSWER: def scale(x):\n    return 0")
        return seen

    parts = EpisodeParts("backend", TASKS, max_turns=2, eval_workers=1)
    try:
        app = create_colbench_app("ColBench-Backend-v0", parts=parts, max_sessions=1, idle_timeout=600)
        with ColBenchEnvironments("backend", TASKS, max_turns=2, eval_workers=1) as local, ServeThread(app) as server, \
                ColBenchServerEnvironments(server.url) as served:
            assert (served.env_id, served.kind, served.max_turns, served.task_ids) == \
                   ("ColBench-Backend-v0", "backend", 2, ["scale", "fee"])
            rows = served.dataset(repeats=2)
            assert rows.to_dict() == local.dataset(repeats=2).to_dict()
            expected = play(local(), rows)
            assert play(served(), rows) == expected
            assert expected[-2:] == ["Your answer was received. The conversation is over.", (True, 0.0)]
            assert (True, 1.0) in expected and (True, 0.75) in expected and ("TypeError", "message must be a string") \
                in expected
            assert app.state.colbench_sessions() == 1
        assert app.state.colbench_sessions() == 0  # served.close() ended the session

        app = create_colbench_app("ColBench-Backend-v0", parts=parts, max_sessions=1, idle_timeout=1.0)
        with ServeThread(app) as server, ColBenchServerEnvironments(server.url) as served:
            env = served()
            assert env.reset(**rows[0]) == TASKS[0]["problem_description"]
            deadline = time.monotonic() + 30  # OpenEnv's reaper runs every 5 s
            while app.state.colbench_sessions() and time.monotonic() < deadline:
                time.sleep(0.2)
            assert app.state.colbench_sessions() == 0
            assert env.reset(**rows[2]) == TASKS[1]["problem_description"]  # a new session (the old one is gone)
            assert app.state.colbench_sessions() == 1
    finally:
        parts.close()
