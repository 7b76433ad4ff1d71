"""The installed ``colbench`` command: plug-in agents and simulators, resume safety, one error style.

Every test runs the console script installed next to the test's Python (``.venv/bin/colbench``) in
a subprocess, as a user would; only the scripted agent / simulator or plug-ins written here run
(no LM), so each command takes about a second.
"""
from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from cli_helpers import assert_user_error, colbench, colbench_exe, last_json
from colbench.runs import config_path
from colbench_env.trajectories import read_trajectories
from interrupting import interrupt_after_lines, terminal_like

HERE = Path(__file__).resolve().parent
BACKEND_FILE = HERE.parent / "colbench_env" / "data" / "backend" / "part_a.jsonl"
FRONTEND_FILE = HERE.parent / "colbench_env" / "data" / "frontend" / "tasks.jsonl"


# ------------------------------------------------------------------------------------------ plug-ins
PLUGIN = '''
from colbench.agents import Agent
from colbench_env.simulators import Simulator

ORACLE_SOURCE = {}


class OracleAgent(Agent):
    """Upper bound for the test: answers with the task's ground truth, looked up by problem text."""

    def __init__(self, tasks_file, greeting="OUTPUT: What do you need?", kind=None):
        import json
        self.kind = kind
        self.truth = {}
        for line in open(tasks_file):
            if line.strip():
                rec = json.loads(line)
                self.truth[rec["problem_description"]] = rec["ground_truth"]
        self.greeting = greeting

    def act(self, observation):
        if observation["dialogue"] == "[]":
            return self.greeting
        # the code on its own line: after "I WANT TO ANSWER: " it would start with a space, which the
        # reference scorer (the default semantics) cannot compile
        return "OUTPUT: I WANT TO ANSWER:\\n" + self.truth[observation["problem_description"]]


def make_oracle(tasks_file):
    return OracleAgent(tasks_file, greeting="OUTPUT: (factory) What do you need?")


def none_policy(observation):
    sig = observation["problem_description"].rsplit("def ", 1)[-1].strip().rstrip(".")
    return "OUTPUT: I WANT TO ANSWER: def " + sig + ":\\n    return None"


class EchoHuman(Simulator):
    def __init__(self, prefix="I said: ", kind="backend"):
        self.prefix, self.kind = prefix, kind

    def reply(self, task, dialogue, renders=None):
        return self.prefix + dialogue[-1]["content"]
'''


@pytest.fixture
def plugin_dir(tmp_path):
    d = tmp_path / "plugins"
    d.mkdir()
    (d / "my_colbench_plugin.py").write_text(PLUGIN)
    return d


def test_plugin_agent_as_file_class_with_kwargs(tmp_path, plugin_dir):
    out = tmp_path / "oracle.jsonl"
    p = colbench("run", "--agent", f"{plugin_dir / 'my_colbench_plugin.py'}:OracleAgent",
                 "--agent-kwargs", json.dumps({"tasks_file": str(BACKEND_FILE)}), "--tasks", BACKEND_FILE,
                 "--episodes", 3, "--episodes-in-flight", 3, "--out", out, "--json")
    m = last_json(p)
    assert m["count"] == 3 and m["success_rate"] == 1.0 and m["tests_passed_pct"] == 100.0
    recs = read_trajectories(out)
    assert [r["dialogue_history"][0]["content"] for r in recs] == ["What do you need?"] * 3
    # the kind was handed to the class because its signature names it
    assert json.loads((tmp_path / "oracle.jsonl.run.json").read_text())["agent_kwargs"] == {"tasks_file": str(BACKEND_FILE)}


def test_plugin_agent_as_module_factory_and_callable(tmp_path, plugin_dir):
    env = {"PYTHONPATH": f"{plugin_dir}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    p = colbench("run", "--agent", "my_colbench_plugin:make_oracle",
                 "--agent-kwargs", json.dumps({"tasks_file": str(BACKEND_FILE)}), "--tasks", BACKEND_FILE,
                 "--episodes", 2, "--out", tmp_path / "f.jsonl", "--json", env_extra=env)
    assert last_json(p)["success_rate"] == 1.0
    assert read_trajectories(tmp_path / "f.jsonl")[0]["dialogue_history"][0]["content"] == "(factory) What do you need?"
    # a one-argument function is the policy itself; it answers 'return None' at once: the lower bound
    p = colbench("run", "--agent", "my_colbench_plugin:none_policy", "--tasks", BACKEND_FILE, "--episodes", 2,
                 "--out", tmp_path / "n.jsonl", "--json", env_extra=env)
    m = last_json(p)
    assert (m["tests_passed_pct"], m["mean_turns"]) == (0.0, 1.0)


