"""Token-exact training data (issue 49, part 3): each agent turn records the token ids its policy saw
and produced; the trainers train on them when the tokenizer fingerprint matches, and say how many
turns a re-tokenization would change.

The policies here: a tiny random Llama generating through the real :class:`HFBackend`, and
:class:`ThinkingPolicy`, a stand-in for a model that writes a ``<think>`` block before it speaks
(what the tiny random model never does), which returns what a model's backend returns (the prompt's
ids, the ids it emitted, the text). Everything after the backend is real: LMAgent, the env and its
scripted human, the recorder's file, the trainers and their batches.
"""
from __future__ import annotations

import copy
import math
import functools
import json

import gymnasium as gym
import pytest
import torch
from openai_test_server import OpenAITestServer
from tiny_models import smollm2_tokenizer, tiny_bpe_tokenizer, tiny_chat_llama, tiny_llama

import colbench_env  # noqa: F401
from colbench.agents.base import LMAgent
from colbench.agents.rft import RejectionFineTuning
from colbench.agents.tokenize import TokenizationError, token_report, tokenize_trajectory
from colbench_env.evaluation.backend import BackendEvaluator
from colbench_env.lm.base import Generation, LMBackend, SamplingParams
from colbench_env.lm.hf import HFBackend
from colbench_env.lm.tokens import (TokenRecordError, TurnTokens, encode_turn_tokens, history_turn_tokens,
                                    tokenizer_fingerprint)
from colbench_env.prompting import record_messages
from colbench_env.rollout import episode_specs, run_episodes
from colbench_env.trajectories import read_trajectories
from colbench.wrappers import TrajectoryRecorder

#: a chat template that re-renders earlier turns as Qwen3's does: an assistant message after the last
#: user message is written with its think block, whitespace normalised (``<think>\n...\n</think>\n\n``),
#: an earlier one without it; the generation prompt is bare (the model writes its own think block)
QWEN3_LIKE = (
    "{%- set ns = namespace(last_user=-1) -%}"
    "{%- for m in messages -%}{%- if m['role'] == 'user' -%}{%- set ns.last_user = loop.index0 -%}{%- endif -%}"
    "{%- endfor -%}"
    "{%- for m in messages -%}"
    "{%- if m['role'] == 'assistant' -%}"
    "{%- set content = m['content'] -%}{%- set reasoning = '' -%}"
    "{%- if '</think>' in content -%}{%- set reasoning = content.split('</think>')[0].split('<think>')[-1] -%}"
    "{%- set content = content.split('</think>')[-1] -%}{%- endif -%}"
    "{%- if loop.index0 > ns.last_user -%}"
    "{{ '<|im_start|>assistant\\n<think>\\n' + reasoning.strip('\\n') + '\\n</think>\\n\\n' + content.lstrip('\\n')"
    " + '<|im_end|>\\n' }}"
    "{%- else -%}{{ '<|im_start|>assistant\\n' + content.lstrip('\\n') + '<|im_end|>\\n' }}{%- endif -%}"
    "{%- else -%}{{ '<|im_start|>' + m['role'] + '\\n' + m['content'] + '<|im_end|>\\n' }}{%- endif -%}"
    "{%- endfor -%}"
    "{%- if add_generation_prompt -%}{{ '<|im_start|>assistant\\n' }}{%- endif -%}"
)

#: the replies carry no ``OUTPUT:`` marker, so the agent's next context shows the whole first reply
#: (:func:`colbench_env.prompting.history_message`), think block included, for the template to render
THINKING = ("<think>I need their rate.</think>What rate do you charge?",
            "<think>They told me.</think>I WANT TO ANSWER: ```python\ndef f(x):\n    return x\n```")
#: what the Qwen3-like template writes for them as the turn's assistant message (hand-written)
THINKING_RERENDERED = ("<think>\nI need their rate.\n</think>\n\nWhat rate do you charge?<|im_end|>\n",
                       "<think>\nThey told me.\n</think>\n\nI WANT TO ANSWER: ```python\ndef f(x):\n"
                       "    return x\n```<|im_end|>\n")
PLAIN = ("What rate do you charge?", "I WANT TO ANSWER: ```python\ndef f(x):\n    return x\n```")
MAX_TURNS = 2
FORMATTER = functools.partial(record_messages, max_turns=MAX_TURNS, style="paper")


class ThinkingPolicy(LMBackend):
    """Says ``replies[k]`` on its ``k``-th agent turn (counted in the conversation) and returns it as a
    model's backend does: the prompt's ids (the chat template applied), the emitted ids (the reply
    tokenized, then the end token: it ended its turn) when asked for ids, and the text. Every
    generation is logged (:attr:`log`)."""

    def __init__(self, tokenizer, replies):
        self.tokenizer, self.replies, self.log = tokenizer, replies, []

    def generate(self, conversations, params=None):
        params = params or SamplingParams()
        out = []
        for conv in conversations:
            reply = self.replies[sum(m["role"] == "assistant" for m in conv)]
            prompt = self.tokenizer.apply_chat_template(list(conv), add_generation_prompt=True, tokenize=True,
                                                        return_dict=True)["input_ids"]
            ids = self.tokenizer(reply, add_special_tokens=False)["input_ids"] + [self.tokenizer.eos_token_id]
            gen = Generation(text=reply, finish_reason="stop")
            if params.return_token_ids:
                gen.token_ids, gen.prompt_token_ids = list(ids), list(prompt)
            self.log.append((list(prompt), list(ids)))
            out.extend([gen] * params.n)
        return out


@functools.lru_cache(maxsize=None)
def _smol():
    return smollm2_tokenizer()


def smol():
    """SmolLM2's tokenizer, loaded once (seconds on a busy machine), a fresh copy each call."""
    return copy.deepcopy(_smol())


@pytest.fixture(scope="module")
def evaluator():
    with BackendEvaluator(workers=1) as ev:
        yield ev


def collect(agent, evaluator, path, n=2):
    """``n`` episodes (2 agent turns each at most, the scripted human) recorded to ``path``, read back."""
    def env_fn():
        env = gym.make("ColBench-Backend-v0", tasks="generated:2:1:rate", max_turns=MAX_TURNS, evaluator=evaluator)
        return TrajectoryRecorder(env, path)

    run_episodes(env_fn, agent, episode_specs(n, n_tasks=2))
    return read_trajectories(path)


def trained_ids(seq) -> list[int]:
    return [i for i, m in zip(seq.input_ids, seq.mask) if m]


def test_fingerprint_tells_tokenizers_and_templates_apart_and_survives_a_reload(tmp_path):
    tok = smol()
    fp = tokenizer_fingerprint(tok)
    assert len(fp) == 16 and int(fp, 16) >= 0
    tok(["a", "bbb ccc"], padding=True, truncation=True, max_length=8)  # run-time settings: no change
    tok.pad_token, tok.padding_side = tok.eos_token, "left"
    assert tokenizer_fingerprint(tok) == fp
    tok.save_pretrained(tmp_path / "tok")
    from transformers import AutoTokenizer

    assert tokenizer_fingerprint(AutoTokenizer.from_pretrained(tmp_path / "tok")) == fp
    other_template = copy.deepcopy(tok)
    other_template.chat_template = QWEN3_LIKE
    more_tokens = copy.deepcopy(tok)
    more_tokens.add_tokens(["<think>"])
    fps = {fp, tokenizer_fingerprint(other_template), tokenizer_fingerprint(more_tokens),
           tokenizer_fingerprint(tiny_bpe_tokenizer(QWEN3_LIKE))}
    assert len(fps) == 4


