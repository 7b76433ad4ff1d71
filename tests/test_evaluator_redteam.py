"""Red team: hostile answers must score 0, leave no trace, and not disturb the evaluator.

Every hostile answer below is scored by one real sandboxed evaluator; after each one the test
checks that (a) the reward is 0, (b) no file carrying this run's token appeared anywhere the
answer aimed at, the sentinel file it tried to delete still exists, (c) no process is left in any
worker's sandbox besides its zygote (found through ``/proc``: same PID namespace as a zygote, or a
uid-65534 process with this evaluator's marker in its command line that is not a zygote), and (d)
the evaluator still gives an honest answer full marks.

The second part attacks the fork-server design itself, on a one-worker evaluator so that the next
answer surely runs in the same worker: signalling / ptracing / reading the memory of the zygote,
daemons, SysV IPC objects, poisoned modules and files left for the next answer, and looking for
an earlier job's ground truth in the inherited memory.
"""
from __future__ import annotations

import glob
import os
import secrets
import socket
import textwrap
import threading

import pytest

from colbench_env.evaluation import BackendEvaluator
from colbench_env.evaluation.sandbox import NOBODY
from colbench_env.tasks import task_from_record

pytestmark = pytest.mark.timeout(300)

TOKEN = "cbrt" + secrets.token_hex(4)
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SECRET = "s3cr3t-" + secrets.token_hex(4)
GT = "def f(x):\n    return x * 3 + 1\n"
TESTS = {f"test{i}": f"f({i})" for i in range(1, 6)}
HONEST = f"I WANT TO ANSWER:\n```python\n{GT}```"
WATCH_DIRS = ["/tmp", "/var/tmp", "/dev/shm", REPO, os.path.expanduser("~"), "/"]


class _Listener:
    """A real local TCP server; counts the connections it accepted."""

    def __init__(self):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.accepted = 0
        self.stop = False
        self.thread = threading.Thread(target=self._loop, daemon=True)
        self.thread.start()

    def _loop(self):
        while not self.stop:
            try:
                c, _ = self.sock.accept()
                self.accepted += 1
                c.close()
            except OSError:
                pass


@pytest.fixture(scope="module", params=["python", "reference"])
def env(tmp_path_factory, request):
    os.environ["COLBENCH_REDTEAM_SECRET"] = SECRET
    d = tmp_path_factory.mktemp("redteam")
    task_file = d / "tasks.jsonl"
    task_file.write_text('{"ground_truth": %r}\n' % GT)
    sentinel = f"/tmp/{TOKEN}-sentinel"
    with open(sentinel, "w") as f:
        f.write("keep me")
    os.chmod(sentinel, 0o666)
    unix_path = str(d / "sock")
    us = socket.socket(socket.AF_UNIX)
    us.bind(unix_path)
    us.listen(1)
    lis = _Listener()
    ev = BackendEvaluator(workers=2, timeout_s=2.0, memory_mb=256, semantics=request.param)
    task = task_from_record({"problem_description": "p", "ground_truth": GT, "test_cases": TESTS,
                             "hidden_information": GT}, source="<redteam>", line=1)
    yield dict(ev=ev, task=task, task_file=str(task_file), sentinel=sentinel, listener=lis, unix=unix_path)
    marker = ev.scratch_root.encode().hex()
    ev.close()
    lis.stop = True
    us.close()
    os.environ.pop("COLBENCH_REDTEAM_SECRET", None)
    os.unlink(sentinel)
    assert not _tagged_processes(marker), "sandbox processes left after close()"


def _tagged_processes(tag: str) -> list[int]:
    pids = []
    for p in glob.glob("/proc/[0-9]*"):
        try:
            with open(p + "/cmdline", "rb") as f:
                if tag.encode() in f.read():
                    pids.append(int(p[6:]))
        except OSError:
            pass
    return pids


def _nspid(pid: int) -> list[str]:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("NSpid:"):
                return line.split()[1:]
    return []


