"""``colbench serve [--env ID] [--tasks ...] [--simulator ...] [--host 127.0.0.1] [--port P]
[--max-sessions N] [--idle-timeout S]``: ColBench as an OpenEnv environment server.

Serves one env (``ColBench-Backend-v0`` or ``ColBench-Frontend-v0``) on OpenEnv's server library:
``/ws`` WebSocket sessions (one env each, at most ``--max-sessions``, destroyed after
``--idle-timeout`` seconds without a message), ``/reset``, ``/step``, ``/state``, ``/health``,
``/schema``, ``/metadata``. An action is ``{"message": str}``, the agent's turn; the human is
simulated here (``--simulator scripted``, or ``--simulator openai --simulator-base-url URL
--simulator-model NAME``); observations are the agent's view only. Any OpenEnv client drives it, e.g.
``GenericEnvClient(base_url="http://HOST:PORT")``; see :mod:`colbench.integrations.openenv`.

``--manifest PATH`` also writes the ``openenv.yaml`` manifest of this server. The server prints
``colbench serve: listening on http://HOST:PORT`` once it accepts connections; Ctrl-C or SIGTERM
stops it within ``--shutdown-timeout`` seconds: steps in progress are abandoned, browsers and sandbox
workers killed, sessions closed (:func:`colbench.integrations.openenv.run_server`). Its Chromium
processes die with it however it ends, SIGKILL included.
"""
from __future__ import annotations

import argparse

from colbench.errors import UsageError

__all__ = ["add_arguments", "main"]


def add_arguments(p: argparse.ArgumentParser) -> None:
    from colbench.cli.run import JoinURLs, json_object

    p.add_argument("--env", default="ColBench-Backend-v0", choices=("ColBench-Backend-v0", "ColBench-Frontend-v0"),
                   help="the environment served")
    p.add_argument("--tasks", default="default",
                   help="'default' (embedded tasks), a task file (jsonl/json, e.g. an official ColBench file), "
                        "or 'generated:N:difficulty[:family]'")
    p.add_argument("--split", default=None, choices=("train", "test"), help="keep only this split")
    p.add_argument("--simulator", default="scripted", choices=("scripted", "openai"),
                   help="the human: the offline scripted human, or an LLM behind an OpenAI-compatible server")
    p.add_argument("--simulator-model", default=None, help="the LLM human's served model name (--simulator openai)")
    p.add_argument("--simulator-base-url", default=None, action=JoinURLs,
                   help="the LLM human's OpenAI-compatible base URL (--simulator openai); several: repeat or comma-separate")
    p.add_argument("--simulator-kwargs", type=json_object("--simulator-kwargs"), default={},
                   help="JSON object of keyword arguments for the simulator")
    p.add_argument("--max-turns", type=int, default=10, help="agent turns per episode (the last one is the answer)")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (0.0.0.0: every interface)")
    p.add_argument("--port", type=int, default=8000, help="port to listen on (0: a free one, printed)")
    p.add_argument("--max-sessions", type=int, default=64, help="concurrent sessions (WebSocket connections) at most")
    p.add_argument("--idle-timeout", type=float, default=300.0,
                   help="seconds without a message after which a session and its env are destroyed")
    p.add_argument("--semantics", choices=("reference", "python"), default="reference",
                   help="backend scoring semantics (reference: comparable with published numbers)")
    p.add_argument("--workers", type=int, default=2, help="sandboxed evaluator workers (backend), shared by all sessions")
    p.add_argument("--render-pool", type=int, default=1, help="Chromium drivers (frontend), shared by all sessions")
    p.add_argument("--shutdown-timeout", type=float, default=5.0,
                   help="seconds after SIGTERM/SIGINT within which the server has exited (steps in progress are "
                        "abandoned, browsers killed; past it, every process it started is killed)")
    p.add_argument("--manifest", default=None, help="also write the openenv.yaml manifest to this path")


def main(args: argparse.Namespace) -> int:
    from colbench.integrations.openenv import create_colbench_app, listen, manifest, run_server
    from colbench_env.simulators import check_simulator_kwargs
    from colbench_env.tasks import load_tasks

    kind = "backend" if args.env == "ColBench-Backend-v0" else "frontend"
    for name, value, low in (("--max-sessions", args.max_sessions, 1), ("--max-turns", args.max_turns, 1),
                             ("--workers", args.workers, 1), ("--render-pool", args.render_pool, 1)):
        if value < low:
            raise UsageError(f"{name} must be >= {low}, got {value}")
    if not args.shutdown_timeout > 0:
        raise UsageError(f"--shutdown-timeout must be > 0, got {args.shutdown_timeout}")
    if not args.idle_timeout > 0:
        raise UsageError(f"--idle-timeout must be > 0, got {args.idle_timeout}")
    if not 0 <= args.port <= 65535:
        raise UsageError(f"--port must be in 0..65535, got {args.port}")
    sim_kwargs = dict(args.simulator_kwargs)
    if args.simulator == "openai":
        if not (args.simulator_base_url and args.simulator_model):
            raise UsageError("--simulator openai needs --simulator-base-url and --simulator-model")
        sim_kwargs.update(base_url=args.simulator_base_url, model=args.simulator_model)
    elif args.simulator_base_url or args.simulator_model:
        raise UsageError("--simulator-base-url/--simulator-model are for --simulator openai")
    try:
        check_simulator_kwargs(args.simulator, kind, sim_kwargs)
    except ValueError as e:
        raise UsageError(f"--simulator-kwargs: {e}") from None
    tasks = load_tasks(args.tasks, kind=kind, split=args.split)  # a bad task file: one line, exit 2, before listening
    if not tasks:
        raise UsageError(f"--tasks {args.tasks}: no {kind} tasks" + (f" in split {args.split!r}" if args.split else ""))
    app = create_colbench_app(args.env, tasks, simulator=args.simulator, simulator_kwargs=sim_kwargs,
                              max_turns=args.max_turns, max_sessions=args.max_sessions,
                              idle_timeout=args.idle_timeout, evaluator=args.semantics, eval_workers=args.workers,
                              render_pool=args.render_pool)
    try:
        sock = listen(args.host, args.port)
    except OSError as e:
        raise UsageError(f"cannot listen on {args.host}:{args.port}: {e.strerror or e}") from None
    port = sock.getsockname()[1]
    if args.manifest:
        from pathlib import Path

        Path(args.manifest).write_text(manifest(args.env, port))
    host = args.host if ":" not in args.host else f"[{args.host}]"
    print(f"colbench serve: listening on http://{host}:{port}", flush=True)
    run_server(app, sock, shutdown_timeout=args.shutdown_timeout)
    return 0
