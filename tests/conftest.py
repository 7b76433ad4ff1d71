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
def tiny_model_dir(tok, tmp_path_factory):
    """``tiny_model_dir(seed=0, hidden_size=32)``: the path of a saved tiny random Llama with SmolLM2's
    tokenizer (:func:`tiny_models.save_tiny_llama`), made once per session and settings: the one
    model directory the trainers, the pipeline and the launches load. Read-only: a test that changes
    a model copies it first."""
    from tiny_models import save_tiny_llama

    made: dict[tuple[int, int], str] = {}

    def get(seed: int = 0, hidden_size: int = 32) -> str:
        if (seed, hidden_size) not in made:
            made[seed, hidden_size] = save_tiny_llama(tmp_path_factory.mktemp(f"tiny-{seed}-{hidden_size}"), tok,
                                                      seed, hidden_size)
        return made[seed, hidden_size]

    return get


@pytest.fixture(scope="session")
def model_dir(tiny_model_dir):
    """The trainer tests' tiny model: :func:`tiny_model_dir` at seed 0, hidden size 64."""
    return tiny_model_dir(0, 64)


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
