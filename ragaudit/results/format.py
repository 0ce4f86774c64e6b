"""How a figure read from a results file is written for a person. The report, every
inspector page and the audit's table call these, so one cell reads the same everywhere.

The rounding rule: a rate becomes a whole percentage from the decimal number as it is
written in the results file, rounded half up. 5/8 = 0.625 reads 63%, 1/8 = 0.125 reads
13%, 2/3 reads 67%. Not Python's `round` or `:.0%`: those round a half to even and work
on the binary float, so they print 62% and 12%.

Absent values: a measure recorded as null (the file gives the reason beside it) reads
`n/a`; a cell, or a stage of it, that did not run reads `not run`.
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

from ragaudit.results.view import cell_measure, measure_ran

ABSENT = "n/a"
"""A measure, rate or p-value the results file records as null."""
NOT_RUN = "not run"
"""A cell, or the stage that fills a measure, that did not run."""


def _as_written(value: float) -> Decimal:
    # The shortest decimal that is the same float: what the JSON file holds, so 0.835
    # rounds from 0.835 and not from the binary 0.83499999…
    return Decimal(repr(float(value)))


def percent(rate: float) -> int:
    """A rate as a whole percentage, halves rounded up: 0.625 -> 63, 0.245 -> 25."""
    return int(_as_written(rate).scaleb(2).quantize(Decimal(1), rounding=ROUND_HALF_UP))


def fmt_interval(wilson: list | tuple | None) -> str:
    """A recorded interval as `[31–86%]`; `n/a` when none is recorded."""
    if not wilson:
        return ABSENT
    low, high = wilson
    return f"[{percent(low)}–{percent(high)}%]"


def fmt_ratio(count: int, n: int, wilson: list | tuple | None = None) -> str:
    """`76% 19/25`, with ` [57–89%]` after it when an interval is given; `n/a 0/0` for n = 0."""
    if not n:
        return f"{ABSENT} {count}/{n}"
    text = f"{percent(count / n)}% {count}/{n}"
    return f"{text} {fmt_interval(wilson)}" if wilson else text


def fmt_measure(measure: dict | None, *, interval: bool = False) -> str:
    """A recorded measure as `63% 5/8` (with its Wilson interval when asked); `n/a` for null."""
    if measure is None:
        return ABSENT
    wilson = measure.get("wilson") if interval else None
    return fmt_ratio(measure["count"], measure["n"], wilson)


def fmt_cell(cell: dict | None, measure: str, *, interval: bool = False) -> str:
    """One probe x config cell of one measure: `not run` when the cell, or the stage that
    fills the measure, did not run; else `fmt_measure` of what the cell records."""
    if cell is None or not measure_ran(cell, measure):
        return NOT_RUN
    return fmt_measure(cell_measure(cell, measure), interval=interval)


def fmt_p(p: float | None) -> str:
    """A p-value to four decimals (halves up, as rates), `< 0.0001` below that; `n/a` for null."""
    if p is None:
        return ABSENT
    if p < 0.0001:
        return "< 0.0001"
    return str(_as_written(p).quantize(Decimal("0.0001"), rounding=ROUND_HALF_UP))
