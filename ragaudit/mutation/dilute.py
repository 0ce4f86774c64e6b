"""dilute: unrelated sections of the user's corpus are appended to the expected document
until it is DILUTION_FACTOR times longer (the originating study's long-document dilution,
planted). It measures the expected document's rank and the answer."""

from __future__ import annotations

from ragaudit.mutation.edits import Edit
from ragaudit.mutation.operator import (
    Context,
    NotApplicable,
    Operator,
    Plan,
    Target,
    avoided,
    declare,
    every_answer_and_anchor,
)

NAME = "dilute"
DILUTION_FACTOR = 4


def sections(context: Context, doc_id: str) -> list[str]:
    """Paragraphs of the other documents holding no answer or anchor, shuffled per document."""
    found = sorted({part for owner, part in context.memo(("sections",), lambda: _all(context))
                    if owner != doc_id})  # fmt: skip
    context.rng(NAME, doc_id).shuffle(found)
    return found


def _all(context: Context) -> list[tuple[str, str]]:
    """(document id, paragraph) of every long paragraph holding no answer or anchor."""
    holds_avoided = avoided(every_answer_and_anchor(context))
    return [
        (doc.doc_id, part.strip())
        for doc in context.documents
        for part in doc.text.split("\n\n")
        if len(part.split()) >= 8 and not holds_avoided(part)
    ]


def plan(target: Target, context: Context) -> Plan | NotApplicable:
    """Append sections until the document is DILUTION_FACTOR times its length."""
    intent, doc = target.intent, target.doc
    wanted = (DILUTION_FACTOR - 1) * len(doc.text)
    chosen, length = [], 0
    for section in sections(context, doc.doc_id):
        if length >= wanted:
            break
        chosen.append(section)
        length += len(section) + 2
    if length < wanted:
        return NotApplicable(
            NAME,
            intent.name,
            f"the corpus holds too little unrelated text to make it {DILUTION_FACTOR}x longer",
        )
    added = "\n\n" + "\n\n".join(chosen)
    end = len(doc.text)
    return Plan(
        NAME,
        intent.name,
        "in_place",
        doc.doc_id,
        rule=f"{len(chosen)} unrelated sections appended ({len(added)} characters)",
        expect="answer",
        accept=(intent.answer,),
        edits=(Edit(end, end, added, "section", intent.name),),
        gold=(("mutant", *target.sentence, "gold"),),
        checks={"factor": DILUTION_FACTOR},
    )


PROBE = declare(
    NAME, f"the answer's document made {DILUTION_FACTOR}x longer with unrelated sections"
)
OPERATOR = Operator(NAME, plan, "gold_in_context", PROBE)
