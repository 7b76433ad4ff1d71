"""Make a CPU training process give freed tensor memory back to the operating system.

PyTorch's CPU tensors come from glibc ``malloc``. glibc serves a request from its heap unless it is
at least the *mmap threshold*, and that threshold is dynamic: every time a block obtained with
``mmap`` is freed, the threshold rises to that block's size (up to 32 MiB on 64-bit). Loading a
model frees many large blocks, so afterwards every activation, gradient and logits chunk up to 32 MiB
is carved out of the heap; when freed, such a block stays resident unless it happens to sit at the
heap's top, and the holes left between longer-lived blocks are only partly reused. Measured on the
critic step of ``benchmarks/bench_critic_memory.py`` (SmolLM2-135M, float32, LoRA, 687 tokens): the
step added 750 MiB of anonymous memory to the loaded model with glibc's defaults and 117 MiB with
the threshold fixed at 128 KiB -- the rest was freed memory the process kept.

:func:`limit_heap_retention` fixes the threshold (``mallopt(M_MMAP_THRESHOLD, ...)``; setting it
turns glibc's dynamic adjustment off), so blocks of ``threshold`` bytes or more are mapped on
allocation and unmapped on free, and lowers the trim threshold so that a freed heap top is returned
too. The cost is CPU time: every large tensor now gets fresh pages from the kernel (a page fault and
zeroing per 4 KiB page). Measured on SmolLM2-135M (float32, LoRA, gradient checkpointing; 3 training
steps of 4 x 312 tokens, each a no-grad reference pass, a forward and a backward): peak anonymous
memory over the trimmed baseline 1,392 MiB with glibc's defaults, 990 MiB with a 4 MiB threshold,
265 MiB with 1 MiB (the default here); CPU time (user + sys) 1.2-1.4x the defaults' (sys 1 -> 25 s of
~150 s). It changes the whole process (malloc is process-wide), does nothing on non-glibc systems, and
leaves the settings alone when the user chose them (``MALLOC_MMAP_THRESHOLD_`` /
``MALLOC_TRIM_THRESHOLD_`` or ``glibc.malloc`` tunables in the environment, glibc's own switches) or set
``COLBENCH_KEEP_MALLOC=1``.

:func:`release_memory` frees what a finished stage left (its models, its episodes' buffers) now and
hands the freed heap back (``malloc_trim``), so that stages run one after the other in a process do
not stack up in its resident set.

:func:`frozen_between_stages` makes those collections cheap in a process that runs stages one after
the other (a pipeline). Python's collector walks every container object it tracks on each full
collection: a process that has imported torch, transformers, peft and TRL tracks ~0.6 million
(functions, classes, module dicts), ~0.4 s of CPU per walk here, paid by every
:func:`release_memory` (25 in one small pipeline run) and by every full collection Python starts on
its own. Inside the block, what survives a stage's end (the imported modules, the pipeline's own
records) is frozen (:func:`gc.freeze`): later collections walk only what was made since, which is
where the next stage's garbage is.
"""
from __future__ import annotations

import contextlib
import ctypes
import gc
import os
import sys
import threading
from typing import Iterator

__all__ = ["limit_heap_retention", "release_memory", "frozen_between_stages", "DEFAULT_MMAP_THRESHOLD"]

#: blocks of at least this many bytes are mmapped (and returned to the OS when freed): 1 MiB, e.g.
#: one 576-wide float32 hidden state of ~450 tokens; smaller blocks stay on the heap
DEFAULT_MMAP_THRESHOLD = 1 << 20

_M_TRIM_THRESHOLD = -1  # glibc <malloc.h>
_M_MMAP_THRESHOLD = -3

_applied: int | None = None


def limit_heap_retention(threshold: int = DEFAULT_MMAP_THRESHOLD) -> bool:
    """Fix glibc's mmap threshold at ``threshold`` bytes and its trim threshold at ``2 x threshold``.

    Returns:
        ``True`` when the settings are in force (set now or by an earlier call), ``False`` when
        nothing was changed (not glibc, the user's ``MALLOC_*`` environment settings, or
        ``COLBENCH_KEEP_MALLOC=1``).
    """
    global _applied
    if _applied is not None:
        return True
    if (os.environ.get("COLBENCH_KEEP_MALLOC") == "1" or "MALLOC_MMAP_THRESHOLD_" in os.environ
            or "MALLOC_TRIM_THRESHOLD_" in os.environ or "glibc.malloc" in os.environ.get("GLIBC_TUNABLES", "")):
        return False
    try:
        libc = ctypes.CDLL("libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):  # not glibc (musl, macOS, Windows)
        return False
    mallopt.argtypes, mallopt.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
    threshold = int(threshold)
    if not (mallopt(_M_MMAP_THRESHOLD, threshold) and mallopt(_M_TRIM_THRESHOLD, 2 * threshold)):
        return False
    _applied = threshold
    return True


def release_memory(*, stage_end: bool = False) -> None:
    """Free a finished stage's objects now (not at the next garbage collection) and hand the freed
    heap back to the OS (glibc ``malloc_trim``; nothing on other C libraries).

    Args:
        stage_end: the caller is between two stages and holds nothing of the finished one (only what
            lives through the whole run: its configuration, its records). Inside a
            :func:`frozen_between_stages` block, what survives this collection is then frozen, left
            out of the collections that follow until the block ends; outside one it changes nothing.
            Nothing is frozen while an exception is being handled (its traceback holds the stage's
            frames).
    """
    gc.collect()
    if stage_end and sys.exc_info()[1] is None:
        with _FREEZE_LOCK:
            if _freezing:
                gc.freeze()
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):  # not glibc
        pass


_FREEZE_LOCK = threading.Lock()
_freezing = 0  # depth of the frozen_between_stages blocks that froze (0: none is open, or they found a freeze)
_open = 0  # depth of the open blocks


@contextlib.contextmanager
def frozen_between_stages() -> Iterator[None]:
    """A block in which stages run one after the other, each ending with
    ``release_memory(stage_end=True)``: the garbage is collected on entry and what survives is frozen
    (:func:`gc.freeze`), as is what survives each stage's end; on exit everything frozen goes back to
    the collector (:func:`gc.unfreeze`). Blocks nest (the outermost one freezes and unfreezes).

    What it changes: the collections inside the block (:func:`release_memory`'s and Python's own)
    walk only the objects made since the last stage end, so a stage's garbage is freed as before --
    models, optimisers, episodes' buffers, whatever the stage made and dropped -- at a fraction of
    the cost. An object frozen at a stage end (alive then) that becomes unreachable later only
    through a reference cycle is freed after the block rather than at the next collection (objects
    freed by reference counting go at once, frozen or not). When something else froze objects
    before the block (:func:`gc.get_freeze_count` is not 0 on entry, e.g. a server that freezes
    before it forks), the block freezes and unfreezes nothing.
    """
    global _freezing, _open
    with _FREEZE_LOCK:
        own = _freezing > 0 or (_open == 0 and gc.get_freeze_count() == 0)
        _open += 1
        if own:
            if _freezing == 0:
                gc.collect()
                gc.freeze()
            _freezing += 1
    try:
        yield
    finally:
        with _FREEZE_LOCK:
            _open -= 1
            if own:
                _freezing -= 1
                if _freezing == 0:
                    gc.unfreeze()