def _sandbox_leftovers(ev) -> list[str]:
    """Processes of ``ev``'s sandboxes other than the zygotes, found through /proc only."""
    marker = ev.scratch_root.encode().hex()
    zygotes, namespaces, out = set(), set(), []
    tagged = _tagged_processes(marker)
    for pid in tagged:
        try:
            ns = _nspid(pid)
            if len(ns) > 1 and ns[-1] == "1":
                zygotes.add(pid)
                namespaces.add(os.readlink(f"/proc/{pid}/ns/pid"))
        except OSError:
            pass
    for p in glob.glob("/proc/[0-9]*"):
        pid = int(p[6:])
        if pid in zygotes:
            continue
        try:
            in_ns = os.readlink(p + "/ns/pid") in namespaces
            stray = pid in tagged and os.stat(p).st_uid == NOBODY
            if in_ns or stray:
                with open(p + "/stat") as f:
                    st = f.read().rsplit(")", 1)[1].split()
                out.append(f"pid={pid} state={st[0]} ppid={st[1]} nspid={_nspid(pid)}")
        except OSError:
            pass
    return out


def _trace_files() -> list[str]:
    found = []
    for d in WATCH_DIRS:
        found += [p for p in glob.glob(os.path.join(d, f"*{TOKEN}*")) if not p.endswith("-sentinel")]
    return found


def H(body: str) -> str:
    return "I WANT TO ANSWER:\n```python\n" + textwrap.dedent(body).strip("\n") + "\n```"


