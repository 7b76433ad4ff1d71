"""The loop a researcher runs from the command line -- collect, train, run the checkpoint, compare --
with nothing stale or silent (issue 38). A command runs as the installed console script, as a user
runs it, where a fresh process is part of what is checked (its stderr from the first import on, the
environment it starts with, the Training guide's lines as a shell runs them); the others go through the
script's entry point in this process (``cli_helpers.colbench_here``: the same parser, errors and exit
codes, without an interpreter and torch's import for each). The tests use the scripted agent,
plug-ins written here, or a tiny random Llama with SmolLM2's tokenizer; the embedded SmolLM2 runs
where its own behaviour is what is checked (the Training guide's loop, the first run's notes about it)."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from cli_helpers import assert_user_error, colbench, colbench_here, last_json
from colbench.runs import config_path, invocations_path
from colbench_env.trajectories import read_trajectories
from samples import BAD, GOOD, MID

HERE = Path(__file__).resolve().parent
BACKEND_FILE = HERE.parent / "colbench_env" / "data" / "backend" / "part_a.jsonl"
FRONTEND_FILE = HERE.parent / "colbench_env" / "data" / "frontend" / "tasks.jsonl"
OFFLINE = {"HF_HUB_OFFLINE": "1"}


def two_tasks(tmp_path) -> Path:
    path = tmp_path / "two.jsonl"
    path.write_text("\n".join(BACKEND_FILE.read_text().splitlines()[:2]) + "\n")
    return path


def scripted_rollouts(tmp_path, *extra) -> Path:
    """Trajectories of the scripted agent (every reward 0) on two tasks, with their OUT.run.json."""
    out = tmp_path / "scripted.jsonl"
    last_json(colbench("run", "--agent", "scripted", "--tasks", two_tasks(tmp_path), "--out", out, "--json", *extra))
    return out


def write_jsonl(path: Path, records) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


# ------------------------------------------------------------------------------- models by name
def test_a_model_found_nowhere_is_one_line_at_once_and_nothing_is_written(tmp_path):
    traj = scripted_rollouts(tmp_path)
    ck = tmp_path / "ck"
    line = assert_user_error(colbench("train", "mt-dpo", "--trajectories", traj, "--model", "no-such-model-38",
                                      "--out", ck, env_extra=OFFLINE), "train", "--model no-such-model-38",
                             "HF_HUB_OFFLINE", "smollm2", "a directory", "Hugging Face cache")
    assert "hf download no-such-model-38" in line
    assert_user_error(colbench("train", "mt-dpo", "--trajectories", traj, "--model", "./no/such/dir", "--out", ck),
                      "train", "--model ./no/such/dir: no such directory")
    assert not ck.exists()
    out = tmp_path / "hf.jsonl"
    assert_user_error(colbench("run", "--agent", "hf", "--agent-model", tmp_path / "missing", "--out", out), "run",
                      f"--agent-model {tmp_path / 'missing'}: no such directory")
    empty = tmp_path / "empty_dir"
    empty.mkdir()
    assert_user_error(colbench("run", "--agent", "hf", "--agent-model", empty, "--out", out), "run",
                      "a directory without a model")
    assert not out.exists() and not config_path(out).exists() and not invocations_path(out).exists()
    assert_user_error(colbench("table", "--agents", f"hf:{tmp_path / 'missing'}", "--out-dir", tmp_path / "t"),
                      "table", "no such directory")
    pdir = tmp_path / "p"
    assert_user_error(colbench("pipeline", "--policy", "org/no-such-model-38", "--out-dir", pdir, env_extra=OFFLINE),
                      "pipeline", "--policy org/no-such-model-38", "HF_HUB_OFFLINE")
    assert not pdir.exists()


def test_the_pipelines_task_errors_are_one_line_before_anything_is_written(tmp_path):
    pdir = tmp_path / "p"
    assert_user_error(colbench("pipeline", "--tasks", tmp_path / "missing.jsonl", "--out-dir", pdir), "pipeline",
                      f"--tasks {tmp_path / 'missing.jsonl'}")
    bad = tmp_path / "bad.jsonl"
    bad.write_text(BACKEND_FILE.read_text().splitlines()[0] + "\n{\"task_id\": \"x\"}\n")
    assert_user_error(colbench("pipeline", "--tasks", bad, "--out-dir", pdir), "pipeline", f"{bad}:2: field")
    assert not pdir.exists()


def test_model_names_lead_where_the_docstring_says(tmp_path, model_dir):
    from colbench_env.lm.models import ModelNotFoundError, resolve_model
    from colbench_env.lm.smollm2 import smollm2_path

    src = resolve_model("smollm2")
    assert (src.kind, src.path, src.tokenizer, src.adapter) == ("local", smollm2_path(), smollm2_path(), None)
    assert resolve_model(model_dir).kind == "directory"
    ck = tmp_path / "ck"
    (ck / "policy").mkdir(parents=True)
    (ck / "trainer.json").write_text(json.dumps({"algorithm": "mt-dpo", "config": {
        "policy": {"model_name_or_path": "smollm2", "compute_dtype": "float32"}}}))
    src = resolve_model(str(ck))
    assert (src.kind, src.path, src.tokenizer, src.adapter, src.dtype) == (
        "checkpoint", smollm2_path(), smollm2_path(), str(ck / "policy"), "float32")
    (ck / "trainer.json").write_text(json.dumps({"algorithm": "rft", "config": {"policy": {"model_name_or_path": model_dir}}}))
    assert resolve_model(str(ck)).path == model_dir
    (ck / "trainer.json").write_text(json.dumps({"algorithm": "rft", "config": {"policy": {"model_name_or_path": str(ck)}}}))
    with pytest.raises(ModelNotFoundError, match="leads back to itself"):
        resolve_model(str(ck))


# ------------------------------------------------------------------------ nothing to learn from
@pytest.fixture(scope="module")
def greedy_scripted(tmp_path_factory) -> Path:
    """:func:`scripted_rollouts` made once for the module's tests that only read them."""
    return scripted_rollouts(tmp_path_factory.mktemp("greedy-scripted"))


