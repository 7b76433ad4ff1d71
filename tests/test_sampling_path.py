"""HFBackend's sampling path against a hand-written ancestral sampler (issue 17, part 1).

A plain loop -- one unpadded prompt, KV cache, ``softmax(logits / T)``, ``torch.multinomial`` -- is
the textbook sampler. The backend must draw exactly its tokens with the same seed (so the
temperature is applied once, and nothing else -- no top-k, top-p or repetition penalty from a
``generation_config`` -- changes the distribution), and left padding in a batch must not change the
distribution it samples from.
"""
from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from colbench_env.lm import HFBackend, SamplingParams  # noqa: E402
from samples import CHAT_CONVS as CONVS  # noqa: E402
from tiny_models import tiny_chat_llama  # noqa: E402



@pytest.fixture(scope="module")
def backend(tok):
    model = tiny_chat_llama(tok, 0, initializer_range=0.3)
    # a hub-style generation_config that would change sampling if it leaked in
    model.generation_config.top_k = 3
    model.generation_config.repetition_penalty = 5.0
    model.generation_config.temperature = 5.0
    return HFBackend(model, tokenizer=tok, max_batch_size=1)


def hand_sample(model, prompt_ids, *, temperature, max_new_tokens, eos, seed):
    torch.manual_seed(seed)
    ids, out, past = torch.tensor([prompt_ids]), [], None
    with torch.inference_mode():
        for _ in range(max_new_tokens):
            res = model(input_ids=ids, past_key_values=past, use_cache=True)
            past = res.past_key_values
            tok = int(torch.multinomial(torch.softmax(res.logits[:, -1].float() / temperature, -1), 1)[0, 0])
            out.append(tok)
            if tok in eos:
                break
            ids = torch.tensor([[tok]])
    return out


def prompt_ids(b, conv):
    return b.tokenizer(b.prompt_texts([conv])[0], add_special_tokens=False)["input_ids"]


@pytest.mark.parametrize("temperature", [0.3, 1.0])
def test_backend_draws_the_hand_samplers_tokens(backend, temperature):
    for k, conv in enumerate(CONVS):
        g = backend.generate([conv], SamplingParams(max_new_tokens=24, temperature=temperature, seed=10 + k,
                                                    return_logprobs=True))[0]
        h = hand_sample(backend.model, prompt_ids(backend, conv), temperature=temperature, max_new_tokens=24,
                        eos=set(backend._eos_ids), seed=10 + k)
        assert g.token_ids == h[:len(g.token_ids)] and len(g.token_ids) >= 1


def test_left_padded_batches_sample_from_the_unpadded_distribution(backend):
    batched = HFBackend(backend.model, tokenizer=backend.tokenizer, max_batch_size=8)
    T = 0.5
    gens = batched.generate(CONVS, SamplingParams(max_new_tokens=16, temperature=T, seed=3, return_logprobs=True))
    for conv, g in zip(CONVS, gens):  # reported log-probs = an unpadded forward pass over the sampled tokens
        p = torch.tensor([prompt_ids(batched, conv)])
        with torch.inference_mode():
            logits = backend.model(torch.cat([p, torch.tensor([g.token_ids])], 1)).logits[0, p.shape[1] - 1:-1]
        lp = torch.log_softmax(logits.float(), -1).gather(1, torch.tensor(g.token_ids)[:, None]).squeeze(1)
        assert torch.allclose(lp, torch.tensor(g.logprobs), atol=1e-4)
    # first-token frequencies of the shortest (most padded) conversation over seeded batched draws
    conv, n = CONVS[0], 200
    with torch.inference_mode():
        probs = torch.softmax(backend.model(torch.tensor([prompt_ids(backend, conv)])).logits[0, -1].float() / T, -1)
    counts = torch.zeros_like(probs)
    for s in range(n):
        g = batched.generate(CONVS, SamplingParams(max_new_tokens=1, temperature=T, seed=100 + s,
                                                   return_logprobs=True))[0]
        counts[g.token_ids[0]] += 1
    top = torch.topk(probs, 5).indices
    for t in top:
        p = float(probs[t])
        assert abs(float(counts[t]) / n - p) < 4 * (p * (1 - p) / n) ** 0.5 + 1e-3, (int(t), float(counts[t]) / n, p)