def hostile_answers(e) -> dict[str, str]:
    pid = os.getpid()
    t = TOKEN
    return {
        # ---- fooling the comparison
        "always_equal_object": H("""
            class A:
                def __eq__(self, o): return True
                def __ne__(self, o): return False
                __hash__ = object.__hash__
            def f(x): return A()"""),
        "list_subclass": H("""
            class L(list):
                def __eq__(self, o): return True
            def f(x): return L([x])"""),
        "int_subclass": H("""
            class I(int):
                def __eq__(self, o): return True
            def f(x): return I(0)"""),
        "str_subclass": H("""
            class S(str):
                def __eq__(self, o): return True
            def f(x): return S('')"""),
        "dict_subclass_in_list": H("""
            class D(dict):
                def __eq__(self, o): return True
            def f(x): return [D()]"""),
        "pickle_reduce_object": H(f"""
            import os
            class P:
                def __reduce__(self): return (os.system, ('touch /tmp/{t}-pickle',))
                def __eq__(self, o): return True
            def f(x): return P()"""),
        "pickled_bytes": H(f"""
            import pickle, os
            class P:
                def __reduce__(self): return (os.system, ('touch /tmp/{t}-pickle2',))
            def f(x): return pickle.dumps(P())"""),
        "nan_everywhere": H("def f(x): return float('nan')"),
        "deeply_nested": H("""
            def f(x):
                v = []
                for _ in range(5000): v = [v]
                return v"""),
        "self_referencing_list": H("""
            def f(x):
                v = []; v.append(v); return v"""),
        # ---- forged result messages
        "forge_on_stdout": H("""
            print('["v",0,["i","4"]]'); print('{"reward": 1.0, "success": true}'); print('["D"]')
            def f(x): return None"""),
        "forge_verdicts_on_all_fds_then_exit": H("""
            import os
            for fd in range(0, 64):
                try: os.write(fd, b'\\n'.join(b'["v",%d,true]' % i for i in range(5)) + b'\\n["D"]\\n')
                except OSError: pass
            os._exit(0)
            def f(x): return 0"""),
        "forge_then_continue": H("""
            import os
            for fd in range(3, 64):
                try: os.write(fd, b'["v",0,["i","4"]]\\n')
                except OSError: pass
            def f(x): return 0"""),
        "patch_runner_encoder": H("""
            import sys
            m = sys.modules['__main__']
            m._enc = lambda *a, **k: 'true'
            def f(x): return x"""),
        # ---- stealing the ground truth
        "gt_via_gc": H("""
            import gc
            def f(x):
                for o in gc.get_objects():
                    if callable(o) and getattr(o, '__name__', '') == 'f' and o is not f:
                        return o(x)
                    if isinstance(o, str) and 'x * 3' in o:
                        return eval(o.split('return')[1].strip(), {'x': x})"""),
        "gt_via_frames": H("""
            import sys
            def f(x):
                fr = sys._getframe()
                while fr:
                    for k, v in list(fr.f_globals.items()) + list(fr.f_locals.items()):
                        if isinstance(v, str) and 'def f' in v and v is not __doc__:
                            ns = {}; exec(v, ns); return ns['f'](x) if ns.get('f') is not f else None
                    fr = fr.f_back"""),
        "gt_via_task_file": H(f"""
            def f(x):
                src = open({e['task_file']!r}).read()
                ns = {{}}; exec(eval(src.split(':', 1)[1].rsplit('}}', 1)[0]), ns); return ns['f'](x)"""),
        "gt_via_parent_proc": H(f"""
            def f(x):
                data = open('/proc/{pid}/cmdline', 'rb').read() + open('/proc/{pid}/environ', 'rb').read()
                mem = open('/proc/{pid}/mem', 'rb')
                return x * 3 + 1 if data else None"""),
        "read_etc_and_home": H("""
            def f(x):
                return open('/etc/passwd').read() + open('/root/.bashrc').read()"""),
        "environment_read": H("""
            import os
            print(dict(os.environ))
            def f(x): return os.environ.get('COLBENCH_REDTEAM_SECRET')"""),
        # ---- writes and deletes outside scratch
        "write_tmp_via_import_trick": H(f"""
            o = __import__('o' + 's')
            o.system('touch /tmp/{t}-system')
            open('/tmp/{t}-open', 'w').write('x')
            def f(x): return 0"""),
        "write_repo_and_home": H(f"""
            import os
            for d in ({REPO!r}, os.path.expanduser('~'), '/root', '/var/tmp', '/dev/shm', '/'):
                try: open(os.path.join(d, '{t}-w'), 'w').write('x')
                except OSError: pass
            def f(x): return 0"""),
        "delete_and_chmod_outside": H(f"""
            import os
            for op in (lambda: os.remove('/tmp/{t}-sentinel'), lambda: os.chmod('/tmp/{t}-sentinel', 0),
                       lambda: open('/tmp/{t}-sentinel', 'w').write('gone'),
                       lambda: os.rename('/tmp/{t}-sentinel', '/tmp/{t}-moved')):
                try: op()
                except OSError: pass
            def f(x): return 0"""),
        "symlink_and_hardlink_escape": H(f"""
            import os
            for op in (lambda: os.symlink('/tmp', 'l'), lambda: open('l/{t}-sym', 'w').write('x'),
                       lambda: os.link({os.path.join(REPO, 'setup.py')!r}, 'h'), lambda: open('h', 'a').write('x')):
                try: op()
                except OSError: pass
            def f(x): return 0"""),
        "exec_a_shell": H(f"""
            import subprocess
            subprocess.run(['/bin/sh', '-c', 'touch /tmp/{t}-sh'])
            def f(x): return 0"""),
        "regain_root": H(f"""
            import os
            os.setuid(0)
            open('/tmp/{t}-root', 'w').write('x')
            def f(x): return 0"""),
        "unshare_and_mount": H("""
            import ctypes
            libc = ctypes.CDLL(None)
            assert libc.unshare(0x00020000 | 0x10000000) != 0
            def f(x): return 0"""),
        # ---- network
        "network_tcp": H(f"""
            import socket
            s = socket.create_connection(('127.0.0.1', {e['listener'].port}), timeout=1)
            def f(x): return 0"""),
        "network_unix_socket": H(f"""
            import socket
            s = socket.socket(socket.AF_UNIX); s.connect({e['unix']!r})
            def f(x): return 0"""),
        "network_dns": H("""
            import socket
            socket.getaddrinfo('pypi.org', 443)
            def f(x): return 0"""),
        # ---- processes and signals
        "fork_leftover": H("""
            import os, time
            if os.fork() == 0:
                os.setsid()
                while True: time.sleep(1)
            def f(x): return 0"""),
        "thread_leftover": H("""
            import threading, time
            threading.Thread(target=lambda: time.sleep(1000)).start()
            def f(x): return None"""),
        "fork_bomb": H("""
            import os
            def f(x):
                while True:
                    try: os.fork()
                    except OSError: pass"""),
        "kill_the_parent": H(f"""
            import os, signal
            for target in ({pid}, os.getppid(), -1, 0):
                try: os.kill(target, signal.SIGKILL)
                except OSError: pass
            try: os.killpg({os.getpgid(pid)}, signal.SIGKILL)
            except OSError: pass
            def f(x): return 0"""),
        "infinite_loop_ignoring_signals": H("""
            import signal
            for s in (signal.SIGTERM, signal.SIGINT, signal.SIGALRM, signal.SIGXCPU, signal.SIGHUP):
                signal.signal(s, signal.SIG_IGN)
            def f(x):
                while True: pass"""),
        "sleep_forever": H("""
            import time
            def f(x): time.sleep(10 ** 6)"""),
        "sys_exit_at_load": H("import sys\nsys.exit(0)\ndef f(x): return x * 3 + 1"),
        "os_exit_in_call": H("import os\ndef f(x): os._exit(0)"),
        "abort_in_call": H("import os\ndef f(x): os.abort()"),
        # ---- resource bombs
        "memory_bomb": H("def f(x):\n    return len(bytearray(10 ** 10))"),
        "memory_bomb_slow": H("""
            def f(x):
                a = []
                while True: a.append(' ' * 10 ** 6)"""),
        "output_bomb": H("""
            import sys
            def f(x):
                while True: sys.stdout.write('x' * 65536)"""),
        "disk_bomb_in_scratch": H("""
            def f(x):
                with open('big', 'wb') as fh:
                    while True: fh.write(b'x' * 1 << 20)"""),
        "fd_exhaustion": H("""
            def f(x):
                fs = [open('/dev/null') for _ in range(10000)]
                return 0"""),
        "huge_result": H("def f(x):\n    return 'x' * (100 * 1024 * 1024)"),
    }


