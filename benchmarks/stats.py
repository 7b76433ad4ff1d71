"""Bootstrap statistics over tasks and seeds for the pipeline's results (pure numpy, no I/O).

Data layout: a method's results are a ``(n_seeds, n_tasks)`` array -- entry ``[s, t]`` is the score of
held-out task ``t`` in the run with seed ``s`` (a greedy episode's reward or success, or the mean over
the ``k`` sampled episodes of that task). Every seed's run is evaluated on the same tasks, so two
methods' arrays are paired cell by cell.

The bootstrap resamples both sources of variation: each replicate draws ``n_seeds`` seeds with
replacement and, independently, ``n_tasks`` tasks with replacement, and takes the mean of the
selected cells. The interval is the percentile interval of the replicates. A paired comparison
applies the *same* draws to both methods and bootstraps the mean difference (the task-level
pairing removes the variation that both methods share: hard tasks are hard for both).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["Interval", "Comparison", "bootstrap_indices", "bootstrap_mean", "paired_bootstrap", "as_grid"]


@dataclass(frozen=True)
class Interval:
    """A mean with its percentile bootstrap interval."""

    mean: float
    low: float
    high: float
    level: float

    def as_dict(self) -> dict:
        return {"mean": self.mean, "low": self.low, "high": self.high, "level": self.level}


@dataclass(frozen=True)
class Comparison:
    """``mean(a) - mean(b)`` with its paired bootstrap interval and a two-sided bootstrap p-value
    (twice the smaller fraction of replicates on either side of 0, capped at 1; replicates equal to 0
    count on both sides, which is conservative for scores that take few values)."""

    diff: Interval
    p_value: float

    @property
    def significant(self) -> bool:
        """The interval excludes 0."""
        return self.diff.low > 0 or self.diff.high < 0

    def as_dict(self) -> dict:
        return {**{f"diff_{k}": v for k, v in self.diff.as_dict().items()}, "p_value": self.p_value,
                "significant": self.significant}


def as_grid(values) -> np.ndarray:
    """A ``(n_seeds, n_tasks)`` float array from a 1-D (one seed) or 2-D array-like."""
    a = np.asarray(values, dtype=float)
    if a.ndim == 1:
        a = a[None, :]
    if a.ndim != 2 or a.shape[0] < 1 or a.shape[1] < 1:
        raise ValueError(f"scores must be (n_seeds, n_tasks) with at least one of each, got shape {a.shape}")
    if not np.all(np.isfinite(a)):
        raise ValueError("scores contain NaN or infinity")
    return a


def bootstrap_indices(n_seeds: int, n_tasks: int, resamples: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """The replicates' draws: ``(resamples, n_seeds)`` seed indices and ``(resamples, n_tasks)`` task
    indices, from ``numpy.random.default_rng(seed)`` (seeds drawn first, then tasks)."""
    if resamples < 1:
        raise ValueError(f"resamples must be >= 1, got {resamples}")
    rng = np.random.default_rng(seed)
    return rng.integers(0, n_seeds, size=(resamples, n_seeds)), rng.integers(0, n_tasks, size=(resamples, n_tasks))


def _replicate_means(a: np.ndarray, seeds: np.ndarray, tasks: np.ndarray) -> np.ndarray:
    # mean over the selected seeds x tasks cells of each replicate: mean_i mean_j a[s_i, t_j]
    rows = a[seeds]  # (R, S, T): the chosen seeds' rows
    return np.take_along_axis(rows, np.broadcast_to(tasks[:, None, :], (len(tasks), a.shape[0], tasks.shape[1])),
                              axis=2).mean(axis=(1, 2))


def _interval(point: float, reps: np.ndarray, level: float) -> Interval:
    lo, hi = np.percentile(reps, [100 * (1 - level) / 2, 100 * (1 + level) / 2])
    return Interval(float(point), float(lo), float(hi), level)


def bootstrap_mean(values, *, resamples: int = 10000, level: float = 0.95, seed: int = 0) -> Interval:
    """Mean of a ``(n_seeds, n_tasks)`` score array with its percentile bootstrap interval over seeds and tasks."""
    if not 0 < level < 1:
        raise ValueError(f"level must be in (0, 1), got {level}")
    a = as_grid(values)
    s, t = bootstrap_indices(a.shape[0], a.shape[1], resamples, seed)
    return _interval(a.mean(), _replicate_means(a, s, t), level)


def paired_bootstrap(a, b, *, resamples: int = 10000, level: float = 0.95, seed: int = 0) -> Comparison:
    """``mean(a) - mean(b)`` for two methods' paired ``(n_seeds, n_tasks)`` arrays (same seeds, same tasks)."""
    if not 0 < level < 1:
        raise ValueError(f"level must be in (0, 1), got {level}")
    a, b = as_grid(a), as_grid(b)
    if a.shape != b.shape:
        raise ValueError(f"paired arrays must have the same (n_seeds, n_tasks) shape, got {a.shape} and {b.shape}")
    d = a - b
    s, t = bootstrap_indices(d.shape[0], d.shape[1], resamples, seed)
    reps = _replicate_means(d, s, t)
    p = min(1.0, 2 * min(float(np.mean(reps <= 0)), float(np.mean(reps >= 0))))
    return Comparison(_interval(d.mean(), reps, level), p)
