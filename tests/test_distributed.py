"""The shipped CPU launch configs run for real: every trainer under DDP, FSDP and DeepSpeed ZeRO-3
in 2 CPU processes on a tiny random Llama, through the code of ``colbench train``, against one
process with the same global batch. (The one launch of the five trainers in the suite: each kind is
one launch of all five, :mod:`distributed_train`.)

Each kind is launched as ``colbench train`` is used (:mod:`distributed_train`, which calls
:func:`colbench.cli.main`); FSDP twice, the second launch resuming after the first ended::

    accelerate launch --config_file colbench/configs/accelerate/fsdp_cpu.yaml \\
        tests/distributed_train.py interrupted T.jsonl MODEL OUT CONFIGS   # update 1, update 2 interrupted
    accelerate launch --config_file colbench/configs/accelerate/fsdp_cpu.yaml \\
        tests/distributed_train.py resume T.jsonl MODEL OUT CONFIGS        # resumes: update 2

DDP (``ddp_cpu.yaml``) and ZeRO-3 (``deepspeed_zero3_cpu.yaml``) once each, ``both``: the
interruption, then the resume from the files in the same processes. Checked per trainer and model:
each process holds about half of the parameters (FSDP, ZeRO-3: sharded, not replicated), or all of
them and the same values (DDP: replicated, the processes agree); the loss of every optimiser step of
both updates and, after each update, the checkpoint (LoRA or full weights, PPO's value head, the
AdamW state with its step counts: a wrong global batch size takes another number of steps) equal
those of one process; checkpoints are written by the main process only (another process writes
nothing under the output folder but its own share of SWEET-RL's candidates); the FSDP checkpoint
loads in one process, where training continues as in the one-process run, and as a merged model in
plain transformers.

The launch is ``accelerate launch --config_file colbench/configs/accelerate/KIND_cpu.yaml``, the
multi-GPU launcher (torchrun) with 2 processes: accelerate's ``--cpu`` launcher starts several
processes only through ``mpirun`` (without it, ``--cpu --num_processes 2`` runs ONE process). On a
machine without a GPU the trainers make each process a gloo CPU rank
(:func:`colbench.agents.sharding.make_accelerator`), what ``ACCELERATE_USE_CPU=1`` does for DDP.

The trainers: RFT, multi-turn DPO (with LoRA under DDP, its reference the policy with the adapters
off; sharded as a full fine-tune, its reference a frozen copy), PPO, GRPO, SWEET-RL with a 4-bit
(NF4) critic -- the paper's critic setting, sharded too. Gradients are clipped to a norm of 0.2,
below the norm of every step measured on this data (0.26-2.9, LoRA RFT, DPO, PPO, GRPO), so the
clip -- by the global norm over the shards -- acts.

Tolerance. One process run twice gives bitwise the same checkpoint (measured, every trainer here).
Two processes compute the same sums in another order (gradients averaged over 2 processes; the
vocabulary projection at the trained positions inside the sharded forward, where one process
slices it in chunks), so float32 rounding differs. Measured (2026-12-05), as fractions of the
largest value of the kind in the checkpoint, worst over trainers and both updates: weights 5.0e-6
(ZeRO-3) / 4.3e-6 (FSDP), AdamW first moments 5.5e-6, second moments 1.2e-5 (squares of gradients:
twice their relative error); losses 1.2e-6 relative. DDP (the same data with LoRA) differs as much:
4.1e-7 of weights whose largest is 0.19 (2.2e-6) -- splitting the batch, not sharding, moves the
float32 sums. Allowed: 3e-5 for weights and first moments, 1e-4 for second moments (6-8x the worst
measured), 2e-5 relative for losses; one update moves the weights by 67x (the full fine-tune,
AdamW's steps bounded by its learning rate) to 1000x the weight tolerance, and the test requires
30x, so a wrong batch, step or optimiser state would be seen.

The model is a tiny Llama over the small tokenizer (``tiny_model_dir(0, 32, "small")``: 2k ids, not
SmolLM2's 49,152, whose projection and loads cost most of the launches: the file took 414 CPU s,
182 with it). Measured on it (2026-12-07): the same bounds hold but for the 4-bit critic's LoRA
weights in SWEET-RL, whose worst element is 2.4e-5 (DDP, FSDP) and 7.0e-5 (ZeRO-3: 2 of its 20,480
elements beyond 3e-5), elements whose first moments are near 0, where AdamW's normalised step
(m / sqrt(v)) turns the rounding of a near-zero gradient into a visible share of the learning rate.
So at most 1 element in 1,000 of a kind may exceed its bound, and none by more than 10x; a wrong
batch, step or optimiser state moves most elements.
"""
from __future__ import annotations

