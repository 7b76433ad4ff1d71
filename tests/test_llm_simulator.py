"""LLMSimulator on a real local OpenAI-compatible server and on real (tiny / SmolLM2) HF models."""
from __future__ import annotations

import pytest

from colbench_env.lm import OpenAICompatBackend, SamplingParams
from colbench_env.simulators.base import SimulatorError
from colbench_env.simulators.llm import LLMSimulator
from colbench_env.simulators.prompts import PROMPT_VERSION, format_dialogue
from colbench_env.tasks import BackendTask, FrontendTask

try:
    from openai_test_server import OpenAITestServer
except ImportError:  # tests/ imported as a package
    from tests.openai_test_server import OpenAITestServer

TASK = BackendTask(
    problem_description="Write a function discount(price, member) that returns the price I should pay.",
    ground_truth="def discount(price, member):\n    return price * (0.85 if member else 1.0)",
    test_cases={"test1": "discount(100, True)", "test2": "discount(10, False)"},
    hidden_information="Members get 15% off; everybody else pays the full price. SECRET-MARKER-42",
    task_id="t-discount",
)
PAGE = FrontendTask(problem_description="A landing page for a bakery with a big orange banner. " * 20,
                    ground_truth="<html><body><h1>Bakery</h1></body></html>", task_id="t-bakery")
DIALOGUE = [{"role": "assistant", "content": "How large is the member discount?"}]


@pytest.fixture
def server():
    with OpenAITestServer() as s:
        yield s


def openai_sim(server, model="echo", kind="backend", **kw):
    return LLMSimulator(OpenAICompatBackend(server.url, model, backoff_s=0.01, max_retries=1, timeout_s=5), kind, **kw)


def test_backend_prompt_holds_hidden_information_and_reply_is_cut(server):
    sim = openai_sim(server)
    reply = sim.reply(TASK, DIALOGUE)
    body = server.state.requests[-1]
    # as the reference's backend simulator request: a stock system line, then the prompt
    system, msg = body["messages"]
    assert system == {"role": "system", "content": "You are a helpful assistant."}
    assert msg["role"] == "user"
    prompt = msg["content"]
    assert TASK.hidden_information in prompt
    assert TASK.problem_description in prompt
    assert "agent: How large is the member discount?" in prompt
    assert "at most two sentences" in prompt and "do not know" in prompt
    assert body["temperature"] == 0.0 and body["max_tokens"] == 128
    # the server echoes the whole prompt (> 400 characters): the reply is cut to 400
    assert len("ECHO[0] " + prompt) > 400
    assert reply == ("ECHO[0] " + prompt)[:400]


def test_reply_batch_sends_every_item(server):
    sim = openai_sim(server)
    d2 = DIALOGUE + [{"role": "user", "content": "15%."}, {"role": "assistant", "content": "Who is a member?"}]
    replies = sim.reply_batch([(TASK, DIALOGUE, None), (TASK, d2, None)])
    assert len(replies) == 2
    assert server.state.counts["echo"] == 2
    prompts = sorted(r["messages"][-1]["content"] for r in server.state.requests)
    assert ["agent: Who is a member?" in p for p in prompts].count(True) == 1
    assert sim.reply_batch([]) == []


def test_frontend_sends_both_renders_and_cuts_to_1000(server):
    from PIL import Image

    agent, target = Image.new("RGB", (8, 8), "white"), Image.new("RGB", (8, 8), "orange")
    sim = openai_sim(server, kind="frontend")
    reply = sim.reply(PAGE, [{"role": "assistant", "content": "<html><body>hi</body></html>"}],
                      {"agent": agent, "target": target})
    [msg] = server.state.requests[-1]["messages"]
    text, img1, img2 = msg["content"]
    assert img1["type"] == img2["type"] == "image_url"
    assert img1["image_url"]["url"].startswith("data:image/png;base64,")
    assert img1["image_url"]["url"] != img2["image_url"]["url"]
    assert "most outstanding differences" in text["text"]
    assert len(reply) == 1000 and reply.startswith("ECHO[0] ")

    sim.reply(PAGE, [{"role": "assistant", "content": "What colour?"}], {"agent": None, "target": target})
    [msg] = server.state.requests[-1]["messages"]
    assert len(msg["content"]) == 2  # text + the target only
    assert "has not shown you any page" in msg["content"][0]["text"]
    with pytest.raises(ValueError, match="needs renders="):
        sim.reply(PAGE, DIALOGUE, None)


