"""The gate's statistics against values derived by hand: the one-sided exact McNemar,
Holm's correction, and the power table of docs/gating.md (n = 5, 25, 100 at alpha 0.05).

Power model: each of the n baseline passes is lost with probability d, no gains, so L
losses are Binomial(n, d), and with no gains p = (1/2)^L: significant at 0.05 from L = 5.
At n = 5 the power is d^5, so the detectable d is 0.8 ** (1/5). For n = 25 and 100 the
table's d is checked by the tail written out here: the power crosses 0.8 between
d - 0.0005 and d + 0.0005.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest

from ragaudit.gating.mcnemar import holm, mcnemar_one_sided
from ragaudit.gating.power import detectable_drop, losses_needed

DOC = Path(__file__).parents[1] / "docs" / "gating.md"


def tail_at_least_5(n: int, d: float) -> float:
    """P(Binomial(n, d) >= 5) as 1 - P(L <= 4), summed term by term."""
    return 1 - sum(math.comb(n, k) * d**k * (1 - d) ** (n - k) for k in range(5))


def test_one_sided_mcnemar_by_hand():
    assert mcnemar_one_sided(5, 0) == 1 / 32  # 0.03125
    assert mcnemar_one_sided(4, 0) == 1 / 16
    assert mcnemar_one_sided(6, 1) == 8 / 128  # 0.0625: the boundary row B → A_prime
    assert mcnemar_one_sided(1, 6) == 127 / 128  # gains are no evidence of a loss
    assert mcnemar_one_sided(0, 0) == 1.0


def test_holm_by_hand():
    # sorted 0.01, 0.03, 0.04: 3 * 0.01, max(0.03, 2 * 0.03), max(0.06, 1 * 0.04)
    assert holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])
    assert holm([0.6, 0.6]) == [1.0, 1.0]
    assert holm([]) == []


def test_losses_needed():
    assert losses_needed(0.05) == 5  # (1/2)^4 = 0.0625 > 0.05 >= (1/2)^5
    assert losses_needed(0.03125) == 5
    assert losses_needed(0.01) == 7  # (1/2)^6 = 0.0156
    assert losses_needed(0.5) == 1


@pytest.mark.parametrize(
    ("n", "d", "points"), [(5, 0.956, 95.6), (25, 0.254, 25.4), (100, 0.0663, 6.6)]
)
def test_the_detectable_drop_table(n, d, points):
    found = detectable_drop(n, n, 0.05)
    assert found.d == pytest.approx(d, abs=0.0005)
    assert round(found.points, 1) == points
    if n == 5:
        assert found.d == pytest.approx(0.8 ** (1 / 5), abs=1e-6)
    assert tail_at_least_5(n, d - 0.0005) < 0.8 < tail_at_least_5(n, d + 0.0005)


def test_the_doc_holds_the_same_table():
    rows = re.findall(r"^\| (\d+) \| [^|]+ \| ([\d.]+) \| ([\d.]+) \|$", DOC.read_text(), re.M)
    assert rows == [("5", "0.956", "95.6"), ("25", "0.254", "25.4"), ("100", "0.0663", "6.6")]


def test_too_few_baseline_passes_can_show_no_drop():
    found = detectable_drop(25, 4, 0.05)
    assert found.d is None and found.points is None
    # m = 10 of n = 20 pass: the drop is d * 10 / 20 of the rate
    half = detectable_drop(20, 10, 0.05)
    assert half.points == pytest.approx(100 * half.d * 10 / 20)
