"""ColBench served as an OpenEnv environment (``colbench serve``), built on OpenEnv's own server
library (``openenv.core.env_server``'s ``HTTPEnvServer``, as its ``create_app`` uses it; extra ``serve``).

A trainer on GPU nodes reaches ColBench over HTTP / WebSocket with OpenEnv's client and no colbench
installed on its side::

    from openenv import GenericEnvClient

    with GenericEnvClient(base_url="http://127.0.0.1:8000").sync() as env:
        result = env.reset()                      # or env.reset(task_id="...") / env.reset(seed=3)
        while not result.done:
            result = env.step({"message": "OUTPUT: What should happen on ties?"})

The specification:

* **Sessions.** Each WebSocket connection (``/ws``) is one OpenEnv session holding one
  :class:`ColBenchOpenEnv`, i.e. one :class:`colbench_env.gym_env.ColBenchEnv`; at most
  ``max_sessions`` at once (one more is refused with OpenEnv's ``CAPACITY_REACHED`` error). A
  session idle for ``idle_timeout`` seconds is destroyed by OpenEnv's reaper (it checks every
  ``max(idle_timeout / 4, 5)`` seconds), which closes its env. Idle means no message for that long
  and none being handled: a session whose reset or step is running is never idle (OpenEnv 0.4.1
  counts only the end of a call as activity, so its reaper destroyed a session in the middle of a
  step longer than the timeout: :class:`_SessionServer` fixes that); a session whose client disconnects,
  abruptly or not, is destroyed at once. What a session holds is its env and the episode in it:
  the sandboxed evaluator (backend), the Chromium pool (frontend) and the human simulator are
  shared by all sessions and closed with the server. A session destroyed while one of its steps
  runs has that step finish first (its scoring job or render completes in the pool), then its env
  is closed.
* **Actions** are ``{"message": str}``: the agent's whole turn as ``ColBenchEnv.step`` takes it
  (a thought, ``OUTPUT:``, the message; ``I WANT TO ANSWER:`` ends the episode; the
  ``max_turns``-th turn is the answer: :mod:`colbench_env.protocol`).
* **The human is simulated server-side**, by the server's simulator (the scripted human, or an
  OpenAI-compatible model given by flags); a step returns after the human's reply.
* **Observations are the agent's view only** (:class:`ColBenchObservation`): the request, the
  dialogue as the agent observes it, the turn count and, once the episode ended, the reward
  (backend: fraction of hidden tests passed; frontend: similarity to the target), ``success`` and
  the number of tests passed (backend). Never the hidden information, the ground truth, the
  tests or what the evaluator computed for them (no ``eval_tests``, no ``eval_reason``).
* **Reset** takes ``seed`` (draws the task), ``task_id`` or ``task_index``; anything else is an
  error. ``state`` is ``{episode_id, step_count, task_id, turn, done}``.
* **Errors.** A step before a reset, a step after the episode ended, an action that is not a
  string, an unknown reset option: the request fails with a one-line message and the session
  stays as it was (OpenEnv's WebSocket error message; over plain HTTP, a 4xx with the body
  ``{"error": "..."}``, as for a malformed body or an unknown route). A scorer that crashes ends
  that episode with an error observation (``done``, reward 0, ``error``); a simulator that fails
  likewise (``error`` "simulator failed: ..."); the server and the other sessions go on.
* ``GET /tasks`` (ColBench's own route) lists what the server plays: ``{"env", "kind", "max_turns",
  "task_ids"}`` (the ids ``reset(task_id=...)`` takes, in task order; nothing else of a task), e.g. to
  build a trainer's dataset (:class:`colbench.integrations.trl.ColBenchServerEnvironments`).
* OpenEnv's stateless HTTP ``/reset`` and ``/step`` each build and close a fresh env (OpenEnv's
  simulation routes): an HTTP ``/step`` is therefore always "before a reset", a 409. Episodes are
  played over the WebSocket.
"""
from __future__ import annotations

import logging
import math
import os
import queue
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections import deque
from typing import Any, Optional

from openenv.core.env_server.interfaces import Environment
from openenv.core.env_server.types import Action, ConcurrencyConfig, EnvironmentMetadata, Observation, State
from pydantic import Field, StrictStr

from colbench import __version__
from colbench_env.protocol import MAX_TURNS

from ._common import EpisodeParts

__all__ = ["ServeProcess", "listen", "run_server", "ColBenchAction", "ColBenchObservation", "ColBenchState", "ColBenchOpenEnv", "RequestError",
           "create_colbench_app", "MANIFEST", "manifest"]

ENV_IDS = {"ColBench-Backend-v0": "backend", "ColBench-Frontend-v0": "frontend"}


