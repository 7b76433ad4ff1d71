"""Red team: hostile answers must score 0, leave no trace, and not disturb the evaluator.

Every hostile answer below is scored by one real sandboxed evaluator; after each one the test
checks that (a) the reward is 0, (b) no file carrying this run's token appeared anywhere the
answer aimed at, the sentinel file it tried to delete still exists, (c) no process of its sandbox
(found by the worker tag in the command line) and no stray uid-65534 process is left, and (d) the
evaluator still gives an honest answer full marks.
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


@pytest.fixture(scope="module")
def env(tmp_path_factory):
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
    ev = BackendEvaluator(workers=2, timeout_s=2.0, memory_mb=256)
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


def _nobody_processes() -> list[tuple[int, bytes]]:
    out = []
    for p in glob.glob("/proc/[0-9]*"):
        try:
            if os.stat(p).st_uid == NOBODY:
                with open(p + "/cmdline", "rb") as f:
                    out.append((int(p[6:]), f.read()))
        except OSError:
            pass
    return out


def _describe(procs) -> list[str]:
    out = []
    for p, c in procs:
        try:
            with open(f"/proc/{p}/stat") as f:
                st = f.read().rsplit(")", 1)[1].split()
            tag = c.split(b"\0")[-2][-12:] if c.count(b"\0") >= 2 else c
            out.append(f"pid={p} state={st[0]} ppid={st[1]} tag={tag!r}")
        except OSError:
            out.append(f"pid={p} gone")
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


def test_there_are_at_least_30_hostile_answers():
    assert len(NAMES) >= 30


@pytest.mark.parametrize("name", NAMES)
def test_hostile_answer_scores_zero_and_leaves_no_trace(env, name):
    ev, task = env["ev"], env["task"]
    answer = hostile_answers(env)[name]
    before = env["listener"].accepted
    s = ev.score(task, answer)
    assert s.reward == 0.0 and not s.success and s.passed == 0, (name, s)
    assert s.worker_id.startswith("colbench-sbx-")
    assert _tagged_processes(s.worker_id) == [], f"{name}: processes of its sandbox are still alive"
    live = set(ev.worker_tags())
    mine = ev.scratch_root.encode().hex().encode()  # other evaluators may run on this machine
    strays = [(p, c) for p, c in _nobody_processes() if mine in c and not any(tag.encode() in c for tag in live)]
    assert strays == [], f"{name}: stray uid-{NOBODY} processes {_describe(strays)} live={live}"
    assert _trace_files() == [], f"{name}: files written outside the scratch dir"
    with open(env["sentinel"]) as f:
        assert f.read() == "keep me"
    assert env["listener"].accepted == before, f"{name}: reached the network"
    assert SECRET not in s.output and SECRET not in repr(s.errors)
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