import copy
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from safetensors.torch import load_file
from samples import BAD, GOOD, MID, TASK, traj

from colbench import configs_dir
from colbench.agents.registry import trainer_class
from colbench.cli.train import cli_defaults

HERE = Path(__file__).resolve().parent

TASK2 = dict(TASK, task_id="t2", problem_description="Write g(x) that returns twice x.",
             ground_truth="def g(x):\n    return 2 * x")
GOOD2 = traj(["Which number? OUTPUT: Which number do you add?", "I WANT TO ANSWER: def f(x): return x + 7"],
             ["Seven."], 1.0)
# Sized so that every global batch is full with 2 processes x 1 (a trajectory whose earlier turn has a
# thought is one sequence per turn, since the next turn's context shows only its message: RFT: 4
# successes in 6 sequences, GRPO: 12 sequences; MT-DPO: 2 pairs per task x 2 tasks; SWEET-RL critic:
# 8 ordered pairs with a reward gap, or 4 best-vs-lower pairs).
DATA = [GOOD, GOOD2, MID, BAD,
        traj(["I WANT TO ANSWER: def g(x): return 2 * x"], [], 1.0, task=TASK2),
        traj(["Twice?", "I WANT TO ANSWER: def g(x): return x * 2"], ["Yes."], 1.0, task=TASK2),
        traj(["Plus? OUTPUT: Do you add something?", "I WANT TO ANSWER: def g(x): return x + 2"], ["No."], 0.5,
             task=TASK2),
        traj(["I WANT TO ANSWER: def g(x): return 0"], [], 0.0, task=TASK2)]
#: what one micro-batch of each trainer counts
PER_BATCH = {"rft": "sequences_per_batch", "mt-dpo": "pairs_per_batch", "ppo": "trajectories_per_batch",
             "grpo": "sequences_per_batch", "sweet-rl": "pairs_per_batch"}

#: of the largest value of the kind in the checkpoint (module docstring)
RTOL = {"weight": 3e-5, "exp_avg": 3e-5, "exp_avg_sq": 1e-4}
LOSS_RTOL = 2e-5
#: (module docstring) at most 1 element in OUTLIER_SHARE of a kind may differ by more than RTOL, by at most
#: OUTLIER_FACTOR x RTOL
OUTLIER_SHARE, OUTLIER_FACTOR = 1000, 10
CONFIGS = {  # multi-turn DPO first: its frozen reference is the first DeepSpeed engine a launch makes
    "mt-dpo": {"policy": {"full_finetune": True}},
    "rft": {},
    "ppo": {"update_epochs": 1},
    "grpo": {"update_epochs": 1},
    # 2 candidates and 2 draws per state: a state gives 0 or 2 pairs, so the pair count stays even
    "sweet-rl": {"n_candidates": 2, "pairs_per_state": 2, "candidate_max_new_tokens": 4, "state_fraction": 0.25,
                 "critic": {"load_in_4bit": True}},
}
#: per launch kind, the trainers' settings that differ from CONFIGS: DDP trains multi-turn DPO with LoRA
KIND_CONFIGS = {"ddp": {"mt-dpo": {}}}
LAUNCHES = {"ddp": "ddp_cpu.yaml", "fsdp": "fsdp_cpu.yaml", "deepspeed": "deepspeed_zero3_cpu.yaml"}


def _free_port() -> int:
    import socket

    with socket.socket() as s:  # other launches on this machine may hold accelerate's default 29500
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _weights(ckpt: Path) -> dict[str, torch.Tensor]:
    """The weights of a trainer checkpoint (adapters, or full weights with ``full_finetune``; PPO's value head)."""
    out = {}
    for f in sorted(ckpt.glob("*/*.safetensors")):
        out.update({f"{f.parent.name}/{k}": v for k, v in load_file(str(f)).items()})
    if (ckpt / "value_head.pt").exists():
        out.update({f"value_head/{k}": v for k, v in torch.load(ckpt / "value_head.pt").items()})
    return out


def _deepspeed_missing() -> str | None:
    try:
        import deepspeed  # noqa: F401
    except ImportError as e:
        return f"deepspeed is not installed ({e}): pip install deepspeed"
    return None


