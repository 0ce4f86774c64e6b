"""What a gated cell could have detected: the smallest drop that its n finds with 80% power.

The power model (docs/gating.md): of the m instances that pass in the baseline, each turns
into a fail independently with probability d, and none that failed turns into a pass (no
gains). The losses L are then Binomial(m, d) and the one-sided exact McNemar p with no gains
is (1/2)^L, significant at alpha once L reaches `losses_needed(alpha)`. The power is
P(L >= that), and the detectable drop is the smallest d with power >= 80%, in points of the
cell's pass rate: 100 * d * m / n.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

POWER = 0.8


def losses_needed(alpha: float) -> int:
    """The fewest losses, with no gains, whose one-sided p = (1/2)^L is at most alpha."""
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be between 0 and 1, got {alpha}")
    return max(1, math.ceil(math.log2(1 / alpha) - 1e-12))


def power(passes: int, d: float, alpha: float) -> float:
    """P(Binomial(passes, d) >= losses_needed(alpha)): the chance the test sees the drop."""
    need = losses_needed(alpha)
    if need > passes:
        return 0.0
    return sum(
        math.comb(passes, k) * d**k * (1 - d) ** (passes - k) for k in range(need, passes + 1)
    )


@dataclass(frozen=True)
class Detectable:
    """The smallest drop a cell could detect."""

    n: int
    """Paired instances in the cell."""
    passes: int
    """Of them, those passing in the baseline (the ones that can be lost)."""
    alpha: float
    losses_needed: int
    d: float | None
    """The smallest per-pass loss probability with 80% power; None when no drop can be
    significant (fewer baseline passes than losses_needed)."""

    @property
    def points(self) -> float | None:
        """The expected drop of the pass rate at d, in percentage points."""
        return None if self.d is None or not self.n else 100 * self.d * self.passes / self.n


def detectable_drop(n: int, passes: int, alpha: float, target: float = POWER) -> Detectable:
    """The smallest d with power(passes, d, alpha) >= target, by bisection to 1e-9 (power
    grows with d)."""
    need = losses_needed(alpha)
    if need > passes:
        return Detectable(n, passes, alpha, need, None)
    low, high = 0.0, 1.0
    while high - low > 1e-9:
        mid = (low + high) / 2
        low, high = (low, mid) if power(passes, mid, alpha) >= target else (mid, high)
    return Detectable(n, passes, alpha, need, high)
