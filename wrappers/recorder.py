"""Trajectory recording in the official ColBench format (append-only jsonl, resumable)."""
from __future__ import annotations

import os
from typing import Any

import gymnasium as gym

from colbench_env.phased import ColBenchWrapper
from colbench_env.trajectories import append_jsonl, read_jsonl, read_trajectories

__all__ = ["TrajectoryRecorder", "completed_episode_ids", "latest_records", "recorded_episodes"]


def completed_episode_ids(path: str | os.PathLike, *, include_errors: bool = False) -> set[str]:
    """``episode_id`` of every complete record already in ``path`` (empty if it does not exist).

    A partial last line (an interrupted write) is ignored (:func:`append_jsonl` drops it before the
    next record). Episodes whose last record ended with an ``error`` (e.g. the simulator's server was
    down) do not count as completed unless ``include_errors``: a resumed run retries them and
    appends a new record, which supersedes the old one (see :func:`latest_records`)."""
    if not os.path.exists(path):
        return set()
    return _completed(latest_records(rec for _, rec in read_jsonl(path, tolerate_partial_last_line=True)),
                      include_errors=include_errors)


def _completed(latest: dict[str, dict], *, include_errors: bool = False) -> set[str]:
    return {k for k, rec in latest.items() if include_errors or not rec.get("error")}


def recorded_episodes(path: str | os.PathLike, wanted: set[str]) -> tuple[list[dict], set[str]]:
    """The latest record of each episode of ``wanted`` already in ``path`` (file order), and the ids
    of ``wanted`` not completed there (missing, or whose latest record ended with an ``error``; see
    :func:`completed_episode_ids`). One read of the file."""
    if not os.path.exists(path):
        return [], set(wanted)
    latest = latest_records(read_trajectories(path, tolerate_partial_last_line=True))
    return [r for k, r in latest.items() if k in wanted], set(wanted) - _completed(latest)


def latest_records(records) -> dict[str, dict]:
    """``{episode_id: record}`` keeping the last record of each episode (records without an id are
    skipped)."""
    out: dict[str, dict] = {}
    for rec in records:
        if isinstance(rec, dict) and "episode_id" in rec:
            out[str(rec["episode_id"])] = rec
    return out


class TrajectoryRecorder(ColBenchWrapper):
    """Appends each finished episode to ``path`` as one official-format trajectory line
    (``{task, dialogue_history, answer, reward, success, task_id, seed, episode_id, env_id, human}``;
    ``human``: who played the human, :mod:`colbench_env.simulators.identity`).

    Lines are appended and fsynced one at a time, so an interrupted run loses at most the episode in
    progress. ``episode_id`` is ``options["episode_id"]`` given to ``reset`` (what resumable runners
    use to skip finished episodes), else ``"<task_id>#<n>"`` with ``n`` counting this wrapper's
    episodes. When the final step's ``info`` carries ``training_info`` (the env is wrapped in
    :class:`~colbench.wrappers.HiddenInfoWrapper` inside this recorder), the record keeps it.

    This is the library's one way of writing trajectories: it records in a loop of ``step`` calls
    and in batched rollouts (:func:`colbench_env.rollout.run_episodes`) alike.
    """

    def __init__(self, env: gym.Env, path: str | os.PathLike, *, extra: dict | None = None):
        super().__init__(env)
        self.path = os.fspath(path)
        self.extra = dict(extra or {})
        self._episode_id: str | None = None
        self._count = 0
        self._written = False

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        options = dict(options or {})
        episode_id = options.pop("episode_id", None)
        obs, info = self.env.reset(seed=seed, options=options)
        self._count += 1
        task_id = self.env.unwrapped.task.task_id
        self._episode_id = str(episode_id) if episode_id is not None else f"{task_id}#{self._count}"
        self._written = False
        return obs, info

    def step_result(self, obs: Any, reward: float, terminated: bool, truncated: bool, info: dict):
        if (terminated or truncated) and not self._written:
            self.write_current(info)
        return obs, reward, terminated, truncated, info

    def write_current(self, info: dict | None = None) -> dict:
        """Append the current episode's record now (``info``: the final step's, for its
        ``training_info``)."""
        rec = self.env.unwrapped.trajectory_record()
        if info and "training_info" in info:
            rec["training_info"] = info["training_info"]
        rec["episode_id"] = self._episode_id
        spec = self.env.unwrapped.spec
        if spec is not None:
            rec["env_id"] = spec.id
        rec.update(self.extra)
        append_jsonl(self.path, [rec])
        self._written = True
        return rec
