"""Production's constants beside evaluation's, one row per constant: both values with
their file:line, whether they differ, which side is looser (the settings comparison's
directions), and the constants found on one side only."""

from __future__ import annotations

from dataclasses import dataclass

from ragaudit.drift.directions import direction, looser
from ragaudit.drift.found import Found
from ragaudit.drift.patterns import CANONICAL

SIDES = {"left": "production", "right": "evaluation"}


@dataclass(frozen=True)
class Row:
    """One constant compared across the two files."""

    constant: str
    production: Found | None
    evaluation: Found | None
    looser: str | None
    """"production", "evaluation", or None (equal, one side only, or a different stack)."""
    why: str

    @property
    def differs(self) -> bool:
        """True when the values differ or only one side sets the constant."""
        if self.production is None or self.evaluation is None:
            return True
        return self.production.value != self.evaluation.value

    @property
    def one_side_only(self) -> bool:
        return self.production is None or self.evaluation is None


def base_constant(key: str) -> str:
    """`k (retrieve(k=))` -> `k`: the constant whose direction a restated key follows."""
    return key.split(" (", 1)[0]


def _order(key: str, first_seen: dict[str, int]) -> tuple[int, int]:
    base = base_constant(key)
    canonical_rank = CANONICAL.index(base) if base in CANONICAL else len(CANONICAL)
    return canonical_rank, first_seen[key]


def compare_constants(production: dict[str, Found], evaluation: dict[str, Found]) -> list[Row]:
    """Every constant either side sets, the canonical ones first in a fixed order, then
    truncations as they appear (production's first)."""
    first_seen: dict[str, int] = {}
    for index, key in enumerate([*production, *evaluation]):
        first_seen.setdefault(key, index)
    rows = []
    for key in sorted(first_seen, key=lambda key: _order(key, first_seen)):
        prod, test = production.get(key), evaluation.get(key)
        side = None
        if prod is not None and test is not None and prod.value != test.value:
            side = SIDES.get(looser(base_constant(key), prod.value, test.value) or "")
        rows.append(Row(key, prod, test, side, direction(base_constant(key))[1]))
    return rows