class RequestError(ValueError):
    """A request the episode cannot take (step before reset or after the end, unknown reset option,
    a closed session): the client's error, answered 4xx; the session is left as it was."""

    def __init__(self, message: str, status_code: int = 409):
        super().__init__(message)
        self.status_code = status_code


class ColBenchAction(Action):
    """The agent's turn: ``{"message": str}`` (what ``ColBenchEnv.step`` takes)."""

    message: StrictStr = Field(..., description="the agent's whole turn: thought, 'OUTPUT:', message "
                                                "('I WANT TO ANSWER:' ends the episode)")


class ColBenchObservation(Observation):
    """What the agent sees (never the hidden information, ground truth or tests)."""

    task_id: str = Field("", description="the task played")
    problem_description: str = Field("", description="the human's request")
    dialogue: list[dict] = Field(default_factory=list,
                                 description="the messages so far: {role: assistant|user, content, output?}; "
                                             "'output' is the agent's own turn as it wrote it")
    turn: int = Field(0, description="agent turns taken")
    max_turns: int = Field(MAX_TURNS, description="agent turns per episode (the last one is the answer)")
    success: Optional[bool] = Field(None, description="backend, at the end: every hidden test passed")
    tests_passed: Optional[int] = Field(None, description="backend, at the end: hidden tests passed")
    tests_total: Optional[int] = Field(None, description="backend, at the end: hidden tests")
    error: Optional[str] = Field(None, description="why the episode ended without a score (simulator or scorer failed)")


class ColBenchState(State):
    """``episode_id``, ``step_count`` (OpenEnv's) and the episode's ``task_id``, ``turn``, ``done``."""

    task_id: str = ""
    turn: int = 0
    done: bool = False


_RESET_OPTIONS = ("seed", "episode_id", "task_id", "task_index")


class ColBenchOpenEnv(Environment):
    """One OpenEnv session: one ColBench episode at a time on a
    :class:`~colbench_env.gym_env.ColBenchEnv` made from the server's shared ``parts``
    (see the module docstring for the semantics). Thread-safe: OpenEnv runs a session's calls in
    the session's own thread, its reaper closes it from another."""

    SUPPORTS_CONCURRENT_SESSIONS = True

    def __init__(self, parts: EpisodeParts):
        super().__init__()
        self._parts = parts
        self._env = parts.make_env()
        self._lock = threading.Lock()
        self._closed = False
        self._started = False
        self._over = False
        self._error: str | None = None
        self._final: dict = {}
        self._state = ColBenchState(episode_id=None, step_count=0)

    # ------------------------------------------------------------------ OpenEnv API
    def reset(self, seed: Optional[int] = None, episode_id: Optional[str] = None, **options: Any) -> ColBenchObservation:
        unknown = sorted(set(options) - set(_RESET_OPTIONS))
        if unknown:
            raise RequestError(f"unknown reset option(s) {', '.join(map(repr, unknown))}; "
                               f"reset takes {', '.join(_RESET_OPTIONS)}", 400)
        pick = {k: options[k] for k in ("task_id", "task_index") if options.get(k) is not None}
        with self._lock:
            self._check_open()
            try:
                self._env.reset(seed=seed, options=pick)
            except (KeyError, IndexError, TypeError, ValueError) as e:
                raise RequestError(f"reset: {e.args[0] if e.args else e}", 400) from None
            self._started, self._over, self._error, self._final = True, False, None, {}
            self._state = ColBenchState(episode_id=episode_id or str(uuid.uuid4()), step_count=0,
                                        task_id=self._env.task.task_id)
            return self._observation(0.0)

    def step(self, action: ColBenchAction, timeout_s: Optional[float] = None, **kwargs: Any) -> ColBenchObservation:
        if not isinstance(action, ColBenchAction) or not isinstance(action.message, str):
            raise RequestError("the action must be {\"message\": str}", 422)
        with self._lock:
            self._check_open()
            if not self._started:
                raise RequestError("no episode: reset first")
            if self._over:
                raise RequestError("the episode is over: reset to start another")
            env = self._env
            self._state.step_count += 1
            try:  # the gym env's step: the agent's turn, the human's reply (a failing human truncates)
                _, reward, terminated, truncated, info = env.step(action.message)
            except Exception as e:  # the scorer (or the env under it) crashed: this episode ends, nobody else's
                self._over, self._error = True, f"scoring failed: {type(e).__name__}: {e}".splitlines()[0]
                return self._observation(0.0)
            if terminated or truncated:
                self._over = True
                self._error = info.get("error") if truncated else None
                self._final = {k: info[k] for k in ("success", "tests_passed", "tests_total") if k in info}
            return self._observation(float(reward) if (terminated or truncated) else 0.0)

    @property
    def state(self) -> ColBenchState:
        with self._lock:
            return self._state.model_copy(update={"turn": int(self._env.pz.turn) if self._started else 0,
                                                  "done": self._over})

    def get_metadata(self) -> EnvironmentMetadata:
        return EnvironmentMetadata(name=f"ColBench-{self._parts.kind.capitalize()}-v0", version=__version__,
                                   description=_DESCRIPTION[self._parts.kind])

    def close(self) -> None:
        """Close this session's env (idempotent; waits for a step in progress). The shared parts stay."""
        with self._lock:
            if not self._closed:
                self._closed = True
                self._env.close()

    # ------------------------------------------------------------------ helpers
    @property
    def closed(self) -> bool:
        return self._closed

    def _check_open(self) -> None:
        if self._closed:
            raise RequestError("this session was closed (idle timeout or shutdown): open a new one", 410)

    def _observation(self, reward: float) -> ColBenchObservation:
        env = self._env
        dialogue = [{k: m[k] for k in ("role", "content", "output") if k in m} for m in env.dialogue]
        return ColBenchObservation(task_id=env.task.task_id, problem_description=env.task.problem_description,
                                   dialogue=dialogue, turn=int(env.pz.turn), max_turns=self._parts.max_turns,
                                   done=self._over, reward=reward, error=self._error, **self._final)