def _config(algorithm: str, per_process: int, kind: str) -> dict:
    """The ``--config-json`` of ``algorithm`` in a launch of ``kind`` with ``per_process`` per micro-batch."""
    conf = copy.deepcopy(KIND_CONFIGS.get(kind, {}).get(algorithm, CONFIGS[algorithm]))
    conf.update(max_length=512, max_grad_norm=0.2)
    conf["policy"] = dict(conf.get("policy", {}), lora_r=4, learning_rate=1e-3)
    conf[PER_BATCH[algorithm]] = per_process
    if algorithm == "sweet-rl":
        conf["critic"] = dict(conf["critic"], learning_rate=1e-3, pairs_per_batch=per_process)
    return conf


@pytest.fixture(scope="module")
def setup(tmp_path_factory, tiny_model_dir):
    torch.set_num_threads(1)
    root = tmp_path_factory.mktemp("distributed")
    model = tiny_model_dir(0, 32, "small")
    data = root / "trajs.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in DATA))
    return root, model, data


def _recording_losses(monkeypatch):
    """Record the loss of every ``backward`` call, per TrainableLM."""
    from colbench.agents.trainer_base import TrainableLM

    log: dict[int, list[float]] = {}
    original = TrainableLM.backward

    def backward(self, loss):
        log.setdefault(id(self), []).append(float(loss.detach()))
        return original(self, loss)

    monkeypatch.setattr(TrainableLM, "backward", backward)
    return log


@pytest.fixture(scope="module")
def one_process(setup):
    """``one_process(kind, algorithm)``: the trainer of a ``kind`` launch in this process with the
    global batch (2 per micro-batch), run once per distinct config: its checkpoints after update 1
    (``DIR/first``) and 2 (``DIR/resumed``, after a save and load) and the losses of each update,
    as ``{"losses": [update 1's, update 2's], "dir": DIR}``."""
    root, model, _ = setup
    done: dict[str, dict] = {}

    def run(kind: str, algorithm: str) -> dict:
        conf = dict(cli_defaults(algorithm), **_config(algorithm, 2, kind))  # as colbench train builds it
        key = json.dumps([algorithm, conf], sort_keys=True)
        if key in done:
            return done[key]
        cls = trainer_class(algorithm)
        out = root / "one" / f"{algorithm}-{len(done)}"
        losses = []
        with pytest.MonkeyPatch.context() as mp:
            log = _recording_losses(mp)
            trainer = cls(dict(conf, policy=dict(conf["policy"], model_name_or_path=model)))
            for stage in ("first", "resumed"):
                log.clear()
                trainer.update(DATA)
                losses.append({name: log.get(id(lm), []) for name, lm in trainer._models().items()})
                trainer.save(out / stage)
                if stage == "first":
                    trainer = cls.load(out / "first")
        done[key] = {"losses": losses, "dir": out}
        return done[key]

    return run


_LAUNCHED: dict[str, Path] = {}


def _launch(kind: str, phase: str, setup) -> subprocess.CompletedProcess:
    root, model, data = setup
    configs = {a: _config(a, 1, kind) for a in CONFIGS}
    cmd = [sys.executable, "-m", "accelerate.commands.launch", "--config_file", str(configs_dir() / "accelerate" / LAUNCHES[kind]),
           "--main_process_port", str(_free_port()), str(HERE / "distributed_train.py"), phase, str(data), model,
           str(root / kind), json.dumps(configs)]
    env = dict(os.environ, OMP_NUM_THREADS="1", PYTHONPATH=os.pathsep.join([str(HERE.parent), str(HERE)]))
    env.pop("ACCELERATE_USE_CPU", None)
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=900, env=env)
    assert p.returncode == 0, p.stderr[-5000:]
    assert f"rank 0 {phase} done" in p.stdout and f"rank 1 {phase} done" in p.stdout, p.stdout[-3000:]
    assert "WROTE" not in p.stderr, [ln for ln in p.stderr.splitlines() if "WROTE" in ln][:5]
    return p


