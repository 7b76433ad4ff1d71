"""Run untrusted Python code in throw-away sandboxed interpreters, from a pool of warm workers.

A *worker* is a fresh interpreter (``_sandbox_child.py``) started in advance, already confined and
waiting on its stdin for one job: some code plus the test calls to evaluate in its namespace. It
runs exactly one job and is then killed with everything it started; it is never reused.

Isolation of a worker, best first (see :func:`probe_isolation`; :attr:`Isolation.notes` says what is
missing on a given machine):

* own **network namespace** (no interface is up: no network at all) and own **PID namespace**
  (``unshare -n -p -f --kill-child``; as non-root ``unshare -Urn -p -f``): the child is PID 1 of its
  namespace, so every process it starts dies with it, and it cannot see or signal the evaluator;
* **uid/gid 65534** (``nobody``) with no supplementary groups when the evaluator is root;
* ``PR_SET_NO_NEW_PRIVS`` and **Landlock** (Linux >= 5.13): files readable only under the
  interpreter's directories and the system libraries, writable only in its own scratch directory,
  no ``execve``; TCP bind/connect denied (ABI >= 4); signals and abstract unix sockets scoped to the
  sandbox (ABI >= 6);
* **rlimits**: CPU seconds, address space, processes, file size, open files, no core dumps;
* its own **process group**, ``PR_SET_PDEATHSIG``; a wall-clock timeout enforced by the parent with
  SIGKILL (which cannot be ignored);
* a **scrubbed environment** (only ``PATH``, ``HOME``/``TMPDIR`` = scratch, locale, a fixed
  ``PYTHONHASHSEED`` and single-thread BLAS settings), stdout/stderr captured to a file that the
  child cannot grow past the file-size limit and of which only the first ``max_output_kb`` are read;
* results travel on a dedicated pipe as tagged plain data (see ``_sandbox_child.py``), parsed with
  :func:`json.loads` and :func:`decode_value`; nothing the child made is unpickled or compared with
  its own ``__eq__``.

Forged results: the result pipe is open in the child, so code in it *can* write on it (no nonce
can be hidden from code running in the same process). That gains nothing: the stream only carries
the values the child's calls returned, never verdicts; the parent compares them with ground-truth
outputs the child never holds, and any malformed, duplicated or extra line (the runner's own lines
following a forged one) voids the whole answer. Writing a value on the pipe is thus no more
powerful than returning it. stdout/stderr are never parsed.

Not done: seccomp filtering (the namespaces and Landlock cover network, files and signals).
"""
from __future__ import annotations