_DESCRIPTION = {
    "backend": "ColBench backend programming: talk with a simulated human to write the Python function they "
               "want; reward = fraction of hidden unit tests passed",
    "frontend": "ColBench frontend design: talk with a simulated human to write the HTML/Tailwind page they "
                "want; reward = similarity of the rendered page to the target",
}

#: The ``openenv.yaml`` manifest of ``colbench serve`` (OpenEnv's environment manifest: spec version,
#: name, type, runtime, app, port); :func:`manifest` fills in the env and port.
MANIFEST = """spec_version: 1
name: {name}
type: space
runtime: fastapi
app: colbench.integrations.openenv:app
port: {port}
"""


def manifest(env_id: str = "ColBench-Backend-v0", port: int = 8000) -> str:
    """The ``openenv.yaml`` text for a server of ``env_id`` on ``port``."""
    return MANIFEST.format(name=env_id.lower().replace("-v0", ""), port=port)


def _one_line(text: Any) -> str:
    return " ".join(str(text).split())


def _session_server_class():
    from openenv.core.env_server.http_server import HTTPEnvServer

    class _SessionServer(HTTPEnvServer):
        """OpenEnv's server with busy sessions exempt from the idle reaper: while a session's call
        (reset or step) runs in its executor, its last activity is "now, for as long as it runs"
        (``inf``); when the call ends it is stamped with the time, as OpenEnv does."""

        async def _run_in_session_executor(self, session_id, func, *args, **kwargs):
            info = self._session_info.get(session_id)
            if info is not None:
                info.last_activity_at = math.inf
            try:
                return await super()._run_in_session_executor(session_id, func, *args, **kwargs)
            finally:
                self._update_session_activity(session_id)

    return _SessionServer