def launched(kind: str, setup) -> Path:
    """The launches of ``kind`` (once per module): ``ROOT/kind/ALG.first`` holds the checkpoint the
    interrupted run left, ``ROOT/kind/ALG`` the resumed one's. FSDP: two launches, the second
    resuming after the first ended; DDP and DeepSpeed (for the time budget): one, resuming in its processes."""
    if kind not in _LAUNCHED:
        root = setup[0]
        phases = ["interrupted", "resume"] if kind == "fsdp" else ["both"]
        for phase in phases:
            p = _launch(kind, phase, setup)
            lines = p.stdout.splitlines()
            for algorithm in CONFIGS:
                if phase in ("interrupted", "both"):
                    for rank in (0, 1):
                        assert f"INTERRUPTED {algorithm} rank {rank}" in p.stdout, p.stdout[-3000:]
                if phase == "interrupted":
                    shutil.copytree(root / kind / algorithm, root / kind / f"{algorithm}.first")
                if phase in ("resume", "both"):
                    assert f"resumed {algorithm} from {root / kind / algorithm} at update 1" in p.stdout
                    # colbench train's last line, on each process
                    assert lines.count(f"checkpoint: {root / kind / algorithm}") == 2, (kind, algorithm)
        for algorithm in CONFIGS:  # the interrupted update 2 left the checkpoint of update 1
            assert json.loads((root / kind / f"{algorithm}.first" / "trainer.json").read_text())["updates"] == 1
        _LAUNCHED[kind] = root / kind
    return _LAUNCHED[kind]


def _checkpoint(d: Path) -> dict[str, torch.Tensor]:
    """Every saved tensor of a trainer checkpoint: weights (adapter or full), value head, AdamW state."""
    out = _weights(d)
    for f in sorted(d.glob("*/optimizer.pt")):
        sd = torch.load(f, weights_only=False)
        out.update({f"{f.parent.name}/adam/{i}/{k}": v for i, st in sd["state"].items() for k, v in st.items()})
        assert [g["params"] for g in sd["param_groups"]], f
    return out


def _kind(key: str) -> str:
    return key.rsplit("/", 1)[1] if "/adam/" in key else "weight"


def _compare(got: dict, want: dict, what) -> dict[str, float]:
    """Check a checkpoint against the one-process one: AdamW step counts equal; weights, first and
    second moments within RTOL of the largest value of their kind in the checkpoint, but for at most
    1 element in OUTLIER_SHARE of a kind, which is within OUTLIER_FACTOR x RTOL (module docstring).
    Returns the largest difference of each kind relative to that scale."""
    assert got.keys() == want.keys(), (what, sorted(set(got) ^ set(want))[:5])
    scale: dict[str, float] = {}
    for k, w in want.items():
        scale[_kind(k)] = max(scale.get(_kind(k), 0.0), float(w.float().abs().max()))
    worst: dict[str, float] = {}
    over: dict[str, int] = {}
    total: dict[str, int] = {}
    for k, w in want.items():
        if _kind(k) == "step":
            assert float(got[k]) == float(w), (what, k)
            continue
        r = (got[k].float() - w.float()).abs() / scale[_kind(k)]
        d = float(r.max())
        assert d <= OUTLIER_FACTOR * RTOL[_kind(k)], (what, k, d)
        over[_kind(k)] = over.get(_kind(k), 0) + int((r > RTOL[_kind(k)]).sum())
        total[_kind(k)] = total.get(_kind(k), 0) + r.numel()
        worst[_kind(k)] = max(worst.get(_kind(k), 0.0), d)
    for kind, n in over.items():  # beyond RTOL: at most 1 element in OUTLIER_SHARE of a kind
        assert n <= total[kind] // OUTLIER_SHARE, (what, kind, n, total[kind], worst[kind])
    return worst


