"""A changed copy of the expected document planted beside it, as near_duplicate and
supersede plant one: where the answer stands in it, and the plan that says which of the two
copies holds the right value (the other's is the trap)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from ragaudit.mutation.edits import Edit
from ragaudit.mutation.operator import Plan, Target
from ragaudit.mutation.text import find_whole_value


def answer_places(answer: str, text: str) -> list[tuple[int, int]]:
    """Every (start, end) where `answer` stands in `text` as a value of its own."""
    places = []
    start = find_whole_value(answer, text)
    while start != -1:
        places.append((start, start + len(answer)))
        start = find_whole_value(answer, text, start + len(answer))
    return places


def changed_copy_plan(
    operator: str,
    target: Target,
    new: str,
    rule: str,
    edits: Sequence[Edit],
    right: Literal["original", "mutant"],
) -> Plan:
    """The plan of a copy of `target`'s document, added beside it with its answer changed
    to `new` by `edits`: the `right` copy's value is accepted and its answer's sentence is
    gold; the other copy's value is the trap, and its sentence the trap span."""
    intent, sentence = target.intent, target.sentence
    wrong = "mutant" if right == "original" else "original"
    accepted, trapped = (intent.answer, new) if right == "original" else (new, intent.answer)
    return Plan(
        operator,
        intent.name,
        "added",
        target.doc.doc_id,
        rule=rule,
        expect="answer",
        accept=(accepted,),
        traps=(trapped,),
        edits=tuple(edits),
        gold=((right, *sentence, "gold"),),
        trap=((wrong, *sentence, "trap"),),
        checks={"old": intent.answer, "new": new},
    )
