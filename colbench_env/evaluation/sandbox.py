"""Run untrusted Python code in sandboxed, throw-away child processes forked by confined zygotes.

A *worker* is a *zygote* (``_sandbox_child.py``): an interpreter started once, confined before it
reads anything, with the common modules imported. It never runs untrusted code and never holds any
(jobs travel in file descriptors only its children read): for each job -- some code plus the test
calls to evaluate in its namespace -- it forks **one fresh child**, which runs that job alone and is
then killed with everything it started before the job's result is used. A child is never reused;
nothing one job does (to modules, builtins, memory, files of the work directory, SysV IPC objects,
processes) reaches the next job of the same worker. The pool keeps ``size`` workers and restarts one
that broke. One job may also be a *batch* of trusted-ish programs (ground truths) run one after
the other in the same child (:meth:`WorkerPool.run_batch`; answers are never batched).

Isolation, best first (see :func:`probe_isolation`; :attr:`Isolation.notes` says what is missing on
a given machine):

* per worker, its own **network namespace** (no interface is up: no network at all), **IPC
  namespace** and **PID namespace** (``unshare -n -i -p -f --kill-child``; as non-root
  ``unshare -Urn -i -p -f``), the zygote being PID 1 there: a job cannot see or signal anything
  outside, the zygote ignores every signal sent from inside, and after each job the zygote's
  ``kill(-1, SIGKILL)`` ends every other process of the namespace (daemons, ``setsid`` escapees,
  fork bombs: the kernel makes it atomic with ``fork``); if the zygote dies, the kernel kills the
  whole namespace;
* **uid/gid 65534** (``nobody``) with no supplementary groups when the evaluator is root;
* ``PR_SET_NO_NEW_PRIVS`` and **Landlock** (Linux >= 5.13): files readable only under the
  interpreter's directories and the system libraries, writable only in the worker's work directory
  (emptied after every job), no ``execve``; TCP bind/connect denied (ABI >= 4); each child enters a
  **new nested Landlock domain**, so it cannot ptrace the zygote (which is also non-dumpable: no
  ``/proc/PID/mem``) and, with ABI >= 6, cannot signal it or reach abstract unix sockets outside;
* **rlimits** per job, set in the child: CPU seconds, address space, processes, file size, open
  files, no core dumps; every fd but the job's own closed (the zygote's control socket included);
* a wall-clock timeout measured by the evaluator; at the deadline it has the zygote SIGKILL the
  job's processes, and if the zygote does not confirm within ``kill_grace_s`` it SIGKILLs the whole
  worker (its PID namespace) from outside and starts a new one;
* a **scrubbed environment** (only ``PATH``, ``HOME``/``TMPDIR`` = work directory, locale, a fixed
  ``PYTHONHASHSEED`` and single-thread BLAS settings); stdout/stderr captured in a fresh memfd the
  child cannot grow past the file-size limit, of which only the first ``max_output_kb`` are read;
* results come back in another fresh memfd as tagged plain data (see ``_sandbox_child.py``), parsed
  with :func:`json.loads` and :func:`decode_value` once the job's processes are dead; nothing the
  child made is unpickled or compared with its own ``__eq__``.

Without a PID namespace (``minimal`` mode, or ``unshare`` allowed without ``-p``), a job's
leftovers are killed by process group only (``setsid`` escapes): :attr:`Isolation.notes` says so.

Forged results: the result file is open in the child, so code in it *can* write on it (no nonce
can be hidden from code running in the same process). That gains nothing: the file only carries
the values the child's calls returned, never verdicts; the parent compares them with ground-truth
outputs the child never holds, and any malformed, duplicated or extra line (the runner's own lines
following a forged one) voids the whole answer. Writing a value there is thus no more powerful
than returning it. stdout/stderr are never parsed.

Not done: seccomp filtering (the namespaces and Landlock cover network, files and signals).
"""
from __future__ import annotations

import ctypes
import json
import marshal
import math
import os
import secrets
import select
import shutil
import signal
import socket
import subprocess
import sys
import sysconfig
import tempfile
import threading
import time
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from typing import Any, Sequence

__all__ = ["SandboxLimits", "Isolation", "probe_isolation", "JobResult", "WorkerPool", "SandboxError",
           "ProtocolError", "decode_value", "TypeRef", "NOBODY", "check_nice"]

#: uid/gid the children run as when the evaluator is root.
NOBODY = 65534
_CHILD = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_sandbox_child.py")
_MAX_DECODE_DEPTH = 110


class SandboxError(RuntimeError):
    """The sandbox itself failed (a worker could not start): an infrastructure error, not a bad answer."""


class ProtocolError(ValueError):
    """The child sent something that is not a valid message of the result protocol."""