@pytest.mark.parametrize("algorithm", ["mt-dpo", "sweet-rl", "grpo", "rft", "ppo"])
def test_trajectories_without_pairs_are_refused_saying_what_data_gives_them(tmp_path, algorithm, greedy_scripted, capfd):
    """Each trainer's refusal, through ``colbench train`` in this process (the refusal comes before
    any model loads; the installed script's one-line errors are checked by the tests around)."""
    traj = greedy_scripted  # greedy, one rollout per task, every reward 0
    ck = tmp_path / "ck"
    line = assert_user_error(colbench_here(capfd, "train", algorithm, "--trajectories", traj, "--model", "smollm2",
                                           "--out", ck), "train", f"{algorithm}: ", "2 trajectories")
    if algorithm == "rft":
        assert "reaches reward >= 1" in line and "--rollouts-per-task" in line
    elif algorithm == "ppo":
        assert "all 2 trajectories have reward 0" in line and "--rollouts-per-task K --temperature T" in line
    else:
        assert "--rollouts-per-task K --temperature T" in line and "several of each task" in line
    assert not ck.exists()


# ----------------------------------------------------------------------------- contexts' settings
def test_training_refuses_other_prompt_settings_than_the_trajectories(tmp_path, model_dir):
    traj = scripted_rollouts(tmp_path, "--prompt-style", "compact", "--max-turns", "3")
    assert not any("agent_prompt" in r for r in read_trajectories(traj))  # a scripted agent has no prompt...
    ck = tmp_path / "ck"  # ... so the run's configuration beside the file says what the run was
    assert_user_error(colbench("train", "mt-dpo", "--trajectories", traj, "--model", "smollm2", "--out", ck,
                               "--config-json", '{"prompt_style": "paper"}'), "train",
                      "--config-json prompt_style 'paper'", "prompt_style 'compact'", str(config_path(traj)),
                      "contexts it never saw")
    # records that carry their settings win over OUT.run.json, and two settings in one file are refused
    recs = [dict(r, agent_prompt={"kind": "backend", "max_turns": 2, "prompt_style": "compact"})
            for r in read_trajectories(traj)]
    mine = write_jsonl(tmp_path / "mine.jsonl", recs)
    assert_user_error(colbench("train", "mt-dpo", "--trajectories", mine, "--model", "smollm2", "--out", ck,
                               "--config-json", '{"max_turns": 10}'), "train", "--config-json max_turns 10",
                      "max_turns 2", f"the records of {mine}")
    recs[1]["agent_prompt"] = dict(recs[1]["agent_prompt"], prompt_style="paper")
    write_jsonl(mine, recs)
    assert_user_error(colbench("train", "mt-dpo", "--trajectories", mine, "--model", "smollm2", "--out", ck), "train",
                      "different prompt settings", "line 1", "line 2")
    assert not ck.exists()
    # resuming a checkpoint trained on other contexts is refused too (its trainer.json says which)
    ck.mkdir()
    (ck / "trainer.json").write_text(json.dumps({"algorithm": "mt-dpo", "config": {
        "policy": {"model_name_or_path": "smollm2"}, "prompt_style": "paper", "max_turns": 3}}))
    assert_user_error(colbench("train", "mt-dpo", "--trajectories", traj, "--out", ck), "train",
                      f"--out {ck}: the checkpoint was trained on contexts with prompt_style 'paper'",
                      "collected with prompt_style 'compact'", "(or --no-resume)")
    assert sorted(p.name for p in ck.iterdir()) == ["trainer.json"]

    # the Python trainers refuse them too (their config's defaults would train other contexts)
    from colbench.agents import MultiTurnDPO
    from colbench_env.errors import UsageError

    compact = [dict(r, agent_prompt={"kind": "backend", "max_turns": 2, "prompt_style": "compact"}) for r in (GOOD, BAD)]
    trainer = MultiTurnDPO({"policy": {"model_name_or_path": model_dir}, "max_length": 512})
    with pytest.raises(UsageError, match=r"made with prompt_style 'compact', max_turns 2, this trainer's config has "
                                         r"prompt_style 'paper', max_turns 10"):
        trainer.update(compact)
    trainer.update([GOOD, BAD])  # trajectories that record nothing are the caller's to match


