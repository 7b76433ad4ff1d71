"""User errors of the ``colbench`` command.

A :class:`UsageError` is bad input from the user (a file, an option, a plug-in spec). The command
line prints it as one line ``colbench <command>: error: <message>`` and exits with status 2, never
with a traceback; the message names the file, line and field where there is one. Library code
raises its own exceptions (:class:`~colbench_env.tasks.TaskFormatError`, ...); the command line maps
those that are user errors (:func:`user_error_types`). A :class:`StageFailed` is a resumable
stage (the pipeline's, critic-ranking's) or run (``colbench run``, ``colbench table``) whose
episodes a server failed (:class:`EpisodesFailed`): the commands say so in one line and exit 1, the
work done kept for a rerun.
"""
from __future__ import annotations

__all__ = ["EpisodesFailed", "StageFailed", "UsageError", "user_error_types"]


from colbench_env.errors import UsageError


class StageFailed(RuntimeError):
    """Episodes of a stage ended with an error (a server failed); their records are kept in the
    stage's file and the episodes are run again when the stage resumes."""


class EpisodesFailed(StageFailed):
    """Episodes of a run ended with an error (the agent's or the human's server failed, e.g. HTTP 500):
    every episode is written, the failed ones with their ``error``, and rerunning the same command
    runs the failed ones again (:func:`colbench.runs.check_episode_errors`).

    Attributes:
        metrics: the run's metrics over every episode of its file (the failed ones counted in
            ``errors``, with reward 0).
    """

    def __init__(self, message: str, metrics: dict | None = None):
        super().__init__(message)
        self.metrics = dict(metrics or {})


def user_error_types() -> tuple[type[BaseException], ...]:
    """The exception types that always mean bad user input (their messages name file/line/field)."""
    import sys

    from colbench_env.tasks import TaskFormatError
    from colbench_env.trajectories import TrajectoryFormatError

    types: tuple = (UsageError, TaskFormatError, TrajectoryFormatError)
    if "colbench.agents.config" in sys.modules:  # a bad trainer config, trajectories with nothing to learn from
        config = sys.modules["colbench.agents.config"]  # (never import the trainers just for this)
        types += (config.ConfigError, config.NoTrainingData)
    return types
