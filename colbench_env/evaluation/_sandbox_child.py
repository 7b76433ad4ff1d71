"""The sandboxed child runner: one fresh interpreter per job, started by :mod:`.sandbox`.

This file is executed as a script (``python -S -B _sandbox_child.py CONFIG TAG``) and imports
nothing from colbench, only ``marshal``/``resource``/``ctypes`` from the standard library (no
``json``/``re``: they would double the start-up time). ``CONFIG`` is the hex of a ``marshal``-ed
dict written by the trusted parent.

Life of a child:

1. **Set-up, before any untrusted code** (while still trusted): ``chdir`` into the scratch
   directory, replace ``sys.path`` with the interpreter's standard library and site-packages,
   ``PR_SET_NO_NEW_PRIVS``, build a Landlock rule set (read-only: those directories and the system
   libraries; read-write: the scratch directory only; no ``execve`` anywhere; TCP bind/connect
   denied; signals and abstract unix sockets scoped to the sandbox), drop to uid/gid 65534 when
   started as root, set ``PR_SET_PDEATHSIG`` (SIGKILL), apply the rlimits, enforce Landlock.
   When the interpreter lives under a directory uid 65534 cannot traverse (e.g. ``/root/.pyenv``),
   the import path is re-pointed at directory fds opened before the drop (``/proc/self/fd/N``).
2. Write ``b"R"`` on the result fd (ready) and block reading the job (a ``marshal``-ed
   ``{"code": str, "tests": [str, ...]}``) from stdin until EOF.
3. ``exec`` the code in a fresh namespace (``__name__ == "__colbench_answer__"``), then ``eval``
   each test call in order in that namespace.
4. Stream one line per event on the result fd, in a tagged plain-data JSON encoding built by hand
   (exact ``type(x) is ...`` checks: subclasses and foreign objects are rejected, never asked to
   compare or serialise themselves)::

       ["v", index, VALUE]      test ``index`` returned VALUE
       ["e", index, "HEX"]      test ``index`` raised / returned something unencodable (message)
       ["L", "HEX"]             the code failed to compile or to execute (message)
       ["D"]                    done

   VALUE is ``null``/``true``/``false`` or ``["i", hex]`` int, ``["f", float.hex()]`` float,
   ``["c", re, im]`` complex, ``["s", utf-8 hex]`` str, ``["y", hex]`` bytes, ``["l"|"t"|"S"|"F",
   [VALUE...]]`` list/tuple/set/frozenset, ``["d", [[K, V]...]]`` dict. Strings are hex so no
   escaping is needed.

The parent trusts none of this: it decodes the data strictly and compares it with the ground-truth
outputs it holds; the child never sees those.
"""
import os
import sys

_MAX_DEPTH = 100


class _Unsupported(Exception):
    pass


def _hexs(s):
    return s.encode("utf-8", "surrogatepass").hex()


def _numpy_item(x):
    """Exact numpy scalar types become Python scalars (as ``==`` would treat them)."""
    np = sys.modules.get("numpy")
    if np is None:
        return _Unsupported
    try:
        types = (np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
                 np.uint64, np.float16, np.float32, np.float64, np.str_, np.bytes_)
    except AttributeError:
        return _Unsupported
    if type(x) in types:
        v = x.item()
        if type(v) in (bool, int, float, str, bytes):
            return v
    return _Unsupported


def _enc(x, depth, budget):
    t = type(x)
    if x is None:
        return "null"
    if t is bool:
        return "true" if x else "false"
    if t is int:
        out = '["i","%x"]' % x
    elif t is float:
        out = '["f","%s"]' % x.hex()
    elif t is str:
        out = '["s","%s"]' % _hexs(x)
    elif t is bytes:
        out = '["y","%s"]' % x.hex()
    elif t is complex:
        out = '["c","%s","%s"]' % (x.real.hex(), x.imag.hex())
    elif t is list or t is tuple or t is set or t is frozenset:
        if depth >= _MAX_DEPTH:
            raise _Unsupported("result nested deeper than %d levels" % _MAX_DEPTH)
        tag = "l" if t is list else "t" if t is tuple else "S" if t is set else "F"
        out = '["%s",[%s]]' % (tag, ",".join([_enc(i, depth + 1, budget) for i in list(x)]))
    elif t is dict:
        if depth >= _MAX_DEPTH:
            raise _Unsupported("result nested deeper than %d levels" % _MAX_DEPTH)
        out = '["d",[%s]]' % ",".join(["[%s,%s]" % (_enc(k, depth + 1, budget), _enc(v, depth + 1, budget))
                                       for k, v in list(x.items())])
    else:
        v = _numpy_item(x)
        if v is _Unsupported:
            raise _Unsupported("unsupported result type %s" % t.__name__)
        return _enc(v, depth, budget)
    budget[0] -= len(out)
    if budget[0] < 0:
        raise _Unsupported("result too large")
    return out


class _Out:
    def __init__(self, fd):
        self.fd = fd

    def line(self, s):
        data = (s + "\n").encode("ascii")
        while data:
            n = os.write(self.fd, data)
            data = data[n:]


def _msg(e):
    try:
        text = "%s: %s" % (type(e).__name__, e)
    except BaseException:
        text = type(e).__name__ if isinstance(type(e).__name__, str) else "exception"
    return _hexs(text[:500])


# ---------------------------------------------------------------- set-up (trusted)