def test_plugin_simulator_and_entry_points(tmp_path, plugin_dir):
    # an installed plug-in: a distribution on sys.path declaring entry points in both groups
    dist = plugin_dir / "my_colbench_plugin-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: my-colbench-plugin\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text("[colbench.agents]\nnone-agent = my_colbench_plugin:none_policy\n\n"
                                           "[colbench.simulators]\necho-human = my_colbench_plugin:EchoHuman\n")
    env = {"PYTHONPATH": f"{plugin_dir}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    out = tmp_path / "ep.jsonl"
    p = colbench("run", "--agent", "scripted", "--simulator", "echo-human",
                 "--simulator-kwargs", '{"prefix": "ECHO> "}', "--episodes", 1, "--out", out, "--json", env_extra=env)
    assert last_json(p)["count"] == 1
    dialogue = read_trajectories(out)[0]["dialogue_history"]
    assert dialogue[1]["role"] == "user" and dialogue[1]["content"] == "ECHO> " + dialogue[0]["content"]
    p = colbench("run", "--agent", "none-agent", "--episodes", 2, "--out", tmp_path / "ep2.jsonl", "--json",
                 env_extra=env)
    assert last_json(p)["mean_turns"] == 1.0


@pytest.mark.parametrize("spec, needle", [
    ("no_such_module_xyz:Agent", "no module named 'no_such_module_xyz'"),
    ("{dir}/my_colbench_plugin.py:Missing", "has no attribute 'Missing'"),
    ("{dir}/nope.py:Agent", "no such file"),
    ("not-a-plugin", "no installed plug-in has the entry point 'not-a-plugin'"),
])
def test_bad_plugin_specs(tmp_path, plugin_dir, spec, needle):
    out = tmp_path / "x.jsonl"
    p = colbench("run", "--agent", spec.format(dir=plugin_dir), "--out", out)
    assert_user_error(p, "run", "--agent", needle)
    assert not out.exists()


# ------------------------------------------------------------------------------------------ resume
def test_resume_refuses_another_run_and_names_the_fields(tmp_path):
    out = tmp_path / "r.jsonl"
    m = last_json(colbench("run", "--agent", "scripted", "--episodes", 2, "--out", out, "--json"))
    assert m["count"] == 2
    before = out.read_bytes()
    line = assert_user_error(colbench("run", "--agent", "scripted", "--episodes", 2, "--max-turns", 4,
                                      "--tasks", BACKEND_FILE, "--out", out), "run")
    assert "holds 2 episodes of another run" in line
    assert "max_turns: 10 there, 4 now" in line and "tasks: " in line and "tasks_sha256" in line
    assert "agent" not in line.split("differs in", 1)[1].split(")")[0].replace("agent_", "")  # the agent is the same
    assert out.read_bytes() == before  # nothing written
    # same task spec but the file's content changed: the hash tells
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text(BACKEND_FILE.read_text().splitlines()[0] + "\n")
    out2 = tmp_path / "r2.jsonl"
    assert last_json(colbench("run", "--agent", "scripted", "--tasks", tasks, "--out", out2, "--json"))["count"] == 1
    tasks.write_text(BACKEND_FILE.read_text().splitlines()[1] + "\n")
    line = assert_user_error(colbench("run", "--agent", "scripted", "--tasks", tasks, "--out", out2), "run")
    assert "tasks_sha256" in line and "max_turns" not in line
    # the same command resumes; more episodes extend the run
    m = last_json(colbench("run", "--agent", "scripted", "--episodes", 3, "--out", out, "--json"))
    assert m["count"] == 3


def test_simulator_options_it_does_not_take_are_one_line(tmp_path):
    """An option the human does not take (a model name for the scripted human) is a usage error
    naming it and the options it does take, not a TypeError traceback from its constructor."""
    out = tmp_path / "r.jsonl"
    assert_user_error(colbench("run", "--agent", "scripted", "--episodes", 1, "--out", out,
                               "--simulator-kwargs", '{"model": "x", "volunteer": false}'),
                      "run", "--simulator-kwargs", "'scripted' (backend) takes no 'model'", "max_facts, volunteer")
    assert not out.exists()
    assert last_json(colbench("run", "--agent", "scripted", "--episodes", 1, "--out", out, "--json",
                              "--simulator-kwargs", '{"volunteer": false}'))["count"] == 1


def test_recorded_humans_options_are_checked_before_anything_is_written(tmp_path):
    """``--simulator record``: the options of the human it records from (``inner_kwargs``) are checked
    up front too, a wrong one is the same one-line usage error, and neither the episode file nor the
    cache is created; the right ones record."""
    out, cache = tmp_path / "r.jsonl", tmp_path / "cache.jsonl"
    base = ("run", "--agent", "scripted", "--episodes", 1, "--out", out, "--simulator", "record",
            "--simulator-cache", cache)
    assert_user_error(colbench(*base, "--simulator-kwargs", '{"inner_kwargs": {"model": "x"}}'),
                      "run", "--simulator-kwargs", "'record' (backend), its inner_kwargs",
                      "'scripted' (backend) takes no 'model'", "max_facts, volunteer")
    assert_user_error(colbench(*base, "--simulator-kwargs", '{"inner": "scripted", "inner_kwargs": [1]}'),
                      "run", "--simulator-kwargs", "inner_kwargs must be a JSON object, got list")
    assert not out.exists() and not cache.exists()
    assert last_json(colbench(*base, "--json", "--simulator-kwargs", '{"inner_kwargs": {"volunteer": false}}'))["count"] == 1
    assert cache.exists()


SAME_LINE_ORACLE = """import json

TRUTH = {}
for line in open(%r):
    if line.strip():
        rec = json.loads(line)
        TRUTH[rec["problem_description"]] = rec["ground_truth"]


def same_line(observation):
    # the ground truth on the marker's line: it starts with a space, which the reference scorer
    # cannot compile (IndentationError) and the python semantics strips
    return "OUTPUT: I WANT TO ANSWER: " + TRUTH[observation["problem_description"]]
"""


def test_run_semantics_reaches_the_evaluator_and_the_resume_identity(tmp_path):
    oracle = tmp_path / "same_line.py"
    oracle.write_text(SAME_LINE_ORACLE % str(BACKEND_FILE))
    agent = f"{oracle}:same_line"
    common = ("run", "--agent", agent, "--tasks", BACKEND_FILE, "--episodes", 3, "--episodes-in-flight", 3)
    py, ref = tmp_path / "py.jsonl", tmp_path / "ref.jsonl"
    m = last_json(colbench(*common, "--semantics", "python", "--out", py, "--json"))
    assert (m["count"], m["tests_passed_pct"], m["success_rate"]) == (3, 100.0, 1.0)
    assert {r["answer"][:5] for r in read_trajectories(py)} == {" def "}
    m = last_json(colbench(*common, "--out", ref, "--json"))  # default: reference
    assert (m["count"], m["tests_passed_pct"], m["success_rate"]) == (3, 0.0, 0.0)
    assert json.loads(config_path(py).read_text())["semantics"] == "python"
    assert json.loads(config_path(ref).read_text())["semantics"] == "reference"
    # resuming with other semantics is refused, naming the field and nothing else
    before = py.read_bytes()
    line = assert_user_error(colbench(*common, "--episodes", 4, "--semantics", "reference", "--out", py), "run",
                             'semantics: "python" there, "reference" now')
    assert line.split("differs in", 1)[1].count(":") == 1 and py.read_bytes() == before
    # the same semantics resumes
    assert last_json(colbench(*common, "--episodes", 4, "--semantics", "python", "--out", py, "--json"))["count"] == 4
    # a run recorded before the field existed resumes as the reference semantics it used
    cfg = json.loads(config_path(ref).read_text())
    del cfg["semantics"]
    config_path(ref).write_text(json.dumps(cfg))
    assert last_json(colbench(*common, "--episodes", 4, "--out", ref, "--json"))["count"] == 4
    assert_user_error(colbench(*common, "--episodes", 5, "--semantics", "python", "--out", ref), "run",
                      'semantics: "reference" there, "python" now')
    # frontend runs have no test-based scoring; unknown semantics are argparse's choice error
    assert_user_error(colbench("run", "--agent", "scripted", "--env", "ColBench-Frontend-v0", "--semantics", "python",
                               "--out", tmp_path / "f.jsonl"), "run", "--semantics python", "only backend envs")
    p = colbench("run", "--agent", "scripted", "--semantics", "pyhton", "--out", tmp_path / "x.jsonl")
    assert p.returncode == 2 and "invalid choice: 'pyhton'" in p.stderr


def test_resume_refuses_episodes_of_another_version_of_the_scripted_human(tmp_path):
    """The scripted human's replies changed in version 3 (a draft's code and the agent's offers are
    no longer read as requests for code): episodes recorded with an earlier version are not extended
    with the new one; the version is in <out>.run.json."""
    from colbench_env.simulators.scripted_backend import VERSION

    out = tmp_path / "h.jsonl"
    common = ("run", "--agent", "scripted", "--out", out)
    assert last_json(colbench(*common, "--episodes", 1, "--json"))["count"] == 1
    cfg = json.loads(config_path(out).read_text())
    assert cfg["simulator"] == "scripted" and cfg["human_version"] == VERSION
    del cfg["human_version"]  # as written before the field existed
    config_path(out).write_text(json.dumps(cfg))
    assert_user_error(colbench(*common, "--episodes", 2), "run", f'human_version: "2 or earlier" there, {VERSION} now')
    config_path(out).write_text(json.dumps({**cfg, "human_version": VERSION}))
    assert last_json(colbench(*common, "--episodes", 2, "--json"))["count"] == 2
    # the version is the backend human's: a frontend run or an LLM human has none
    from colbench.runs import RunConfig, _stored_defaults, load_run_tasks, run_signature

    front = RunConfig(out=str(tmp_path / "f.jsonl"), env="ColBench-Frontend-v0")
    front_sig = run_signature(front, load_run_tasks("default", kind="frontend", split=None))
    served = RunConfig(out=str(out), simulator="openai", simulator_base_url="http://127.0.0.1:9/v1", simulator_model="m")
    assert front_sig["human_version"] is None
    assert run_signature(served, load_run_tasks("default", kind="backend", split=None))["human_version"] is None
    assert _stored_defaults({"simulator": "scripted", "env": "ColBench-Frontend-v0"}, front_sig)["human_version"] is None


def test_resume_refuses_a_file_without_configuration(tmp_path):
    out = tmp_path / "old.jsonl"
    colbench("run", "--agent", "scripted", "--episodes", 1, "--out", out)
    (tmp_path / "old.jsonl.run.json").unlink()
    assert_user_error(colbench("run", "--agent", "scripted", "--episodes", 1, "--out", out), "run",
                      "holds 1 episodes but no run configuration")


def test_ctrl_c_says_what_is_saved_and_how_to_resume(tmp_path, plugin_dir):
    slow = plugin_dir / "slow.py"
    # fast for the first episodes, then slow: the run is still going when the interrupt arrives,
    # however long a loaded machine takes to poll the output file
    slow.write_text("import time\n\ncalls = 0\n\ndef slow(observation):\n    global calls\n    calls += 1\n"
                    "    time.sleep(0.4 if calls <= 3 else 10)\n"
                    "    return 'OUTPUT: I WANT TO ANSWER: def f():\\n    return None'\n")
    out = tmp_path / "slow.jsonl"
    proc = subprocess.Popen([colbench_exe(), "run", "--agent", f"{slow}:slow", "--episodes", "40", "--episodes-in-flight", "1",
                             "--out", str(out)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=terminal_like)  # what a terminal gives the command (tests/interrupting.py)
    err = interrupt_after_lines(proc, out, 2)
    assert proc.returncode == 130, err[-2000:]
    assert "Traceback" not in err
    n = len(read_trajectories(out))
    assert 2 <= n < 40
    assert f"colbench run: interrupted: {n} episodes saved in {out}; run the same command again to resume" in err


# ------------------------------------------------------------------------------------------ errors
def test_user_errors_one_line_exit_2(tmp_path):
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    binary = tmp_path / "bin.jsonl"
    binary.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\xff\xfe")
    bad = tmp_path / "bad.jsonl"
    bad.write_text(BACKEND_FILE.read_text().splitlines()[0] + "\n" + '{"problem_description": "x", "test_cases": 3}\n')
    out = tmp_path / "o.jsonl"
    cases = [
        (["--tasks", tmp_path / "missing.jsonl"], ["--tasks", "missing.jsonl", "no such file"]),
        (["--tasks", empty], [str(empty), "empty"]),
        (["--tasks", binary], [str(binary), "not UTF-8"]),
        (["--tasks", bad], [f"{bad}:2", "field 'ground_truth'"]),
        (["--tasks", BACKEND_FILE, "--env", "ColBench-Frontend-v0"],
         [f"{BACKEND_FILE}:1", "field 'test_cases'", "backend task, not a frontend one"]),
        (["--tasks", FRONTEND_FILE], [f"{FRONTEND_FILE}:1", "field 'test_cases' is missing", "frontend task?"]),
        (["--episodes", 0], ["--episodes must be >= 1, got 0"]),
        (["--episodes-in-flight", 0], ["--episodes-in-flight must be >= 1, got 0"]),
        (["--env", "CartPole-v1"], ["--env CartPole-v1: unknown env id", "ColBench-Backend-v0"]),
        (["--agent-kwargs", "[1]"], ["--agent-kwargs", "must be a JSON object"]),
    ]
    for extra, needles in cases:
        p = colbench("run", "--agent", "scripted", "--out", out, *extra)
        assert_user_error(p, "run", *needles)
        assert not out.exists(), extra


def test_unwritable_out_is_refused_before_anything_runs(tmp_path, plugin_dir):
    # the plug-in agent's constructor would leave a mark: it must never be built
    marker = tmp_path / "agent_built"
    (plugin_dir / "mark.py").write_text(
        f"def make():\n    open({str(marker)!r}, 'w').close()\n    return lambda obs: 'OUTPUT: hi'\n")
    agent = f"{plugin_dir / 'mark.py'}:make"
    assert_user_error(colbench("run", "--agent", agent, "--out", "/dev/full"), "run", "/dev/full", "not a regular file")
    assert_user_error(colbench("run", "--agent", agent, "--out", tmp_path), "run", "not a regular file")
    if os.geteuid() != 0:  # root may write anywhere
        ro = tmp_path / "ro"
        ro.mkdir()
        ro.chmod(0o500)
        assert_user_error(colbench("run", "--agent", agent, "--out", ro / "x.jsonl"), "run", "cannot create files")
    assert not marker.exists()


def test_other_commands_share_the_error_style(tmp_path):
    assert_user_error(colbench("table", "--agents", "scripted", "--episodes", 0, "--out-dir", tmp_path), "table",
                      "--episodes must be >= 1")
    assert_user_error(colbench("table", "--agents", "hf:", "--out-dir", tmp_path), "table", "--agents")
    traj = tmp_path / "t.jsonl"
    traj.write_bytes(b"\xff\xfe\x00garbage")
    assert_user_error(colbench("evaluate", traj), "evaluate", str(traj), "not UTF-8")
    traj.write_text("\n")
    assert_user_error(colbench("evaluate", traj), "evaluate", str(traj), "the file is empty")
    assert_user_error(colbench("evaluate", tmp_path / "nope.jsonl"), "evaluate", "file not found")
    assert_user_error(colbench("train", "rft", "--trajectories", tmp_path / "none.jsonl", "--out", tmp_path / "ck"),
                      "train", "--trajectories", "no such file")
    assert_user_error(colbench("render", tmp_path / "nope.html", "--out", tmp_path / "s.png"), "render",
                      "no such file")
    page = tmp_path / "p.html"
    page.write_text("<html><body>hi</body></html>")
    assert_user_error(colbench("render", page, "--out", tmp_path / "s.jpg"), "render", "--out must be a .png file")
    p = colbench("run", "--episodes", "x", "--out", tmp_path / "x.jsonl")  # argparse's own errors: same prefix, exit 2
    assert p.returncode == 2 and "colbench run: error: argument --episodes: invalid int value: 'x'" in p.stderr


def test_version_and_help_show_defaults():
    from colbench import __version__
    p = colbench("--version")
    assert p.returncode == 0 and p.stdout.strip() == f"colbench {__version__}"
    for cmd in ("run", "table"):
        p = colbench(cmd, "--help")
        assert p.returncode == 0
        text = " ".join(p.stdout.split())
        assert ("--episodes-in-flight EPISODES_IN_FLIGHT episodes in flight, each "
                "advancing on its own; a local model batches their turns (default: 4)") in text
        assert "--max-turns MAX_TURNS agent turns per episode (the last one is taken as the answer) (default: 10)" in text


def test_every_option_of_every_command_has_help():
    import argparse
    import importlib

    from colbench.cli import COMMANDS, _HelpFormatter

    for name, (module, _) in COMMANDS.items():
        parser = argparse.ArgumentParser()
        importlib.import_module(module).add_arguments(parser)
        missing = [a.option_strings or a.dest for a in parser._actions if not a.help]
        assert not missing, (name, missing)
        # `--help` formats every help string with %-interpolation: a bare "95 % intervals" crashed it
        parser.formatter_class = _HelpFormatter
        assert "--" in parser.format_help(), name


def test_split_on_a_file_without_split_fields_is_said(tmp_path):
    tasks = tmp_path / "official.jsonl"  # official files have no split field: the split is the file
    lines = []
    for raw in BACKEND_FILE.read_text().splitlines()[:2]:
        rec = json.loads(raw)
        rec.pop("split", None)
        lines.append(json.dumps(rec))
    tasks.write_text("\n".join(lines) + "\n")
    p = colbench("run", "--agent", "scripted", "--tasks", tasks, "--split", "test", "--out", tmp_path / "o.jsonl", "--json")
    assert last_json(p)["count"] == 2
    assert f"colbench run: note: {tasks} has no 'split' fields; --split test keeps all 2 tasks" in p.stderr
