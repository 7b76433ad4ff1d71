"""``colbench serve`` under load and faults (``colbench bench --only serve``): a ``colbench serve``
subprocess on 127.0.0.1 per env, driven by OpenEnv's async client (``GenericEnvClient``) from this
process, with the scripted human server-side.

Per env (backend, then frontend):

* **load**: ``sessions`` concurrent WebSocket sessions play ``episodes`` episodes in all with a
  scripted agent (two questions, then an answer: three steps, the last one scored); errors,
  episodes per second, p50 / p99 step latency;
* **scoring does not hold other sessions**: p99 latency of non-final steps while answers are being
  scored -- those of the load phase sent while at least one other session's answer was in flight
  (sent, its reply not yet received) -- over p99 of the non-final steps of a phase where no
  episode ever answers (sessions ask two questions and reset): goal <= 2x (backend: the answers
  run in the evaluator's sandbox pool, each session's step in its own thread). Also given: the
  same over all non-final steps of the load phase (``nonfinal_p99_ratio``), which counts the
  first steps of the phase, sent by all sessions at once before any answer;
* **abrupt disconnects**: ``sessions`` sessions reset, then their TCP connections are dropped without
  a WebSocket close; after the idle timeout (+ OpenEnv's reaper period) ``sessions`` new sessions
  are opened: those refused are sessions still alive (goal 0);
* **kill mid-run**: the server is SIGKILLed while 16 sessions play (once 16 episodes are logged);
  what each client got, the
  episode log the client appends to as episodes finish (``append_jsonl``) has only whole lines, and
  the processes the server had started (browsers, sandbox workers) still alive 10 s later (goal 0);
* **SIGTERM mid-run**: the same with SIGTERM: seconds until the server exited (``--shutdown-timeout``
  5 s) and the processes it had started still alive 10 s later (goal 0).

The result also holds the machine (CPUs) and its 1-minute load average before and after each env's
phases: the figures depend on what else the machine runs.

Every loop is bounded in count and time; traffic goes to 127.0.0.1 only.
"""
from __future__ import annotations

import asyncio
import json
import os
import signal
import statistics
import tempfile
import time
from pathlib import Path

__all__ = ["run", "main"]

PAGE = ('<html><body class="bg-{c}-100"><h1 class="text-3xl p-6">My page</h1>'
        '<p class="p-4">Welcome, turn {k}.</p></body></html>')


#: how long a client waits for one answer of the server: far above the slowest step measured (a frontend
#: step's p99 was ~80 s with 64 sessions on 2 drivers and 2 loaded cores), so that an error is the server's
MESSAGE_TIMEOUT_S = 600.0


def _plan(kind: str, k: int, answer: bool = True) -> list[str]:
    if kind == "backend":
        steps = ["OUTPUT: What are your exact rules?", "OUTPUT: Any thresholds or rounding?"]
        final = "OUTPUT: I WANT TO ANSWER: ```python\ndef f(*args, **kwargs):\n    return 0\n```"
    else:
        steps = [f"OUTPUT: How is this? {PAGE.format(c='blue', k=k)}", f"OUTPUT: And now? {PAGE.format(c='red', k=k)}"]
        final = f"OUTPUT: I WANT TO ANSWER: {PAGE.format(c='green', k=k)}"
    return steps + ([final] if answer else [])


def _pct(xs: list[float], q: float) -> float | None:
    """The ``q`` quantile of ``xs`` (nearest rank); ``None`` when there is none (e.g. steps "while
    scoring" in the phase without answers), so the report stays valid JSON."""
    if not xs:
        return None
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(q * (len(xs) - 1))))]