def create_colbench_app(env_id: str = "ColBench-Backend-v0", tasks: Any = "default", *, split: str | None = None,
                        simulator: Any = "scripted", simulator_kwargs: dict | None = None,
                        max_turns: int = MAX_TURNS, max_sessions: int = 64, idle_timeout: float | None = 300.0,
                        evaluator: Any = "reference", similarity: Any = "visual", eval_workers: int | None = None,
                        render_pool: int = 1, parts: EpisodeParts | None = None):
    """The FastAPI app of ``colbench serve``: OpenEnv's server and routes (as its ``create_app`` makes
    them, busy sessions exempt from the idle reaper) with ColBench's env, action and observation, a
    session cap and an idle timeout, ``GET /tasks``, and one-line JSON errors for bad requests.

    Args:
        env_id: ``"ColBench-Backend-v0"`` or ``"ColBench-Frontend-v0"``.
        tasks, split, simulator, simulator_kwargs, max_turns, evaluator, similarity, eval_workers:
            as :class:`colbench.integrations._common.EpisodeParts` (the shared tasks, human and scorer).
        max_sessions: concurrent sessions (WebSocket connections) at most.
        idle_timeout: seconds without a message, and none being handled, after which a session is
            destroyed (``None``: never).
        render_pool: Chromium drivers shared by the sessions (frontend).
        parts: shared parts built by the caller (then the arguments above but ``env_id``, ``max_sessions``
            and ``idle_timeout`` are not used, and the caller closes them).

    The app's ``state.colbench_parts`` are the shared parts; they are closed at the app's shutdown
    (unless passed in); ``state.colbench_sessions()`` counts live sessions.
    """
    from fastapi import Request
    from fastapi.exceptions import RequestValidationError
    from fastapi.responses import JSONResponse
    from fastapi import FastAPI
    from starlette.exceptions import HTTPException as StarletteHTTPException

    if env_id not in ENV_IDS:
        raise ValueError(f"env must be one of {', '.join(ENV_IDS)}, got {env_id!r}")
    if not isinstance(max_sessions, int) or max_sessions < 1:
        raise ValueError(f"max_sessions must be a positive int, got {max_sessions!r}")
    if idle_timeout is not None and not idle_timeout > 0:
        raise ValueError(f"idle_timeout must be positive (or None), got {idle_timeout!r}")
    own = parts is None
    if own:
        parts = EpisodeParts(ENV_IDS[env_id], tasks, split=split, simulator=simulator,
                             simulator_kwargs=simulator_kwargs, max_turns=max_turns, evaluator=evaluator,
                             similarity=similarity, eval_workers=eval_workers, render_pool=render_pool)
    elif parts.kind != ENV_IDS[env_id]:
        raise ValueError(f"{env_id} needs {ENV_IDS[env_id]} parts, got {parts.kind}")
    live: set = set()
    live_lock = threading.Lock()

    def make_env() -> ColBenchOpenEnv:
        env = ColBenchOpenEnv(parts)
        close = env.close

        def close_and_forget() -> None:
            close()
            with live_lock:
                live.discard(env)
        env.close = close_and_forget  # type: ignore[method-assign]
        with live_lock:
            live.add(env)
        return env

    make_env.__name__ = "ColBenchOpenEnv"
    app = FastAPI(title=f"ColBench {env_id} (OpenEnv environment server)", version=__version__,
                  docs_url="/docs", redoc_url="/redoc", openapi_url="/openapi.json")
    server = _session_server_class()(make_env, ColBenchAction, ColBenchObservation, env_name=env_id,
                                     concurrency_config=ConcurrencyConfig(max_concurrent_envs=max_sessions,
                                                                          session_timeout=idle_timeout))
    server.register_routes(app)

    def count() -> int:
        with live_lock:
            return len(live)

    app.state.colbench_parts = parts
    app.state.colbench_sessions = count
    listing = {"env": env_id, "kind": parts.kind, "max_turns": parts.max_turns,
               "task_ids": [t.task_id for t in parts.tasks]}

    @app.get("/tasks", tags=["ColBench"], summary="the served env, its turn limit and its task ids")
    def _tasks() -> dict:
        return listing

    @app.exception_handler(RequestError)
    async def _request_error(request: Request, exc: RequestError) -> JSONResponse:
        return JSONResponse({"error": _one_line(exc)}, status_code=exc.status_code)

    @app.exception_handler(RequestValidationError)
    async def _invalid_body(request: Request, exc: RequestValidationError) -> JSONResponse:
        first = (exc.errors() or [{}])[0]
        where = ".".join(str(p) for p in first.get("loc", ()))
        return JSONResponse({"error": _one_line(f"invalid request body at {where or 'body'}: "
                                                f"{first.get('msg', 'malformed')}")}, status_code=422)

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        detail = exc.detail
        if isinstance(detail, list) and detail and isinstance(detail[0], dict):  # OpenEnv's action validation
            first = detail[0]
            detail = f"invalid action at {'.'.join(str(p) for p in first.get('loc', ())) or 'action'}: " \
                     f"{first.get('msg', 'invalid')}"
        return JSONResponse({"error": _one_line(detail)}, status_code=exc.status_code)

    if own:
        app.router.on_shutdown.append(parts.close)
    return app


def listen(host: str = "127.0.0.1", port: int = 8000):
    """A TCP socket bound to ``host:port`` and listening (port 0: a free one; IPv6 when ``host`` has a
    ``:``). Connections made from here on wait in its backlog until :func:`run_server` accepts them.
    Raises ``OSError`` when it cannot listen."""
    import socket

    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(2048)
    except OSError:
        sock.close()
        raise
    return sock


