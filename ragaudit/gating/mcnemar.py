"""The one-sided exact McNemar test of a regression (losses against gains) and Holm's
step-down correction over the cells a gate tests.

One-sided because a gate asks one question, "did it get worse?": a run that gained
instances is not a failure, so the p-value is the chance of at least this many losses
among the discordant pairs if each were a fair coin's."""

from __future__ import annotations

import math
from collections.abc import Sequence


def mcnemar_one_sided(losses: int, gains: int) -> float:
    """P(X >= losses) for X ~ Binomial(losses + gains, 1/2); 1.0 with no discordant pair."""
    if losses < 0 or gains < 0:
        raise ValueError(f"needs non-negative counts, got losses={losses}, gains={gains}")
    n = losses + gains
    if n == 0:
        return 1.0
    return sum(math.comb(n, i) for i in range(losses, n + 1)) / 2**n


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm-adjusted p-values, in the input's order: the i-th smallest of m is multiplied
    by (m - i), made non-decreasing and capped at 1. Rejecting adjusted p <= alpha keeps the
    chance of any false alarm over all the cells at alpha."""
    m = len(p_values)
    order = sorted(range(m), key=lambda i: p_values[i])
    adjusted = [1.0] * m
    running = 0.0
    for rank, index in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p_values[index]))
        adjusted[index] = running
    return adjusted