async def _load(url: str, kind: str, sessions: int, episodes: int, answer: bool, log: str | None,
                deadline_s: float) -> dict:
    """``sessions`` clients play until ``episodes`` episodes are done (or the deadline)."""
    from openenv import GenericEnvClient

    from colbench_env.trajectories import append_jsonl

    lat_nonfinal, lat_final, errors = [], [], []
    lat_scoring = []  # non-final steps sent while another session's answer was in flight
    in_flight = 0  # answers sent, their replies not yet received
    done = 0
    claimed = 0
    t_end = time.monotonic() + deadline_s

    async def worker(w: int) -> None:
        nonlocal done, claimed, in_flight
        env = GenericEnvClient(base_url=url, message_timeout_s=MESSAGE_TIMEOUT_S)
        try:
            await env.connect()
            while claimed < episodes and time.monotonic() < t_end:
                claimed += 1
                k = claimed
                r = await env.reset(task_index=k % 8 if kind == "backend" else k % 4)
                plan = _plan(kind, k, answer)
                for i, action in enumerate(plan):
                    final = answer and i == len(plan) - 1
                    scoring = in_flight > 0
                    in_flight += final
                    t0 = time.perf_counter()
                    try:
                        r = await env.step({"message": action})
                    finally:
                        in_flight -= final
                    dt = time.perf_counter() - t0
                    (lat_final if r.done else lat_nonfinal).append(dt)
                    if scoring and not r.done:
                        lat_scoring.append(dt)
                    if r.done:
                        break
                done += 1
                if log:
                    rec = {"episode": k, "reward": r.reward, "turn": r.observation.get("turn")}
                    await asyncio.to_thread(append_jsonl, log, [rec])
        except Exception as e:  # noqa: BLE001 - counted
            errors.append(f"{type(e).__name__}: {e}"[:200])
        finally:
            try:
                await env.close()
            except Exception:  # noqa: BLE001
                pass

    t0 = time.perf_counter()
    await asyncio.gather(*(worker(w) for w in range(sessions)))
    wall = time.perf_counter() - t0
    steps = lat_nonfinal + lat_final
    return {"episodes": done, "errors": errors, "seconds": wall, "episodes_per_s": done / wall,
            "step_p50_s": _pct(steps, 0.5), "step_p99_s": _pct(steps, 0.99),
            "nonfinal_p99_s": _pct(lat_nonfinal, 0.99), "nonfinal_p50_s": _pct(lat_nonfinal, 0.5),
            "nonfinal_while_scoring_p99_s": _pct(lat_scoring, 0.99),
            "nonfinal_while_scoring_p50_s": _pct(lat_scoring, 0.5), "nonfinal_while_scoring_steps": len(lat_scoring),
            "nonfinal_steps": len(lat_nonfinal),
            "final_p50_s": _pct(lat_final, 0.5), "final_p99_s": _pct(lat_final, 0.99), "steps": len(steps)}


async def _abrupt(url: str, sessions: int, wait_s: float) -> int:
    """Sessions alive after ``sessions`` clients vanished without closing (refused new sessions)."""
    from websockets.asyncio.client import connect

    ws_url = url.replace("http://", "ws://") + "/ws"
    conns = []
    for _ in range(sessions):
        ws = await connect(ws_url, max_size=2 ** 26)
        await ws.send(json.dumps({"type": "reset", "data": {}}))
        await ws.recv()
        conns.append(ws)
    for ws in conns:  # drop the TCP connection: no close frame, no FIN handshake from the client's side
        ws.transport.abort()
    await asyncio.sleep(wait_s)
    refused = 0
    fresh = []
    for _ in range(sessions):
        ws = await connect(ws_url, max_size=2 ** 26)
        fresh.append(ws)
        await ws.send(json.dumps({"type": "reset", "data": {}}))
        msg = json.loads(await ws.recv())
        refused += msg.get("type") == "error" and msg["data"].get("code") == "CAPACITY_REACHED"
    for ws in fresh:
        await ws.close()
    return refused


def _server(kind: str, tasks: str, sessions: int, idle: float):
    from colbench.integrations.openenv import ServeProcess

    args = ["--env", f"ColBench-{kind.capitalize()}-v0", "--tasks", tasks, "--max-sessions", str(sessions),
            "--idle-timeout", str(idle), "--max-turns", "10"]
    args += ["--workers", "2"] if kind == "backend" else ["--render-pool", "2"]
    return ServeProcess(*args)


def _descendants(pid: int) -> list:
    import psutil

    try:
        return psutil.Process(pid).children(recursive=True)
    except psutil.NoSuchProcess:
        return []


