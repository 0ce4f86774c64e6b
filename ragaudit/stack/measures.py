"""The measures particular to one built-in probe, as its `Diagnostic` declarations name them.

Each takes a `Measurement` (one instance under one config) and returns its field's value.
"""

from __future__ import annotations

from ragaudit.stack import diagnostics
from ragaudit.stack.diagnostics import Measurement

HOP_ROLES = ("mapping", "answer")


def header_in_answer_chunk(m: Measurement) -> bool:
    """boundary: the section header shares one chunk with the answer (both whole)."""
    return diagnostics.header_in_answer_chunk(m.instance, m.view)


def table_together(m: Measurement) -> bool | None:
    """table_split: the header row and the answer row lie whole inside one chunk."""
    return diagnostics.table_together(m.instance, m.view)


def hops(m: Measurement) -> dict[str, bool | None]:
    """multihop: each hop's sentences arrived (None for a hop the instance lacks)."""
    return {
        role: m.all_retrieved(spans) if spans else None
        for role in HOP_ROLES
        for spans in [m.spans(role)]
    }


def items_in_context(m: Measurement) -> int:
    """summarisation: how many of the required items arrived."""
    items = m.spans("item") or list(m.instance.gold_spans)
    return sum(m.all_retrieved([span]) for span in items)


def crowding_margin(m: Measurement) -> float | None:
    """duplicate_crowding: the target's score minus the best near-identical copy's."""
    copy_hit = m.best(m.spans("copy") or list(m.instance.trap_spans))
    gold_score = m.common["gold_score"]
    if gold_score is None or copy_hit is None:
        return None
    return gold_score - copy_hit.score


def affirmative_first(m: Measurement) -> bool | None:
    """negation: the affirmative twin arrived above the negated gold."""
    gold, traps = list(m.instance.gold_spans), list(m.instance.trap_spans)
    return diagnostics.affirmative_first(gold, traps, m.retrieved, m.chunks)
