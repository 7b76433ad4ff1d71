"""Fixtures shared by several test modules (pytest finds them here; test modules never import
each other)."""
import os

import pytest

from samples import BAD, GOOD, MID


def pytest_configure(config):
    """Under pytest-xdist (``make test`` runs ``-n 2``), each worker and every process it starts (the
    ``colbench`` commands, ``accelerate launch``, servers) computes on one thread: two workers already
    fill two cores, and two OpenMP threads per process on busy cores spin in each other's way. Set
    before torch is imported (a worker imports the test modules after this); a value already in the
    environment wins. A plain ``pytest`` run is left as it is."""
    if hasattr(config, "workerinput"):
        for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
            os.environ.setdefault(var, "1")


@pytest.fixture(scope="session")
def tok():
    """SmolLM2's tokenizer (converted locally; no hub access)."""
    import torch
    from tiny_models import smollm2_tokenizer

    torch.set_num_threads(1)
    return smollm2_tokenizer()


@pytest.fixture(scope="session")
def model_dir(tok, tmp_path_factory):
    """A saved tiny random Llama (seed 0) with SmolLM2's tokenizer: a model path for the trainers."""
    from tiny_models import tiny_llama

    d = tmp_path_factory.mktemp("tiny_llama")
    tiny_llama(tok, 0).save_pretrained(d)
    tok.save_pretrained(d)
    return str(d)


@pytest.fixture
def scored_trajectories():
    """``[GOOD, BAD, MID]`` of :mod:`samples`: rewards 1.0, 0.0, 0.3 on the same toy task."""
    return [GOOD, BAD, MID]


def docs_blocks() -> dict[str, tuple[str, str]]:
    """Every block a test runs: ``name -> (file, code)`` for each ``<!-- docs-test: name -->`` in
    README.md and the guides (``docs/guides/*.md``), the code being the first fenced block after it."""
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    out: dict[str, tuple[str, str]] = {}
    for md in [root / "README.md", *sorted((root / "docs" / "guides").glob("*.md"))]:
        text = md.read_text(encoding="utf-8")
        for m in re.finditer(r"<!-- docs-test: ([\w-]+) -->", text):
            assert m.group(1) not in out, f"two blocks named {m.group(1)!r}: {out[m.group(1)][0]} and {md}"
            body = text[m.end():].split("```", 1)[1].split("\n", 1)[1]
            out[m.group(1)] = (str(md.relative_to(root)), body[:re.search(r"^```[ \t]*$", body, re.M).start()])
    return out


@pytest.fixture(scope="session")
def docs_block():
    """``docs_block(name)``: the code of the fenced block after ``<!-- docs-test: name -->`` in
    README.md or a guide (the lines a user copies, which a test then runs)."""
    blocks = docs_blocks()

    def block(name: str) -> str:
        assert name in blocks, f"no <!-- docs-test: {name} --> in README.md or docs/guides/"
        return blocks[name][1]

    return block