@dataclass(frozen=True)
class SandboxLimits:
    """Resource limits of one sandboxed job.

    Attributes:
        timeout_s: wall-clock seconds from handing over the job to the last result (all tests).
        memory_mb: address-space limit (``RLIMIT_AS``) in MiB.
        cpu_s: CPU-seconds limit (``RLIMIT_CPU``); ``None`` = ``ceil(timeout_s) + 1``.
        max_procs: processes/threads (``RLIMIT_NPROC``; counted per uid, so shared by the concurrent
            sandboxes running as 65534).
        max_file_mb: largest file the child may write (``RLIMIT_FSIZE``), its captured output included.
        max_open_files: ``RLIMIT_NOFILE``.
        max_output_kb: how much of the child's stdout/stderr is kept.
        max_result_mb: cap on the bytes read from the result pipe (more = protocol violation).
        startup_timeout_s: how long a worker may take to become ready.
        kill_grace_s: how long a worker may take to kill and reap a finished or timed-out job
            before the whole worker is killed from outside and replaced.
    """

    timeout_s: float = 10.0
    memory_mb: int = 512
    cpu_s: float | None = None
    max_procs: int = 32
    max_file_mb: int = 16
    max_open_files: int = 64
    max_output_kb: int = 64
    max_result_mb: int = 16
    startup_timeout_s: float = 60.0
    kill_grace_s: float = 5.0

    def __post_init__(self):
        for name in ("timeout_s", "startup_timeout_s", "kill_grace_s"):
            v = getattr(self, name)
            if not isinstance(v, (int, float)) or isinstance(v, bool) or not v > 0:
                raise ValueError(f"SandboxLimits.{name} must be a positive number, got {v!r}")
        if self.cpu_s is not None and (not isinstance(self.cpu_s, (int, float)) or not self.cpu_s > 0):
            raise ValueError(f"SandboxLimits.cpu_s must be a positive number or None, got {self.cpu_s!r}")
        for name in ("memory_mb", "max_procs", "max_file_mb", "max_open_files", "max_output_kb", "max_result_mb"):
            v = getattr(self, name)
            if not isinstance(v, int) or isinstance(v, bool) or v <= 0:
                raise ValueError(f"SandboxLimits.{name} must be a positive int, got {v!r}")
        if self.memory_mb < 64:
            raise ValueError(f"SandboxLimits.memory_mb must be >= 64 (an interpreter needs it), got {self.memory_mb}")
        if self.max_open_files < 16:
            raise ValueError(f"SandboxLimits.max_open_files must be >= 16, got {self.max_open_files}")

    def rlimits(self) -> dict[str, tuple[int, int]]:
        cpu = int(self.cpu_s if self.cpu_s is not None else -(-self.timeout_s // 1) + 1)
        mib = 1 << 20
        return {
            "RLIMIT_CPU": (cpu, cpu + 1),
            "RLIMIT_AS": (self.memory_mb * mib, self.memory_mb * mib),
            "RLIMIT_NPROC": (self.max_procs, self.max_procs),
            "RLIMIT_FSIZE": (self.max_file_mb * mib, self.max_file_mb * mib),
            "RLIMIT_NOFILE": (self.max_open_files, self.max_open_files),
            "RLIMIT_CORE": (0, 0),
        }


@dataclass(frozen=True)
class Isolation:
    """What confinement the workers get on this machine (see the module docstring)."""

    mode: str
    netns: bool
    pidns: bool
    ipcns: bool
    userns: bool
    uid_drop: bool
    landlock_abi: int
    rlimits: tuple[str, ...]
    unshare_prefix: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()

    def as_dict(self) -> dict:
        d = asdict(self)
        d.pop("unshare_prefix")
        d.update(
            network="none (empty network namespace)" if self.netns else
            ("tcp denied by landlock" if self.landlock_abi >= 4 else "NOT isolated"),
            fs_writes="scratch dir only (landlock)" if self.landlock_abi >= 1 else
            ("uid 65534 permissions" if self.uid_drop else "NOT confined"),
            fs_reads="interpreter + system libraries only (landlock)" if self.landlock_abi >= 1 else "NOT confined",
            signals="own pid namespace" + (" + landlock scope" if self.landlock_abi >= 6 else "") if self.pidns
            else ("landlock scope" if self.landlock_abi >= 6 else "process group only"),
            leftovers=("killed after every job: kill(-1) by the zygote, init of the worker's pid namespace"
                       if self.pidns else "process group killed after every job (setsid escapes)"),
            process_model="per worker a confined zygote (never runs jobs); per job a fresh forked child "
                          "in a nested landlock domain, killed with all it started before scoring",
            ptrace="denied (nested landlock domain, non-dumpable zygote)" if self.landlock_abi >= 1
            else "zygote non-dumpable" + (", other uid" if self.uid_drop else ""),
            sysv_ipc="worker's own ipc namespace, emptied after every job" if self.ipcns else "NOT isolated",
            no_new_privs=True, seccomp=False,
        )
        return d


def _landlock_abi() -> int:
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        v = libc.syscall(444, None, ctypes.c_size_t(0), 1)  # LANDLOCK_CREATE_RULESET_VERSION
        return max(int(v), 0)
    except Exception:
        return 0


def _runs(cmd: list[str]) -> bool:
    try:
        return subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              timeout=20).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


@lru_cache(maxsize=None)
def probe_isolation(mode: str = "auto") -> Isolation:
    """Find out what this machine allows (cached per mode).

    Args:
        mode: ``"auto"`` (the best available), ``"strict"`` (like auto, but raise
            :class:`SandboxError` unless network + PID namespaces and Landlock are available) or
            ``"minimal"`` (no namespaces and no uid change: rlimits, no_new_privs, Landlock when
            available, process group; for machines where ``unshare`` is not allowed).
    """
    if mode not in ("auto", "strict", "minimal"):
        raise ValueError(f"isolation mode must be 'auto', 'strict' or 'minimal', got {mode!r}")
    abi = _landlock_abi()
    rl = tuple(SandboxLimits().rlimits())
    notes = []
    if abi == 0:
        notes.append("Landlock unavailable: file reads/writes confined only by uid permissions")
    elif abi < 6:
        notes.append(f"Landlock ABI {abi} < 6: signal/abstract-socket scoping unavailable")
    root = os.geteuid() == 0
    prefix: tuple[str, ...] = ()
    netns = pidns = userns = ipcns = False
    unshare = shutil.which("unshare")
    if mode != "minimal" and unshare:
        candidates = ([[unshare, "-n", "-i", "-p", "-f", "--kill-child"]] if root else []) + \
                     [[unshare, "-U", "-r", "-n", "-i", "-p", "-f", "--kill-child"], [unshare, "-U", "-r", "-n", "-i"],
                      [unshare, "-U", "-r", "-n"]]
        for c in candidates:
            if _runs(c + ["true"]):
                prefix, netns, pidns, userns, ipcns = tuple(c), True, "-p" in c, "-U" in c, "-i" in c
                break
    if mode != "minimal" and not netns:
        notes.append("unshare unavailable/not permitted: no network or PID namespace")
    uid_drop = root and mode != "minimal"
    if not uid_drop:
        notes.append("not root: children keep the caller's uid" if not root else "minimal mode: no uid change")
    if mode == "strict" and not (netns and pidns and abi >= 1):
        raise SandboxError("strict isolation needs network + PID namespaces and Landlock; available: "
                           f"netns={netns} pidns={pidns} landlock_abi={abi}")
    if mode != "minimal" and netns and not pidns:
        notes.append("no PID namespace: a job's leftovers are killed by process group only (setsid escapes)")
    return Isolation(mode=mode, netns=netns, pidns=pidns, ipcns=ipcns, userns=userns, uid_drop=uid_drop,
                     landlock_abi=abi,
                     rlimits=rl, unshare_prefix=prefix, notes=tuple(notes))


def _interpreter_paths() -> list[str]:
    paths = [p for p in sys.path if p and os.path.isdir(p) and
             (p.startswith(sys.base_prefix) or p.startswith(sys.prefix)) and not p.endswith(".egg-link")]
    for key in ("stdlib", "platstdlib", "purelib", "platlib"):
        p = sysconfig.get_paths().get(key)
        if p and os.path.isdir(p) and p not in paths:
            paths.append(p)
    return paths


# ---------------------------------------------------------------------------- decoding (parent side)

@dataclass(frozen=True)
class TypeRef:
    """A type object a program returned, by name: the class ``qualname`` of module ``module`` (only
    types their module holds under that name cross; a type the program defined itself is equal to
    nothing else, as in the reference, and does not cross). Equal to the same name only."""

    module: str
    qualname: str

    def __repr__(self) -> str:
        name = self.qualname if self.module == "builtins" else f"{self.module}.{self.qualname}"
        return f"<class '{name}'>"


#: ``numpy.nan`` as decoded (one object, as in a process where both programs ran).
_NUMPY_NAN = float("nan")


def _ints(obj: Any, n: int) -> list[int]:
    if type(obj) is not list or len(obj) != n or any(type(v) is not int for v in obj):
        raise ProtocolError("malformed value")
    return obj


def _decode_tz(obj: Any):
    import datetime as dtm

    if obj is None:
        return None
    if type(obj) is not list or len(obj) != 3 or obj[0] != "tz" or not (obj[2] is None or type(obj[2]) is str):
        raise ProtocolError("malformed timezone")
    off = dtm.timedelta(*_ints(obj[1], 3))
    return dtm.timezone(off) if obj[2] is None else dtm.timezone(off, _hex_str(obj[2]))


def _hex_str(s: str) -> str:
    return bytes.fromhex(s).decode("utf-8", "surrogatepass")


def _decode_special(tag: str, obj: list, depth: int) -> Any:
    import datetime as dtm

    n = len(obj)
    if tag == "n" and n == 2 and obj[1] in ("math", "numpy"):
        return math.nan if obj[1] == "math" else _NUMPY_NAN
    if tag == "dt" and n == 3:
        *fields, fold = _ints(obj[1], 8)
        return dtm.datetime(*fields, tzinfo=_decode_tz(obj[2]), fold=fold)
    if tag == "da" and n == 2:
        return dtm.date(*_ints(obj[1], 3))
    if tag == "ti" and n == 3:
        *fields, fold = _ints(obj[1], 5)
        return dtm.time(*fields, tzinfo=_decode_tz(obj[2]), fold=fold)
    if tag == "td" and n == 2:
        return dtm.timedelta(*_ints(obj[1], 3))
    if tag == "tz":
        return _decode_tz(obj)
    if tag == "D" and n == 2 and type(obj[1]) is str:
        import decimal

        return decimal.Decimal(_hex_str(obj[1]))
    if tag == "R" and n == 3 and type(obj[1]) is str and type(obj[2]) is str:
        import fractions

        return fractions.Fraction(int(obj[1], 16), int(obj[2], 16))
    if tag == "r" and n == 2:
        return range(*_ints(obj[1], 3))
    if tag == "Y" and n == 2 and type(obj[1]) is str:
        return bytearray.fromhex(obj[1])
    if tag == "T" and n == 3 and type(obj[1]) is str and type(obj[2]) is str:
        return TypeRef(_hex_str(obj[1]), _hex_str(obj[2]))
    if n == 2 and type(obj[1]) is list:
        import collections

        items = obj[1]
        if tag == "Q":
            return collections.deque(decode_value(x, depth + 1) for x in items)
        if tag == "K":
            return dict.fromkeys(decode_value(x, depth + 1) for x in items).keys()
        if tag in ("C", "O", "I"):
            pairs = []
            for kv in items:
                if type(kv) is not list or len(kv) != 2:
                    raise ProtocolError("malformed dict item")
                pairs.append((decode_value(kv[0], depth + 1), decode_value(kv[1], depth + 1)))
            if tag == "C":
                return collections.Counter(dict(pairs))
            return collections.OrderedDict(pairs) if tag == "O" else dict(pairs).items()
    raise ProtocolError(f"unknown value tag {tag[:10]!r}")


def decode_value(obj: Any, _depth: int = 0) -> Any:
    """Decode one tagged value (see ``_sandbox_child.py``) into plain Python data; strict.

    Only standard types whose ``==`` the evaluator trusts come out: ``None``, ``bool``, ``int``,
    ``float``, ``complex``, ``str``, ``bytes``, ``bytearray``, ``list``, ``tuple``, ``dict``,
    ``set``, ``frozenset``, ``range``, ``datetime.{datetime,date,time,timedelta,timezone}``,
    ``decimal.Decimal``, ``fractions.Fraction``, ``collections.{Counter,OrderedDict,deque}``, dict
    key/item views and :class:`TypeRef`. ``math.nan`` and ``numpy.nan`` decode to one object each
    (containers compare items by identity first, as when both programs ran in one process).

    Raises:
        ProtocolError: on anything that is not a well-formed encoding.
    """
    if obj is None or obj is True or obj is False:
        return obj
    if type(obj) is not list or not obj or type(obj[0]) is not str or _depth > _MAX_DECODE_DEPTH:
        raise ProtocolError("malformed value")
    tag, n = obj[0], len(obj)
    try:
        if n == 2 and type(obj[1]) is str:
            s = obj[1]
            if tag == "i":
                return int(s, 16)
            if tag == "f":
                return float.fromhex(s)
            if tag == "s":
                return bytes.fromhex(s).decode("utf-8", "surrogatepass")
            if tag == "y":
                return bytes.fromhex(s)
        if tag == "c" and n == 3 and type(obj[1]) is str and type(obj[2]) is str:
            return complex(float.fromhex(obj[1]), float.fromhex(obj[2]))
        if n == 2 and type(obj[1]) is list:
            items = obj[1]
            if tag == "l":
                return [decode_value(x, _depth + 1) for x in items]
            if tag == "t":
                return tuple(decode_value(x, _depth + 1) for x in items)
            if tag == "S":
                return {decode_value(x, _depth + 1) for x in items}
            if tag == "F":
                return frozenset(decode_value(x, _depth + 1) for x in items)
            if tag == "d":
                out = {}
                for kv in items:
                    if type(kv) is not list or len(kv) != 2:
                        raise ProtocolError("malformed dict item")
                    out[decode_value(kv[0], _depth + 1)] = decode_value(kv[1], _depth + 1)
                return out
        return _decode_special(tag, obj, _depth)
    except ProtocolError:
        raise
    except (ValueError, TypeError, OverflowError, RecursionError, ArithmeticError) as e:  # bad hex, key...
        raise ProtocolError(f"undecodable value ({type(e).__name__})") from None


def _hex_text(s: Any) -> str:
    if type(s) is not str:
        raise ProtocolError("malformed message text")
    try:
        return bytes.fromhex(s).decode("utf-8", "replace")[:500]
    except ValueError:
        raise ProtocolError("malformed message text") from None


@dataclass
class JobResult:
    """What came back from one job, decoded.

    Attributes:
        outcomes: per test index, ``(True, value)`` (the call returned ``value``) or ``(False, message)``
            (it raised, or returned something that is not plain data); tests missing did not finish.
        fail_kinds: per failed test index, ``"exception"``, ``"timeout"`` (the per-test limit of
            reference semantics), ``"memory"`` (MemoryError), ``"output"`` (result too large) or
            ``"unsupported"`` (a result type that does not cross).
        load_error: message when the code did not compile or its top level raised.
        finished: the child reported that it evaluated every test.
        timed_out: killed at the wall-clock timeout.
        protocol_error: what was wrong with the result stream (then ``outcomes`` is empty).
        exit_status: how the child ended (``returncode`` of the outermost process).
        output: the first ``max_output_kb`` of its stdout+stderr.
        elapsed_s: seconds from handing over the job to the job's processes being dead.
        cpu_ns: CPU nanoseconds by stage, as far as reported: ``fork`` (the zygote's ``fork``),
            ``setup`` (the child's main thread until the job is read: the return from ``fork``,
            confinement, rlimits, fds, copy-on-write faults), ``exec`` (its main thread running
            the code and the tests, encoding the results),
            ``sweep`` (the zygote killing and reaping the job's processes, emptying the work
            directory and IPC objects), ``job_processes`` (all the CPU of the job's processes,
            their exit included; rusage granularity), ``transfer`` (this process handing over the
            job and decoding the results).
        worker_id: ``TAG:N``: the tag in the worker's (zygote's) command line (``colbench-sbx-...``)
            and the job's serial number in that worker.
        page_faults: minor page faults (mostly copy-on-write copies of the zygote's pages, the
            main per-job cost of a fresh process): ``job_processes`` (all of the job's processes)
            and ``zygote`` (the zygote between the previous job's end and this one's).
    """

    outcomes: dict[int, tuple[bool, Any]] = field(default_factory=dict)
    fail_kinds: dict[int, str] = field(default_factory=dict)
    load_error: str | None = None
    finished: bool = False
    timed_out: bool = False
    protocol_error: str | None = None
    exit_status: int | None = None
    output: str = ""
    elapsed_s: float = 0.0
    worker_id: str = ""
    cpu_ns: dict[str, int] = field(default_factory=dict)
    page_faults: dict[str, int] = field(default_factory=dict)


_FAIL_KINDS = ("exception", "timeout", "memory", "output", "unsupported")


def _load_line(line: bytes) -> list:
    try:
        msg = json.loads(line)
    except (ValueError, RecursionError):
        raise ProtocolError("a result line is not valid JSON") from None
    if type(msg) is not list or not msg or type(msg[0]) is not str:
        raise ProtocolError("malformed result line")
    return msg


def _parse_line(line: bytes, n_tests: int, res: JobResult) -> None:
    _apply(_load_line(line), n_tests, res)


def _apply(msg: list, n_tests: int, res: JobResult) -> None:
    if res.finished:
        raise ProtocolError("data after the end marker")
    kind = msg[0]
    if kind == "P" and len(msg) == 3 and all(type(v) is int and 0 <= v < 1 << 62 for v in msg[1:]):
        if "setup" in res.cpu_ns:
            raise ProtocolError("duplicate profile line")
        res.cpu_ns["setup"], res.cpu_ns["exec"] = msg[1], msg[2]
        return
    if kind == "D" and len(msg) == 1:
        res.finished = True
        return
    if kind == "L" and len(msg) == 2:
        if res.load_error is not None or res.outcomes:
            raise ProtocolError("unexpected load-error line")
        res.load_error = _hex_text(msg[1])
        return
    if (kind == "v" and len(msg) == 3) or (kind == "e" and len(msg) == 4 and msg[3] in _FAIL_KINDS):
        i = msg[1]
        if type(i) is not int or not 0 <= i < n_tests:
            raise ProtocolError("bad test index")
        if i in res.outcomes or res.load_error is not None:
            raise ProtocolError(f"duplicate result for test {i}")
        if kind == "v":
            res.outcomes[i] = (True, decode_value(msg[2]))
        else:
            res.outcomes[i] = (False, _hex_text(msg[2]))
            res.fail_kinds[i] = msg[3]
        return
    raise ProtocolError("unknown result line")


# ---------------------------------------------------------------------------- workers

#: Standard-library modules every zygote imports once, so that jobs find them already loaded.
#: Kept small: every page of the zygote makes each fork a little slower.
DEFAULT_PRELOAD = ("collections", "datetime", "functools", "itertools", "math", "re")


def _cmdline_has(pid: int, tag: str) -> bool:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return tag.encode() in f.read()
    except OSError:
        return False


def _alive(pid: int) -> bool:
    """Whether ``pid`` exists and is not a zombie."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().rsplit(b")", 1)[1].split()[0] not in (b"Z", b"X")
    except (OSError, IndexError):
        return False


def check_nice(nice: Any) -> int:
    """``nice`` if it is an int in 0..19 (a nice increment), else ``ValueError``."""
    if not isinstance(nice, int) or isinstance(nice, bool) or not 0 <= nice <= 19:
        raise ValueError(f"nice must be an int in 0..19, got {nice!r}")
    return nice


def _autogroup_nice(increment: int) -> int | None:
    """The nice value for a zygote's autogroup: this process's autogroup's plus ``increment``
    (at most 19); ``None`` where the kernel has no autogroups.

    A zygote starts a session of its own (``setsid``), and with the kernel's autogroup scheduling
    (``/proc/sys/kernel/sched_autogroup_enabled``, on in most desktop and container kernels) every
    session is a scheduling group of its own, weighted by the group's nice value, not by its
    processes' -- so each sandbox worker would weigh as much as the whole calling process (all of
    a server's threads together) whatever the processes' own nice values. The zygote therefore
    lowers its group as well as itself."""
    try:
        with open("/proc/self/autogroup") as f:
            mine = int(f.read().split()[-1])
    except (OSError, ValueError, IndexError):
        return None
    return min(19, mine + increment)


class _Worker:
    """One sandboxed zygote (see ``_sandbox_child.py``): confined once, forks one child per job.

    Not thread-safe: the pool hands a worker to one thread at a time.
    """

    def __init__(self, base_dir: str, iso: Isolation, limits: SandboxLimits, sys_path: list[str],
                 ro_paths: list[str], hash_seed: int, preload: Sequence[str], nice: int = 0):
        self.tag = f"colbench-sbx-{secrets.token_hex(6)}"
        self.limits = limits
        self.iso = iso
        self.root = tempfile.mkdtemp(prefix="w-", dir=base_dir)
        os.chmod(self.root, 0o711)
        self.work = os.path.join(self.root, "work")
        os.mkdir(self.work, 0o700)
        self.log_path = os.path.join(self.root, "log")
        uid = NOBODY if iso.uid_drop else None
        if uid is not None:
            os.chown(self.work, NOBODY, NOBODY)
        rlimits = limits.rlimits()
        if not iso.uid_drop and not iso.userns:  # NPROC would count all the caller's processes
            rlimits.pop("RLIMIT_NPROC", None)
        self.sock, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        log_fd = os.open(self.log_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
        cfg = {
            "ctrl_fd": theirs.fileno(), "scratch": self.work, "sys_path": sys_path,
            "uid": uid, "gid": NOBODY if uid is not None else None,
            "rlimits": rlimits, "zygote_rlimits": {"RLIMIT_CORE": (0, 0)}, "landlock_abi": iso.landlock_abi,
            "ro_paths": ro_paths, "ro_files": ["/etc/localtime", "/dev/urandom", "/dev/random"],
            "rw_files": ["/dev/null"], "preload": list(preload), "ipcns": iso.ipcns,
            "nice": nice, "autogroup_nice": _autogroup_nice(nice) if nice else None,
        }
        env = {
            "PATH": "/usr/bin:/bin", "HOME": self.work, "TMPDIR": self.work, "LANG": "C.UTF-8",
            "LC_ALL": "C.UTF-8", "PYTHONHASHSEED": str(hash_seed), "PYTHONIOENCODING": "utf-8",
            "PYTHONDONTWRITEBYTECODE": "1", "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1",
            "MKL_NUM_THREADS": "1",
        }
        cmd = [*iso.unshare_prefix, sys.executable, "-S", "-B", _CHILD, marshal.dumps(cfg).hex(), self.tag]
        try:
            self.proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=log_fd, stderr=log_fd,
                                         pass_fds=(theirs.fileno(),), env=env, cwd=self.work,
                                         start_new_session=True, close_fds=True)
        except BaseException:
            self.sock.close()
            shutil.rmtree(self.root, ignore_errors=True)
            raise
        finally:
            theirs.close()
            os.close(log_fd)
        self.ready = False
        self.inner_pid: int | None = None
        self.started = time.monotonic()
        self.closed = False
        self.serial = 0
        self._kill_lock = threading.Lock()

    # -- life cycle
    def wait_ready(self) -> None:
        if self.ready:
            return
        deadline = self.started + self.limits.startup_timeout_s
        left = deadline - time.monotonic()
        rl, _, _ = select.select([self.sock], [], [], max(left, 0))
        msg = self.sock.recv(16) if rl else None
        if msg == b"R":
            self.ready = True
            self.inner_pid = self._find_inner_pid()
            return
        self.kill()
        if msg is None:
            raise SandboxError(f"sandbox worker did not start within {self.limits.startup_timeout_s}s")
        raise SandboxError(f"sandbox worker failed to start (exit {self.proc.returncode}): {self._read_log()[-2000:]}")

    def _find_inner_pid(self) -> int | None:
        """Host pid of the zygote when it runs under ``unshare -f`` (PID 1 of its namespace)."""
        if not self.iso.unshare_prefix or "-f" not in self.iso.unshare_prefix:
            return None
        try:
            with open(f"/proc/{self.proc.pid}/task/{self.proc.pid}/children") as f:
                kids = f.read().split()
            return int(kids[0]) if kids else None
        except (OSError, ValueError):
            return None

    def kill(self) -> None:
        """SIGKILL the zygote and everything in its sandbox; returns once they are all dead."""
        with self._kill_lock:
            if self.closed:
                return
            self.closed = True
            self._kill()

    def _kill(self) -> None:
        inner = self.inner_pid if self.inner_pid is not None else self._find_inner_pid()
        if self.proc.poll() is None:
            if inner is not None:  # unshare still waits for it, so the pid cannot have been reused
                try:
                    os.kill(inner, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            try:  # unshare returns only once the namespace's init is reaped: all its processes are gone
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                pass
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        self.proc.wait()
        if inner is not None:  # it dies of PR_SET_PDEATHSIG if it outlived unshare; make sure
            deadline = time.monotonic() + 10
            while _alive(inner) and time.monotonic() < deadline:
                if _cmdline_has(inner, self.tag):
                    try:
                        os.kill(inner, signal.SIGKILL)
                    except ProcessLookupError:
                        pass
                time.sleep(0.002)
        self.sock.close()

    def cleanup(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)

    def _read_log(self) -> str:
        try:
            with open(self.log_path, "rb") as f:
                return f.read(64 * 1024).decode("utf-8", "replace")
        except OSError:
            return ""

    # -- one job
    def run(self, code: str, tests: Sequence[str], mode: str = "python",
            test_timeout: float | None = None) -> tuple[JobResult, bool]:
        """Run one job in a fresh child; returns (result, whether this worker can take another job).

        Raises:
            SandboxError: the job could not be handed over (the worker is dead); nothing ran.
        """
        c0 = time.thread_time_ns()
        res = JobResult()
        payload = marshal.dumps({"code": code, "tests": list(tests), "mode": mode, "test_timeout": test_timeout})
        data, healthy = self._exchange(payload, res)
        try:
            for line in data:
                _parse_line(line, len(tests), res)
        except ProtocolError as e:
            _void(res, str(e))
        if res.finished:
            res.timed_out = False
        res.cpu_ns["transfer"] = time.thread_time_ns() - c0
        return res, healthy

    def run_batch(self, programs: Sequence[tuple]) -> tuple[JobResult, list, list, bool]:
        """Run several programs ``(code, tests, mode, test_timeout)`` one after the other in one fresh
        child (see ``_run_batch`` in ``_sandbox_child.py``).

        Returns:
            ``(job, results, changes, healthy)``: ``job`` the batch job's own result (timeout, exit
            status, protocol error, CPU); ``results[k]``: the :class:`JobResult` of program ``k``
            when it ran to its end marker, ``"started"`` when it began but did not end, ``None``
            when it never began; ``changes[k]``: what program ``k`` changed that a later one could
            see ('' when nothing; the child then stopped the batch).
        """
        c0 = time.thread_time_ns()
        job = JobResult()
        payload = marshal.dumps({"programs": [(c, list(t), m, tt) for c, t, m, tt in programs]})
        data, healthy = self._exchange(payload, job)
        n = len(programs)
        results: list = [None] * n
        changes = [""] * n
        try:
            k, cur = -1, None
            for line in data:
                msg = _load_line(line)
                kind = msg[0]
                if kind == "B" and len(msg) == 2 and msg[1] == k + 1 and k + 1 < n and cur is None \
                        and not (k >= 0 and changes[k]):
                    k += 1
                    cur = JobResult(worker_id=job.worker_id)
                    results[k] = "started"
                elif kind == "N" and len(msg) == 3 and msg[1] == k and cur is not None:
                    cur.finished = True
                    results[k], cur = cur, None
                    changes[k] = _hex_text(msg[2])
                elif kind in ("P", "D"):
                    if cur is not None:
                        raise ProtocolError("profile or end line inside a program")
                    _apply(msg, 0, job)
                elif cur is not None:
                    _apply(msg, len(programs[k][1]), cur)
                else:
                    raise ProtocolError("result line outside a program")
        except ProtocolError as e:
            _void(job, str(e))
            results, changes = [None] * n, [""] * n
        for r in results:
            if isinstance(r, JobResult):
                r.elapsed_s, r.output, r.exit_status = job.elapsed_s, job.output, job.exit_status
        job.cpu_ns["transfer"] = time.thread_time_ns() - c0
        return job, results, changes, healthy

    def _exchange(self, payload: bytes, res: JobResult) -> tuple[list[bytes], bool]:
        """Hand ``payload`` to a fresh child, wait for the end of its processes; fills ``res``'s
        worker id, exit status, timeout flag, CPU, faults, elapsed time and output; returns the
        result lines (a cut-off last one dropped) and whether this worker can take another job."""
        self.wait_ready()
        self.serial += 1
        res.worker_id = f"{self.tag}:{self.serial}"
        fds = [os.memfd_create(name, os.MFD_CLOEXEC) for name in ("colbench-job", "colbench-result", "colbench-out")]
        try:
            job_fd, result_fd, out_fd = fds
            view = memoryview(payload)
            while view:
                view = view[os.write(job_fd, view):]
            os.lseek(job_fd, 0, os.SEEK_SET)
            t0 = time.monotonic()
            try:
                socket.send_fds(self.sock, [b"J"], fds)
            except OSError as e:
                raise SandboxError(f"sandbox worker {self.tag} is gone: {e}") from None
            reply = self._wait_end(self.limits.timeout_s)
            if reply is None:  # wall-clock timeout: the zygote kills the job's processes
                res.timed_out = True
                try:
                    self.sock.send(b"K")
                except OSError:
                    pass
                reply = self._wait_end(self.limits.kill_grace_s)
            healthy = reply is not None and reply[:1] == b"k"
            if reply is None:
                self.kill()  # no answer: SIGKILL the zygote from here, its PID namespace goes with it
            else:
                try:
                    status, fork_ns, sweep_ns, job_ns, job_faults, zygote_faults = (int(v) for v in reply[1:].split())
                    res.exit_status = status
                    res.cpu_ns.update(fork=fork_ns, sweep=sweep_ns, job_processes=job_ns)
                    res.page_faults.update(job_processes=job_faults, zygote=zygote_faults)
                except ValueError:
                    healthy = False
            res.elapsed_s = time.monotonic() - t0
            lines: list[bytes] = []
            cap = self.limits.max_result_mb << 20
            size = os.fstat(result_fd).st_size
            if size > cap:
                res.protocol_error = f"more than {self.limits.max_result_mb} MiB of results"
            elif size:
                lines = os.pread(result_fd, size, 0).split(b"\n")[:-1]
            size = min(os.fstat(out_fd).st_size, self.limits.max_output_kb * 1024)
            res.output = os.pread(out_fd, size, 0).decode("utf-8", "replace") if size else ""
            return lines, healthy
        finally:
            for fd in fds:
                os.close(fd)

    def _wait_end(self, timeout: float) -> bytes | None:
        """The zygote's report that the job's processes are all dead (``None``: not within ``timeout``)."""
        try:
            if select.select([self.sock], [], [], timeout)[0]:
                return self.sock.recv(64) or None
        except OSError:
            pass
        return None


def _void(res: JobResult, error: str) -> None:
    """A malformed result stream voids the whole job."""
    res.protocol_error = error
    res.outcomes.clear()
    res.fail_kinds.clear()
    res.finished = False
    res.load_error = None


class WorkerPool:
    """Keeps ``size`` sandboxed zygotes and runs jobs on them, each job in a fresh forked child.

    Thread-safe: :meth:`run` may be called from several threads; each call takes an idle worker
    (waiting for one when all ``size`` are busy), runs the job in a new child of it, has everything
    the job started killed, and gives the worker back (or replaces it when it broke).

    Args:
        size: number of workers (zygotes), i.e. jobs run at once.
        limits: resource limits of every job.
        isolation: an :class:`Isolation` from :func:`probe_isolation`.
        hash_seed: ``PYTHONHASHSEED`` of every child (the same for ground truth and answers, so
            that set iteration order agrees, as when both ran in one process).
        preload: modules each zygote imports once before its first job.
        nice: how much lower than this process's the CPU priority of the sandbox processes is
            (0..19, a nice increment; see :func:`_autogroup_nice`). Under CPU contention the caller's
            threads -- e.g. a server's interactive steps -- then run before the jobs; with idle
            CPUs the jobs run as fast as with 0.
    """

    def __init__(self, size: int, limits: SandboxLimits, isolation: Isolation, hash_seed: int = 0,
                 preload: Sequence[str] = DEFAULT_PRELOAD, nice: int = 0):
        if not isinstance(size, int) or isinstance(size, bool) or size < 1:
            raise ValueError(f"pool size must be an int >= 1, got {size!r}")
        check_nice(nice)
        self.nice = nice
        self.size, self.limits, self.isolation, self.hash_seed = size, limits, isolation, hash_seed
        self.preload = tuple(preload)
        self.base_dir = tempfile.mkdtemp(prefix="colbench-sandbox-")
        os.chmod(self.base_dir, 0o711)  # zygotes may traverse to their work dir, not list others
        self.sys_path = _interpreter_paths()
        libs = ["/usr/lib", "/lib", "/lib64", "/usr/lib64", "/usr/local/lib", "/usr/share/zoneinfo"]
        self.ro_paths = self.sys_path + [p for p in libs if os.path.isdir(p)]
        self._idle: list[_Worker] = []
        self._all: set[_Worker] = set()
        #: CPU nanoseconds by stage summed over the jobs run (see :attr:`JobResult.cpu_ns`), and ``jobs``
        self.cpu_totals: dict[str, int] = {"jobs": 0}
        #: page faults summed over the jobs run (see :attr:`JobResult.page_faults`)
        self.fault_totals: dict[str, int] = {}
        #: :meth:`run_batch` counts: batch jobs, programs whose result came from a batch, batches
        #: stopped early by a program's change of shared state, programs re-run alone
        self.batch_totals: dict[str, int] = {"batches": 0, "programs": 0, "stopped_by_change": 0, "alone": 0}
        self._cond = threading.Condition()
        self._closed = False

    def _spawn(self) -> _Worker:
        return _Worker(self.base_dir, self.isolation, self.limits, self.sys_path, self.ro_paths, self.hash_seed,
                       self.preload, self.nice)

    def _retire(self, w: _Worker) -> None:
        w.kill()
        w.cleanup()
        with self._cond:
            self._all.discard(w)
            self._cond.notify()

    def fill(self) -> None:
        """Start workers (concurrently) until there are ``size``, and wait until they are ready."""
        new = []
        with self._cond:
            while not self._closed and len(self._all) + len(new) < self.size:
                w = self._spawn()
                new.append(w)
                self._all.add(w)
        for w in new:
            try:
                w.wait_ready()
            except SandboxError:
                for other in new:
                    self._retire(other)
                raise
        with self._cond:
            self._idle.extend(new)
            self._cond.notify_all()

    def _acquire(self) -> _Worker:
        with self._cond:
            while True:
                if self._closed:
                    raise SandboxError("the worker pool is closed")
                if self._idle:
                    return self._idle.pop()
                if len(self._all) < self.size:
                    w = self._spawn()
                    self._all.add(w)
                    return w
                self._cond.wait()

    def _release(self, w: _Worker) -> None:
        with self._cond:
            if not self._closed and w in self._all:
                self._idle.append(w)
                self._cond.notify()
                return
        self._retire(w)

    def run(self, code: str, tests: Sequence[str], mode: str = "python",
            test_timeout: float | None = None) -> JobResult:
        """Run ``code`` then each call in ``tests`` in a fresh sandboxed child; see :class:`JobResult`.

        Args:
            mode: ``"python"``: the code runs once as a module, the calls are evaluated in order in
                its namespace; ``"reference"``: for each call the code runs afresh into new locals
                (the reference scorer's ``exec`` inside a function), see ``_sandbox_child.py``.
            test_timeout: (reference mode) seconds per call, definitions included, after which
                ``TimeoutError`` is raised inside it; ``None``: no per-call limit.
        """
        if mode not in ("python", "reference"):
            raise ValueError(f"mode must be 'python' or 'reference', got {mode!r}")
        res, = self._on_worker(lambda w: w.run(code, tests, mode, test_timeout))
        return res

    def run_batch(self, programs: Sequence[tuple]) -> list[JobResult]:
        """Run several trusted-ish programs ``(code, tests, mode, test_timeout)`` -- the ground
        truths of several tasks -- in as few fresh children as their behaviour allows; returns one
        :class:`JobResult` per program, as :meth:`run` would give for it alone.

        In one child the programs run one after the other, each in fresh namespaces; the child
        stops the batch after a program that changed state a later one could see (builtins, a
        module's or class's names, loaded modules, environment, settings, signal handlers, rlimits,
        work directory, threads, processes: see ``_run_batch`` in ``_sandbox_child.py``), and the
        rest continue in a fresh child. The limits (wall clock, CPU, memory, ...) hold for the
        whole batch; the program that was running when the batch failed (timeout, crash, limit) --
        and any program with a ``memory`` or ``timeout`` failure -- is run again alone, with the
        limits to itself, and gets that run's result; so one bad program cannot change the others'
        results. A malformed result stream runs every program of that batch alone.
        """
        for p in programs:
            if len(p) != 4 or p[2] not in ("python", "reference"):
                raise ValueError("programs must be (code, tests, 'python'|'reference', test_timeout) tuples")
        out: list[JobResult | None] = [None] * len(programs)
        pending = list(range(len(programs)))
        while pending:
            if len(pending) == 1:
                i = pending.pop()
                out[i] = self.run(*programs[i])
                break
            job, results, changes = self._on_worker(lambda w: w.run_batch([programs[i] for i in pending]))
            alone, rest = [], []
            if job.protocol_error is not None:
                alone = list(pending)
            else:
                for i, r in zip(pending, results):
                    if r is None:
                        rest.append(i)
                    elif r == "started" or any(k in ("memory", "timeout") for k in r.fail_kinds.values()):
                        alone.append(i)
                    else:
                        out[i] = r
            with self._cond:
                self.batch_totals["batches"] += 1
                self.batch_totals["programs"] += len(pending) - len(alone) - len(rest)
                self.batch_totals["stopped_by_change"] += any(changes)
                self.batch_totals["alone"] += len(alone)
            if not alone and len(rest) == len(pending):  # no progress at all: one by one
                alone, rest = rest, []
            for i in alone:
                out[i] = self.run(*programs[i])
            pending = rest
        return out  # type: ignore[return-value]

    def _on_worker(self, fn):
        """``fn(worker)`` on an idle worker (a worker found dead before the job was handed over: once
        more on a new one); accounts the job's CPU and faults; gives the worker back or retires it.
        Returns ``fn``'s result minus its last item (``healthy``)."""
        attempt = 0
        while True:
            attempt += 1
            w = self._acquire()
            try:
                out = fn(w)
            except SandboxError:
                self._retire(w)
                if attempt >= 2:
                    raise
                continue
            except BaseException:
                self._retire(w)
                raise
            res, healthy = out[0], out[-1]
            with self._cond:
                self.cpu_totals["jobs"] += 1
                for k, v in res.cpu_ns.items():
                    self.cpu_totals[k] = self.cpu_totals.get(k, 0) + v
                for k, v in res.page_faults.items():
                    self.fault_totals[k] = self.fault_totals.get(k, 0) + v
            if healthy:
                self._release(w)
            else:
                self._retire(w)
            return out[:-1]

    def worker_tags(self) -> list[str]:
        """Tags of the live workers (each is in its zygote's command line)."""
        with self._cond:
            return [w.tag for w in self._all]

    def close(self) -> None:
        """Kill every worker and everything in its sandbox, and remove the scratch directories."""
        with self._cond:
            self._closed = True
            workers = list(self._all)
            self._idle.clear()
            self._cond.notify_all()
        for w in workers:
            w.kill()
            w.cleanup()
        shutil.rmtree(self.base_dir, ignore_errors=True)