@pytest.mark.parametrize("kind", sorted(LAUNCHES))
def test_two_processes_equal_one_with_the_same_global_batch(kind, setup, one_process):
    if kind == "deepspeed" and _deepspeed_missing():
        pytest.skip(_deepspeed_missing())
    out = launched(kind, setup)
    report = {}
    for algorithm in CONFIGS:
        ref = one_process(kind, algorithm)
        runs = [json.loads((out / f"{algorithm}.{phase}.json").read_text()) for phase in ("interrupted", "resume")]
        for run in runs:
            assert run["shards"].keys() == ref["losses"][0].keys(), (algorithm, run["shards"].keys())
            for name, s in run["shards"].items():
                if kind == "ddp":  # replicated: each process holds the whole model, and the processes agree
                    assert s["sharding"] is None and s["per_process"] == [s["whole"]] * 2, (algorithm, name, s)
                    assert len(s["digests"]) == 2 and s["digests"][0] == s["digests"][1], (algorithm, name)
                    continue
                # sharded for real: each process holds about half of every model's parameters
                assert s["sharding"] == kind, (algorithm, name, s)
                assert all(n < 0.6 * s["whole"] for n in s["per_process"]), (algorithm, name, s)
                assert sum(s["per_process"]) >= s["whole"], (algorithm, name, s)
        # the losses of every optimiser step: update 1 (interrupted launch), update 2 (resumed launch)
        got_losses = [runs[0]["updates"][0], runs[1]["updates"][0]]
        assert len(runs[0]["updates"]) == 1 and len(runs[1]["updates"]) == 1
        loss_worst = 0.0
        for got, want in zip(got_losses, ref["losses"]):
            assert got.keys() == want.keys() and sum(len(v) for v in want.values()) > 0
            for name in want:
                assert got[name] == pytest.approx(want[name], rel=LOSS_RTOL, abs=1e-7), (algorithm, name)
                loss_worst = max([loss_worst] + [abs(g - w) / max(abs(w), 1e-7) for g, w in zip(got[name], want[name])])
        # the checkpoints: after update 1 (left by the interrupted run) and after the resumed update 2
        first = _compare(_checkpoint(out / f"{algorithm}.first"), _checkpoint(ref["dir"] / "first"), (kind, algorithm, 1))
        second = _compare(_checkpoint(out / algorithm), _checkpoint(ref["dir"] / "resumed"), (kind, algorithm, 2))
        meta = json.loads((out / algorithm / "trainer.json").read_text())
        assert meta["updates"] == 2 and meta["algorithm"] == algorithm
        # negative control: one update moves the weights far beyond the tolerance
        a, b = _checkpoint(ref["dir"] / "first"), _checkpoint(ref["dir"] / "resumed")
        moved = max(float((a[k] - b[k]).abs().max()) for k in a if "/adam/" not in k)
        scale = max(float(b[k].abs().max()) for k in b if "/adam/" not in k)
        assert moved > 30 * RTOL["weight"] * scale, (algorithm, moved, scale)
        report[algorithm] = {"update 1": first, "update 2": second, "loss": loss_worst,
                             "update moves / tolerance": moved / (RTOL["weight"] * scale)}
    print(kind, json.dumps(report, indent=1))


def test_sharded_checkpoint_in_one_process(setup, one_process):
    """The FSDP run's checkpoints in one process: ``LMTrainer.load`` then update 2 gives the
    one-process run's weights and losses (PPO: its value head and own AdamW; SWEET-RL: policy and
    4-bit critic); the SWEET-RL policy as a merged model in plain transformers (peft's own loading,
    ``merge_and_unload``) gives the logits of the loaded trainer's policy."""
    import peft
    from transformers import AutoModelForCausalLM

    out = launched("fsdp", setup)
    root, model, _ = setup
    with pytest.MonkeyPatch.context() as mp:
        log = _recording_losses(mp)
        for algorithm in ("ppo", "sweet-rl"):
            # the saved config says 1 per micro-batch and process: 2 in one process is the same global batch
            per_process = {PER_BATCH[algorithm]: 2, **({"critic": {"pairs_per_batch": 2}} if algorithm == "sweet-rl" else {})}
            trainer = trainer_class(algorithm).load(out / f"{algorithm}.first", overrides=per_process)
            assert trainer.accelerator.num_processes == 1 and trainer.policy.sharding is None
            log.clear()
            trainer.update(DATA)
            want = one_process("fsdp", algorithm)["losses"][1]
            for name, lm in trainer._models().items():
                assert log.get(id(lm), []) == pytest.approx(want[name], rel=LOSS_RTOL, abs=1e-7), (algorithm, name)
            trainer.save(root / "reloaded" / algorithm)
            _compare(_checkpoint(root / "reloaded" / algorithm), _checkpoint(one_process("fsdp", algorithm)["dir"] / "resumed"),
                     ("fsdp checkpoint resumed in one process", algorithm))

    ckpt = out / "sweet-rl"
    trainer = trainer_class("sweet-rl").load(ckpt)
    ids = torch.tensor([trainer.policy.tokenizer("What number do you add?")["input_ids"]])
    with torch.no_grad():
        want = trainer.policy.forward_logits({"input_ids": ids, "attention_mask": torch.ones_like(ids)})
        trainer.policy.merged_model().save_pretrained(root / "merged")
        merged = AutoModelForCausalLM.from_pretrained(root / "merged").eval()
        plain = peft.PeftModel.from_pretrained(AutoModelForCausalLM.from_pretrained(model), ckpt / "policy").merge_and_unload().eval()
        for net in (merged, plain):
            got = net(input_ids=ids).logits
            assert float((got - want).abs().max()) <= 1e-5 * float(want.abs().max())