NAMES = sorted(hostile_answers({"task_file": "", "listener": type("L", (), {"port": 1})(), "unix": ""}))


def _evade_reference_rules(answer: str) -> str:
    """The same attack spelled so that no blocked substring of the reference is in it."""
    from colbench_env.evaluation.reference import blocked_rule

    for a, b in (("import os", "import  os"), ("from os", "from  os"), ("import sys", "import  sys"),
                 ("from sys", "from  sys"), ("exit(", "exit ("), ("quit(", "quit (")):
        answer = answer.replace(a, b)
    assert blocked_rule(answer) is None, answer
    return answer


def test_there_are_at_least_30_hostile_answers():
    assert len(NAMES) >= 30


@pytest.mark.parametrize("name", NAMES)
def test_hostile_answer_scores_zero_and_leaves_no_trace(env, name):
    ev, task = env["ev"], env["task"]
    answer = hostile_answers(env)[name]
    if ev.semantics == "reference":  # get past the reference's text rules, so that the code does run
        answer = _evade_reference_rules(answer)
    before = env["listener"].accepted
    s = ev.score(task, answer)
    assert s.reward == 0.0 and not s.success and s.passed == 0, (name, s)
    assert s.worker_id.startswith("colbench-sbx-")
    left = _sandbox_leftovers(ev)
    assert left == [], f"{name}: processes left in its sandbox: {left}"
    assert _trace_files() == [], f"{name}: files written outside the scratch dir"
    with open(env["sentinel"]) as f:
        assert f.read() == "keep me"
    assert env["listener"].accepted == before, f"{name}: reached the network"
    assert SECRET not in s.output and SECRET not in repr(s.errors) and SECRET not in repr(s.tests)
    ok = ev.score(task, HONEST)
    assert ok.success and ok.reward == 1.0, (name, ok)


def test_evaluator_survives_a_batch_of_hostile_answers(env):
    ev, task = env["ev"], env["task"]
    fast = [n for n in NAMES if n not in ("infinite_loop_ignoring_signals", "sleep_forever", "fork_bomb",
                                           "memory_bomb_slow", "output_bomb", "disk_bomb_in_scratch")]
    answers = hostile_answers(env)
    items = [(task, answers[n]) for n in fast] + [(task, HONEST)] * 3
    scores = ev.score_many(items)
    assert [s.reward for s in scores] == [0.0] * len(fast) + [1.0] * 3
    assert _trace_files() == []


def test_isolation_report_says_what_is_in_force(env):
    iso = env["ev"].isolation
    for key in ("netns", "pidns", "uid_drop", "landlock_abi", "rlimits", "seccomp", "notes"):
        assert key in iso
    if os.geteuid() == 0:  # this machine: root with unshare and Landlock available
        assert iso["netns"] and iso["pidns"] and iso["uid_drop"]


# ---------------------------------------------------------------- attacks on the fork server

GT_SECRET = "gt" + secrets.token_hex(6)
GT2 = f"def f(x):\n    s = '{GT_SECRET}'\n    return x * 3 + 1\n"