def test_empty_or_failed_generation_raises(server):
    with pytest.raises(SimulatorError, match="empty content"):
        openai_sim(server, "empty").reply(TASK, DIALOGUE)
    with pytest.raises(SimulatorError, match=r"backend failed: .*/v1/chat/completions failed after 2 attempt"):
        openai_sim(server, "fail500:5").reply(TASK, DIALOGUE)


def test_config_and_validation(server):
    sim = openai_sim(server)
    cfg = sim.config()
    assert cfg["prompt_version"] == PROMPT_VERSION
    assert cfg["backend"] == {"class": "OpenAICompatBackend", "base_url": server.url, "model": "echo", "extra_body": {}}
    assert cfg["temperature"] == 0.0 and cfg["reply_limit"] == 400
    with pytest.raises(ValueError, match="kind must be"):
        openai_sim(server, kind="mobile")
    with pytest.raises(ValueError, match=r"got a 'frontend' task \(task_id='t-bakery'\)"):
        sim.reply(PAGE, DIALOGUE)
    with pytest.raises(ValueError, match="temperature must be >= 0"):
        openai_sim(server, temperature=-1)
    with pytest.raises(ValueError, match="role must be 'assistant'"):
        format_dialogue([{"role": "agent", "content": "x"}])
    assert format_dialogue([]) == "(empty)"


# --------------------------------------------------------------------- real local models
torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
from colbench_env.lm.hf import HFBackend  # noqa: E402
from colbench_env.lm.smollm2 import smollm2_path  # noqa: E402


class CountingHF(HFBackend):
    """A real HFBackend that counts generate calls (to check reply_batch batches)."""

    calls = 0

    def generate(self, conversations, params=None):
        self.calls += 1
        self.batch_sizes = getattr(self, "batch_sizes", []) + [len(conversations)]
        return super().generate(conversations, params)


@pytest.fixture(scope="module")
def tiny_hf():
    torch.set_num_threads(1)
    tok = transformers.AutoTokenizer.from_pretrained(smollm2_path())
    torch.manual_seed(0)
    cfg = transformers.LlamaConfig(vocab_size=len(tok), hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                                   num_attention_heads=4, num_key_value_heads=2, initializer_range=0.5,
                                   tie_word_embeddings=True, bos_token_id=1, eos_token_id=2, pad_token_id=2)
    return CountingHF(transformers.LlamaForCausalLM(cfg), tokenizer=tok)


def test_reply_batch_is_one_generate_call_on_hf(tiny_hf):
    sim = LLMSimulator(tiny_hf, max_new_tokens=120)
    items = [(TASK, DIALOGUE[:i + 1] if i == 0 else DIALOGUE + [{"role": "user", "content": "x" * i},
                                                                 {"role": "assistant", "content": "?"}], None)
             for i in range(3)]
    before = tiny_hf.calls
    replies = sim.reply_batch(items)
    assert tiny_hf.calls == before + 1 and tiny_hf.batch_sizes[-1] == 3
    assert all(0 < len(r) <= 400 for r in replies)
    assert any(len(r) == 400 for r in replies)  # 120 random tokens are longer than 400 characters: cut
    assert replies == [sim.reply(*it) for it in items]  # batched greedy == one at a time


def test_text_only_backend_refuses_frontend(tiny_hf):
    from PIL import Image

    sim = LLMSimulator(tiny_hf, "frontend")
    with pytest.raises(SimulatorError, match="text-only"):
        sim.reply(PAGE, DIALOGUE, {"agent": None, "target": Image.new("RGB", (4, 4))})


@pytest.mark.slow
def test_real_smollm2_human_replies():
    sim = LLMSimulator("smollm2", max_new_tokens=40)
    reply = sim.reply(TASK, DIALOGUE)
    assert 0 < len(reply) <= 400
    assert "15" in reply  # the hidden information's discount (greedy SmolLM2 uses it)
    assert sim.config()["backend"]["model"] == "smollm2"
    assert reply == sim.reply(TASK, DIALOGUE)  # temperature 0: deterministic