import ctypes
import json
import marshal
import os
import secrets
import select
import shutil
import signal
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
           "ProtocolError", "decode_value", "NOBODY"]

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

    def __post_init__(self):
        for name in ("timeout_s", "startup_timeout_s"):
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
            leftovers="killed with the pid namespace" if self.pidns else "process group killed (setsid escapes)",
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
    netns = pidns = userns = False
    unshare = shutil.which("unshare")
    if mode != "minimal" and unshare:
        candidates = ([[unshare, "-n", "-p", "-f", "--kill-child"]] if root else []) + \
                     [[unshare, "-U", "-r", "-n", "-p", "-f", "--kill-child"], [unshare, "-U", "-r", "-n"]]
        for c in candidates:
            if _runs(c + ["true"]):
                prefix, netns, pidns, userns = tuple(c), True, "-p" in c, "-U" in c
                break
    if mode != "minimal" and not netns:
        notes.append("unshare unavailable/not permitted: no network or PID namespace")
    uid_drop = root and mode != "minimal"
    if not uid_drop:
        notes.append("not root: children keep the caller's uid" if not root else "minimal mode: no uid change")
    if mode == "strict" and not (netns and pidns and abi >= 1):
        raise SandboxError("strict isolation needs network + PID namespaces and Landlock; available: "
                           f"netns={netns} pidns={pidns} landlock_abi={abi}")
    return Isolation(mode=mode, netns=netns, pidns=pidns, userns=userns, uid_drop=uid_drop, landlock_abi=abi,
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

def decode_value(obj: Any, _depth: int = 0) -> Any:
    """Decode one tagged value (see ``_sandbox_child.py``) into plain Python data; strict.

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
    except ProtocolError:
        raise
    except (ValueError, TypeError, OverflowError, RecursionError) as e:  # bad hex, unhashable key...
        raise ProtocolError(f"undecodable value ({type(e).__name__})") from None
    raise ProtocolError(f"unknown value tag {tag[:10]!r}")


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
        load_error: message when the code did not compile or its top level raised.
        finished: the child reported that it evaluated every test.
        timed_out: killed at the wall-clock timeout.
        protocol_error: what was wrong with the result stream (then ``outcomes`` is empty).
        exit_status: how the child ended (``returncode`` of the outermost process).
        output: the first ``max_output_kb`` of its stdout+stderr.
        elapsed_s: seconds from handing over the job to the child being dead.
        worker_id: the tag in the worker's command line (``colbench-sbx-...``).
    """

    outcomes: dict[int, tuple[bool, Any]] = field(default_factory=dict)
    load_error: str | None = None
    finished: bool = False
    timed_out: bool = False
    protocol_error: str | None = None
    exit_status: int | None = None
    output: str = ""
    elapsed_s: float = 0.0
    worker_id: str = ""


def _parse_line(line: bytes, n_tests: int, res: JobResult) -> None:
    if res.finished:
        raise ProtocolError("data after the end marker")
    try:
        msg = json.loads(line)
    except (ValueError, RecursionError):
        raise ProtocolError("a result line is not valid JSON") from None
    if type(msg) is not list or not msg or type(msg[0]) is not str:
        raise ProtocolError("malformed result line")
    kind = msg[0]
    if kind == "D" and len(msg) == 1:
        res.finished = True
        return
    if kind == "L" and len(msg) == 2:
        if res.load_error is not None or res.outcomes:
            raise ProtocolError("unexpected load-error line")
        res.load_error = _hex_text(msg[1])
        return
    if kind in ("v", "e") and len(msg) == 3:
        i = msg[1]
        if type(i) is not int or not 0 <= i < n_tests:
            raise ProtocolError("bad test index")
        if i in res.outcomes or res.load_error is not None:
            raise ProtocolError(f"duplicate result for test {i}")
        res.outcomes[i] = (True, decode_value(msg[2])) if kind == "v" else (False, _hex_text(msg[2]))
        return
    raise ProtocolError("unknown result line")


# ---------------------------------------------------------------------------- workers

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


class _Worker:
    """One started child: waits for one job, runs it, is killed."""

    def __init__(self, base_dir: str, iso: Isolation, limits: SandboxLimits, sys_path: list[str],
                 ro_paths: list[str], hash_seed: int):
        self.tag = f"colbench-sbx-{secrets.token_hex(6)}"
        self.limits = limits
        self.iso = iso
        self.scratch = tempfile.mkdtemp(prefix="s-", dir=base_dir)
        self.out_path = os.path.join(base_dir, self.tag + ".out")
        uid = NOBODY if iso.uid_drop else None
        if uid is not None:
            os.chown(self.scratch, NOBODY, NOBODY)
        r, w = os.pipe()
        out_fd = os.open(self.out_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
        rlimits = limits.rlimits()
        if not iso.uid_drop and not iso.userns:  # NPROC would count all the caller's processes
            rlimits.pop("RLIMIT_NPROC", None)
        cfg = {
            "result_fd": w, "scratch": self.scratch, "sys_path": sys_path,
            "uid": uid, "gid": NOBODY if uid is not None else None,
            "rlimits": rlimits, "landlock_abi": iso.landlock_abi,
            "ro_paths": ro_paths, "ro_files": ["/etc/localtime", "/dev/urandom", "/dev/random"],
            "rw_files": ["/dev/null"],
        }
        env = {
            "PATH": "/usr/bin:/bin", "HOME": self.scratch, "TMPDIR": self.scratch, "LANG": "C.UTF-8",
            "LC_ALL": "C.UTF-8", "PYTHONHASHSEED": str(hash_seed), "PYTHONIOENCODING": "utf-8",
            "PYTHONDONTWRITEBYTECODE": "1", "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1",
            "MKL_NUM_THREADS": "1",
        }
        cmd = [*iso.unshare_prefix, sys.executable, "-S", "-B", _CHILD, marshal.dumps(cfg).hex(), self.tag]
        try:
            self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=out_fd, stderr=out_fd, pass_fds=(w,),
                                         env=env, cwd=self.scratch, start_new_session=True, close_fds=True)
        except BaseException:
            os.close(r)
            os.close(w)
            os.close(out_fd)
            shutil.rmtree(self.scratch, ignore_errors=True)
            raise
        os.close(w)
        os.close(out_fd)
        self.result_fd = r
        self.ready = False
        self.inner_pid: int | None = None
        self.started = time.monotonic()
        self.closed = False
        self._kill_lock = threading.Lock()

    # -- life cycle
    def wait_ready(self) -> None:
        deadline = self.started + self.limits.startup_timeout_s
        while not self.ready:
            left = deadline - time.monotonic()
            if left <= 0:
                self.kill()
                raise SandboxError(f"sandbox worker did not start within {self.limits.startup_timeout_s}s")
            rl, _, _ = select.select([self.result_fd], [], [], left)
            if rl:
                b = os.read(self.result_fd, 1)
                if b == b"R":
                    self.ready = True
                    self.inner_pid = self._find_inner_pid()
                    return
                self.kill()
                out = self._read_output()
                raise SandboxError(f"sandbox worker failed to start (exit {self.proc.returncode}): {out[-2000:]}")

    def _find_inner_pid(self) -> int | None:
        """Host pid of the interpreter when it runs under ``unshare -f`` (PID 1 of its namespace)."""
        if not self.iso.unshare_prefix or "-f" not in self.iso.unshare_prefix:
            return None
        try:
            with open(f"/proc/{self.proc.pid}/task/{self.proc.pid}/children") as f:
                kids = f.read().split()
            return int(kids[0]) if kids else None
        except (OSError, ValueError):
            return None

    def kill(self) -> None:
        """SIGKILL the child and everything it started; returns once they are all dead."""
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
        if self.proc.stdin:
            try:
                self.proc.stdin.close()
            except OSError:
                pass
        os.close(self.result_fd)

    def cleanup(self) -> str:
        out = self._read_output()
        try:
            os.unlink(self.out_path)
        except FileNotFoundError:
            pass
        shutil.rmtree(self.scratch, ignore_errors=True)
        return out

    def _read_output(self) -> str:
        try:
            with open(self.out_path, "rb") as f:
                return f.read(self.limits.max_output_kb * 1024).decode("utf-8", "replace")
        except OSError:
            return ""

    # -- one job
    def run(self, code: str, tests: Sequence[str]) -> JobResult:
        self.wait_ready()
        res = JobResult(worker_id=self.tag)
        payload = marshal.dumps({"code": code, "tests": list(tests)})
        t0 = time.monotonic()
        deadline = t0 + self.limits.timeout_s
        stdin_fd = self.proc.stdin.fileno()
        os.set_blocking(stdin_fd, False)
        os.set_blocking(self.result_fd, False)
        view, buf, total, cap = memoryview(payload), b"", 0, self.limits.max_result_mb << 20
        try:
            while True:
                left = deadline - time.monotonic()
                if left <= 0:
                    res.timed_out = True
                    break
                wl = [stdin_fd] if view is not None else []
                rl, wr, _ = select.select([self.result_fd], wl, [], left)
                if wr:
                    try:
                        n = os.write(stdin_fd, view[:1 << 16])
                        view = view[n:]
                    except BrokenPipeError:
                        view = b""
                    if not view:
                        self.proc.stdin.close()
                        view = None
                if rl:
                    chunk = os.read(self.result_fd, 1 << 16)
                    if not chunk:
                        break
                    total += len(chunk)
                    if total > cap:
                        raise ProtocolError(f"more than {self.limits.max_result_mb} MiB of results")
                    buf += chunk
                    *lines, buf = buf.split(b"\n")
                    for line in lines:
                        _parse_line(line, len(tests), res)
                    if res.finished:
                        break
        except ProtocolError as e:
            res.protocol_error = str(e)
            res.outcomes.clear()
        finally:
            self.kill()
        res.elapsed_s = time.monotonic() - t0
        res.exit_status = self.proc.returncode
        res.output = self.cleanup()
        return res


class WorkerPool:
    """Keeps ``size`` idle workers started (confined, waiting for a job) and runs jobs on them.

    Thread-safe: :meth:`run` may be called from several threads; each call takes one idle worker
    (starting one if none is idle), starts its replacement, and discards the worker afterwards.

    Args:
        size: idle workers to keep warm.
        limits: resource limits of every job.
        isolation: an :class:`Isolation` from :func:`probe_isolation`.
        hash_seed: ``PYTHONHASHSEED`` of every child (the same for ground truth and answers, so
            that set iteration order agrees, as when both ran in one process).
    """

    def __init__(self, size: int, limits: SandboxLimits, isolation: Isolation, hash_seed: int = 0):
        if not isinstance(size, int) or size < 0:
            raise ValueError(f"pool size must be an int >= 0, got {size!r}")
        self.size, self.limits, self.isolation, self.hash_seed = size, limits, isolation, hash_seed
        self.base_dir = tempfile.mkdtemp(prefix="colbench-sandbox-")
        os.chmod(self.base_dir, 0o711)  # children may traverse to their scratch dir, not list others
        self.sys_path = _interpreter_paths()
        libs = ["/usr/lib", "/lib", "/lib64", "/usr/lib64", "/usr/local/lib", "/usr/share/zoneinfo"]
        self.ro_paths = self.sys_path + [p for p in libs if os.path.isdir(p)]
        self._idle: list[_Worker] = []
        self._lock = threading.Lock()
        self._closed = False
        self._all: set[_Worker] = set()

    def _spawn(self) -> _Worker:
        w = _Worker(self.base_dir, self.isolation, self.limits, self.sys_path, self.ro_paths, self.hash_seed)
        with self._lock:
            self._all.add(w)
        return w

    def fill(self) -> None:
        """Start workers until ``size`` are idle."""
        while True:
            with self._lock:
                if self._closed or len(self._idle) >= self.size:
                    return
            w = self._spawn()
            with self._lock:
                if self._closed:
                    break
                self._idle.append(w)
                continue
        w.kill()
        w.cleanup()

    def run(self, code: str, tests: Sequence[str]) -> JobResult:
        """Run ``code`` then each call in ``tests`` in a fresh sandbox; see :class:`JobResult`."""
        with self._lock:
            if self._closed:
                raise SandboxError("the worker pool is closed")
            w = self._idle.pop(0) if self._idle else None
        if w is None:
            w = self._spawn()
        try:
            self.fill()
            return w.run(code, tests)
        finally:
            w.kill()
            w.cleanup()
            with self._lock:
                self._all.discard(w)

    def worker_tags(self) -> list[str]:
        with self._lock:
            return [w.tag for w in self._all]

    def close(self) -> None:
        """Kill every worker and remove the scratch directories."""
        with self._lock:
            self._closed = True
            workers = list(self._all)
            self._idle.clear()
        for w in workers:
            w.kill()
            w.cleanup()
        shutil.rmtree(self.base_dir, ignore_errors=True)
