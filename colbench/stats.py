"""Bootstrap statistics over tasks and seeds (the pipeline's results, critic-ranking's; pure numpy, no I/O).

Data layout: a method's results are a ``(n_seeds, n_tasks)`` array -- entry ``[s, t]`` is the score of
held-out task ``t`` in the run with seed ``s`` (a greedy episode's reward or success, or the mean over
the ``k`` sampled episodes of that task). Every seed's run is evaluated on the same tasks, so two
methods' arrays are paired cell by cell.

The bootstrap resamples both sources of variation: each replicate draws ``n_seeds`` seeds with
replacement and, independently, ``n_tasks`` tasks with replacement, and takes the mean of the
selected cells. The interval is the percentile interval of the replicates. A paired comparison
applies the *same* draws to both methods and bootstraps the mean difference (the task-level
pairing removes the variation that both methods share: hard tasks are hard for both).

Tasks that come in groups (generated tasks share a handful of templates: a method that learns one
template's trick moves every task of it at once) are not independent draws. With ``clusters`` (one
label per task) the replicates draw whole clusters with replacement instead of tasks -- ``K``
cluster draws for ``K`` clusters, every task of a drawn cluster taken, so a replicate's mean weighs
clusters by their size -- the one-stage cluster bootstrap. Its interval answers "would this hold on
other templates like these", the task bootstrap's "on other tasks of these templates".

Seeds are few (3 here, where a run takes hours), and each repeats the whole run (collection,
training, evaluation), so the bootstrap's drawing of seeds with replacement from 3 understates how
much a fourth would differ. :func:`seed_interval` is the interval a reviewer asks for beside it: the
per-seed means (of one method, or of the paired differences of two), and the Student t-interval of
their mean across seeds, ``mean +- t_{n-1, 0.975} s / sqrt(n)`` (``scipy.stats.t``), which treats
each seed as one observation of the whole experiment.

A win rate (frontend: how often a method's page is closer to the target than zero-shot's) is a mean
too: :func:`win_grid` turns two methods' paired arrays into the ``(n_seeds, n_tasks)`` array of
cell outcomes -- 1 where ``a`` is higher, 1/2 where equal, 0 where lower -- whose
:func:`bootstrap_mean` is the win rate with its interval over tasks and seeds.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["Interval", "Comparison", "SeedInterval", "bootstrap_indices", "bootstrap_mean", "paired_bootstrap",
           "seed_interval", "as_grid", "cluster_ids", "win_grid"]


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


@dataclass(frozen=True)
class SeedInterval:
    """Per-seed means and the t-interval of their mean across seeds (:func:`seed_interval`).
    ``low`` and ``high`` are ``None`` with one seed (no spread to estimate)."""

    per_seed: tuple
    mean: float
    low: float | None
    high: float | None
    level: float

    @property
    def n(self) -> int:
        return len(self.per_seed)

    @property
    def excludes_zero(self) -> bool:
        return self.low is not None and (self.low > 0 or self.high < 0)

    def signs(self) -> str:
        """Each seed's sign, in seed order: ``+``, ``-`` or ``0``."""
        return "".join("+" if v > 0 else "-" if v < 0 else "0" for v in self.per_seed)

    def as_dict(self) -> dict:
        return {"per_seed": list(self.per_seed), "mean": self.mean, "low": self.low, "high": self.high,
                "level": self.level, "n_seeds": self.n, "signs": self.signs(), "excludes_zero": self.excludes_zero}


def seed_interval(a, b=None, *, level: float = 0.95) -> SeedInterval:
    """The per-seed means of ``a`` (a ``(n_seeds, n_tasks)`` array), or of the paired differences
    ``a - b``, and the Student t-interval of their mean across seeds: ``mean +- t s / sqrt(n)`` with
    ``t`` the ``(1 + level) / 2`` quantile of Student's t with ``n - 1`` degrees of freedom
    (``scipy.stats.t.ppf``) and ``s`` the per-seed means' sample standard deviation (``ddof=1``).
    One seed: the mean only (``low = high = None``)."""
    if not 0 < level < 1:
        raise ValueError(f"level must be in (0, 1), got {level}")
    a = as_grid(a)
    if b is not None:
        b = as_grid(b)
        if a.shape != b.shape:
            raise ValueError(f"paired arrays must have the same (n_seeds, n_tasks) shape, got {a.shape} and {b.shape}")
        a = a - b
    per_seed = a.mean(axis=1)
    n, mean = len(per_seed), float(per_seed.mean())
    if n < 2:
        return SeedInterval(tuple(float(v) for v in per_seed), mean, None, None, level)
    from scipy.stats import t

    half = float(t.ppf((1 + level) / 2, n - 1) * per_seed.std(ddof=1) / np.sqrt(n))
    return SeedInterval(tuple(float(v) for v in per_seed), mean, mean - half, mean + half, level)


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


