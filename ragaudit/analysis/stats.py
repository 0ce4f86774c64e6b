"""Small, dependency-light statistics: Wilson intervals, a permutation test, exact McNemar."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

PERMUTATION_RESHUFFLES = 20000
PERMUTATION_SEED = 17


def wilson_interval(count: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson score interval for `count` successes out of `n` (95% with z=1.96).

    Chosen over the normal approximation because our rates sit at 0% and 100% often,
    where the normal interval collapses to a point.
    """
    if n <= 0:
        raise ValueError(f"wilson_interval needs n > 0, got n={n}")
    if not 0 <= count <= n:
        raise ValueError(f"wilson_interval needs 0 <= count <= n, got {count}/{n}")
    p = count / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def permutation_test(
    a: Sequence[float],
    b: Sequence[float],
    reshuffles: int = PERMUTATION_RESHUFFLES,
    seed: int = PERMUTATION_SEED,
) -> float:
    """Two-sided permutation test on the difference of means of `a` and `b`.

    Returns (extreme + 1) / (reshuffles + 1), counting reshuffles whose absolute
    difference is at least the observed one; the +1 keeps p above zero, since the
    observed labelling is itself one of the possible arrangements.
    """
    a_values = np.asarray(a, dtype=float)
    b_values = np.asarray(b, dtype=float)
    if a_values.size == 0 or b_values.size == 0:
        raise ValueError("permutation_test needs two non-empty samples")
    pooled = np.concatenate([a_values, b_values])
    size_a = a_values.size
    observed = abs(a_values.mean() - b_values.mean())
    # Tolerance so that ties with the observed difference count as extreme despite rounding.
    tolerance = 1e-12 * max(1.0, abs(observed))
    rng = np.random.default_rng(seed)
    extreme = 0
    batch = 2000
    done = 0
    while done < reshuffles:
        rows = min(batch, reshuffles - done)
        keys = rng.random((rows, pooled.size))
        order = np.argsort(keys, axis=1)
        shuffled = pooled[order]
        diffs = np.abs(shuffled[:, :size_a].mean(axis=1) - shuffled[:, size_a:].mean(axis=1))
        extreme += int(np.count_nonzero(diffs >= observed - tolerance))
        done += rows
    return (extreme + 1) / (reshuffles + 1)


def mcnemar_exact(b: int, c: int) -> float:
    """Exact two-sided McNemar test: the discordant pairs `b` (gains) and `c` (losses)
    against Binomial(b + c, 1/2). No discordant pairs gives p = 1."""
    if b < 0 or c < 0:
        raise ValueError(f"mcnemar_exact needs non-negative counts, got b={b}, c={c}")
    n = b + c
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, i) for i in range(min(b, c) + 1)) / 2**n
    return min(1.0, 2 * tail)
