"""supersede: a newer revision of the expected document is added beside it, its answer
value changed by a stated rule and an explicit revision line on top. The new value is right;
the old value, still in the old document, is the trap. A value written in two forms
(`five minutes (5min)`) changes in both."""

from __future__ import annotations

from ragaudit.mutation.changed_copy import answer_places, changed_copy_plan
from ragaudit.mutation.edits import Edit
from ragaudit.mutation.operator import Context, NotApplicable, Operator, Plan, Target, declare
from ragaudit.mutation.value_forms import value_change
from ragaudit.values.dates import MONTHS

NAME = "supersede"


def revision_line(context: Context, doc_id: str) -> str:
    """The revision and effective-date line of the new revision (one per document)."""
    rng = context.rng(NAME, doc_id)
    day, month, year = rng.randint(1, 28), MONTHS[rng.randrange(12)], rng.randint(2026, 2027)
    return (
        f"Revision {rng.randint(2, 5)}, effective {day} {month} {year}. This revision "
        "supersedes every earlier version of this document.\n\n"
    )


def plan(target: Target, context: Context) -> Plan | NotApplicable:
    """Copy the document, replace every occurrence of the answer, put the revision on top."""
    intent, text = target.intent, target.doc.text
    others = [i.answer for i in context.others(intent)]
    change = value_change(intent.answer, text, context.rng(NAME, intent.name), others)
    if isinstance(change, str):
        return NotApplicable(NAME, intent.name, change)
    new, rule = change.new, change.rule
    edits = [Edit(0, 0, revision_line(context, target.doc.doc_id), "revision", intent.name)]
    edits += [Edit(s, e, new, "value", intent.name) for s, e in answer_places(intent.answer, text)]
    edits += [Edit(s, e, form, "value", intent.name) for s, e, form in change.paired]
    value_rule = f"{intent.answer!r} -> {new!r} ({rule})"
    return changed_copy_plan(NAME, target, new, value_rule, edits, right="mutant")


PROBE = declare(NAME, "a newer revision of the answer's document with a changed value")
OPERATOR = Operator(NAME, plan, "new_revision_first", PROBE)
