"""colbench_env.lm.models.tokenizer_from_pretrained: a directory loaded again is a copy of a kept
load, indistinguishable from what ``AutoTokenizer.from_pretrained`` gives (checked against it),
independent of every other copy, and loaded afresh when the directory's files change."""
from __future__ import annotations

import os

import pytest
from tiny_models import tiny_bpe_tokenizer

from colbench_env.lm import models
from colbench_env.lm.models import tokenizer_from_pretrained
from colbench_env.lm.smollm2 import smollm2_path
from colbench_env.lm.tokens import tokenizer_fingerprint

CHATML = ("{% for m in messages %}{{ '<|im_start|>' + m['role'] + '\\n' + m['content'] + '<|im_end|>\\n' }}"
          "{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}")
CHAT = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Write f(x) = x², \u00fcber <|im_end|> ok?"},
        {"role": "assistant", "content": "def f(x):\n    return x ** 2"}]
TEXTS = ["def f(x):\n\treturn x  # \u00e9t\u00e9", "<|im_start|>user\nhi<|im_end|>", "  spaces   and\n\nlines "]


def behaviour(tok) -> dict:
    """What a tokenizer does and holds, compared between a copy and a fresh load."""
    return {"class": type(tok), "state": tok.backend_tokenizer.to_str(), "fingerprint": tokenizer_fingerprint(tok),
            "attributes": {k: repr(v) for k, v in vars(tok).items() if k != "_tokenizer"},
            "chat": tok.apply_chat_template(CHAT, tokenize=False, add_generation_prompt=True),
            "chat_ids": tok.apply_chat_template(CHAT, tokenize=True, return_dict=True)["input_ids"],
            "ids": tok(TEXTS)["input_ids"], "padded": tok(TEXTS, padding=True)["input_ids"],
            "decoded": [tok.decode(i) for i in tok(TEXTS)["input_ids"]],
            "special": (tok.bos_token, tok.eos_token, tok.unk_token, tok.pad_token, tok.padding_side)}


def fresh(path):
    """``AutoTokenizer.from_pretrained(path)``, not counted in :func:`loads`."""
    from transformers import AutoTokenizer

    return _REAL[0](AutoTokenizer, path)


_REAL = []


@pytest.fixture
def loads(monkeypatch):
    """Every real load (AutoTokenizer.from_pretrained) made through tokenizer_from_pretrained, with a
    fresh memory of kept tokenizers."""
    from transformers import AutoTokenizer

    made = []
    real = AutoTokenizer.from_pretrained.__func__
    _REAL[:] = [real]

    def counting(cls, path, *a, **kw):
        made.append(os.fspath(path))
        return real(cls, path, *a, **kw)

    monkeypatch.setattr(AutoTokenizer, "from_pretrained", classmethod(counting))
    monkeypatch.setattr(models, "_TOKENIZERS", {})
    return made


def test_copies_of_smollm2_tokenizer_behave_as_a_fresh_load(loads):
    path = smollm2_path()
    first, second, third = (tokenizer_from_pretrained(path) for _ in range(3))
    assert len(loads) == 2  # the second load is kept; the third is its copy
    want = behaviour(fresh(path))
    assert behaviour(third) == want and behaviour(first) == want
    assert len({id(first), id(second), id(third)}) == 3


def test_a_copy_changed_by_its_user_leaves_the_next_ones_alone_and_changed_files_load_afresh(tmp_path, loads):
    d = tmp_path / "tok"
    tiny_bpe_tokenizer(CHATML).save_pretrained(d)
    tokenizer_from_pretrained(d), tokenizer_from_pretrained(d)
    a = tokenizer_from_pretrained(d)
    a.pad_token, a.padding_side, a.chat_template = a.unk_token, "left", "{{ messages[0]['content'] }}"
    a.add_tokens(["<think>"])
    b = tokenizer_from_pretrained(d)
    assert len(loads) == 2 and behaviour(b) == behaviour(fresh(d))
    assert "<think>" not in b.get_vocab() and b.chat_template == CHATML
    # options are part of what is kept
    left = tokenizer_from_pretrained(d, padding_side="left")
    assert left.padding_side == "left" and len(loads) == 3
    # a changed file -- here the template, same size, same modification time -- is read again
    config = next(p for p in (d / "chat_template.jinja", d / "tokenizer_config.json") if p.exists())
    text, stat = config.read_text(), config.stat()
    assert "'\\n'" in text
    config.write_text(text.replace("'\\n'", "'\\t'"))
    os.utime(config, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    changed = tokenizer_from_pretrained(d)
    assert len(loads) == 4 and behaviour(changed) == behaviour(fresh(d))
    assert changed.chat_template != CHATML
    # so is an added token (tokenizer.json rewritten by save_pretrained)
    more = fresh(d)
    more.add_tokens(["<tool>"])
    more.save_pretrained(d)
    added = tokenizer_from_pretrained(d)
    assert len(loads) == 5 and "<tool>" in added.get_vocab()
    # a hub id or a file is never kept; weights are not read
    (d / "model.safetensors").write_bytes(b"0" * 64)
    tokenizer_from_pretrained(d), tokenizer_from_pretrained(d)
    assert len(loads) == 6  # the directory's tokenizer files did not change: its kept load is copied
    assert models._tokenizer_key(d / "tokenizer.json", {}) is None
    assert models._tokenizer_key(d, {"trust_remote_code": True}) is None