@pytest.fixture(scope="module")
def one():
    """A one-worker evaluator: consecutive answers run in the same zygote."""
    ev = BackendEvaluator(workers=1, timeout_s=2.0, memory_mb=256, semantics="python")
    task = task_from_record({"problem_description": "p", "ground_truth": GT2, "test_cases": TESTS,
                             "hidden_information": GT2}, source="<redteam-zygote>", line=1)
    yield ev, task
    marker = ev.scratch_root.encode().hex()
    ev.close()
    assert not _tagged_processes(marker), "sandbox processes left after close()"


def _zygote_tag(score) -> str:
    return score.worker_id.rsplit(":", 1)[0]


# Each pair: a hostile first answer (must score 0), then a probe answer in the same worker that
# returns the right values only when it finds no trace of the first one (must score 1).
_KILL_ZYGOTE = H("""
    import os, signal, ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    hit = 0
    for sig in (signal.SIGKILL, signal.SIGSTOP, signal.SIGTERM, signal.SIGSEGV):
        for target in (1, os.getppid()):
            try:
                os.kill(target, sig); hit += 1
            except OSError:
                pass
    os.kill(-1, signal.SIGKILL)  # every process this one may signal
    def f(x): return x * 3 + 1 if hit else None""")
_PTRACE_ZYGOTE = H("""
    import ctypes, os
    libc = ctypes.CDLL(None, use_errno=True)
    ok = []
    for req in (16, 0x4206):  # PTRACE_ATTACH, PTRACE_SEIZE
        ok.append(libc.ptrace(req, os.getppid(), None, None) == 0)
    for path in ('/proc/1/mem', '/proc/%d/mem' % os.getppid(), '/proc/1/environ', '/proc/1/maps'):
        try:
            ok.append(len(open(path, 'rb').read(1)) >= 0)
        except OSError:
            pass
    buf = ctypes.create_string_buffer(64)
    class IOV(ctypes.Structure):
        _fields_ = [('base', ctypes.c_void_p), ('len', ctypes.c_size_t)]
    local, remote = IOV(ctypes.addressof(buf), 64), IOV(id(None), 64)
    ok.append(libc.process_vm_readv(os.getppid(), ctypes.byref(local), 1, ctypes.byref(remote), 1, 0) > 0)
    def f(x): return x * 3 + 1 if any(ok) else None""")
_PROBE_ALIVE = H("""
    import os
    def f(x): return x * 3 + 1""")
_DAEMON = H("""
    import os, time, socket
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            s = socket.socket(socket.AF_UNIX); s.bind('\\0colbench-redteam-daemon'); s.listen(1)
            while True: time.sleep(0.01)
        os._exit(0)
    time.sleep(0.1)
    def f(x): return None""")
_PROBE_DAEMON = H("""
    import os, socket
    me = os.getpid()
    others = []
    for pid in range(2, 4096):
        if pid != me:
            try:
                os.kill(pid, 0); others.append(pid)
            except ProcessLookupError:
                pass
            except PermissionError:
                others.append(pid)
    try:
        socket.socket(socket.AF_UNIX).connect('\\0colbench-redteam-daemon'); others.append('socket')
    except OSError:
        pass
    def f(x): return x * 3 + 1 if not others else others""")
_POISON = H("""
    import builtins, sys, math, os, re, collections
    builtins.len = lambda o: 0
    builtins.abs = lambda o: -1
    math.pi = 3
    re.sub = lambda *a, **k: 'poisoned'
    collections.Counter = dict
    sys.modules['json'] = None
    sys.path.insert(0, os.getcwd())
    os.environ['POISON'] = '1'
    for name in ('math.py', 'sitecustomize.py', 'json.py', '.hidden'):
        open(name, 'w').write('raise SystemExit(3)')
    os.mkdir('d'); os.chmod('d', 0); os.chmod('.', 0o500)
    def f(x): return None""")
_PROBE_POISON = H("""
    import builtins, sys, math, os, re, collections
    def check():
        import json
        return (len([1, 2]) == 2 and abs(-1) == 1 and math.pi > 3.14 and re.sub('a', 'b', 'a') == 'b'
                and collections.Counter('aa')['a'] == 2 and json.dumps(1) == '1' and os.getcwd() not in sys.path
                and 'POISON' not in os.environ and os.listdir('.') == [])
    try:
        ok = check()
    except BaseException:
        ok = False
    def f(x): return x * 3 + 1 if ok else None""")