def test_the_trainer_generates_as_long_as_the_collection_did(tmp_path, model_dir, capfd):
    """``colbench train``'s ``max_new_tokens`` (SWEET-RL's candidates, the trained agent's ``act``) is
    the collection's when a built-in LM agent made it (its ``OUT.run.json``); ``--config-json`` wins;
    a plug-in's run says nothing about it (its own sampling), so the config's default stays. (The
    three trainings run in this process: what is checked is the config ``colbench train`` builds.)"""
    from colbench.agents.rft_config import RFTConfig

    def trained(run: dict, *extra) -> tuple[int, str]:
        traj = write_jsonl(tmp_path / "t.jsonl", [GOOD, BAD])
        config_path(traj).write_text(json.dumps(run))
        ck = tmp_path / f"ck{len(list(tmp_path.iterdir()))}"
        p = colbench_here(capfd, "train", "rft", "--trajectories", traj, "--model", model_dir, "--out", ck,
                          "--config-json", json.dumps({"max_length": 256, **dict(extra)}))
        assert p.returncode == 0, p.stderr[-3000:]
        return json.loads((ck / "trainer.json").read_text())["config"]["max_new_tokens"], p.stderr

    n, err = trained({"agent": "smollm2", "max_new_tokens": 48})
    assert n == 48 and f"generation: max_new_tokens 48 (as {config_path(tmp_path / 't.jsonl')} says)" in err
    assert trained({"agent": "smollm2", "max_new_tokens": 48}, ("max_new_tokens", 20))[0] == 20
    n, err = trained({"agent": "my_agent.py:Mine", "max_new_tokens": 48})
    assert n == RFTConfig().max_new_tokens != 48 and "generation:" not in err


# --------------------------------------------------------------------------- colbench run
def test_a_run_failing_before_its_first_episode_writes_nothing(tmp_path):
    plugin = tmp_path / "plain.py"
    plugin.write_text("from colbench.agents import Agent\n\nclass Plain(Agent):\n    def act(self, obs):\n"
                      "        return 'OUTPUT: I WANT TO ANSWER: def f(): return 1'\n")
    out = tmp_path / "o.jsonl"
    assert_user_error(colbench("run", "--agent", f"{plugin}:Plain", "--agent-kwargs", '{"nope": 1}', "--out", out),
                      "run", "--agent-kwargs", "nope")  # the agent cannot be built: after every other check
    assert not out.exists() and not config_path(out).exists() and not invocations_path(out).exists()
    p = colbench("run", "--agent", "scripted", "--out", "/proc/colbench-38.jsonl")  # root passes os.access here
    assert_user_error(p, "run", "--out /proc/colbench-38.jsonl: cannot create files in /proc")


