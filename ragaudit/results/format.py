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

from ragaudit.analysis.attribution import ATTRIBUTIONS
from ragaudit.results.view import cell_attribution, cell_measure, measure_ran

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


NOT_MEASURED = "not measured in this file"
"""A field the results file predates."""


def fmt_window(entry: dict | None) -> str:
    """One (embedder, chunking) index's chunks against the embedder's input window, e.g.
    `3 of 796 chunks of recursive-1000-0 exceed local:minilm's 256-token window; only
    their first 256 tokens are embedded (longest: 310 tokens)`. `entry` is a `run.indexes`
    entry (or the audit's `index`); one that predates the window fields reads
    `not measured in this file`."""
    if not entry or "window_basis" not in entry:
        named = [entry.get(k) for k in ("embedder", "chunking") if (entry or {}).get(k)]
        where = f"{' on '.join(named)}: " if named else ""
        return f"{where}input window {NOT_MEASURED}"
    spec, chunking, window = entry["embedder"], entry["chunking"], entry["window_tokens"]
    if entry["over_window"] is None:
        return (
            f"{entry['chunks']} chunks of {chunking} not measured against {spec}'s input "
            f"window: {entry.get('over_window_reason') or 'no reason recorded'}"
        )
    estimated = entry["window_basis"] == "estimated"
    count = f"{'an estimated ' if estimated else ''}{entry['over_window']} of {entry['chunks']}"
    verb = "exceeds" if entry["over_window"] == 1 else "exceed"
    text = f"{count} chunks of {chunking} {verb} {spec}'s {window}-token window"
    if entry["over_window"]:
        text += "; " + _past_window(entry["window_overflow"], window, entry["over_window"])
    text += f" (longest: {entry['longest_tokens']} tokens"
    if estimated:
        text += ", counted with another model's tokenizer"
    return text + ")"


def _past_window(overflow: str, window: int, over: int) -> str:
    if overflow == "truncated":
        return f"only {'its' if over == 1 else 'their'} first {window} tokens are embedded"
    if overflow == "windowed":
        return f"each is embedded whole as the mean of {window}-token windows, diluting it"
    return "what the model does past its window is not recorded"


def fmt_chunk_window(tokens: int, entry: dict) -> str:
    """One chunk past its embedder's window, for a list of retrieved chunks:
    `310 tokens, over the 256-token window: only the first 256 embedded`."""
    estimated = " (estimated)" if entry.get("window_basis") == "estimated" else ""
    window = entry["window_tokens"]
    rest = {
        "truncated": f"only the first {window} embedded",
        "windowed": f"embedded as the mean of {window}-token windows",
    }.get(entry.get("window_overflow"), "what happens past it is not recorded")
    return f"{tokens} tokens{estimated}, over the {window}-token window: {rest}"


def fmt_attribution(cell: dict | None) -> str:
    """A cell's failure attribution in one line, every count over the cell's n:
    `retrieval 40% 2/5, generation 20% 1/5, ceiling 20% 1/5, correct 20% 1/5, failed_call
    0% 0/5`; `not run` where generation did not run on the cell, `not measured in this file`
    where the file predates oracle contexts."""
    if cell is None or not cell.get("generated"):
        return NOT_RUN
    attribution = cell_attribution(cell)
    if attribution is None:
        return NOT_MEASURED
    return ", ".join(f"{name} {fmt_measure(attribution.get(name))}" for name in ATTRIBUTIONS)