_SYSV_IPC = H("""
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    made = [libc.shmget(0xC0FFEE, 4096, 0o1666), libc.msgget(0xC0FFEE, 0o1666), libc.semget(0xC0FFEE, 1, 0o1666)]
    assert min(made) >= 0, made
    def f(x): return None""")
_SYSV_IPC_MANY = H("""
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    first = [libc.shmget(0, 4096, 0o1600), libc.msgget(0, 0o1600), libc.semget(0, 1, 0o1600)]
    spare = [libc.shmget(0, 4096, 0o1600), libc.msgget(0, 0o1600), libc.semget(0, 1, 0o1600)]
    made = [libc.shmget(0xC0FFEE, 4096, 0o1666), libc.msgget(0xC0FFEE, 0o1666), libc.semget(0xC0FFEE, 1, 0o1666)]
    gone = [libc.shmctl(first[0], 0, None), libc.msgctl(first[1], 0, None), libc.semctl(first[2], 0, 0, None)]
    assert min(first + spare + made) >= 0 and max(gone) == 0, (first, spare, made, gone)
    def f(x): return None""")
_PROBE_SYSV_IPC = H("""
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    found = [libc.shmget(0xC0FFEE, 0, 0), libc.msgget(0xC0FFEE, 0), libc.semget(0xC0FFEE, 0, 0)]
    def f(x): return x * 3 + 1 if max(found) < 0 else found""")
_FORGE_CONTROL = H("""
    import os, socket, array
    for fd in range(0, 1024):
        for msg in (b'K', b'R', b'k0', b'J'):
            try:
                os.write(fd, msg)
            except OSError:
                pass
        try:
            s = socket.socket(fileno=os.dup(fd))
            s.sendmsg([b'J'], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array('i', [0, 1, 2]))])
        except OSError:
            pass
    def f(x): return None""")
_HALF = len(GT_SECRET) // 2
_PROBE_GT_IN_MEMORY = H(f"""
    import ctypes, gc, os
    libc = ctypes.CDLL(None, use_errno=True)
    class IOV(ctypes.Structure):
        _fields_ = [('base', ctypes.c_void_p), ('len', ctypes.c_size_t)]
    # the secret is looked for as two halves found next to each other: this probe never holds it whole
    h1, h2 = bytes.fromhex('{GT_SECRET[:_HALF].encode().hex()}'), bytes.fromhex('{GT_SECRET[_HALF:].encode().hex()}')
    addrs = sorted({{id(o) for o in gc.get_objects()}} | {{id(o) for o in (None, 1, 'a', b'', gc, h1)}} | {{libc.sbrk(0)}})
    clusters, lo, hi = [], addrs[0], addrs[0]
    for a in addrs[1:]:
        if a - hi > 1 << 28:
            clusters.append((lo, hi)); lo = a
        hi = a
    clusters.append((lo, hi))
    size = 1 << 20
    buf = ctypes.create_string_buffer(size)
    found = False
    for lo, hi in clusters:
        addr, end = max((lo >> 12 << 12) - (32 << 20), 4096), hi + (32 << 20)
        while addr < end and not found:
            local, remote = IOV(ctypes.addressof(buf), size), IOV(addr, size)
            n = libc.process_vm_readv(os.getpid(), ctypes.byref(local), 1, ctypes.byref(remote), 1, 0)
            if n <= 0:
                addr += 4096
                continue
            data = buf.raw[:n]
            j = data.find(h1)
            while j >= 0 and not found:
                found = data[j + len(h1):j + len(h1) + len(h2)] == h2
                j = data.find(h1, j + 1)
            addr += max(n - 64, 4096)
    def f(x): return x * 3 + 1 if not found else None""")
ZYGOTE_ATTACKS = {
    "signal_the_zygote": (_KILL_ZYGOTE, _PROBE_ALIVE),
    "ptrace_or_read_zygote_memory": (_PTRACE_ZYGOTE, _PROBE_ALIVE),
    "daemon_survives_into_next_answer": (_DAEMON, _PROBE_DAEMON),
    "poison_modules_builtins_and_workdir": (_POISON, _PROBE_POISON),
    "sysv_ipc_left_for_next_answer": (_SYSV_IPC, _PROBE_SYSV_IPC),
    # several objects of each kind, the first removed: the rest sit above index 0
    "sysv_ipc_many_left_for_next_answer": (_SYSV_IPC_MANY, _PROBE_SYSV_IPC),
    "forge_control_messages_to_zygote": (_FORGE_CONTROL, _PROBE_ALIVE),
}


