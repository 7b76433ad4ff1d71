"""colbench.stats against independent computations: a plain fixed-seed numpy loop, scipy's
percentile bootstrap, and cases whose bootstrap distribution is known by hand."""
from __future__ import annotations

import numpy as np
import pytest

from colbench.stats import as_grid, bootstrap_indices, bootstrap_mean, paired_bootstrap, win_grid


def loop_bootstrap(a, resamples, seed, level=0.95):
    """The definition, written as a loop: draw seeds, then tasks, with replacement; mean of the cells."""
    a = np.asarray(a, dtype=float)
    rng = np.random.default_rng(seed)
    seeds = rng.integers(0, a.shape[0], size=(resamples, a.shape[0]))
    tasks = rng.integers(0, a.shape[1], size=(resamples, a.shape[1]))
    reps = [np.mean([[a[s, t] for t in tasks[r]] for s in seeds[r]]) for r in range(resamples)]
    return np.percentile(reps, [100 * (1 - level) / 2, 100 * (1 + level) / 2])


def test_matches_a_plain_loop_over_seeds_and_tasks():
    rng = np.random.default_rng(3)
    scores = (rng.random((3, 12)) < 0.4).astype(float)  # 3 seeds x 12 tasks of success / failure
    ci = bootstrap_mean(scores, resamples=400, seed=11)
    lo, hi = loop_bootstrap(scores, 400, 11)
    assert (ci.low, ci.high) == pytest.approx((lo, hi), abs=1e-12)
    assert ci.mean == pytest.approx(scores.mean())
    # the paired difference is the same loop on a - b
    other = (rng.random((3, 12)) < 0.6).astype(float)
    cmp = paired_bootstrap(other, scores, resamples=400, seed=11)
    lo, hi = loop_bootstrap(other - scores, 400, 11)
    assert (cmp.diff.low, cmp.diff.high) == pytest.approx((lo, hi), abs=1e-12)


def test_one_seed_agrees_with_scipy_percentile_bootstrap():
    scipy_stats = pytest.importorskip("scipy.stats")
    rng = np.random.default_rng(5)
    x = rng.random(48) * 100  # % tests passed of 48 tasks
    ours = bootstrap_mean(x, resamples=20000, seed=1)
    ref = scipy_stats.bootstrap((x,), np.mean, n_resamples=20000, method="percentile", confidence_level=0.95,
                                random_state=np.random.default_rng(2)).confidence_interval
    # different random draws: equal up to Monte-Carlo error (the interval is ~16 points wide)
    assert ours.low == pytest.approx(ref.low, abs=0.6) and ours.high == pytest.approx(ref.high, abs=0.6)


def test_hand_checkable_cases():
    const = bootstrap_mean(np.full((3, 5), 0.25), resamples=200)
    assert (const.mean, const.low, const.high) == (0.25, 0.25, 0.25)
    # one seed, two tasks scoring 0 and 1: replicate means are 0, 0.5, 1 with probabilities 1/4, 1/2, 1/4
    two = bootstrap_mean([0.0, 1.0], resamples=4000, seed=0)
    assert (two.mean, two.low, two.high) == (0.5, 0.0, 1.0)
    s, t = bootstrap_indices(1, 2, 4000, 0)
    assert np.mean(t.sum(axis=1) == 1) == pytest.approx(0.5, abs=0.03) and (s == 0).all()
    # a constant improvement on every cell: zero-width interval, significant, p = 0
    base = np.array([[0.0, 0.5, 1.0, 0.2], [0.1, 0.4, 0.9, 0.3]])
    up = paired_bootstrap(base + 0.25, base, resamples=500)
    assert (up.diff.mean, up.diff.low, up.diff.high, up.p_value, up.significant) == pytest.approx(
        (0.25, 0.25, 0.25, 0.0, True))
    same = paired_bootstrap(base, base, resamples=500)
    assert same.p_value == 1.0 and not same.significant


def test_pairing_removes_shared_task_difficulty():
    rng = np.random.default_rng(0)
    difficulty = rng.random((3, 40))  # tasks differ a lot; both methods see the same difficulty
    a = difficulty + 0.05 + rng.normal(0, 0.01, (3, 40))
    b = difficulty
    paired = paired_bootstrap(a, b, resamples=2000)
    ia, ib = bootstrap_mean(a, resamples=2000), bootstrap_mean(b, resamples=2000)
    assert paired.significant and paired.diff.low > 0.04
    assert ia.low < ib.high  # unpaired intervals overlap: they could not show the difference
    assert paired.diff.high - paired.diff.low < 0.2 * (ia.high - ia.low)


def test_bad_input_names_the_problem():
    with pytest.raises(ValueError, match="shape"):
        paired_bootstrap(np.zeros((2, 3)), np.zeros((2, 4)))
    with pytest.raises(ValueError, match="NaN"):
        as_grid([0.0, float("nan")])
    with pytest.raises(ValueError, match="at least one"):
        as_grid(np.zeros((0, 3)))
    with pytest.raises(ValueError, match="level"):
        bootstrap_mean([1.0, 2.0], level=95)