def test_a_plugin_whose_code_changed_is_refused_on_resume_naming_it(tmp_path):
    mod = tmp_path / "plugdir"
    mod.mkdir()
    agent_file = mod / "my_agent.py"
    agent_file.write_text("from colbench.agents import Agent\n\nclass AskOnceAgent(Agent):\n    def act(self, obs):\n"
                          "        if obs['dialogue'] == '[]':\n            return 'OUTPUT: What do you need?'\n"
                          "        return 'OUTPUT: I WANT TO ANSWER: def f(x): return None'\n")
    human_file = mod / "my_human.py"
    human_file.write_text("from colbench_env.simulators import Simulator\n\nclass Echo(Simulator):\n"
                          "    def reply(self, task, dialogue, renders=None):\n        return 'You said: ' + dialogue[-1]['content']\n")
    tasks = two_tasks(tmp_path)
    env = {"PYTHONPATH": f"{mod}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    runs = [("--agent", f"{agent_file}:AskOnceAgent", agent_file), ("--agent", "my_agent:AskOnceAgent", agent_file),
            ("--simulator", f"{human_file}:Echo", human_file)]
    for k, (option, spec, source) in enumerate(runs):
        out = tmp_path / f"r{k}.jsonl"
        args = ["run", option, spec, "--tasks", tasks, "--out", out, "--json"]
        if option == "--simulator":
            args += ["--agent", "scripted"]
        assert last_json(colbench(*args, env_extra=env))["count"] == 2
        stored = json.loads(config_path(out).read_text())
        assert len(stored[f"{option[2:]}_code_sha256"]) == 64
        assert "resuming: 2 episodes already" in colbench(*args, env_extra=env).stderr  # unchanged: resumes
        original = source.read_text()
        source.write_text(original + "\n# changed\n")
        before = out.read_bytes()
        assert_user_error(colbench(*args, env_extra=env), "run", f"{option} {spec} as its code was then",
                          "its source changed since")
        assert out.read_bytes() == before
        source.write_text(original)
    # a run recorded before the hashes existed resumes (there is nothing to compare with)
    stored = json.loads(config_path(tmp_path / "r0.jsonl").read_text())
    del stored["agent_code_sha256"]
    config_path(tmp_path / "r0.jsonl").write_text(json.dumps(stored))
    agent_file.write_text(agent_file.read_text() + "\n# changed again\n")
    assert last_json(colbench("run", "--agent", f"{agent_file}:AskOnceAgent", "--tasks", tasks, "--out",
                              tmp_path / "r0.jsonl", "--json"))["count"] == 2


def test_rollouts_per_task_runs_each_task_k_times_in_a_row(tmp_path):
    tasks = two_tasks(tmp_path)
    ids = [json.loads(line)["task_id"] for line in tasks.read_text().splitlines()]
    out = tmp_path / "k.jsonl"
    assert last_json(colbench("run", "--agent", "scripted", "--tasks", tasks, "--rollouts-per-task", 3, "--out", out,
                              "--json"))["count"] == 6
    recs = sorted(read_trajectories(out), key=lambda r: int(r["episode_id"]))
    assert [r["task_id"] for r in recs] == [ids[0]] * 3 + [ids[1]] * 3
    assert [r["seed"] for r in recs] == list(range(6))
    assert json.loads(config_path(out).read_text())["rollouts_per_task"] == 3
    assert_user_error(colbench("run", "--agent", "scripted", "--tasks", tasks, "--rollouts-per-task", 2, "--out", out),
                      "run", "rollouts_per_task: 3 there, 2 now")


def test_compare_works_on_backend_files(tmp_path):
    tasks = two_tasks(tmp_path)
    oracle = tmp_path / "oracle.py"
    oracle.write_text("import json\nfrom colbench.agents import Agent\n\nclass Oracle(Agent):\n"
                      "    def __init__(self, tasks_file):\n"
                      "        self.truth = {json.loads(l)['problem_description']: json.loads(l)['ground_truth']\n"
                      "                      for l in open(tasks_file) if l.strip()}\n"
                      "    def act(self, obs):\n"
                      "        return 'OUTPUT: I WANT TO ANSWER:\\n' + self.truth[obs['problem_description']]\n")
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    last_json(colbench("run", "--agent", f"{oracle}:Oracle", "--agent-kwargs", json.dumps({"tasks_file": str(tasks)}),
                       "--tasks", tasks, "--out", a, "--json"))
    last_json(colbench("run", "--agent", "scripted", "--tasks", tasks, "--out", b, "--json"))
    got = last_json(colbench("evaluate", "--compare", a, b, "--json"))
    assert {k: v for k, v in got.items() if k != "paired"} == {
        "wins": 2, "losses": 0, "ties": 0, "tasks": 2, "win_rate": 1.0}
    # the paired difference: the oracle passes every test of both tasks, the scripted agent none, one
    # trial each (no flip noise to measure), the same scripted human in both runs
    p = got["paired"]
    assert (p["kind"], p["tasks"], p["only_a"], p["only_b"], p["errors"]) == ("backend", 2, 0, 0, [0, 0])
    assert {m: (v["a"], v["b"], v["diff_mean"], v["diff_low"], v["diff_high"]) for m, v in p["metrics"].items()} == {
        "success_rate_pct": (100.0, 0.0, 100.0, 100.0, 100.0), "tests_passed_pct": (100.0, 0.0, 100.0, 100.0, 100.0)}
    assert (p["trials"], p["flip_share"], p["noise_note"], p["humans_warning"]) == ([1, 1], [None, None], None, None)
    # records without a reward are scored in the sandbox first
    unscored = write_jsonl(tmp_path / "unscored.jsonl",
                           [{k: v for k, v in r.items() if k not in ("reward", "success")} for r in read_trajectories(a)])
    assert last_json(colbench("evaluate", "--compare", b, unscored, "--json"))["losses"] == 2
    front = write_jsonl(tmp_path / "front.jsonl", [{"task": json.loads(FRONTEND_FILE.read_text().splitlines()[0]),
                                                    "dialogue_history": [], "answer": "", "reward": 0.5}])
    assert_user_error(colbench("evaluate", "--compare", a, front), "evaluate", "backend trajectories", "frontend")