@pytest.mark.parametrize("name", sorted(ZYGOTE_ATTACKS))
def test_attack_on_fork_server_does_not_reach_next_answer(one, name):
    ev, task = one
    attack, probe = ZYGOTE_ATTACKS[name]
    first = ev.score(task, HONEST)  # the worker in use, and the ground truth cached
    assert first.success
    s = ev.score(task, attack)
    assert s.reward == 0.0 and s.passed == 0, (name, s)
    assert _sandbox_leftovers(ev) == [], name
    nxt = ev.score(task, probe)
    assert nxt.success, (name, nxt)
    if name in ("signal_the_zygote", "ptrace_or_read_zygote_memory", "forge_control_messages_to_zygote"):
        # the zygote itself was not touched: the same worker kept serving, answer after answer
        assert _zygote_tag(first) == _zygote_tag(s) == _zygote_tag(nxt), (first.worker_id, s.worker_id, nxt.worker_id)
    assert _sandbox_leftovers(ev) == [] and _trace_files() == []


def test_probes_detect_the_traces_they_look_for(one):
    """The probes can fail: run each attack's effect and its probe in one answer (same process),
    where the trace is surely there, and check the probe then scores 0."""
    ev, task = one
    for name in ("daemon_survives_into_next_answer", "poison_modules_builtins_and_workdir",
                 "sysv_ipc_left_for_next_answer"):
        attack, probe = ZYGOTE_ATTACKS[name]
        both = attack.rsplit("def f(x)", 1)[0] + probe.split("```python\n", 1)[1]
        s = ev.score(task, both)
        # scored 0 because the probe saw it (its outputs are wrong), not because anything broke
        assert s.reward == 0.0 and {t.status for t in s.tests} == {"wrong_output"}, (name, s)
    # the ground truth of this task ran in this worker's children: an answer that scans its own
    # memory finds the secret when the secret is in it, never an earlier job's
    leak = _PROBE_GT_IN_MEMORY.replace("clusters, lo, hi", "keep = h1 + h2\nclusters, lo, hi")
    s = ev.score(task, leak)
    assert s.reward == 0.0 and {t.status for t in s.tests} == {"wrong_output"}, s
    assert ev.score(task, _PROBE_GT_IN_MEMORY).success


def test_ground_truth_never_reaches_a_later_answer(one):
    ev, task = one
    gt_task = task_from_record({"problem_description": "p", "ground_truth": GT2 + "# fresh\n", "test_cases": TESTS,
                                "hidden_information": GT2}, source="<redteam-zygote>", line=2)
    s = ev.score(gt_task, _PROBE_GT_IN_MEMORY)  # the ground truth runs first, in this very worker
    assert s.success, s


def test_unresponsive_zygote_is_killed_from_outside_and_replaced():
    """A zygote that does not confirm the kill within kill_grace_s (here: SIGSTOP-ed from outside
    while its job sleeps) is SIGKILLed with its whole PID namespace; the next answer gets a new one."""
    import signal
    import threading

    from colbench_env.evaluation.sandbox import SandboxLimits

    limits = SandboxLimits(timeout_s=1.0, memory_mb=256, kill_grace_s=0.5)
    task = task_from_record({"problem_description": "p", "ground_truth": GT, "test_cases": TESTS,
                             "hidden_information": GT}, source="<redteam-grace>", line=1)
    with BackendEvaluator(workers=1, limits=limits, semantics="python") as ev:
        first = ev.score(task, HONEST)
        assert first.success
        tag = _zygote_tag(first)
        zygote = [p for p in _tagged_processes(tag) if _nspid(p)[-1:] == ["1"] and len(_nspid(p)) > 1]
        assert len(zygote) == 1
        stopper = threading.Timer(0.3, os.kill, (zygote[0], signal.SIGSTOP))
        stopper.start()
        s = ev.score(task, H("import time\ndef f(x):\n    time.sleep(30)"))
        stopper.join()
        assert s.reward == 0 and s.reason.startswith("timeout") and s.elapsed_s < 5, s
        assert _tagged_processes(tag) == [], "the stopped worker was not killed"
        nxt = ev.score(task, HONEST)
        assert nxt.success and _zygote_tag(nxt) != tag
        assert _sandbox_leftovers(ev) == []