def loop_cluster_bootstrap(a, labels, resamples, seed, level=0.95):
    """The cluster bootstrap's definition as a loop: draw seeds, then K clusters, with replacement;
    every task of each drawn cluster (a cluster drawn twice counts twice); mean of the cells."""
    a = np.asarray(a, dtype=float)
    order = list(dict.fromkeys(labels))
    members = {c: [t for t, lab in enumerate(labels) if lab == c] for c in order}
    rng = np.random.default_rng(seed)
    seeds = rng.integers(0, a.shape[0], size=(resamples, a.shape[0]))
    draws = rng.integers(0, len(order), size=(resamples, len(order)))
    reps = [np.mean([a[s, t] for s in seeds[r] for c in draws[r] for t in members[order[c]]]) for r in range(resamples)]
    return np.percentile(reps, [100 * (1 - level) / 2, 100 * (1 + level) / 2]), np.asarray(reps)


def test_cluster_bootstrap_matches_a_plain_loop_and_hand_computed_cases():
    rng = np.random.default_rng(7)
    scores = (rng.random((2, 10)) < 0.4).astype(float)
    labels = ["tip", "fee", "tip", "pay", "fee", "fee", "tip", "pay", "tip", "tip"]  # unequal sizes
    ci = bootstrap_mean(scores, resamples=300, seed=4, clusters=labels)
    (lo, hi), _ = loop_cluster_bootstrap(scores, labels, 300, 4)
    assert (ci.low, ci.high) == pytest.approx((lo, hi), abs=1e-12) and ci.mean == pytest.approx(scores.mean())
    other = (rng.random((2, 10)) < 0.6).astype(float)
    cmp = paired_bootstrap(other, scores, resamples=300, seed=4, clusters=labels)
    (lo, hi), reps = loop_cluster_bootstrap(other - scores, labels, 300, 4)
    assert (cmp.diff.low, cmp.diff.high) == pytest.approx((lo, hi), abs=1e-12)
    assert cmp.p_value == pytest.approx(min(1.0, 2 * min(np.mean(reps <= 0), np.mean(reps >= 0))))
    # every task its own cluster: exactly the task bootstrap (same draws)
    single = bootstrap_mean(scores, resamples=300, seed=4, clusters=range(10))
    plain = bootstrap_mean(scores, resamples=300, seed=4)
    assert (single.low, single.high) == (plain.low, plain.high)
    # by hand: the whole gain sits in one template of 1 task out of 4 tasks in 2 templates. Replicates:
    # {A, A} -> 1, {A, B} -> 1/4 (weighted by size, not 1/2), {B, B} -> 0, probabilities 1/4, 1/2, 1/4
    d = paired_bootstrap([1.0, 0.0, 0.0, 0.0], [0.0] * 4, resamples=8000, seed=0, clusters=["A", "B", "B", "B"])
    assert (d.diff.mean, d.diff.low, d.diff.high) == (0.25, 0.0, 1.0) and not d.significant
    assert d.p_value == pytest.approx(0.5, abs=0.03)  # 2 x P(replicate <= 0) = 2 x 1/4
    # the task bootstrap of the same data: task A drawn k ~ Binomial(4, 1/4) times, replicate k/4;
    # P(k >= 3) = 0.051 > 2.5 % > P(k = 4) = 0.004, so its upper end is 0.75, and p = 2 P(k = 0) = 0.63
    t = paired_bootstrap([1.0, 0.0, 0.0, 0.0], [0.0] * 4, resamples=8000, seed=0)
    assert (t.diff.low, t.diff.high) == (0.0, 0.75) and t.p_value == pytest.approx(2 * 0.75 ** 4, abs=0.03)
    with pytest.raises(ValueError, match="one label per task expected"):
        bootstrap_mean(scores, clusters=labels[:3])


def test_win_rate_counts_ties_half_by_hand():
    """Win rate of A over B on 2 seeds x 4 tasks of similarities: per cell 1 / 0.5 / 0, mean by hand;
    its interval is the same loop bootstrap as any mean; the task-by-task rule of
    colbench evaluate --compare (wins, losses, ties) gives the same number with ties half."""
    from colbench_env.evaluation.trajectory_scoring import win_rate

    a = [[0.9, 0.5, 0.3, 0.70], [0.8, 0.6, 0.6, 0.2]]
    b = [[0.4, 0.5, 0.7, 0.65], [0.8, 0.6, 0.1, 0.3]]
    assert win_grid(a, b).tolist() == [[1.0, 0.5, 0.0, 1.0], [0.5, 0.5, 1.0, 0.0]]
    ci = bootstrap_mean(100 * win_grid(a, b), resamples=300, seed=2)
    assert ci.mean == pytest.approx(100 * 4.5 / 8)
    assert (ci.low, ci.high) == pytest.approx(tuple(loop_bootstrap(100 * win_grid(a, b), 300, 2)), abs=1e-12)
    for s in range(2):
        recs = [[{"task": {"task_id": f"t{t}", "ground_truth": "x"}, "reward": g[s][t]} for t in range(4)] for g in (a, b)]
        w = win_rate(*recs)
        assert (w["wins"] + w["ties"] / 2) / w["tasks"] == pytest.approx(win_grid(a, b)[s].mean())
    assert win_grid([[0.3]], [[0.3]]).tolist() == [[0.5]]  # a method against itself: 50 %
    with pytest.raises(ValueError, match="same"):
        win_grid([[1.0, 2.0]], [[1.0]])