def test_the_scripted_agent_on_the_frontend_is_a_lower_bound_from_the_command(tmp_path):
    """``colbench run --agent scripted --env ColBench-Frontend-v0``: design questions, then a plain page;
    its reward is that page's similarity to the target, rendered and compared here independently."""
    from colbench.agents import ScriptedAgent
    from colbench_env.evaluation.render import Renderer
    from colbench_env.evaluation.similarity import similarity

    task = json.loads(FRONTEND_FILE.read_text().splitlines()[0])
    tasks = write_jsonl(tmp_path / "one.jsonl", [task])
    out = tmp_path / "front.jsonl"
    assert last_json(colbench("run", "--agent", "scripted", "--env", "ColBench-Frontend-v0", "--tasks", tasks,
                              "--out", out, "--json"))["count"] == 1
    (rec,) = read_trajectories(out)
    said = [m["output"] for m in rec["dialogue_history"] if m["role"] == "assistant"]
    assert said[:2] == [f"OUTPUT: {q}" for q in ScriptedAgent.FRONTEND_QUESTIONS]
    page = ScriptedAgent.plain_page(task["problem_description"])
    assert rec["answer"].strip() == page
    with Renderer(pool_size=1) as renderer:
        expected = similarity(renderer.render(page), renderer.render(task["ground_truth"]))
    assert rec["reward"] == pytest.approx(expected, abs=1e-6) and rec["reward"] > 0.05


# ------------------------------------------------------------------------------- help and noise
def test_train_help_lists_the_algorithms_fields_with_their_defaults():
    p = colbench("train", "mt-dpo", "--help")
    assert p.returncode == 0, p.stderr
    text = " ".join(p.stdout.split())
    for needle in ("beta = 0.1 DPO inverse temperature (reference: 0.1).", "pairs_per_batch = 2",
                   "policy.learning_rate = 2e-05 AdamW learning rate.", "prompt_style = \"paper\"",
                   "gradient_checkpointing = true (colbench train's default; MultiTurnDPOConfig's is false)",
                   "--updates UPDATES update rounds on the trajectories (default: 1)"):
        assert needle in text, needle
    assert "n_candidates" not in text  # SWEET-RL's field, not multi-turn DPO's
    sweet = " ".join(colbench("train", "sweet-rl", "--help").stdout.split())
    assert "n_candidates = 16" in sweet and "critic.epochs = 1" in sweet
    assert "candidate_batch = 4 (colbench train's default; SweetRLConfig's is null)" in sweet
    top = colbench("train", "--help")
    assert top.returncode == 0 and all(a in top.stdout for a in ("rft", "mt-dpo", "ppo", "grpo", "sweet-rl"))


def test_no_help_says_a_default_twice(capsys):
    """Every command's ``--help`` (and two algorithms' under ``colbench train``), printed by the
    console script's own entry point (``colbench.cli.main``) in this process: one interpreter for
    all of them instead of one each (the installed script prints the same: the help tests above)."""
    from colbench.cli import COMMANDS, main

    for name in COMMANDS:
        for argv in ([name, "--help"], *([[name, a, "--help"] for a in ("mt-dpo", "sweet-rl")] if name == "train" else [])):
            with pytest.raises(SystemExit) as done:
                main(argv)
            assert done.value.code == 0, argv
            text = " ".join(capsys.readouterr().out.split())
            assert text.startswith(f"usage: colbench {' '.join(argv[:-1])}"), (argv, text[:200])
            assert not re.search(r"\(default [^():]*\) \(default: ", text), (argv, text)


def test_the_bitsandbytes_kernel_warning_is_gone():
    """bitsandbytes prints "Failed to load CPU gemm_4bit_forward ..." when imported on this kind of CPU;
    peft imports it, so every trainer printed it. colbench drops that one record (the kernel serves
    only the CPU repack that colbench turns off). One fresh interpreter: every record bitsandbytes'
    loggers make is noted as it is made (``Logger.handle``, before any logger's filters), so it shows
    both that bitsandbytes logged the warning here and that none of it reached stderr."""
    probe = ("import json, logging\n"
             "made = []\n"
             "handle = logging.Logger.handle\n"
             "def noting(self, record):\n"
             "    if self.name.startswith('bitsandbytes'):\n"
             "        made.append(record.getMessage())\n"
             "    return handle(self, record)\n"
             "logging.Logger.handle = noting\n"
             "import colbench_env.lm, peft\n"
             "logging.getLogger('bitsandbytes.backends.cpu.ops').warning('kept')\n"
             "print(json.dumps(made))\n")
    ours = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert ours.returncode == 0, ours.stderr
    made = json.loads(ours.stdout.strip().splitlines()[-1])
    if not any("gemm_4bit_forward" in m for m in made):
        pytest.skip("bitsandbytes prints no kernel warning on this machine")
    assert "gemm_4bit_forward" not in ours.stderr and "kept" in ours.stderr


