"""Fixtures shared by several test modules (pytest finds them here; test modules never import
each other)."""
import pytest

from samples import BAD, GOOD, MID


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
