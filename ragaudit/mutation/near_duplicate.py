"""near_duplicate: a copy of the expected document about another entity is added, with a
different value: the anchor is replaced by another intent's anchor or, with no anchor, a
qualifier of the answer's sentence is changed (mutation.anchors fits the new anchor to the
words around it). The original value is right; the copy's value is the trap, changed in
every form it is written in (`five minutes (5min)`)."""

from __future__ import annotations

import re

from ragaudit.mutation.anchors import anchor_pattern, anchor_swap, capital_is_its_own
from ragaudit.mutation.changed_copy import answer_places, changed_copy_plan
from ragaudit.mutation.edits import Edit
from ragaudit.mutation.operator import Context, NotApplicable, Operator, Plan, Target, declare
from ragaudit.mutation.value_forms import value_change

NAME = "near_duplicate"
QUALIFIERS = (
    ("north", "south"), ("east", "west"), ("first", "second"), ("annual", "monthly"),
    ("senior", "junior"), ("internal", "external"), ("primary", "secondary"),
    ("weekday", "weekend"), ("upper", "lower"), ("domestic", "international"),
    ("full-time", "part-time"), ("day", "night"), ("standard", "premium"),
)  # fmt: skip
"""Qualifier pairs a copy without an anchor swaps (either way)."""


def _anchor_edits(target: Target, context: Context) -> tuple[list[Edit], str] | str:
    intent, text = target.intent, target.doc.text
    if intent.anchor:
        others = sorted({i.anchor for i in context.others(intent) if i.anchor} - {intent.anchor})
        others = [a for a in others if a not in text and intent.anchor not in a]
        if not others:
            return "no other intent's anchor to put in its place"
        other = context.rng(NAME, intent.name).choice(others)
        name = context.memo(
            ("capital", other), lambda: capital_is_its_own(other, context.documents)
        )
        edits = [
            Edit(*anchor_swap(text, m, other, name), "anchor", intent.name)
            for m in anchor_pattern(intent.anchor).finditer(text)
        ]
        return edits, f"anchor {intent.anchor!r} -> {other!r}"
    start, end = target.sentence
    sentence = text[start:end]
    for a, b in QUALIFIERS:
        for old, new in ((a, b), (b, a)):
            m = re.search(rf"\b{re.escape(old)}\b", sentence, re.IGNORECASE)
            if m and old.lower() not in intent.answer.lower():
                word = new.capitalize() if m.group()[0].isupper() else new
                edit = Edit(start + m.start(), start + m.end(), word, "qualifier", intent.name)
                return [edit], f"qualifier {m.group()!r} -> {word!r}"
    return "no anchor given and no qualifier (north/south, first/second, ...) in its sentence"


def plan(target: Target, context: Context) -> Plan | NotApplicable:
    """A copy with the entity (or a qualifier) and the value changed."""
    intent, text = target.intent, target.doc.text
    entity = _anchor_edits(target, context)
    if isinstance(entity, str):
        return NotApplicable(NAME, intent.name, entity)
    edits, entity_rule = entity
    others = [i.answer for i in context.others(intent)]
    change = value_change(intent.answer, text, context.rng(NAME, "value/" + intent.name), others)
    if isinstance(change, str):
        return NotApplicable(NAME, intent.name, change)
    new, rule = change.new, change.rule
    taken = [(e.start, e.end) for e in edits]
    values = [(start, end, new) for start, end in answer_places(intent.answer, text)]
    for start, end, value in values + list(change.paired):
        if not any(s < end and start < e for s, e in taken):
            edits.append(Edit(start, end, value, "value", intent.name))
    value_rule = f"{entity_rule}; {intent.answer!r} -> {new!r} ({rule})"
    return changed_copy_plan(NAME, target, new, value_rule, edits, right="original")


PROBE = declare(NAME, "a near-copy of the answer's document about another entity")
OPERATOR = Operator(NAME, plan, "original_first", PROBE)
