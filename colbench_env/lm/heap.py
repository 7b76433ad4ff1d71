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
"""
from __future__ import annotations

import ctypes
import os

__all__ = ["limit_heap_retention", "release_memory", "DEFAULT_MMAP_THRESHOLD"]

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


def release_memory() -> None:
    """Free a finished stage's objects now (not at the next garbage collection) and hand the freed
    heap back to the OS (glibc ``malloc_trim``; nothing on other C libraries)."""
    import gc

    gc.collect()
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):  # not glibc
        pass
