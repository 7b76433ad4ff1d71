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


@pytest.fixture(scope="session")
def readme_block():
    """``readme_block(name)``: the code of the first fenced block after ``<!-- readme-test: name -->``
    in README.md (the lines a user copies, which a test then runs)."""
    import re
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / "README.md").read_text()

    def block(name: str) -> str:
        marker = f"<!-- readme-test: {name} -->"
        assert marker in text, f"README.md has no {marker}"
        after = text.split(marker, 1)[1].split("```", 1)[1]
        body = after.split("\n", 1)[1]
        return body[:re.search(r"^```[ \t]*$", body, re.M).start()]  # the closing fence: a line of its own

    return block