def _survivors(procs: list, wait_s: float = 10.0) -> int:
    """How many of ``procs`` are still running (not zombies) after up to ``wait_s`` seconds."""
    import psutil

    deadline = time.monotonic() + wait_s
    while True:
        left = []
        for p in procs:
            try:
                if p.is_running() and p.status() != psutil.STATUS_ZOMBIE:
                    left.append(p)
            except psutil.NoSuchProcess:
                pass
        if not left or time.monotonic() > deadline:
            for p in left:  # the benchmark leaves nothing behind
                try:
                    p.kill()
                except psutil.NoSuchProcess:
                    pass
            return len(left)
        time.sleep(0.1)


def _logged(log: str) -> int:
    try:
        with open(log, "rb") as f:
            return f.read().count(b"\n")
    except FileNotFoundError:
        return 0


def _stop_mid_run(kind: str, tasks: str, sessions: int, idle: float, sig: int) -> dict:
    """16 sessions play until 16 episodes are logged (at most 300 s), then the server gets ``sig``
    while the sessions are in the middle of their next episodes."""
    with _server(kind, tasks, sessions, idle) as srv, tempfile.TemporaryDirectory() as d:
        log = os.path.join(d, "episodes.jsonl")

        async def stopped() -> tuple[dict, list, float]:
            task = asyncio.create_task(_load(srv.url, kind, 16, 10 ** 6, True, log, 600.0))
            t0 = time.monotonic()
            while _logged(log) < 16 and time.monotonic() - t0 < 300 and not task.done():
                await asyncio.sleep(0.05)
            started = _descendants(srv.proc.pid)
            t0 = time.monotonic()
            srv.proc.send_signal(sig)
            while srv.proc.poll() is None and time.monotonic() - t0 < 60:
                await asyncio.sleep(0.02)
            return await task, started, time.monotonic() - t0
        k, started, exit_s = asyncio.run(stopped())
        lines = Path(log).read_text().splitlines() if os.path.exists(log) else []
        whole = all(json.loads(line) is not None for line in lines)
        text = Path(log).read_bytes() if os.path.exists(log) else b""
    return {"clients_with_error": len(k["errors"]), "error_kinds": sorted({e.split(":")[0] for e in k["errors"]}),
            "example_error": (k["errors"] or [""])[0], "episodes_logged": len(lines),
            "log_whole_lines": whole and (not text or text.endswith(b"\n")), "server_exit_s": exit_s,
            "processes_started": len(started), "processes_alive_after_10s": _survivors(started)}


def run(episodes: int = 500, sessions: int = 64, kinds: tuple = ("backend", "frontend"), idle: float = 4.0,
        deadline_s: float = 1800.0) -> dict:
    out: dict = {"cpu_count": os.cpu_count(), "sessions": sessions, "episodes": episodes}
    for kind in kinds:
        tasks = "generated:8:1" if kind == "backend" else "default"
        load_before = os.getloadavg()[0]
        with _server(kind, tasks, sessions, idle) as srv:
            base = asyncio.run(_load(srv.url, kind, sessions, max(sessions, episodes // 4), False, None, deadline_s))
            load = asyncio.run(_load(srv.url, kind, sessions, episodes, True, None, deadline_s))
            alive = asyncio.run(_abrupt(srv.url, sessions, idle + max(idle / 4, 5.0) + 2.0))
        out[f"serve_{kind}"] = {"load": load, "no_scoring": base, "alive_after_abrupt_disconnects": alive,
                                "nonfinal_p99_ratio": load["nonfinal_p99_s"] / base["nonfinal_p99_s"],
                                "nonfinal_while_scoring_p99_ratio": load["nonfinal_while_scoring_p99_s"]
                                / base["nonfinal_p99_s"],
                                "kill": _stop_mid_run(kind, tasks, sessions, idle, signal.SIGKILL),
                                "sigterm": _stop_mid_run(kind, tasks, sessions, idle, signal.SIGTERM),
                                "load_average_1min_before": load_before, "load_average_1min_after": os.getloadavg()[0]}
    b = out.get("serve_backend", {})
    out["serve_backend_episodes_per_s"] = b.get("load", {}).get("episodes_per_s")
    return out


def main(argv: list[str] | None = None) -> int:
    import argparse

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--episodes", type=int, default=500)
    p.add_argument("--sessions", type=int, default=64)
    p.add_argument("--kinds", nargs="*", default=["backend", "frontend"])
    a = p.parse_args(argv)
    r = run(a.episodes, a.sessions, tuple(a.kinds))
    print(json.dumps(r, indent=2, allow_nan=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
