"""remove_answer: the answer's documents are removed, with every other document holding the
answer string. The right behaviour is to abstain; an answer given anyway is a fabrication."""

from __future__ import annotations

from ragaudit.mutate.operator import Context, NotApplicable, Operator, Plan, Target, declare
from ragaudit.mutate.text import holds

NAME = "remove_answer"


def plan(target: Target, context: Context) -> Plan | NotApplicable:
    """Every document holding the answer string goes."""
    answer = target.intent.answer
    removed = tuple(d.doc_id for d in context.documents if holds(d.text, answer))
    if len(removed) == len(context.documents):
        return NotApplicable(NAME, target.intent.name, "every document holds the answer")
    return Plan(
        NAME,
        target.intent.name,
        "removed",
        target.doc.doc_id,
        rule=f"{len(removed)} document(s) holding {answer!r} removed",
        expect="abstain",
        traps=(answer,),
        removed=removed,
    )


PROBE = declare(NAME, "the answer's documents removed: the right reply is an abstention")
OPERATOR = Operator(NAME, plan, "nothing_retrieved", PROBE)
