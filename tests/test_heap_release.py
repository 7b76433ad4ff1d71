"""colbench_env.lm.heap.release_memory and frozen_between_stages: what a stage dropped is freed --
the objects gone (weak references dead) and their memory handed back (RssAnon of /proc/self/status)
-- and inside a block each collection walks only what was made since the last stage's end."""
from __future__ import annotations

import gc
import weakref

import pytest

from colbench_env.lm.heap import frozen_between_stages, release_memory

MB = 1 << 20
SIZE = 48 * MB  # above glibc's largest mmap threshold (32 MiB): freed memory goes back to the OS at once


class Stage:
    """What a stage leaves behind: an object in a reference cycle (only a collection frees it) holding
    ``SIZE`` bytes of written memory."""

    def __init__(self):
        self.me = self
        self.buffer = bytearray(SIZE)  # zero-filled: resident


def rss_anon() -> int:
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) * 1024 for line in f if line.startswith("RssAnon:"))


def made() -> weakref.ref:
    """A :class:`Stage` dropped at once: a weak reference to it (alive until a collection frees it)."""
    return weakref.ref(Stage())


@pytest.fixture(autouse=True)
def no_automatic_collections():
    """Only the calls under test collect (Python's own collections would free the cycles earlier)."""
    assert gc.get_freeze_count() == 0
    gc.disable()
    yield
    gc.enable()
    gc.unfreeze()


def test_release_memory_frees_a_dropped_cycle_and_hands_its_memory_back():
    before = rss_anon()
    gone = made()
    assert gone() is not None and rss_anon() - before > 0.9 * SIZE
    release_memory()
    assert gone() is None and rss_anon() - before < 0.1 * SIZE


def test_inside_the_block_each_stage_is_freed_and_survivors_wait_for_the_block_end():
    old = Stage()  # alive when the block begins
    old_ref = weakref.ref(old)
    base = rss_anon()
    with frozen_between_stages():
        frozen = gc.get_freeze_count()
        assert frozen > 0 and len(gc.get_objects()) < frozen  # the next collections walk what is new only
        for _ in range(3):  # stages: each one's garbage is freed at its end, its memory handed back
            gone = made()
            assert rss_anon() - base > 0.9 * SIZE
            release_memory(stage_end=True)
            assert gone() is None and rss_anon() - base < 0.1 * SIZE
        kept = Stage()  # alive at a stage's end: frozen there
        kept_ref = weakref.ref(kept)
        release_memory(stage_end=True)
        del old, kept
        release_memory()  # a mid-stage release: objects frozen at entry or at a stage's end stay
        assert old_ref() is not None and kept_ref() is not None
        # a stage that ends by an exception freezes nothing: what its frames held is freed later
        try:
            held = Stage()
            held_ref = weakref.ref(held)
            try:
                raise RuntimeError("the stage failed")
            finally:
                release_memory(stage_end=True)
        except RuntimeError:
            pass
        del held
        release_memory()
        assert held_ref() is None
    assert gc.get_freeze_count() == 0
    release_memory()
    assert old_ref() is None and kept_ref() is None and rss_anon() - base < -0.9 * SIZE


def test_nested_blocks_freeze_once_and_a_freeze_made_elsewhere_is_left_alone():
    with frozen_between_stages():
        with frozen_between_stages():
            assert gc.get_freeze_count() > 0
        assert gc.get_freeze_count() > 0  # the inner block's end unfreezes nothing
    assert gc.get_freeze_count() == 0
    gc.freeze()  # a server that froze before forking
    theirs = gc.get_freeze_count()
    # a frozen object can still be freed by its reference count (another thread's, xdist's among them),
    # so the count may drop by a few; freezing anything new would raise it, unfreezing drop it to 0
    with frozen_between_stages():
        stays = Stage()
        stays_ref = weakref.ref(stays)
        release_memory(stage_end=True)
        assert theirs - 50 <= gc.get_freeze_count() <= theirs  # nothing more frozen
        del stays
        release_memory()
        assert stays_ref() is None
    assert theirs - 50 <= gc.get_freeze_count() <= theirs


def test_a_trainable_lm_unwraps_its_model_once_and_its_release_frees_it():
    """TrainableLM remembers the module accelerate unwrapped (one unwrap for every forward), and its
    release forgets it: the model is freed."""
    import torch
    from tiny_models import tiny_bpe_tokenizer, tiny_llama

    from colbench.agents import sharding
    from colbench.agents.trainer_base import TrainableLM

    tok = tiny_bpe_tokenizer("{{ messages }}")
    lm = TrainableLM(sharding.make_accelerator(), tiny_llama(tok, hidden_size=16), tok, lora_r=2)
    real = lm.accelerator.unwrap_model
    unwrapped = []
    lm.accelerator.unwrap_model = lambda m, *a, **k: unwrapped.append(1) or real(m, *a, **k)  # (holds no module)
    ids = torch.tensor([tok("def f(x): return x")["input_ids"]])
    batch = {"input_ids": ids, "attention_mask": torch.ones_like(ids), "loss_mask": torch.ones_like(ids[:, 1:])}
    logps = [lm.logps_and_hidden(batch)[0] for _ in range(3)]
    assert lm.peft_model is real(lm.model) and len(unwrapped) == 1
    assert all(torch.equal(x, logps[0]) for x in logps) and logps[0].shape == (1, ids.shape[1] - 1)
    model = weakref.ref(lm.peft_model)
    lm.release()
    assert model() is None