def win_grid(a, b) -> np.ndarray:
    """The ``(n_seeds, n_tasks)`` outcomes of ``a`` against ``b`` (paired arrays, same shape): 1.0
    where ``a > b``, 0.5 where ``a == b`` (a tie counts half), 0.0 where ``a < b``. Its mean is
    ``a``'s win rate over ``b``."""
    a, b = as_grid(a), as_grid(b)
    if a.shape != b.shape:
        raise ValueError(f"paired arrays must have the same (n_seeds, n_tasks) shape, got {a.shape} and {b.shape}")
    return np.where(a > b, 1.0, np.where(a == b, 0.5, 0.0))


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


def cluster_ids(clusters, n_tasks: int) -> np.ndarray:
    """Cluster labels (any hashable, one per task) -> ``0..K-1`` indices in order of first appearance."""
    labels = list(clusters)
    if len(labels) != n_tasks:
        raise ValueError(f"clusters: one label per task expected ({n_tasks}), got {len(labels)}")
    index: dict = {}
    return np.array([index.setdefault(c, len(index)) for c in labels], dtype=int)


def _cluster_replicate_means(a: np.ndarray, seeds: np.ndarray, draws: np.ndarray, ids: np.ndarray) -> np.ndarray:
    # per seed and cluster: the sum of its tasks' scores, and the cluster sizes; a replicate's mean is
    # (sum over drawn seeds x drawn clusters of the sums) / (seeds drawn x tasks in the drawn clusters)
    k = int(ids.max()) + 1
    sums = np.stack([np.bincount(ids, weights=row, minlength=k) for row in a])  # (S, K)
    sizes = np.bincount(ids, minlength=k).astype(float)
    rows = sums[seeds]  # (R, S, K)
    picked = np.take_along_axis(rows, np.broadcast_to(draws[:, None, :], (len(draws), a.shape[0], draws.shape[1])),
                                axis=2)
    return picked.sum(axis=(1, 2)) / (a.shape[0] * sizes[draws].sum(axis=1))


def _replicates(a: np.ndarray, resamples: int, seed: int, clusters) -> np.ndarray:
    if clusters is None:
        s, t = bootstrap_indices(a.shape[0], a.shape[1], resamples, seed)
        return _replicate_means(a, s, t)
    ids = cluster_ids(clusters, a.shape[1])
    s, c = bootstrap_indices(a.shape[0], int(ids.max()) + 1, resamples, seed)
    return _cluster_replicate_means(a, s, c, ids)


def _interval(point: float, reps: np.ndarray, level: float) -> Interval:
    lo, hi = np.percentile(reps, [100 * (1 - level) / 2, 100 * (1 + level) / 2])
    return Interval(float(point), float(lo), float(hi), level)


def bootstrap_mean(values, *, resamples: int = 10000, level: float = 0.95, seed: int = 0,
                   clusters=None) -> Interval:
    """Mean of a ``(n_seeds, n_tasks)`` score array with its percentile bootstrap interval over seeds
    and tasks (over seeds and ``clusters`` of tasks when given: one label per task)."""
    if not 0 < level < 1:
        raise ValueError(f"level must be in (0, 1), got {level}")
    a = as_grid(values)
    return _interval(a.mean(), _replicates(a, resamples, seed, clusters), level)


def paired_bootstrap(a, b, *, resamples: int = 10000, level: float = 0.95, seed: int = 0,
                     clusters=None) -> Comparison:
    """``mean(a) - mean(b)`` for two methods' paired ``(n_seeds, n_tasks)`` arrays (same seeds, same
    tasks); ``clusters``: one label per task, resampled whole (see the module docstring)."""
    if not 0 < level < 1:
        raise ValueError(f"level must be in (0, 1), got {level}")
    a, b = as_grid(a), as_grid(b)
    if a.shape != b.shape:
        raise ValueError(f"paired arrays must have the same (n_seeds, n_tasks) shape, got {a.shape} and {b.shape}")
    d = a - b
    reps = _replicates(d, resamples, seed, clusters)
    p = min(1.0, 2 * min(float(np.mean(reps <= 0)), float(np.mean(reps >= 0))))
    return Comparison(_interval(d.mean(), reps, level), p)
