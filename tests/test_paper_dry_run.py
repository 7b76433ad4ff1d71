"""Issue 49 part 7: the paper's path in the suite, every size shrunk.

``colbench pipeline --paper`` as a GPU user runs it -- on 2 accelerate processes under ZeRO-3
(``colbench/configs/accelerate/deepspeed_zero3_cpu.yaml``, the CPU twin of ``deepspeed_zero3.yaml``),
the policy on a server, the human on another -- with every size shrunk:

* the policy (and SWEET-RL's critic): a tiny random Llama (2 layers, hidden 16) with Llama-3.1's
  chat template and special tokens (:func:`tiny_models.llama31_template_tokenizer`: TRL's Llama-3.1
  template over a small byte-level BPE vocabulary -- Meta's 128,256 ids would only make every process
  that loads or fingerprints the tokenizer slower, not another path run) and, as Llama-3.1-Instruct's
  generation config, ``do_sample``, served by
  ``transformers serve`` (:mod:`transformers_serve`, started in the out-dir) for the collection,
  SWEET-RL's candidates and every evaluation (``--policy-base-url``);
* the human: the project's stand-in OpenAI-compatible server (:mod:`openai_test_server`), asked
  for ``--paper``'s model name (``meta-llama/Llama-3.1-70B-Instruct``; ``--simulator-base-url``);
* 8 tasks (4 training tasks x 2 rollouts, 4 held out), 2 turns of 8 tokens, SWEET-RL's 4 candidates
  of 8 tokens and its critic's one epoch: with ``--paper``'s batch of 8 per process (2 processes),
  one optimiser step per training stage.

A random policy passes no test, and rollouts that all score 0 give no method anything to learn from
(they would be skipped, not trained), so one successful rollout (the ground truth as the answer) is
in ``rollouts.jsonl`` beforehand, as a resumed collection would find it.

Checked: every stage runs (the collection, the five methods trained -- SWEET-RL's critic, candidate
and policy stages -- six evaluations, the report); the launch is killed (SIGKILL to the launcher and
its processes) as soon as RFT's stage is done, and the same command finishes the run without redoing what
was done; and the settings the run used (its ``config.json``, every checkpoint's trainer config)
equal ``colbench pipeline --paper --dry-run``'s key by key, except the sizes above and where things
run (the out-dir, the servers' URLs)."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import transformers_serve
from openai_test_server import OpenAITestServer
from test_distributed import _free_port
from test_pipeline import oracle_record
from tiny_models import LLAMA31_SPECIAL_TOKENS, llama31_template_tokenizer, llama31_tokenizer, save_tiny_llama

from colbench import configs_dir
from colbench.pipeline.config import METHODS

HERE = Path(__file__).resolve().parent
HUMAN = "meta-llama/Llama-3.1-70B-Instruct"  # --paper's backend human, as the stand-in server is asked for it

pytestmark = [pytest.mark.slow, pytest.mark.distributed,
              pytest.mark.skipif(not transformers_serve.available(), reason="needs the serve extra")]

#: the pipeline's sizes, shrunk (command-line options)
SIZES = {"n_train_tasks": 4, "n_test_tasks": 4, "rollouts_per_task": 2, "max_turns": 2, "max_new_tokens": 8,
         "episodes_in_flight": 8}


def trainer_sizes(model: str) -> dict:
    """SWEET-RL's sizes, shrunk (``--trainer-overrides``): the tiny critic, one critic epoch (one
    step), 4 candidates of 8 tokens."""
    return {"sweet-rl": {"critic": {"model_name_or_path": model, "epochs": 1}, "n_candidates": 4,
                         "candidate_max_new_tokens": 8}}


def flat(d: dict, prefix: str = "") -> dict:
    """``{"a.b.c": value}`` of nested dicts (lists are values)."""
    out = {}
    for k, v in d.items():
        if isinstance(v, dict) and v:
            out.update(flat(v, f"{prefix}{k}."))
        else:
            out[f"{prefix}{k}"] = v
    return out


def expected_differences(out: Path, model: str, policy_url: str, human_url: str) -> dict:
    """Every flattened key in which the run's settings differ from ``--paper``'s, with the run's value:
    the sizes and where things run, nothing else."""
    where = {"pipeline.out_dir": str(out), "pipeline.policy_base_url": policy_url,
             "pipeline.simulator_kwargs.base_url": human_url, "methods.sweet-rl.candidate_base_url": policy_url}
    sizes = {f"pipeline.{k}": v for k, v in SIZES.items()}
    sizes["pipeline.policy"] = model
    sizes.update({f"pipeline.trainer_overrides.{k}": v for k, v in flat(trainer_sizes(model)).items()})
    sizes.update({f"methods.{k}": v for k, v in flat(trainer_sizes(model)).items()})
    for m in METHODS:
        sizes.update({f"methods.{m}.policy.model_name_or_path": model, f"methods.{m}.max_turns": SIZES["max_turns"],
                      f"methods.{m}.max_new_tokens": SIZES["max_new_tokens"]})
    return {**where, **sizes}


def _descendants(pid: int) -> list[int]:
    """The processes ``pid`` started, and theirs (torchrun starts each worker in a session of its own,
    so the launcher's process group does not hold them)."""
    found = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        for child in (task / "children").read_text().split():
            found += [int(child), *_descendants(int(child))]
    return found


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(") ")[1][0] != "Z"
    except FileNotFoundError:
        return False


def _snapshot(paths) -> dict:
    return {p: (p.stat().st_mtime_ns, p.read_bytes()) for p in paths}


def test_the_stand_in_tokenizer_writes_llama31s_chat_format():
    """The dry run's tokenizer renders chats exactly as Meta's Llama-3.1 tokenizer does (the same
    text, with and without the generation prompt), has its special tokens in their roles, each one
    id, and spells any text back unchanged."""
    pytest.importorskip("llama_models")
    meta, small = llama31_tokenizer(), llama31_template_tokenizer()
    chat = [{"role": "system", "content": "You help."}, {"role": "user", "content": "Write f(x)."},
            {"role": "assistant", "content": "OUTPUT: Which number?"}, {"role": "user", "content": "7 -- héllo"}]
    for prompt in (True, False):
        assert small.apply_chat_template(chat, tokenize=False, add_generation_prompt=prompt) == \
            meta.apply_chat_template(chat, tokenize=False, add_generation_prompt=prompt)
    for role in ("bos_token", "eos_token", "pad_token"):
        assert getattr(small, role) == getattr(meta, role)
    assert all(len(small(t, add_special_tokens=False)["input_ids"]) == 1 for t in LLAMA31_SPECIAL_TOKENS)
    text = "def f(x):\n    return round(x * 1.07, 2)  # héllo <nav class=\"bg-blue-500\">"
    assert small.decode(small(text, add_special_tokens=False)["input_ids"]) == text


def test_paper_dry_run_on_two_zero3_processes_with_served_policy_and_human_resumes_after_a_kill(tmp_path, capsys):
    from colbench.cli import main as colbench
    from colbench.pipeline import PipelineConfig, task_split
    from colbench_env.evaluation.backend import BackendEvaluator
    from colbench_env.rollout import episode_specs
    from colbench_env.trajectories import append_jsonl, read_trajectories

    from transformers import GenerationConfig

    model = save_tiny_llama(tmp_path / "llama", llama31_template_tokenizer(), hidden_size=16)
    generation = GenerationConfig.from_pretrained(model)  # Llama-3.1-Instruct's samples: transformers serve
    generation.do_sample = True  # samples at a request's temperature only when the model's config says so
    generation.save_pretrained(model)
    out = tmp_path / "run"
    out.mkdir()
    cfg = PipelineConfig(tasks="default", family="all", n_train_tasks=SIZES["n_train_tasks"],
                         max_turns=SIZES["max_turns"])
    spec = episode_specs(SIZES["n_train_tasks"] * SIZES["rollouts_per_task"], n_tasks=SIZES["n_train_tasks"],
                         repeats=SIZES["rollouts_per_task"])[0]
    with BackendEvaluator(workers=1) as ev:
        oracle = oracle_record(cfg, task_split(cfg, "train")[spec.options["task_index"]], spec.episode_id, ev)
    append_jsonl(out / "rollouts.jsonl", [oracle])

    log_path = tmp_path / "launch.log"
    env = dict(os.environ, OMP_NUM_THREADS="1", HF_HUB_OFFLINE="1",
               PYTHONPATH=os.pathsep.join([str(HERE.parent), str(HERE)]))
    env.pop("ACCELERATE_USE_CPU", None)  # DeepSpeed on CPU ranks: the trainers make the gloo group

    def launch(*options: str) -> subprocess.Popen:
        cmd = [sys.executable, "-m", "accelerate.commands.launch", "--config_file",
               str(configs_dir() / "accelerate" / "deepspeed_zero3_cpu.yaml"), "--main_process_port", str(_free_port()),
               str(HERE / "launch_colbench.py"), *options]
        with open(log_path, "ab") as log:
            return subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=env, start_new_session=True)

    def tail() -> str:
        return log_path.read_text(errors="replace")[-4000:]

    with OpenAITestServer() as human, transformers_serve.TransformersServe(cwd=out) as policy:
        options = ["pipeline", "--paper", "--out-dir", str(out), "--policy", model, "--policy-base-url", policy.url,
                   "--simulator-base-url", human.url, "--trainer-overrides", json.dumps(trainer_sizes(model))]
        for k, v in SIZES.items():
            options += [f"--{k.replace('_', '-')}", str(v)]
        first = launch(*options)
        rft_done, deadline = out / "models" / "rft" / "pipeline_done.json", time.time() + 1200
        while not rft_done.exists():
            assert first.poll() is None, f"the first launch ended ({first.returncode}) before RFT's stage: {tail()}"
            assert time.time() < deadline, tail()
            time.sleep(0.2)
        killed = [first.pid, *_descendants(first.pid)]
        assert len(killed) >= 3, killed  # the launcher and both processes, mid-run
        for pid in killed:
            os.kill(pid, signal.SIGKILL)
        first.wait()
        while any(_alive(pid) for pid in killed[1:]):  # gone before the same command runs again
            time.sleep(0.1)
        done_before = _snapshot([out / "rollouts.jsonl", rft_done, *(out / "ckpt" / "rft").rglob("*.*"),
                                 *(out / "models" / "rft").glob("*.safetensors")])
        assert not (out / "results.json").exists()
        second = launch(*options)
        assert second.wait(timeout=1800) == 0, tail()

    # the resumed launch redid nothing that was done: the collection, RFT's training and export
    assert _snapshot(done_before) == done_before
    assert not [p for p in out.rglob("*") if ".part-" in p.name]  # every process's part merged
    # every stage ran: the collection through both servers ...
    rollouts = read_trajectories(out / "rollouts.jsonl")
    assert len(rollouts) == SIZES["n_train_tasks"] * SIZES["rollouts_per_task"] and rollouts[0] == oracle
    for rec in rollouts[1:]:
        assert not rec.get("error") and rec["human"]["model"] == HUMAN
        for turn in rec["dialogue_history"]:
            if turn["role"] == "assistant":  # the server's token counts (a local policy records its ids)
                assert turn["tokens"]["n_completion"] <= SIZES["max_new_tokens"], turn["tokens"]
                assert not any(k.endswith("_ids") for k in turn["tokens"]), turn["tokens"]
            else:  # the stand-in human's reply
                assert turn["content"].startswith("ECHO[0] "), turn
    assert {r["model"] for r in human.state.requests} == {HUMAN}
    # ... every method trained (none skipped) and evaluated on every held-out task through the server ...
    report = json.loads((out / "results.json").read_text())
    rows = {r["method"]: r for r in report["rows"]}
    assert list(rows) == ["zero-shot", *METHODS]
    for m in ["zero-shot", *METHODS]:
        assert rows[m]["episodes"] == SIZES["n_test_tasks"] and "note" not in rows[m], rows[m]
        evals = read_trajectories(out / "eval" / f"{m}.jsonl")
        assert sorted(r["episode_id"] for r in evals) == sorted({r["episode_id"] for r in evals})
        assert len(evals) == SIZES["n_test_tasks"] and not any(r.get("error") for r in evals)
        assert all("n_completion" in t["tokens"] for r in evals for t in r["dialogue_history"]
                   if t["role"] == "assistant")
    for m in METHODS:
        assert json.loads((out / "models" / m / "pipeline_done.json").read_text())["metrics"], m
        assert (out / "models" / m / "model.safetensors").exists(), m
    # ... SWEET-RL's critic, its candidates from the served policy, its policy stage
    stage = out / "stages" / "sweet-rl"
    states = [json.loads(line) for line in (stage / "candidates.jsonl").read_text().splitlines()[1:]]
    assert states and all(len(s["actions"]) == 4 and len(s["scores"]) == 4 for s in states)
    sweet = json.loads((out / "models" / "sweet-rl" / "pipeline_done.json").read_text())["metrics"]
    assert sweet["n_states"] == len(states) and sweet["n_step_pairs"] >= 1, sweet
    for f in ("results.md", "stats.md", "stats.json", "config.json", "report.html"):
        assert (out / f).exists(), f

    # the settings: --paper's dry-run plan, key by key, but for the sizes and where things run
    capsys.readouterr()  # what the test printed before
    assert colbench(["pipeline", "--paper", "--dry-run", "--out-dir", str(tmp_path / "plan")]) == 0
    plan = json.loads(capsys.readouterr().out)
    planned = flat({"pipeline": plan["pipeline"], "methods": plan["methods"]})
    ran = flat({"pipeline": json.loads((out / "config.json").read_text()),
                "methods": {m: json.loads((out / "ckpt" / m / "trainer.json").read_text())["config"]
                            for m in METHODS}})
    differ = {k: ran.get(k, "<absent>") for k in planned.keys() | ran.keys()
              if planned.get(k, "<absent>") != ran.get(k, "<absent>")}
    assert differ == expected_differences(out, model, policy.url, human.url)
    assert len(planned) > 250  # every trainer's fields, every pipeline field: compared one by one
