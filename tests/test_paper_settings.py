"""``--paper`` for every method and both envs: the settings against the reference's files (each row
cites a line that holds its value; checked only against the reference checkouts that the variables
``COLBENCH_REFERENCE_REPO`` and ``COLBENCH_REFERENCE_OPENRLHF_REPO`` name), the guide's tables
generated from them, ``--dry-run``, and the longest paper-format ten-turn trajectory in Llama-3.1
tokens, which no method's ``max_length`` cuts."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from colbench.pipeline import PipelineConfig, trainer_config
from colbench.pipeline.config import (COLBENCH_CHOICE, ENVS, FRONTEND_PAPER_SETTINGS, PAPER_REFERENCE_COMMITS,
                                      PAPER_SETTINGS, paper_settings, paper_settings_table, preset_settings,
                                      resolve_setting)

ROOT = Path(__file__).resolve().parents[1]
GUIDE = ROOT / "docs" / "guides" / "paper.md"
#: the environment variable that names a git checkout of each reference repository (any clone that
#: holds the pinned commit of PAPER_REFERENCE_COMMITS); the cited lines of a repository are checked
#: only when its variable is set, nothing here depends on where a machine keeps its copies
REFERENCE_REPO_VARS = {"facebookresearch/sweet_rl": "COLBENCH_REFERENCE_REPO",
                       "YifeiZhou02/collab_openrlhf": "COLBENCH_REFERENCE_OPENRLHF_REPO"}


def paper(env="ColBench-Backend-v0"):
    cfg = PipelineConfig(**preset_settings("paper", env))
    return cfg, {m: trainer_config(cfg, m, cfg.policy) for m in cfg.methods}


@pytest.mark.parametrize("env", sorted(ENVS))
def test_paper_resolves_to_the_reference_values(env):
    """Every row of the env's table holds in the resolved preset; spot checks written from the
    reference README (not from the table) for every method."""
    cfg, trainers = paper(env)
    for setting, reference, _source, key in paper_settings(env):
        assert resolve_setting(key, cfg, trainers) == reference, setting
    for m, c in trainers.items():  # the second train_dpo run of the README, for every policy
        assert (c.policy.full_finetune, c.policy.learning_rate, c.mixed_precision, c.max_length,
                c.gradient_accumulation_steps, c.adam_betas, c.lr_scheduler) == \
            (True, 2e-7, "bf16", 16384, 8, (0.9, 0.95), "cosine"), m
    dpo, sweet = trainers["mt-dpo"], trainers["sweet-rl"]
    assert (dpo.beta, dpo.nll_coef, dpo.pairs_per_batch, dpo.epochs) == (0.1, 0.01, 1, 1)
    assert (sweet.critic.learning_rate, sweet.critic.epochs, sweet.critic.max_length, sweet.n_candidates) == \
        (2e-7, 4, 8192, 16)
    assert (trainers["rft"].sequences_per_batch, trainers["ppo"].trajectories_per_batch,
            trainers["grpo"].sequences_per_batch) == (1, 1, 1)
    assert (cfg.max_turns, cfg.max_new_tokens, cfg.rollout_temperature, cfg.eval_temperature) == (10, 1024, 1.0, 1.0)
    if env == "ColBench-Frontend-v0":  # README.md's frontend commands
        assert (cfg.simulator_kwargs["model"], cfg.similarity, cfg.n_train_tasks, cfg.rollouts_per_task,
                cfg.n_test_tasks) == ("Qwen/Qwen2-VL-72B-Instruct", "clip", 1000, 6, 500)
        assert dpo.min_reward_gap == sweet.min_reward_gap == 0.1 and dpo.pairing == "all_ordered"
    else:
        assert (cfg.simulator_kwargs["model"], cfg.n_train_tasks * cfg.rollouts_per_task, cfg.n_test_tasks) == \
            ("meta-llama/Llama-3.1-70B-Instruct", 15000, 1000)


def test_every_row_has_a_source_and_a_key_that_resolves_to_one_value():
    for rows in (PAPER_SETTINGS, FRONTEND_PAPER_SETTINGS):
        settings = [r[0] for r in rows]
        assert len(settings) == len(set(settings))
        for setting, _ref, source, key in rows:
            assert source.startswith((*PAPER_REFERENCE_COMMITS, COLBENCH_CHOICE)), setting
    cfg, trainers = paper()  # keys that disagree give {key: value}, never one of them
    assert resolve_setting("rft.epochs|sweet-rl.critic.epochs", cfg, trainers) == \
        {"rft.epochs": 1, "sweet-rl.critic.epochs": 4}
    assert resolve_setting("rft|sweet-rl.epochs", cfg, trainers) == 1


def reference_checkouts() -> dict[str, str]:
    """``{repo: checkout}`` for every reference repository whose variable
    (:data:`REFERENCE_REPO_VARS`) names a directory."""
    named = {repo: os.environ.get(var, "") for repo, var in REFERENCE_REPO_VARS.items()}
    return {repo: path for repo, path in named.items() if path and os.path.isdir(path)}


def _file_at(checkout: str, repo: str, path: str) -> list[str]:
    text = subprocess.run(["git", "-C", checkout, "show", f"{PAPER_REFERENCE_COMMITS[repo]}:{path}"],
                          capture_output=True, text=True, check=True).stdout
    return text.splitlines()


@pytest.mark.skipif(not reference_checkouts(), reason="no reference checkout named: set COLBENCH_REFERENCE_REPO "
                    "(facebookresearch/sweet_rl) and/or COLBENCH_REFERENCE_OPENRLHF_REPO (YifeiZhou02/collab_openrlhf)")
def test_each_cited_line_of_the_reference_holds_the_cited_text():
    """``repo path:line (text)``: the file at the pinned commit has ``text`` on that line.

    Runs only against checkouts named explicitly: ``COLBENCH_REFERENCE_REPO`` a git checkout of
    facebookresearch/sweet_rl, ``COLBENCH_REFERENCE_OPENRLHF_REPO`` one of YifeiZhou02/collab_openrlhf
    (each holding its commit of ``PAPER_REFERENCE_COMMITS``); the rows of a repository whose variable
    is unset are not checked, and with neither set the test is skipped. Every other test of this
    file runs always."""
    checkouts = reference_checkouts()
    cited = {repo: 0 for repo in checkouts}
    for setting, _ref, source, _key in PAPER_SETTINGS + FRONTEND_PAPER_SETTINGS:
        if source.startswith(COLBENCH_CHOICE):
            continue
        repo, rest = source.split(" ", 1)
        if repo not in checkouts:
            continue
        where, text = rest.split(" (", 1)
        path, line = where.rsplit(":", 1)
        text = text.split(")", 1)[0] if not text.endswith(")") or "; " in text else text[:-1]
        text = text.split("; ")[0].rstrip(")")
        lines = _file_at(checkouts[repo], repo, path)
        assert text in lines[int(line) - 1], (setting, source, lines[int(line) - 1])
        cited[repo] += 1
    minimum = {"facebookresearch/sweet_rl": 60, "YifeiZhou02/collab_openrlhf": 10}  # 79 and 12 rows cite them
    for repo, n in cited.items():
        assert n >= minimum[repo], (repo, n)


def test_the_guide_holds_the_generated_tables():
    guide = GUIDE.read_text()
    for env, marker in (("ColBench-Backend-v0", "paper-settings"), ("ColBench-Frontend-v0", "paper-settings-frontend")):
        table = guide.split(f"<!-- {marker}:begin -->\n")[1].split(f"<!-- {marker}:end -->")[0]
        assert table == paper_settings_table(env), env
    from colbench.pipeline.memory import memory_plan, memory_plan_table

    cfg, _ = paper()
    for layout in ("paper", "single-gpu"):
        table = guide.split(f"<!-- memory-plan-{layout}:begin -->\n")[1].split(f"<!-- memory-plan-{layout}:end -->")[0]
        assert table == memory_plan_table(memory_plan(cfg, layout=layout)), layout


@pytest.mark.parametrize("env", sorted(ENVS))
def test_dry_run_prints_the_resolved_settings_without_loading_a_model(tmp_path, env):
    """``colbench pipeline --paper --dry-run``: one JSON object on stdout, the trainer configs as
    trainer_config builds them, the memory plan; the 8B policy is no local model (it would fail to
    resolve), nothing is written."""
    out = tmp_path / "run"
    p = subprocess.run([sys.executable, "-m", "colbench", "pipeline", "--paper", "--env", env, "--dry-run",
                        "--out-dir", str(out)], capture_output=True, text=True, timeout=120,
                       env=dict(os.environ, HF_HUB_OFFLINE="1"))
    assert p.returncode == 0, p.stderr[-2000:]
    got = json.loads(p.stdout)
    cfg, trainers = paper(env)
    assert got["preset"] == "paper" and got["env"] == env and got["pipeline"]["out_dir"] == str(out)
    assert got["methods"] == json.loads(json.dumps({m: c.to_dict() for m, c in trainers.items()}))
    plan = got["memory_plan"]["paper"]
    assert plan["processes"] == 8 and plan["models"]["policy"]["params"] == 8_030_261_248
    assert set(plan["stages"]) >= {"collect", "evaluate", "rft/train", "mt-dpo/train", "sweet-rl/critic",
                                   "sweet-rl/candidates", "sweet-rl/policy"}
    assert not out.exists()


# ------------------------------------------------------------------- the longest trajectory
def _text_of(tokenizer, seed_text: str, n: int) -> str:
    """Text that ``tokenizer`` encodes in exactly ``n`` tokens, from ``seed_text`` repeated."""
    ids = tokenizer(seed_text * (n // 8 + 2), add_special_tokens=False)["input_ids"][:n]
    text = tokenizer.decode(ids)
    while len(tokenizer(text, add_special_tokens=False)["input_ids"]) > n:
        text = text[:-1]
    return text


def longest_record(task, kind: str, tokenizer, max_turns: int, max_new_tokens: int, reply_chars: int) -> dict:
    """A paper-format episode at every cap: ``max_turns`` agent turns of ``max_new_tokens`` tokens
    each (a short thought, then ``OUTPUT:`` and a message filling the rest; the last one the answer),
    every human reply at ``reply_chars`` characters of the task's own ground truth (code or markup,
    which take more tokens per character than the human's prose)."""
    from colbench_env.protocol import ANSWER_MARKER, OUTPUT_MARKER

    gt = task.ground_truth
    history: list[dict] = []
    for t in range(max_turns):
        last = t == max_turns - 1
        head = f"Thinking. {OUTPUT_MARKER} " + (f"{ANSWER_MARKER} " if last else "")
        room = max_new_tokens - len(tokenizer(head, add_special_tokens=False)["input_ids"]) - 1
        output = head + _text_of(tokenizer, gt + "\n", room)
        message = output.split(OUTPUT_MARKER, 1)[1]
        assert len(tokenizer(output, add_special_tokens=False)["input_ids"]) <= max_new_tokens
        history.append({"role": "assistant", "content": message, "output": output})
        if not last:
            history.append({"role": "user", "content": (gt * (reply_chars // max(len(gt), 1) + 1))[:reply_chars]})
    return {"task": task.to_record(), "dialogue_history": history, "answer": history[-1]["content"], "reward": 0.0}


@pytest.fixture(scope="module")
def llama31():
    pytest.importorskip("llama_models")
    from tiny_models import llama31_tokenizer

    return llama31_tokenizer()


def test_the_llama31_tokenizer_is_metas(llama31):
    """The converted tokenizer encodes as Meta's own (llama_models' tiktoken Tokenizer) and renders
    Llama-3.1's chat format."""
    from llama_models.llama3.tokenizer import Tokenizer

    meta = Tokenizer.get_instance()
    text = "def f(x):\n    return round(x * 1.07, 2)  # héllo\n\n<nav class=\"bg-blue-500\">Shop</nav>  x"
    assert llama31(text, add_special_tokens=False)["input_ids"] == meta.encode(text, bos=False, eos=False)
    assert len(llama31) == 128256
    rendered = llama31.apply_chat_template([{"role": "user", "content": "hi"}], tokenize=False, add_generation_prompt=True)
    assert rendered.startswith("<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\n")
    assert rendered.endswith("hi<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n")


@pytest.mark.parametrize("env", sorted(ENVS))
def test_no_paper_method_cuts_the_longest_ten_turn_trajectory(llama31, env):
    """The longest paper-format ten-turn episode (the embedded task with the longest problem, every
    agent turn at 1,024 tokens, every human reply at its character cap), tokenised as the trainers
    tokenise it with Llama-3.1's tokenizer and chat template: every method's policy sequences are
    the same with its ``max_length`` as without one (nothing cut), and the memory plan's worst case
    is at least as long. SWEET-RL's critic, at the reference's 8192, cuts it (as the reference does)."""
    from colbench.agents.sweet_rl import critic_keep_head, critic_messages
    from colbench.agents.tokenize import tokenize_trajectory
    from colbench.pipeline.memory import sequence_lengths
    from colbench_env.prompting import record_messages
    from colbench_env.simulators import BACKEND_REPLY_LIMIT, FRONTEND_REPLY_LIMIT
    from colbench_env.tasks import load_tasks

    cfg, trainers = paper(env)
    kind = cfg.kind
    tasks = load_tasks("default", kind=kind)
    task = max(tasks, key=lambda t: len(t.problem_description))
    limit = BACKEND_REPLY_LIMIT if kind == "backend" else FRONTEND_REPLY_LIMIT
    rec = longest_record(task, kind, llama31, cfg.max_turns, cfg.max_new_tokens, limit)
    whole = tokenize_trajectory(llama31, rec)
    longest = max(len(s) for s in whole)
    for m, c in trainers.items():
        assert tokenize_trajectory(llama31, rec, max_length=c.max_length) == whole, m
        assert longest <= c.max_length
    assert longest <= sequence_lengths(cfg).trajectory
    # the prompt bound of the plan holds for every embedded task of the kind
    from colbench.pipeline.memory import PROMPT_TOKENS

    for t in tasks:
        msgs = record_messages(t.to_record(), [], max_turns=cfg.max_turns, style=cfg.prompt_style)
        assert len(llama31.apply_chat_template(msgs, tokenize=True, add_generation_prompt=True)) <= PROMPT_TOKENS
    info = rec["task"]["ground_truth"]
    critic = trainers["sweet-rl"].critic.max_length
    fmt = lambda t, h: critic_messages(record_messages(t, h), info)  # noqa: E731
    uncut = max(len(s) for s in tokenize_trajectory(llama31, rec, formatter=fmt))
    print(f"{env}: longest policy sequence {longest} tokens ({len(whole)} sequence(s)); "
          f"critic context {uncut} tokens, cut to {critic}")
    assert uncut > critic and critic_keep_head(fmt, rec["task"]) >= 1