# ------------------------------------------------------------------- checkpoints and exports
@pytest.mark.slow
def test_a_checkpoint_and_its_export_run_with_the_same_greedy_texts(tmp_path, tiny_model_dir, capfd):
    """``colbench train --export``, ``colbench export``, ``colbench run --agent hf --agent-model`` and
    ``colbench table hf:``: a checkpoint, its export and its table row generate the same greedy texts
    (which the base does not). The training is the installed script (its stderr is a fresh process's);
    the other commands run in this process (what they generate does not depend on a fresh one)."""
    from safetensors.torch import load_file

    base = tiny_model_dir(seed=3, hidden_size=64)
    traj = write_jsonl(tmp_path / "t.jsonl", [GOOD, BAD, MID])
    ck, ex = tmp_path / "ck", tmp_path / "exported"
    p = colbench("train", "mt-dpo", "--trajectories", traj, "--model", base, "--out", ck, "--export", ex,
                 "--config-json", '{"policy": {"learning_rate": 0.05}, "epochs": 4, "max_length": 512}')
    assert p.returncode == 0, p.stderr[-3000:]
    assert "gemm_4bit_forward" not in p.stderr
    ex2 = tmp_path / "exported2"
    assert colbench_here(capfd, "export", ck, "--out", ex2).returncode == 0
    merged, again, original = (load_file(str(d / "model.safetensors")) for d in (ex, ex2, Path(base)))
    assert merged.keys() == original.keys() and all((merged[k] == again[k]).all() for k in merged)
    assert any(not (merged[k] == original[k]).all() for k in merged)  # the adapter is in the weights
    assert (ex / "tokenizer_config.json").exists()

    texts = {}
    for name, model in (("checkpoint", ck), ("export", ex), ("base", base)):
        out = tmp_path / f"{name}.jsonl"
        last_json(colbench_here(capfd, "run", "--agent", "hf", "--agent-model", model, "--tasks", two_tasks(tmp_path),
                                "--max-turns", 2, "--max-new-tokens", 12, "--out", out, "--json"))
        texts[name] = [[m.get("output") for m in r["dialogue_history"] if m["role"] == "assistant"]
                       for r in sorted(read_trajectories(out), key=lambda r: r["episode_id"])]
    assert texts["checkpoint"] == texts["export"]
    assert texts["checkpoint"] != texts["base"]
    # colbench table's hf:CKPT is the same policy too
    table = tmp_path / "table"
    p = colbench_here(capfd, "table", "--agents", f"hf:{ck}", "--envs", "ColBench-Backend-v0", "--tasks",
                      two_tasks(tmp_path), "--split", "train", "--episodes", 2, "--max-turns", 2, "--max-new-tokens", 12,
                      "--out-dir", table)
    assert p.returncode == 0, p.stderr[-3000:]
    made = table / "ck__ColBench-Backend-v0.jsonl"
    assert [[m.get("output") for m in r["dialogue_history"] if m["role"] == "assistant"]
            for r in sorted(read_trajectories(made), key=lambda r: r["episode_id"])] == texts["checkpoint"]
    assert_user_error(colbench_here(capfd, "export", base, "--out", tmp_path / "x"), "export",
                      "not a colbench train checkpoint")

    from colbench.pipeline import PipelineConfig, base_policy

    assert base_policy(PipelineConfig(policy=str(ck), out_dir=str(tmp_path / "p"))) == str(ck)


# ------------------------------------------------------------------------- the real loop (SmolLM2)
CAPTURE = '''
import json
from colbench.agents import LMAgent


class CapturingAgent(LMAgent):
    """A local-model agent (``model``: a model directory), logging the exact prompt text each
    generation started from."""

    def __init__(self, log, model, kind="backend", max_turns=10, prompt_style="paper", max_new_tokens=16):
        from colbench_env.lm.base import SamplingParams
        super().__init__("hf", model=model, kind=kind, max_turns=max_turns, prompt_style=prompt_style,
                         sampling=SamplingParams(max_new_tokens=max_new_tokens, temperature=0.0))
        self.log = log

    def act_batch(self, observations):
        prompts = self.lm.prompt_texts([self.messages(o) for o in observations])
        actions = super().act_batch(observations)
        with open(self.log, "a") as f:
            for p, a in zip(prompts, actions):
                f.write(json.dumps({"prompt": p, "action": str(a)}) + "\\n")
        return actions
'''