def run_server(app, sock, *, shutdown_timeout: float = 5.0) -> None:
    """Serve ``app`` (:func:`create_colbench_app`) with uvicorn on the listening socket ``sock``
    (:func:`listen`) until SIGTERM or SIGINT; run it in the main thread.

    Shutdown (the first SIGTERM or SIGINT):

    * no new connection is accepted, and the shared parts are closed at once, without waiting for
      the steps in progress (``EpisodeParts.close(graceful=False)``: the browsers and their Chromium
      processes are killed, the evaluator's sandbox workers too); such a step ends with an error its
      client no longer receives;
    * uvicorn closes every WebSocket (close code 1012, "service restart"); OpenEnv destroys each
      session and closes its env; the app's shutdown closes the shared parts (already closed);
    * within ``shutdown_timeout`` seconds of the signal the process has exited: if it is still
      running then, it SIGKILLs every process it started (browsers, sandbox workers) and exits with
      status 128 + the signal. Otherwise uvicorn re-raises the signal once shut down (a SIGTERM ends
      the process as a SIGTERM does; a SIGINT raises ``KeyboardInterrupt``).

    A second SIGINT makes uvicorn skip the rest of the graceful part. Chromium processes outlive no
    way of ending the process, SIGKILL included (:mod:`colbench_env.evaluation.orphan_guard`).
    """
    import uvicorn

    if not shutdown_timeout > 0:
        raise ValueError(f"shutdown_timeout must be positive, got {shutdown_timeout!r}")
    parts: EpisodeParts | None = getattr(app.state, "colbench_parts", None)

    def deadline(sig: int) -> None:
        time.sleep(shutdown_timeout)
        try:
            import psutil

            for child in psutil.Process().children(recursive=True):
                try:
                    child.kill()
                except psutil.Error:
                    pass
        except ImportError:  # no psutil (a backend-only install): the sandbox workers die with us anyway
            pass
        sys.stderr.write(f"colbench serve: not shut down {shutdown_timeout:g} s after signal {sig}: killed\n")
        sys.stderr.flush()
        os._exit(128 + sig)

    def after_shutdown_began(record) -> bool:
        """uvicorn's log without the tracebacks of handlers that answered a connection it had closed."""
        from starlette.websockets import WebSocketDisconnect, WebSocketDisconnected

        exc = record.exc_info[1] if record.exc_info else None
        return not isinstance(exc, (WebSocketDisconnect, WebSocketDisconnected))

    class Server(uvicorn.Server):
        def handle_exit(self, sig: int, frame) -> None:
            first = not self.should_exit
            super().handle_exit(sig, frame)
            if first:
                logging.getLogger("uvicorn.error").addFilter(after_shutdown_began)
                threading.Thread(target=deadline, args=(sig,), name="colbench-shutdown-deadline", daemon=True).start()
                if parts is not None:
                    threading.Thread(target=parts.close, kwargs={"graceful": False}, name="colbench-shutdown",
                                     daemon=True).start()

    config = uvicorn.Config(app, log_level="warning", ws_max_size=100 * 2 ** 20,
                            timeout_graceful_shutdown=max(shutdown_timeout / 2, 0.5))
    Server(config).run(sockets=[sock])


class ServeProcess:
    """``colbench serve ARGS --port 0`` in a subprocess (this interpreter), started and waited for:
    :attr:`url` is where it listens once the constructor returns; :meth:`stop` sends SIGTERM (or
    ``sig``) and waits. For tests, benchmarks and scripts that need a server of their own."""

    def __init__(self, *args: str, startup_s: float = 120.0):
        self.proc = subprocess.Popen([sys.executable, "-m", "colbench", "serve", "--port", "0", *args],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                     env=dict(os.environ, PYTHONUNBUFFERED="1"))
        lines: queue.Queue = queue.Queue()
        self._stderr: deque = deque(maxlen=200)  # drained, or a chatty server blocks on a full pipe
        threading.Thread(target=lambda: [lines.put(x) for x in self.proc.stdout], daemon=True).start()
        threading.Thread(target=lambda: [self._stderr.append(x) for x in self.proc.stderr], daemon=True).start()
        deadline = time.monotonic() + startup_s
        self.url = None
        while time.monotonic() < deadline:
            try:
                line = lines.get(timeout=0.5)
            except queue.Empty:
                if self.proc.poll() is not None:
                    time.sleep(0.2)
                    raise RuntimeError(f"colbench serve exited {self.proc.returncode}: {self.stderr[-3000:]}")
                continue
            if "listening on " in line:
                self.url = line.split("listening on ", 1)[1].strip()
                break
        if self.url is None:
            self.stop()
            raise RuntimeError("colbench serve did not start listening")

    @property
    def stderr(self) -> str:
        """The last 200 lines the server wrote to stderr."""
        return "".join(self._stderr)

    def stop(self, sig: int = signal.SIGTERM) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        return self.proc.returncode

    def __enter__(self) -> "ServeProcess":
        return self

    def __exit__(self, *exc) -> None:
        self.stop()