def _fingerprint_by_hand(tok) -> str:
    """The fingerprint as tokenizer_fingerprint's docstring defines it, computed afresh (no cache)."""
    import hashlib

    state = json.loads(tok.backend_tokenizer.to_str())
    state.pop("padding", None)
    state.pop("truncation", None)
    special = {k: str(getattr(tok, k, None)) for k in ("bos_token", "eos_token", "unk_token")}
    blob = json.dumps({"tokenizer": state, "chat_template": tok.chat_template, "special": special},
                      sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()[:16]


def test_a_remembered_fingerprint_follows_every_change_of_the_tokenizer(tmp_path, monkeypatch):
    """tokenizer_fingerprint remembers its value per tokenizer state: the same object again or the same
    files loaded again are not hashed again, and each change made to the object in place (an added
    token, an added special token, another template, normalizer, pre-tokenizer or eos token) gives
    the value computed afresh from the changed tokenizer, different from the one before."""
    from tokenizers import normalizers, pre_tokenizers
    from transformers import AutoTokenizer

    import colbench_env.lm.tokens as tokens

    tok = smol()
    hashed = []
    _fingerprint_of = tokens._fingerprint_of
    monkeypatch.setattr(tokens, "_fingerprint_of", lambda *a: hashed.append(1) or _fingerprint_of(*a))
    monkeypatch.setattr(tokens, "_FINGERPRINTS", {})
    fp = tokenizer_fingerprint(tok)
    assert fp == _fingerprint_by_hand(tok) and len(hashed) == 1
    tok.save_pretrained(tmp_path / "tok")
    reloaded = AutoTokenizer.from_pretrained(tmp_path / "tok")
    assert tokenizer_fingerprint(tok) == tokenizer_fingerprint(reloaded) == fp and len(hashed) == 1  # remembered
    seen = [fp]
    changes = [lambda t: t.add_tokens(["<think>"]),
               lambda t: t.add_special_tokens({"additional_special_tokens": ["<tool>"]}),
               lambda t: setattr(t, "chat_template", QWEN3_LIKE),
               lambda t: setattr(t.backend_tokenizer, "normalizer", normalizers.Lowercase()),
               lambda t: setattr(t.backend_tokenizer, "pre_tokenizer", pre_tokenizers.Whitespace()),
               lambda t: setattr(t, "eos_token", "<think>")]
    for k, change in enumerate(changes):
        change(tok)
        now = tokenizer_fingerprint(tok)
        assert now == _fingerprint_by_hand(tok) and now not in seen, k
        assert len(hashed) == 2 + k  # computed afresh, once
        assert tokenizer_fingerprint(tok) == now and len(hashed) == 2 + k
        seen.append(now)
    assert tokenizer_fingerprint(reloaded) == fp and len(hashed) == 1 + len(changes)  # the unchanged one: remembered


def test_token_field_stores_each_prompt_after_what_it_shares_and_names_malformed_fields():
    a = TurnTokens(prompt_ids=[1, 2, 3], completion_ids=[4, 5], fingerprint="f", logprobs=[-0.5, -1.0])
    b = TurnTokens(prompt_ids=[1, 2, 3, 4, 5, 6, 7], completion_ids=[8], fingerprint="f")
    c = TurnTokens(prompt_ids=[1, 2, 9, 10], completion_ids=[11], fingerprint="f")  # re-renders turn a
    d = TurnTokens(fingerprint="f", n_prompt=12, n_completion=3)  # a server's counts only
    fields = []
    prev = None
    for t in (a, b, c, d):
        fields.append(encode_turn_tokens(t, prev))
        prev = t
    assert [f.get("prompt_from") for f in fields] == [0, 5, 2, None]
    assert fields[1]["prompt_ids"] == [6, 7] and fields[2]["prompt_ids"] == [9, 10]
    assert fields[3] == {"fingerprint": "f", "n_prompt": 12, "n_completion": 3}
    assert encode_turn_tokens(b, TurnTokens(prompt_ids=[1, 2, 3], completion_ids=[4, 5], fingerprint="g"))[
        "prompt_from"] == 0  # another tokenizer's ids are not shared
    history = []
    for f in fields:
        history += [{"role": "assistant", "content": "x", "tokens": json.loads(json.dumps(f))},
                    {"role": "user", "content": "y"}]
    history.append({"role": "assistant", "content": "no ids"})
    back = history_turn_tokens(history)
    assert [t.prompt_ids for t in back[:3]] == [a.prompt_ids, b.prompt_ids, c.prompt_ids] and back[4] is None
    assert back[0].logprobs == a.logprobs and (back[3].n_prompt, back[3].has_ids) == (12, False)
    bad = [({"prompt_ids": [1], "prompt_from": 3}, r"dialogue_history\[0\]\.tokens\.prompt_from' is 3, but the "
                                                   "previous agent turn has no 3 token ids"),
           ({"completion_ids": [1, -2]}, r"dialogue_history\[0\]\.tokens\.completion_ids' must be a list of token ids"),
           ({"completion_ids": [1], "logprobs": [0.0, 0.1]}, r"tokens\.logprobs' has 2 values for 1 completion ids"),
           ({"n_prompt": "12"}, r"tokens\.n_prompt' must be an int >= 0"), ("ids", r"tokens' must be an object")]
    for field, msg in bad:
        with pytest.raises(TokenRecordError, match=msg):
            history_turn_tokens([{"role": "assistant", "content": "x", "tokens": field}])
    rec = {"task": {"problem_description": "p", "test_cases": {}}, "dialogue_history": [
        {"role": "assistant", "content": "x", "tokens": {"completion_ids": "1"}}]}
    with pytest.raises(TokenizationError, match=r"^<t>: field 'dialogue_history\[0\]\.tokens\.completion_ids'"):
        tokenize_trajectory(smol(), rec, source="<t>", token_fingerprint="f")


@pytest.mark.parametrize("template", ["qwen3-like", "smollm2"])
def test_recorded_ids_are_trained_as_produced_where_retokenizing_changes_them(tmp_path, evaluator, template):
    """A policy that ends each turn with its end token. Qwen3-like template on a tiny BPE tokenizer:
    the policy writes ``<think>...</think>`` without the template's newlines and the next turn's
    prompt drops the block; SmolLM2's ChatML: the template writes a newline after ``<|im_end|>``
    that the policy never emitted. Re-tokenizing trains the template's text on every turn; the
    recorded ids give each turn exactly the policy's prompt and completion, from the file."""
    if template == "qwen3-like":
        tok, replies, rerendered = tiny_bpe_tokenizer(QWEN3_LIKE), THINKING, THINKING_RERENDERED
    else:
        tok, replies, rerendered = smol(), PLAIN, tuple(r + "<|im_end|>\n" for r in PLAIN)
    policy = ThinkingPolicy(tok, replies)
    agent = LMAgent(policy, max_turns=MAX_TURNS, tokenizer=tok)
    records = collect(agent, evaluator, tmp_path / "rollouts.jsonl")
    fp = tokenizer_fingerprint(tok)
    assert [len(r["dialogue_history"]) for r in records] == [3, 3] and len(policy.log) == 4
    produced = iter(policy.log)  # episode by episode, turn by turn
    for rec in records:
        exact = tokenize_trajectory(tok, rec, formatter=FORMATTER, token_fingerprint=fp)
        retok = tokenize_trajectory(tok, rec, formatter=FORMATTER)
        turns = [next(produced) for _ in range(2)]
        if template == "qwen3-like":  # the second prompt does not extend the first turn: one sequence each
            assert len(exact) == 2
            for seq, (prompt, completion) in zip(exact, turns):
                assert seq.input_ids == prompt + completion and seq.mask == [0] * len(prompt) + [1] * len(completion)
            second_prompt = tok.decode(turns[1][0])
            assert "I need their rate." not in second_prompt and "What rate do you charge?" in second_prompt
            assert "<think>I need their rate.</think>" in FORMATTER(rec["task"], rec["dialogue_history"][:2])[-2]["content"]
        else:  # ChatML extends each context: one packed sequence, the template's newline as context
            (seq,) = exact
            assert seq.input_ids == turns[1][0] + turns[1][1] and seq.input_ids[:len(turns[0][0])] == turns[0][0]
            assert [seq.input_ids[s:e] for s, e in seq.turn_spans] == [c for _, c in turns]
        assert [tok.decode(trained_ids(s)) for s in exact] in ([r + "<|im_end|>" for r in replies],
                                                               ["".join(r + "<|im_end|>" for r in replies)])
        retok_trained = [tok.decode(s.input_ids[a:b]) for s in retok for a, b in s.turn_spans]
        assert retok_trained == list(rerendered)
    report = token_report(tok, records, FORMATTER, token_fingerprint=fp)
    assert (report.turns, report.recorded, report.would_differ, report.inexact) == (4, 4, 4, 0)
    other = token_report(tok, records, FORMATTER, token_fingerprint="0" * 16, sources=["a.jsonl:1", "a.jsonl:2"])
    assert (other.recorded, other.differ, other.same, other.unchecked) == (0, 4, 0, 0)
    assert other.first["differ"].startswith("a.jsonl:1 agent turn 0: the completion re-tokenizes to other ids")
    assert other.summary() == ("4 agent turns: 0 trained on the token ids the policy recorded; 4 re-tokenized: 4 differ "
                               "from what the policy saw, 0 the same, 0 unchecked (no token ids recorded)")


def test_rft_trains_the_recorded_ids_and_no_human_token(tmp_path, evaluator):
    """RFT on the Qwen3-like records: its loss is the tiny model's mean NLL of the logged completion
    ids after the logged prompts (computed here with a plain forward), and in the batch it builds
    no position whose label is a token of the human's replies, the problem or the instructions
    carries loss -- only the policy's completion ids do."""
    tok = tiny_bpe_tokenizer(QWEN3_LIKE)
    policy = ThinkingPolicy(tok, THINKING)
    records = collect(LMAgent(policy, max_turns=MAX_TURNS, tokenizer=tok), evaluator, tmp_path / "r.jsonl")
    model = tiny_llama(tok, hidden_size=32)
    twin = copy.deepcopy(model).eval()
    with torch.no_grad():
        nll, count = 0.0, 0
        for prompt, completion in policy.log:
            logp = torch.log_softmax(twin(torch.tensor([prompt + completion])).logits[0].float(), -1)
            for k, t in enumerate(completion):
                nll -= float(logp[len(prompt) + k - 1, t])
            count += len(completion)
    config = {"success_threshold": 0.0, "sequences_per_batch": 8, "max_turns": MAX_TURNS, "max_length": 2048,
              "policy": {"learning_rate": 1e-3}}
    trainer = RejectionFineTuning(config, model=model, tokenizer=tok)
    retok = RejectionFineTuning(dict(config, recorded_tokens=False), model=tiny_llama(tok, hidden_size=32),
                                tokenizer=tok)
    assert retok.token_fingerprint is None and trainer.token_fingerprint == tokenizer_fingerprint(tok)
    humans = [m["content"] for r in records for m in r["dialogue_history"] if m["role"] == "user"]
    problems = sorted({r["task"]["problem_description"] for r in records})
    assert len(humans) == 2
    for t in (trainer, retok):
        seqs = t.sequences(records)
        batch = t.policy.batch(seqs)
        mask, labels = batch["loss_mask"], batch["input_ids"][:, 1:]
        trained = [labels[b][mask[b] == 1].tolist() for b in range(len(seqs))]
        assert (trained == [c for _, c in policy.log]) is (t is trainer)
        seen = []
        for b, seq in enumerate(seqs):
            hits = _positions_of(tok, seq.input_ids, humans + problems + [INSTRUCTIONS_START])
            assert hits and all(mask[b, p - 1] == 0 for p in hits if p > 0)  # never a label with loss
            seen += [h for h in humans if h in tok.decode(seq.input_ids)]
        assert sorted(seen) == sorted(humans)  # each reply was in a context, and masked there
    metrics = trainer.update(records)
    assert metrics["n_tokens"] == count and metrics["loss"] == pytest.approx(nll / count, rel=1e-5)


INSTRUCTIONS_START = "You are a helpful LLM agent."


def _positions_of(tok, ids: list[int], parts: list[str]) -> list[int]:
    """The positions of the tokens of ``ids`` whose text overlaps an occurrence of one of ``parts`` in
    the decoded sequence (each token's characters found by decoding the growing prefix)."""
    ends = [len(tok.decode(ids[:k + 1])) for k in range(len(ids))]
    text = tok.decode(ids)
    spans = []
    for part in parts:
        i = text.find(part)
        while i >= 0:
            spans.append((i, i + len(part)))
            i = text.find(part, i + 1)
    return [k for k, end in enumerate(ends) if any((ends[k - 1] if k else 0) < e and end > s for s, e in spans)]


def test_a_real_generation_is_recorded_and_trained_exactly(tmp_path, evaluator, capsys):
    """A tiny random Llama generating through HFBackend with SmolLM2's tokenizer and template (its
    generations logged): each turn's recorded ids, read back from the file, are the ids it was fed
    and generated; how many turns re-tokenizing would change is counted (printed: a random model's
    token sequences are often not what BPE makes of their text). The trainer's own generation
    carries its ids too."""
    tok = smol()
    backend = HFBackend(tiny_chat_llama(tok), tokenizer=tok)
    log = []
    generate = backend.generate

    def logged(conversations, params=None):
        gens = generate(conversations, params)
        log.extend((g.prompt_token_ids, g.token_ids) for g in gens)
        return gens

    backend.generate = logged
    agent = LMAgent(backend, max_turns=MAX_TURNS, sampling=SamplingParams(max_new_tokens=10))
    assert agent.token_fingerprint == tokenizer_fingerprint(tok)
    records = collect(agent, evaluator, tmp_path / "r.jsonl")
    fp = tokenizer_fingerprint(tok)
    produced = iter(log)
    for rec in records:
        for seq in tokenize_trajectory(tok, rec, formatter=FORMATTER, token_fingerprint=fp, multi_turn=False):
            prompt, completion = next(produced)
            assert prompt == tok.apply_chat_template(FORMATTER(rec["task"], rec["dialogue_history"][:2 * seq.turn_ids[0]]),
                                                     add_generation_prompt=True, tokenize=True, return_dict=True)["input_ids"]
            assert seq.input_ids == prompt + completion and 1 <= len(completion) <= 10
    report = token_report(tok, records, FORMATTER, token_fingerprint=fp)
    assert report.recorded == report.turns == len(log) == 4
    with capsys.disabled():
        print(f"\nSmolLM2's template, a tiny random policy: re-tokenizing would change {report.would_differ} of "
              f"{report.turns} turns")
    trainer = RejectionFineTuning({"max_turns": MAX_TURNS, "max_new_tokens": 6}, model=tiny_chat_llama(tok), tokenizer=tok)
    messages = FORMATTER(records[0]["task"], [])
    (gen,) = trainer.policy.generate(messages, max_new_tokens=6, temperature=0)
    assert gen.tokens.prompt_ids == tok.apply_chat_template(messages, add_generation_prompt=True, tokenize=True,
                                                            return_dict=True)["input_ids"]
    assert len(gen.tokens.completion_ids) <= 6 and gen.tokens.fingerprint == fp


def test_a_vllm_shaped_server_gives_the_local_models_ids_and_logprobs(tmp_path, evaluator):
    """The stand-in server generating with the tiny model and answering vLLM's fields
    (``prompt_token_ids``, choices' ``token_ids``, ``logprobs``): the records of the served policy
    carry the ids and log-probs that the same model's local policy records."""
    tok = smol()
    backend = HFBackend(tiny_chat_llama(tok), tokenizer=tok)
    sampling = SamplingParams(max_new_tokens=6)
    local = collect(LMAgent(backend, max_turns=MAX_TURNS, sampling=sampling, record_logprobs=True), evaluator,
                    tmp_path / "local.jsonl")
    with OpenAITestServer(backend=backend) as server:
        served = collect(LMAgent("openai", base_url=server.url, model="tiny", max_turns=MAX_TURNS, sampling=sampling,
                                 record_logprobs=True, tokenizer=tok), evaluator, tmp_path / "served.jsonl")
        reqs = server.state.requests
    assert reqs and all(q["return_token_ids"] is True and q["logprobs"] is True for q in reqs)

    def tokens(recs):
        return [m["tokens"] for r in recs for m in r["dialogue_history"] if m["role"] == "assistant"]

    assert len(tokens(local)) == 4
    for a, b in zip(tokens(local), tokens(served)):
        assert {k: v for k, v in a.items() if k != "logprobs"} == {k: v for k, v in b.items() if k != "logprobs"}
        assert len(a["logprobs"]) == len(a["completion_ids"]) and a["logprobs"] == pytest.approx(b["logprobs"], abs=1e-5)
    report = token_report(tok, served, FORMATTER, token_fingerprint=tokenizer_fingerprint(tok))
    assert report.recorded == 4


def test_a_server_refusing_the_field_is_asked_without_it_and_its_counts_are_kept(tmp_path, evaluator):
    """A server with OpenAI's schema refuses ``return_token_ids`` (HTTP 400 naming it): the request is
    made again without it, and no later one sends it. Its ``usage`` counts are recorded; they
    show a re-tokenization that differs (the stand-in counts 0 tokens)."""
    with OpenAITestServer(mode="strict") as server:
        records = collect(LMAgent("openai", base_url=server.url, model="echo", max_turns=MAX_TURNS), evaluator,
                          tmp_path / "r.jsonl", n=1)
        reqs = server.state.requests
    assert ["return_token_ids" in q for q in reqs] == [True] + [False] * (len(reqs) - 1) and len(reqs) == 3
    fields = [m["tokens"] for m in records[0]["dialogue_history"] if m["role"] == "assistant"]
    assert fields == [{"n_prompt": 0, "n_completion": 0}] * 2
    tok = smol()
    report = token_report(tok, records, FORMATTER)
    assert (report.turns, report.differ, report.recorded) == (2, 2, 0)
    prompt = tok.apply_chat_template(FORMATTER(records[0]["task"], []), add_generation_prompt=True, tokenize=True,
                                     return_dict=True)["input_ids"]
    assert report.first["differ"] == (f"<trajectory 0> agent turn 0: the prompt re-tokenizes to {len(prompt)} tokens, "
                                      "the server counted 0")


def test_served_policy_fingerprints_the_models_tokenizer_when_it_is_here(tmp_path):
    from colbench.agents.served import served_policy
    from tiny_models import save_tiny_llama

    tok = smol()
    path = save_tiny_llama(tmp_path / "m", tok, hidden_size=32)
    assert served_policy("http://127.0.0.1:9/v1", path).token_fingerprint == tokenizer_fingerprint(tok)
    assert served_policy("http://127.0.0.1:9/v1", tmp_path / "elsewhere").token_fingerprint is None
    assert served_policy("http://127.0.0.1:9/v1", tmp_path / "elsewhere", tokenizer=tok).token_fingerprint == \
        tokenizer_fingerprint(tok)


def _colbench(capfd, *args, check: bool = True):
    """``colbench ARGS`` in this process (:func:`cli_helpers.colbench_here`), checked to exit 0
    unless ``check`` is false."""
    from cli_helpers import colbench_here

    p = colbench_here(capfd, *args)
    if check:
        assert p.returncode == 0, p.stderr[-3000:]
    return p


def _tokens_line(stderr: str) -> str:
    (line,) = [x for x in stderr.splitlines() if x.startswith("colbench train: tokens: ")]
    return line


#: what :func:`save_asking_llama`'s policy says on each of its turns, then it ends the turn
ASKING = "What rate do you charge per hour?"


def save_asking_llama(directory, tasks: str, max_turns: int) -> str:
    """A tiny Llama with SmolLM2's tokenizer and chat template, taught (:func:`tiny_models.fit_chats`,
    a few seconds) to answer the compact prompt of each task of ``tasks`` with :data:`ASKING` and
    its end-of-turn token: a policy that ends its turns itself, as SmolLM2 does, at a fraction of
    its cost. Saved as a model directory (``transformers serve`` and ``--agent hf`` load it);
    returns its path."""
    from tiny_models import fit_chats

    from colbench_env.prompting import format_agent_messages
    from colbench_env.tasks import load_tasks

    tok = smol()
    chats = [format_agent_messages(t.problem_description, [], kind="backend", max_turns=max_turns, style="compact")
             + [{"role": "assistant", "content": ASKING}] for t in load_tasks(tasks)]
    model = tiny_llama(tok, hidden_size=64, max_position_embeddings=2048, bos_token_id=tok.bos_token_id,
                       eos_token_id=tok.eos_token_id, pad_token_id=tok.pad_token_id)
    assert fit_chats(model, tok, chats, steps=150, lr=5e-3) < 0.05  # it learnt the reply and its end token
    model.save_pretrained(directory)
    tok.save_pretrained(directory)
    return str(directory)


def test_transformers_serve_records_counts_and_colbench_train_says_what_differs(tmp_path, capfd):
    """A policy with SmolLM2's tokenizer and chat template that ends its turns itself (a tiny Llama
    taught one question: :func:`save_asking_llama`) behind the real ``transformers serve`` (which
    refuses ``return_token_ids`` with HTTP 422 and answers no log-probs): ``colbench run --agent
    openai`` records each turn's token counts (SmolLM2's tokenizer named, so also its fingerprint),
    no ids; the same episodes with the same model local record the ids, and the server's counts are
    their lengths. ``colbench train rft`` on the served records re-tokenizes, trains, and says how
    many turns differ from what the policy saw (``--strict-tokens``: one line, exit 2, nothing
    written); on the local ones it would train the ids and says how many re-tokenizing would change
    (its report, without training): at least every turn the policy ended, whose end token the
    template follows with a newline the policy never emitted. What is recorded, tokenized, counted
    and said depends on the tokenizer and on where turns end, not on the weights: SmolLM2 itself made
    this test cost minutes (and time out under load). Prints the record size growth."""
    import re

    from transformers import AutoTokenizer
    from transformers_serve import TransformersServe, available

    if not available():
        pytest.skip("transformers serve needs the 'serve' extra (fastapi, uvicorn, openai)")
    run_dir = tmp_path / "out"
    policy = save_asking_llama(run_dir / "models" / "base", "generated:2:1:rate", max_turns=2)
    assert tokenizer_fingerprint(AutoTokenizer.from_pretrained(policy)) == tokenizer_fingerprint(smol())
    common = ["run", "--tasks", "generated:2:1:rate", "--episodes", 2, "--max-turns", 2, "--max-new-tokens", 24,
              "--prompt-style", "compact", "--json"]
    with TransformersServe(cwd=run_dir) as server:
        _colbench(capfd, *common, "--agent", "openai", "--agent-base-url", server.url, "--agent-model", "models/base",
                  "--agent-kwargs", '{"tokenizer": "smollm2"}', "--out", tmp_path / "served.jsonl")
    _colbench(capfd, *common, "--agent", "hf", "--agent-model", policy, "--out", tmp_path / "local.jsonl")
    served = {r["episode_id"]: r for r in read_trajectories(tmp_path / "served.jsonl")}
    local = {r["episode_id"]: r for r in read_trajectories(tmp_path / "local.jsonl")}
    fp = tokenizer_fingerprint(smol())
    same_text = 0
    n_stop = 0
    for k, rec in local.items():
        for a, b in zip(*([m for m in r["dialogue_history"] if m["role"] == "assistant"] for r in (rec, served[k]))):
            assert set(a["tokens"]) == {"fingerprint", "prompt_from", "prompt_ids", "completion_ids"}
            assert b["tokens"].keys() == {"fingerprint", "n_prompt", "n_completion"} and b["tokens"]["fingerprint"] == fp
            n_stop += a.get("finish_reason") == "stop"
            if a["output"] == b["output"]:
                same_text += 1
                full = history_turn_tokens(rec["dialogue_history"])
                (t,) = [t for t, m in zip(full, [m for m in rec["dialogue_history"] if m["role"] == "assistant"]) if m is a]
                assert (b["tokens"]["n_prompt"], b["tokens"]["n_completion"]) == (len(t.prompt_ids), len(t.completion_ids))
    assert same_text >= 3 and n_stop >= 1
    train = ["train", "rft", "--config-json", '{"success_threshold": 0.0, "max_length": 1024, "sequences_per_batch": 2}']
    refused = _colbench(capfd, *train, "--model", "smollm2", "--trajectories", tmp_path / "served.jsonl",
                        "--out", tmp_path / "strict", "--strict-tokens", check=False)
    assert refused.returncode == 2 and not (tmp_path / "strict").exists()
    (err,) = refused.stderr.strip().splitlines()[-1:]
    assert re.fullmatch(r"colbench train: error: --strict-tokens: (\d+) of \1 agent turns would be trained on a "
                        r"re-tokenization .* \(first: .*served\.jsonl:1 agent turn 0: .*\); collect .*", err), err
    n_turns = sum(m["role"] == "assistant" for r in served.values() for m in r["dialogue_history"])
    line = _tokens_line(_colbench(capfd, *train, "--model", policy, "--trajectories", tmp_path / "served.jsonl",
                                  "--out", tmp_path / "ck1").stderr)
    m = re.fullmatch(rf"colbench train: tokens: {n_turns} agent turns: 0 trained on the token ids the policy recorded; "
                     rf"{n_turns} re-tokenized: (\d+) differ from what the policy saw, 0 the same, (\d+) unchecked "
                     r"\(no token ids recorded\)", line)
    assert m and int(m[1]) + int(m[2]) == n_turns and int(m[1]) >= n_stop, (line, n_stop)
    assert (tmp_path / "ck1" / "trainer.json").is_file()
    from colbench.agents.rft import RFTConfig
    from colbench.agents.tokenize import policy_token_report

    config = RFTConfig(policy={"model_name_or_path": "smollm2"}, max_turns=2, prompt_style="compact")
    report = policy_token_report(list(local.values()), config)
    assert (report.turns, report.recorded) == (n_turns, n_turns) and report.would_differ >= n_stop, report
    with_tokens = (tmp_path / "local.jsonl").stat().st_size
    without = sum(len(json.dumps({**r, "dialogue_history": [{k: v for k, v in e.items() if k != "tokens"}
                                                            for e in r["dialogue_history"]]}, ensure_ascii=False)) + 1
                  for r in local.values())
    print(f"\nSmolLM2's tokenizer, compact prompt, {n_turns} turns ({n_stop} ended by the policy): re-tokenizing "
          f"would change {report.would_differ}; served: {line}; record size {without} -> {with_tokens} bytes (x{with_tokens / without:.2f})")


def _pipeline_rollouts(cfg, tok, evaluator) -> list[dict]:
    """The rollouts of ``cfg``'s episodes (one agent turn each), as collection would record them, made
    here: task ``k``'s first rollout answers its ground truth (reward 1), its second a function that
    returns ``None`` (reward 0). Their agent turns carry the token ids a policy with ``tok`` that ends
    its turn with its end token would record (its prompt the chat template of the messages it saw,
    its completion the output's ids and the end token): episode 0 and 1 with ``tok``'s fingerprint,
    episode 2 another tokenizer's fingerprint, episode 3 no ids."""
    from colbench.pipeline import task_split

    tasks = task_split(cfg, "train")
    records = []
    for k, spec in enumerate(episode_specs(len(tasks) * cfg.rollouts_per_task, n_tasks=len(tasks),
                                           seed=cfg.seed, repeats=cfg.rollouts_per_task)):
        task = tasks[spec.options["task_index"]]
        env = gym.make("ColBench-Backend-v0", tasks=[task], evaluator=evaluator, max_turns=cfg.max_turns)
        env.reset(seed=0)
        answer = task.ground_truth if k % cfg.rollouts_per_task == 0 else \
            "def " + task.problem_description.rsplit("def ", 1)[-1].strip().rstrip(".") + ":\n    return None"
        env.step(f"OUTPUT: I WANT TO ANSWER: ```python\n{answer}\n```")
        rec = env.unwrapped.trajectory_record()
        rec["episode_id"] = spec.episode_id
        entry = rec["dialogue_history"][0]
        messages = record_messages(rec["task"], [], max_turns=cfg.max_turns, style=cfg.prompt_style)
        if k < 3:
            entry["tokens"] = {
                "fingerprint": tokenizer_fingerprint(tok) if k < 2 else "0" * 16,
                "prompt_ids": tok.apply_chat_template(messages, add_generation_prompt=True, tokenize=True,
                                                      return_dict=True)["input_ids"],
                "completion_ids": tok(entry["output"], add_special_tokens=False)["input_ids"] + [tok.eos_token_id]}
        records.append(rec)
    return records


def _retokenization_differs(tok, rec, cfg) -> bool:
    """Whether re-tokenizing an agent turn's text gives other ids than its recorded ones (written from
    the definition: the chat template renders the context with its generation prompt, and the
    assistant message appended; the completion is what the second adds)."""
    entry = rec["dialogue_history"][0]
    messages = record_messages(rec["task"], [], max_turns=cfg.max_turns, style=cfg.prompt_style)
    prompt = tok.apply_chat_template(messages, add_generation_prompt=True, tokenize=False)
    full = tok.apply_chat_template(messages + [{"role": "assistant", "content": entry["output"]}], tokenize=False)
    return (tok(prompt, add_special_tokens=False)["input_ids"] != entry["tokens"]["prompt_ids"]
            or tok(full[len(prompt):], add_special_tokens=False)["input_ids"] != entry["tokens"]["completion_ids"])


def test_pipeline_prints_and_keeps_each_methods_token_counts_and_strict_tokens_refuses(tmp_path, evaluator,
                                                                                      tiny_model_dir, capsys):
    """``colbench pipeline`` on a tiny model whose rollouts (in the file before it starts) carry ids
    from its tokenizer, from another one, or none: each method's training logs the line ``colbench
    train`` prints, and keeps its counts in its metrics, equal to the counts taken from the records
    here; ``--strict-tokens`` refuses before any method trains (one line, exit 2)."""
    from colbench.cli import main as colbench_main
    from colbench.pipeline import PipelineConfig, run_pipeline
    from colbench_env.trajectories import append_jsonl

    tok = smol()
    model = tiny_model_dir()
    settings = dict(policy=model, n_train_tasks=2, n_test_tasks=1, rollouts_per_task=2, max_turns=1, max_new_tokens=4,
                    episodes_in_flight=2, methods=("rft", "grpo"), bootstrap_resamples=100,
                    trainer_overrides={"rft": {"max_length": 1024}, "grpo": {"max_length": 1024}})
    cfg = PipelineConfig(out_dir=str(tmp_path / "p"), **settings)
    records = _pipeline_rollouts(cfg, tok, evaluator)
    assert [r["reward"] for r in records] == [1.0, 0.0, 1.0, 0.0]
    for d in ("p", "strict"):
        append_jsonl(tmp_path / d / "rollouts.jsonl", records)
    fp = tokenizer_fingerprint(tok)
    turns = [(r, m.get("tokens")) for r in records for m in r["dialogue_history"] if m["role"] == "assistant"]
    recorded = [r for r, t in turns if t and t["fingerprint"] == fp]
    other = [r for r, t in turns if t and t["fingerprint"] != fp]
    expected = {"turns": len(turns), "recorded": len(recorded),
                "would_differ": sum(_retokenization_differs(tok, r, cfg) for r in recorded),
                "retokenized": len(turns) - len(recorded), "differ": sum(_retokenization_differs(tok, r, cfg) for r in other),
                "same": sum(not _retokenization_differs(tok, r, cfg) for r in other),
                "unchecked": sum(t is None for _, t in turns)}
    assert expected == {"turns": 4, "recorded": 2, "would_differ": 2, "retokenized": 2, "differ": 1, "same": 0,
                        "unchecked": 1}  # ChatML's newline after <|im_end|>, which the policy never emitted

    code = colbench_main(["pipeline", "--out-dir", str(tmp_path / "strict"), "--policy", model, "--n-train-tasks", "2",
                          "--n-test-tasks", "1", "--rollouts-per-task", "2", "--max-turns", "1", "--max-new-tokens", "4",
                          "--episodes-in-flight", "2", "--methods", "rft", "grpo", "--bootstrap-resamples", "100",
                          "--strict-tokens"])
    err = capsys.readouterr().err.strip().splitlines()
    n = len(records[2]["dialogue_history"][0]["tokens"]["completion_ids"])  # + ChatML's newline when re-tokenized
    assert code == 2 and not (tmp_path / "strict" / "models").exists() and not (tmp_path / "strict" / "ckpt").exists()
    assert err[-1] == ("colbench pipeline: error: --strict-tokens (rft): 2 of 4 agent turns would be trained on a "
                       "re-tokenization of their text that differs from, or cannot be checked against, the tokens their "
                       f"policy saw and produced (first: {tmp_path / 'strict' / 'rollouts.jsonl'}:3 agent turn 0: the "
                       f"completion re-tokenizes to other ids ({n + 1} trained tokens, the policy produced {n})); collect the "
                       "trajectories with a policy that records its token ids (a local model, or a vLLM server) and "
                       "this tokenizer"), err[-1]

    report = run_pipeline(cfg, preset="test")
    err = capsys.readouterr().err
    line = ("4 agent turns: 2 trained on the token ids the policy recorded (re-tokenizing their text would change 2); "
            "2 re-tokenized: 1 differ from what the policy saw, 0 the same, 1 unchecked (no token ids recorded)")
    for m in ("rft", "grpo"):
        assert f"] train {m}: tokens: {line}\n" in err
        done = json.loads((tmp_path / "p" / "models" / m / "pipeline_done.json").read_text())
        assert done["metrics"]["tokens"] == expected and report["train"][m]["metrics"]["tokens"] == expected
    stats = (tmp_path / "p" / "stats.md").read_text()
    for m in ("rft", "grpo"):
        row = " | ".join(str(expected[k]) for k in ("turns", "recorded", "retokenized", "differ", "unchecked"))
        assert f"| {m} | {row} |" in stats.splitlines(), stats


def test_the_pipeline_loads_a_policys_tokenizer_once_for_every_methods_token_counts(tmp_path, evaluator,
                                                                                    tiny_model_dir, monkeypatch):
    """training_tokens: one tokenizer load for the methods of one policy, each method's report the one
    policy_token_report gives it with a tokenizer of its own."""
    import colbench_env.lm.models as models
    from colbench.agents.tokenize import policy_token_report
    from colbench.pipeline import PipelineConfig, trainer_config
    from colbench.pipeline.stages import training_tokens

    methods = ("rft", "mt-dpo", "grpo")
    cfg = PipelineConfig(out_dir=str(tmp_path / "p"), policy=tiny_model_dir(), n_train_tasks=2, n_test_tasks=1,
                         rollouts_per_task=2, max_turns=1, methods=methods)
    records = _pipeline_rollouts(cfg, smol(), evaluator)
    sources = [f"{tmp_path / 'p' / 'rollouts.jsonl'}:?"] * len(records)
    alone = {m: vars(policy_token_report(records, trainer_config(cfg, m, cfg.policy), sources=sources)) for m in methods}
    assert alone["rft"]["recorded"] == 2  # the records' own ids are used
    loads = []
    real = models.load_tokenizer
    monkeypatch.setattr(models, "load_tokenizer", lambda *a, **k: loads.append(a) or real(*a, **k))
    reports = training_tokens(cfg, list(methods), cfg.policy, records, tmp_path / "p")
    assert len(loads) == 1 and {m: vars(r) for m, r in reports.items()} == alone


# --------------------------------------------------------------------------- recorded log-probs (PPO, GRPO)
RATE_TASK = {"task_id": "t0", "problem_description": "Write f(x) that returns my number.",
             "ground_truth": "def f(x):\n    return x + 7", "test_cases": {"test1": "f(1)"}}


def _logprob_records(trainer, n: int = 4) -> list[dict]:
    """Two-turn trajectories sampled at temperature 1 by the trainer's own policy (rewards 0, 1, 0, 1
    on one task), each agent turn carrying the ids it generated and the log-probs of its completion
    ids, computed here with a plain forward pass of the policy (``log softmax`` of the logits)."""
    from colbench_env.lm.tokens import encode_turn_tokens

    net = trainer.policy.peft_model
    recs = []
    for k in range(n):
        history: list[dict] = []
        previous = None
        for turn in range(2):
            (act,) = trainer.policy.generate(trainer.formatter(RATE_TASK, history), max_new_tokens=8 if turn == 0 else 3,
                                             temperature=1.0)
            t = act.tokens
            ids = torch.tensor([t.prompt_ids + t.completion_ids])
            with torch.no_grad():
                logp = torch.log_softmax(net(input_ids=ids).logits[0].float(), -1)
            t.logprobs = [float(logp[len(t.prompt_ids) + i - 1, c]) for i, c in enumerate(t.completion_ids)]
            history.append({"role": "assistant", "content": str(act) or "?", "output": str(act) or "?",
                            "finish_reason": act.finish_reason, "tokens": encode_turn_tokens(t, previous)})
            previous = t
            if turn == 0:
                history.append({"role": "user", "content": "It adds seven."})
        recs.append({"task": RATE_TASK, "dialogue_history": history, "answer": history[-1]["content"],
                     "reward": float(k % 2)})
    return recs


def _with_logprobs(records: list[dict], shift: float | None) -> list[dict]:
    """A copy of ``records`` whose log-probs are shifted by ``shift`` (``None``: removed)."""
    out = copy.deepcopy(records)
    for rec in out:
        for m in rec["dialogue_history"]:
            if "tokens" in m:
                if shift is None:
                    m["tokens"].pop("logprobs")
                else:
                    m["tokens"]["logprobs"] = [x + shift for x in m["tokens"]["logprobs"]]
    return out


def _spy(monkeypatch, module, name: str, old_at: int) -> list:
    """Record ``(new - old, mask)`` of every call of ``module.name`` (``old`` its ``old_at``-th argument)."""
    seen = []
    real = getattr(module, name)

    def spy(*args, **kw):
        new, old, mask = args[0], args[old_at], args[-1]
        seen.append(((new - old).detach(), mask.clone()))
        return real(*args, **kw)

    monkeypatch.setattr(module, name, spy)
    return seen


def _lora(trainer) -> dict[str, torch.Tensor]:
    return {k: v.detach().clone() for k, v in trainer.policy.peft_model.named_parameters() if "lora" in k}


@pytest.mark.parametrize("algorithm", ["ppo", "grpo"])
def test_recorded_logprobs_are_the_old_logprobs_of_the_ratio(tiny_model_dir, monkeypatch, algorithm):
    """Turns carrying their policy's log-probs: equal to what the trainer would recompute, the first
    update is the one without them (LoRA weights to 1e-6); shifted by ``c``, the first step's ratio
    is ``exp(-c)`` on every trained token, and (one minibatch) CleanRL's ``approx_kl`` is
    ``exp(-c) - 1 + c``. A sampling temperature other than 1 (the log-probs are at 1) or a completion
    cut to ``max_length`` recomputes them, counted. (The policy's tokenizer is the small one: none of
    this depends on which tokenizer, and its logits cost ~25x less than SmolLM2's.)"""
    from colbench.agents import grpo as grpo_module
    from colbench.agents import ppo as ppo_module
    from colbench.agents.grpo import GRPO, GRPOConfig
    from colbench.agents.ppo import PPO, PPOConfig

    model_dir = tiny_model_dir(0, 64, "small")
    common = {"policy": {"model_name_or_path": model_dir, "learning_rate": 1e-3, "lora_dropout": 0.0},
              "update_epochs": 1}
    if algorithm == "ppo":
        module, name, old_at = ppo_module, "ppo_clip_loss", 1

        def make(**kw):
            return PPO(PPOConfig(**{**common, "temperature": 1.0, "trajectories_per_batch": 8, **kw}))
    else:
        module, name, old_at = grpo_module, "grpo_loss", 1

        def make(**kw):
            return GRPO(GRPOConfig(**{**common, "rollout_temperature": 1.0, "sequences_per_batch": 16, **kw}))
    records = _logprob_records(make())
    n_turns = 2 * len(records)
    seen = _spy(monkeypatch, module, name, old_at)
    with_recorded, without = make(), make()
    assert all(torch.equal(a, b) for a, b in zip(_lora(with_recorded).values(), _lora(without).values()))
    m1 = with_recorded.update(_with_logprobs(records, 0.0))
    m0 = without.update(_with_logprobs(records, None))
    assert m1["old_logprobs"] == {"recorded": n_turns, "recomputed": 0, "length_mismatch": 0, "temperature_mismatch": 0}
    assert m0["old_logprobs"] == {"recorded": 0, "recomputed": n_turns, "length_mismatch": 0, "temperature_mismatch": 0}
    (r1, mask), (r0, _) = seen[0], seen[1]
    assert mask.sum() >= n_turns and float((r0.abs() * mask).max()) < 1e-5  # recomputed: ratio 1
    assert float((r1.abs() * mask).max()) < 1e-5
    for (k, a), b in zip(_lora(with_recorded).items(), _lora(without).values()):
        assert torch.allclose(a, b, atol=1e-6), k

    c = 0.1
    shifted = make()
    m = shifted.update(_with_logprobs(records, c))
    log_ratio, mask = seen[2]
    on = mask == 1
    assert torch.allclose(torch.exp(log_ratio[on]), torch.full_like(log_ratio[on], math.exp(-c)), atol=1e-5)
    assert m["approx_kl"] == pytest.approx(math.exp(-c) - 1 + c, abs=1e-6)

    hot = make(**({"temperature": 0.7} if algorithm == "ppo" else {"rollout_temperature": 0.7}))
    assert hot.update(_with_logprobs(records, c))["old_logprobs"] == {
        "recorded": 0, "recomputed": n_turns, "length_mismatch": 0, "temperature_mismatch": n_turns}
    log_ratio, mask = seen[3]
    assert float((log_ratio.abs() * mask).max()) < 1e-5  # recomputed at 0.7: the ratio is 1 again
    cut = 5  # one turn per sequence (the pair does not fit); a completion of >= 5 ids is cut to 4
    long = sum(len(t.completion_ids) >= cut for r in records for t in history_turn_tokens(r["dialogue_history"]))
    assert 0 < long < n_turns
    assert make(max_length=cut).update(_with_logprobs(records, c))["old_logprobs"] == {
        "recorded": n_turns - long, "recomputed": long, "length_mismatch": long, "temperature_mismatch": 0}


# --------------------------------------------------------------------------- SWEET-RL's candidates
#: two candidates per state, written as a thinking model writes them (no newlines around its
#: thought), and what the Qwen3-like template writes for each as the state's assistant message
CANDIDATES = ("<think>Ask first.</think>What is your rate?", "<think>Guess.</think>I WANT TO ANSWER: 0")
CANDIDATES_RERENDERED = ("<think>\nAsk first.\n</think>\n\nWhat is your rate?<|im_end|>\n",
                         "<think>\nGuess.\n</think>\n\nI WANT TO ANSWER: 0<|im_end|>\n")


def test_sweet_rl_scores_and_pairs_the_ids_its_candidates_were_sampled_as(tmp_path, evaluator, monkeypatch):
    """SWEET-RL on the Qwen3-like records, its candidates carrying the ids a thinking policy sampled
    (the prompt: the template applied to the state's context; the completion: the reply's ids and
    the end token). The policy's term of each candidate's score and both sequences of every step
    pair are exactly those ids, also when the pairs are drawn again from ``candidates.jsonl`` (a
    resumed stage); with ``recorded_tokens`` off they are the template's re-rendering (hand-written
    above), which the policy never produced."""
    from colbench.agents.sweet_rl import StageFiles, SweetRL
    from colbench_env.lm.base import GeneratedText

    tok = tiny_bpe_tokenizer(QWEN3_LIKE)
    fp = tokenizer_fingerprint(tok)
    records = collect(LMAgent(ThinkingPolicy(tok, THINKING), max_turns=MAX_TURNS, tokenizer=tok), evaluator,
                      tmp_path / "r.jsonl")

    def make(recorded: bool = True):
        return SweetRL({"max_turns": MAX_TURNS, "state_fraction": 1.0, "n_candidates": 2, "pairs_per_state": 1,
                        "max_length": 2048, "recorded_tokens": recorded}, model=tiny_llama(tok, hidden_size=32),
                       tokenizer=tok, critic=tiny_llama(tok, seed=1, hidden_size=32))

    trainer = make()
    states = trainer.select_states(records)
    assert len(states) == 4
    sampled = []  # per state: (prompt ids, [completion ids of each candidate])
    candidates = []
    for _, turn in states:
        prompt = tok.apply_chat_template(turn.messages, add_generation_prompt=True, tokenize=True,
                                         return_dict=True)["input_ids"]
        completions = [tok(r, add_special_tokens=False)["input_ids"] + [tok.eos_token_id] for r in CANDIDATES]
        sampled.append((prompt, completions))
        candidates.append([GeneratedText(r, "stop", TurnTokens(prompt_ids=list(prompt), completion_ids=list(c),
                                                                fingerprint=fp)) for r, c in zip(CANDIDATES, completions)])
    scored = []
    turn_means = trainer._turn_means

    def spy(lm, sequences, **kw):
        if lm is trainer.policy:
            scored.append([s.input_ids for s in sequences])
        return turn_means(lm, sequences, **kw)

    monkeypatch.setattr(trainer, "_turn_means", spy)
    stages = StageFiles(tmp_path / "stages", {"test": 1})
    pairs, stats = trainer.step_pairs(records, candidates=candidates, stages=stages, critic_metrics={})
    assert scored == [[p + c for c in cs] for p, cs in sampled]
    assert len(pairs) == 4 and stats["step_pair_actions"] == {"recorded": 8, "retokenized": 0}
    for ((chosen,), (rejected,)), (prompt, completions) in zip(pairs, sampled):
        assert sorted([chosen.input_ids, rejected.input_ids]) == sorted(prompt + c for c in completions)
        for seq in (chosen, rejected):
            assert seq.mask == [0] * len(prompt) + [1] * (len(seq) - len(prompt))
    lines = [json.loads(x) for x in (tmp_path / "stages" / "candidates.jsonl").read_text().splitlines()[1:]]
    assert [ln["tokens"] for ln in lines] == [{"fingerprint": fp, "prompt_ids": p, "completion_ids": cs}
                                             for p, cs in sampled]
    resumed = make()  # every state read back from the file: the same pairs, drawn from its ids
    again, stats = resumed.step_pairs(records, stages=StageFiles(tmp_path / "stages", {"test": 1}), critic_metrics={})
    assert stats["n_states_resumed"] == 4 and stats["step_pair_actions"] == {"recorded": 8, "retokenized": 0}
    assert [(a.input_ids, b.input_ids) for (a,), (b,) in again] == [(a.input_ids, b.input_ids) for (a,), (b,) in pairs]

    retok_pairs, stats = make(recorded=False).step_pairs(records, candidates=candidates)
    assert stats["step_pair_actions"] == {"recorded": 0, "retokenized": 8}
    for (chosen,), (rejected,) in retok_pairs:
        trained = sorted(tok.decode(trained_ids(s)) for s in (chosen, rejected))
        assert trained == sorted(CANDIDATES_RERENDERED)


def test_sweet_rl_served_candidates_carry_the_servers_ids(tmp_path, evaluator):
    """SWEET-RL's candidates from a vLLM-shaped server (the stand-in generating with a tiny model
    through HFBackend, its generations logged): each request asks for the ids, and every step pair's
    sequences are the prompt ids and generated ids the server logged, since its prompt ids are the
    trainer's rendering of the state. A server refusing the field (OpenAI's schema) gives none:
    then they are re-tokenized, counted."""
    from colbench.agents.sweet_rl import SweetRL

    tok = smol()
    records = collect(LMAgent(ThinkingPolicy(tok, PLAIN), max_turns=MAX_TURNS, tokenizer=tok), evaluator,
                      tmp_path / "r.jsonl")
    backend = HFBackend(tiny_chat_llama(tok), tokenizer=tok)
    log = []
    generate = backend.generate

    def logged(conversations, params=None):
        gens = generate(conversations, params)
        log.append([(g.prompt_token_ids, g.token_ids) for g in gens])
        return gens

    backend.generate = logged

    def pairs_from(url: str, model: str):
        trainer = SweetRL({"max_turns": MAX_TURNS, "state_fraction": 1.0, "n_candidates": 2, "pairs_per_state": 1,
                           "max_length": 2048, "candidate_base_url": url, "candidate_model": model,
                           "candidate_max_new_tokens": 6}, model=tiny_llama(tok, hidden_size=32), tokenizer=tok,
                          critic=tiny_llama(tok, seed=1, hidden_size=32))
        return trainer.step_pairs(records)

    with OpenAITestServer(backend=backend) as server:
        pairs, stats = pairs_from(server.url, "tiny")
        assert all(q["return_token_ids"] is True for q in server.state.requests)
    assert len(log) == len(pairs) == 4 and stats["step_pair_actions"] == {"recorded": 8, "retokenized": 0}
    for ((chosen,), (rejected,)), state in zip(pairs, log):
        assert sorted([chosen.input_ids, rejected.input_ids]) == sorted(p + c for p, c in state)
    with OpenAITestServer(mode="strict") as server:
        _, stats = pairs_from(server.url, "echo")
    assert stats["step_pair_actions"] == {"recorded": 0, "retokenized": 8}