@pytest.mark.slow
def test_training_contexts_are_the_contexts_the_policy_saw(tmp_path, model_dir, capfd):
    """Collected with the compact prompt and 2 turns, the trajectories are trained on exactly the
    token ids the policy generated from (logged by the agent itself), not on the config's defaults.
    The policy is the tiny random Llama with SmolLM2's tokenizer and chat template (what shapes the
    contexts; SmolLM2's weights do not); both commands run in this process (the contexts do not
    depend on a fresh one)."""
    (tmp_path / "capture.py").write_text(CAPTURE)
    log, out, ck = tmp_path / "prompts.jsonl", tmp_path / "roll.jsonl", tmp_path / "ck"
    kwargs = {"log": str(log), "model": model_dir, "prompt_style": "compact", "max_turns": 2, "max_new_tokens": 16}
    last_json(colbench_here(capfd, "run", "--agent", f"{tmp_path / 'capture.py'}:CapturingAgent", "--agent-kwargs",
                            json.dumps(kwargs), "--tasks", "generated:2:1:rate", "--max-turns", 2, "--out", out, "--json"))
    recs = read_trajectories(out)
    assert all(r["agent_prompt"] == {"kind": "backend", "max_turns": 2, "prompt_style": "compact"} for r in recs)
    # PPO refuses rewards that are all 0 (nothing to learn); what is checked here is the contexts, so
    # one record's reward is set by hand (the file is otherwise as collected)
    rewarded = tmp_path / "rewarded.jsonl"
    rewarded.write_text("".join(json.dumps(dict(r, reward=1.0) if i == 0 else r) + "\n" for i, r in enumerate(recs)))
    p = colbench_here(capfd, "train", "ppo", "--trajectories", rewarded, "--model", model_dir, "--out", ck,
                      "--config-json", '{"update_epochs": 1}')
    assert p.returncode == 0, p.stderr[-3000:]
    assert "training contexts: prompt_style 'compact', max_turns 2" in p.stderr
    config = json.loads((ck / "trainer.json").read_text())["config"]
    assert (config["prompt_style"], config["max_turns"]) == ("compact", 2)

    from colbench.agents import PPO
    from colbench.agents.tokenize import tokenize_trajectory

    trainer = PPO.load(ck)
    seen = {}  # output -> the contexts it was generated from (a greedy policy may repeat itself)
    for entry in map(json.loads, log.read_text().splitlines()):
        seen.setdefault(entry["action"], []).append(trainer.tokenizer(entry["prompt"], add_special_tokens=False)["input_ids"])
    n = 0
    for rec in recs:
        turns = [m for m in rec["dialogue_history"] if m["role"] == "assistant"]
        seqs = tokenize_trajectory(trainer.tokenizer, rec, formatter=trainer.formatter, multi_turn=False)
        assert len(seqs) == len(turns)
        for seq, turn in zip(seqs, turns):
            start = seq.turn_spans[0][0]
            assert seq.input_ids[:start] in seen[turn["output"]], rec["episode_id"]  # what the policy saw
            n += 1
        # the config's defaults (the paper's prompt, 10 turns) would have been other contexts
        from colbench_env.prompting import record_messages

        paper = tokenize_trajectory(trainer.tokenizer, rec, formatter=record_messages, multi_turn=False)
        assert paper[0].input_ids[:paper[0].turn_spans[0][0]] not in seen[turns[0]["output"]]
    assert n >= 2


@pytest.mark.slow
@pytest.mark.browser
@pytest.mark.timeout(1800)  # five commands of up to 600 s each (SmolLM2 on mini pages, Chromium)
def test_the_training_guide_loop_runs_as_written(tmp_path, docs_block):
    """The Training guide's command-line loop (collect -> train -> run the checkpoint -> compare), each line run
    as written in a fresh directory (frontend mini pages: their similarity rewards differ, so PPO has
    something to learn from; its 2 rollouts must not score the same)."""
    import shlex

    # each line as a shell splits it (quotes, comments, continued lines)
    commands = [shlex.split(c, comments=True) for c in docs_block("loop").replace("\\\n", " ").splitlines()]
    commands = [c for c in commands if c]
    assert [c[:2] for c in commands] == [["colbench", x] for x in ("run", "train", "run", "run", "evaluate")]
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    exe = str(Path(sys.executable).parent / "colbench")
    for cmd in commands:
        p = subprocess.run([exe, *cmd[1:]], capture_output=True, text=True, cwd=tmp_path, env=env, timeout=600)
        assert p.returncode == 0, (cmd, p.stderr[-3000:])
        assert "gemm_4bit_forward" not in p.stderr and "Traceback" not in p.stderr, cmd
        if cmd[1] == "run" and "--rollouts-per-task" in cmd:
            rewards = [json.loads(x)["reward"] for x in (tmp_path / "runs/loop/rollouts.jsonl").read_text().splitlines()]
            assert len(rewards) == 2 and len(set(rewards)) > 1, rewards
    assert (tmp_path / "runs/loop/ckpt/trainer.json").exists() and (tmp_path / "runs/loop/model/config.json").exists()
    assert "win rate of runs/loop/trained.jsonl over runs/loop/base.jsonl" in p.stdout


