"""Statistics checked against independent references: published Wilson intervals, exact
binomial tails, and exact enumeration of every split for the permutation test."""

from __future__ import annotations

import itertools
import math

import pytest

from ragaudit.analysis.stats import mcnemar_exact, permutation_test, wilson_interval


@pytest.mark.parametrize(
    ("count", "n", "expected"),
    [
        (19, 25, (0.5657, 0.8850)),  # Newcombe (1998) style reference values, 4 d.p.
        (0, 10, (0.0, 0.2775)),
        (10, 10, (0.7225, 1.0)),
        (5, 10, (0.2366, 0.7634)),
    ],
)
def test_wilson_interval_matches_reference_values(count, n, expected):
    lo, hi = wilson_interval(count, n)
    assert lo == pytest.approx(expected[0], abs=1e-4)
    assert hi == pytest.approx(expected[1], abs=1e-4)


def test_wilson_interval_refuses_an_empty_denominator():
    with pytest.raises(ValueError, match="n > 0"):
        wilson_interval(0, 0)


@pytest.mark.parametrize(
    ("b", "c", "expected"),
    [(0, 5, 0.0625), (0, 10, 2 / 1024), (1, 9, 2 * 11 / 1024), (3, 3, 1.0), (0, 0, 1.0)],
)
def test_mcnemar_exact_is_the_two_sided_binomial_tail(b, c, expected):
    assert mcnemar_exact(b, c) == pytest.approx(expected)
    assert mcnemar_exact(c, b) == pytest.approx(expected)


def _exact_permutation_p(a, b):
    pooled = list(a) + list(b)
    observed = abs(sum(a) / len(a) - sum(b) / len(b))
    extreme = total = 0
    for chosen in itertools.combinations(range(len(pooled)), len(a)):
        left = [pooled[i] for i in chosen]
        right = [pooled[i] for i in range(len(pooled)) if i not in chosen]
        diff = abs(sum(left) / len(left) - sum(right) / len(right))
        extreme += diff >= observed - 1e-12
        total += 1
    return extreme / total


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ([0.61, 0.64, 0.70, 0.72, 0.75], [0.71, 0.80, 0.82, 0.85, 0.90]),
        ([0.5, 0.9, 0.7, 0.6, 0.8], [0.55, 0.85, 0.65, 0.75, 0.7]),
    ],
)
def test_permutation_test_agrees_with_exact_enumeration(a, b):
    exact = _exact_permutation_p(a, b)
    estimated = permutation_test(a, b)
    # 20,000 reshuffles: the Monte Carlo standard error is at most 0.0036.
    assert abs(estimated - exact) < 0.015


def test_permutation_test_is_reproducible_from_its_seed_and_two_sided():
    a, b = [0.4, 0.45, 0.5, 0.42, 0.48], [0.8, 0.82, 0.79, 0.9, 0.85]
    assert permutation_test(a, b, seed=17) == permutation_test(a, b, seed=17)
    assert permutation_test(a, b) == pytest.approx(permutation_test(b, a), abs=0.01)
    # Complete separation of 5 vs 5: exact two-sided p = 2/252.
    assert permutation_test(a, b) == pytest.approx(2 / math.comb(10, 5), abs=0.004)