def _landlock(ctypes, libc, cfg):
    """Build and return a Landlock rule-set fd (enforced later), or -1 when unavailable."""
    abi = cfg["landlock_abi"]
    if abi <= 0:
        return -1
    fs = (1 << 13) - 1  # EXECUTE .. MAKE_SYM
    if abi >= 2:
        fs |= 1 << 13  # REFER
    if abi >= 3:
        fs |= 1 << 14  # TRUNCATE
    if abi >= 5:
        fs |= 1 << 15  # IOCTL_DEV
    net = 3 if abi >= 4 else 0  # BIND_TCP | CONNECT_TCP
    scoped = 3 if abi >= 6 else 0  # ABSTRACT_UNIX_SOCKET | SIGNAL
    attr = (ctypes.c_uint64 * 3)(fs, net, scoped)
    size = 24 if abi >= 6 else 16 if abi >= 4 else 8
    rs = libc.syscall(444, ctypes.byref(attr), ctypes.c_size_t(size), 0)
    if rs < 0:
        raise OSError(ctypes.get_errno(), "landlock_create_ruleset failed")

    class PathBeneath(ctypes.Structure):
        _pack_ = 1
        _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]

    read_file, read_dir, write_file = 1 << 2, 1 << 3, 1 << 1
    file_rights = read_file | write_file | (1 << 0) | ((1 << 14) if abi >= 3 else 0)
    ro_dir = read_file | read_dir
    rules = [(p, ro_dir) for p in cfg["ro_paths"]] + [(p, read_file) for p in cfg["ro_files"]]
    rules += [(p, read_file | write_file) for p in cfg["rw_files"]] + [(cfg["scratch"], fs & ~1)]
    for path, rights in rules:
        try:
            fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
        except OSError:
            continue
        try:
            if not os.path.isdir(path):
                rights &= file_rights
            rule = PathBeneath(rights & fs, fd)
            if libc.syscall(445, rs, 1, ctypes.byref(rule), 0) < 0:
                raise OSError(ctypes.get_errno(), "landlock_add_rule failed for %s" % path)
        finally:
            os.close(fd)
    return rs


def _setup(cfg):
    import ctypes
    import resource

    libc = ctypes.CDLL(None, use_errno=True)
    os.chdir(cfg["scratch"])
    sys.path[:] = list(cfg["sys_path"])
    remap = {}
    if cfg["uid"] is not None:
        for p in sys.path:
            try:
                remap[p] = os.open(p, os.O_RDONLY | os.O_DIRECTORY)  # inheritable=False by default
            except OSError:
                pass
    if libc.prctl(38, 1, 0, 0, 0) != 0:  # PR_SET_NO_NEW_PRIVS
        raise OSError(ctypes.get_errno(), "PR_SET_NO_NEW_PRIVS failed")
    ruleset = _landlock(ctypes, libc, cfg)
    if cfg["uid"] is not None:
        os.setgroups([])
        os.setgid(cfg["gid"])
        os.setuid(cfg["uid"])
        if os.getuid() != cfg["uid"] or os.geteuid() != cfg["uid"]:
            raise OSError("uid drop failed")
    libc.prctl(1, 9, 0, 0, 0)  # PR_SET_PDEATHSIG = SIGKILL (cleared by setuid: set it after)
    for name, (soft, hard) in cfg["rlimits"].items():
        resource.setrlimit(getattr(resource, name), (soft, hard))
    if ruleset >= 0:
        if libc.syscall(446, ruleset, 0) != 0:  # landlock_restrict_self
            raise OSError(ctypes.get_errno(), "landlock_restrict_self failed")
        os.close(ruleset)
    if remap:
        def fix(p):
            for src, fd in remap.items():
                if p == src or p.startswith(src + os.sep):
                    return "/proc/self/fd/%d%s" % (fd, p[len(src):])
            return p

        sys.path[:] = [fix(p) for p in sys.path]
        for mod in list(sys.modules.values()):
            path = getattr(mod, "__path__", None)
            if type(path) is list:
                path[:] = [fix(p) for p in path]
        sys.path_importer_cache.clear()


def _read_all(fd):
    chunks = []
    while True:
        b = os.read(fd, 1 << 16)
        if not b:
            return b"".join(chunks)
        chunks.append(b)


def _finish(out):
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BaseException:
            pass
    out.line('["D"]')
    os._exit(0)


def main():
    import marshal

    cfg = marshal.loads(bytes.fromhex(sys.argv[1]))
    out = _Out(cfg["result_fd"])
    _setup(cfg)
    os.write(cfg["result_fd"], b"R")
    job = marshal.loads(_read_all(0))
    os.close(0)
    code, tests = job["code"], job["tests"]
    del job, cfg
    ns = {"__name__": "__colbench_answer__"}
    try:
        exec(compile(code, "<answer>", "exec"), ns)
    except BaseException as e:  # SyntaxError, SystemExit, anything: the code does not load
        out.line('["L","%s"]' % _msg(e))
        _finish(out)
    for i, call in enumerate(tests):
        try:
            value = eval(call, ns)
        except BaseException as e:
            out.line('["e",%d,"%s"]' % (i, _msg(e)))
            continue
        try:
            line = '["v",%d,%s]' % (i, _enc(value, 0, [4 << 20]))
        except BaseException as e:
            out.line('["e",%d,"%s"]' % (i, _msg(e)))
            continue
        out.line(line)
    _finish(out)


if __name__ == "__main__":
    main()