# ------------------------------------------------------------------------------ a first run, told
def test_a_local_model_on_the_paper_prompt_is_told_its_cost_only_there():
    """The up-front note is for a local model on the paper's prompt only (it measures the model, so
    any other run is left alone: nothing is generated for it)."""
    from colbench.runs import RunConfig, local_model_note

    class Untouchable:  # generating would fail: the note must not get that far
        lm = None

    for config in (RunConfig(out="o", agent="smollm2", prompt_style="compact"), RunConfig(out="o", agent="scripted"),
                   RunConfig(out="o", agent="openai", agent_model="m", agent_base_url="http://127.0.0.1:9/v1")):
        assert local_model_note(config, Untouchable(), task=None) is None


@pytest.mark.slow
def test_a_first_run_says_what_an_episode_costs_and_shows_progress_by_turn(tmp_path, capfd):
    """SmolLM2 on the paper's prompt (colbench run's defaults), 1 task, 2 turns: before the first
    episode one note says what an episode can cost (turns x new tokens, at the rate measured then)
    and one the settings the embedded model is made for; the progress goes by turn, with episodes
    and tokens per second, and ends at the turns the records hold. (In this process: its stderr is the
    command's own from its start.)"""
    out = tmp_path / "first.jsonl"
    p = colbench_here(capfd, "run", "--agent", "smollm2", "--tasks", "generated:1:1:rate", "--max-turns", 2,
                      "--max-new-tokens", 24, "--out", out)
    assert p.returncode == 0 and "Traceback" not in p.stderr, p.stderr[-3000:]
    lines = p.stderr.replace("\r", "\n").splitlines()
    cost = [ln for ln in lines if ln.startswith("colbench run: note: on the paper's prompt")]
    assert len(cost) == 1, p.stderr[-3000:]
    m = re.fullmatch(r"colbench run: note: on the paper's prompt an episode can take up to 2 turns x 24 new tokens = "
                     r"48 tokens, about (?:(\d+) min )?(\d+) s an episode at the ([\d.]+) tokens/s measured now \((\d+) "
                     r"tokens of one sequence; 4 episodes in flight share the model\)", cost[0])
    assert m, cost[0]
    minutes, seconds, rate, probe = int(m.group(1) or 0), int(m.group(2)), float(m.group(3)), int(m.group(4))
    assert 0 < probe <= 32 and rate > 0
    assert 48 / (rate + 0.05) - 1 <= 60 * minutes + seconds <= 48 / max(rate - 0.05, 1e-9) + 1  # 48 tokens at that rate
    assert ("colbench run: note: the embedded SmolLM2-135M solves none of the paper-prompt tasks; it is made for "
            "--prompt-style compact (a worked example) and the backend's 'rate' task family, e.g. colbench run "
            "--agent smollm2 --tasks generated:16:1:rate --split test --prompt-style compact --max-turns 3 "
            "--max-new-tokens 96") in lines
    assert lines.index(cost[0]) < min(i for i, ln in enumerate(lines) if ln.startswith("smollm2 on "))  # before it starts
    recs = read_trajectories(out)
    turns = sum(m["role"] == "assistant" for r in recs for m in r["dialogue_history"])
    bar = [ln for ln in lines if ln.startswith("smollm2 on ColBench-Backend-v0:")]
    assert re.search(r"\| 0/2 \[.*episodes 0/1\]$", bar[0]), bar[0]  # at most 1 episode x 2 turns; no rate yet
    final = re.search(rf"100%\|.*\| {turns}/{turns} \[[\d:]+<00:00, .*, episodes 1/1, ([\d.]+) tok/s\]$", bar[-1])
    assert final and float(final.group(1)) > 0, bar[-1]
    assert any(re.search(rf"\| [1-{turns - 1}]/\d \[.*, episodes 0/1, [\d.]+ tok/s\]$", ln) for ln in bar), bar
