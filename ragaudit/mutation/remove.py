"""remove_answer: the answer's fact is deleted from every document that states it (the
sentence, table row or line saying the answer of its anchor; mutation.facts), and nothing
else: a page that only shares the digits keeps them. The right behaviour is to abstain;
an answer given anyway is a fabrication."""

from __future__ import annotations

from collections.abc import Sequence

from ragaudit.documents import Document
from ragaudit.mutation.edits import Edit, apply_edits
from ragaudit.mutation.facts import Fact, find_facts, remaining_statements, removal_spans
from ragaudit.mutation.operator import Context, NotApplicable, Operator, Plan, Target, declare

NAME = "remove_answer"
MAX_DOCUMENTS_PERCENT = 5
"""A fact stated in more of the corpus's documents than this (one is always allowed) is
common knowledge there, not one fact to take away: the operator does not apply."""
SHOWN_LEFT = 5
"""What still states a removed answer, listed up to this many documents."""


def plan(target: Target, context: Context) -> Plan | NotApplicable:
    """Delete every statement of the answer about its anchor, in place, from each
    document holding one."""
    intent, doc_id = target.intent, target.doc.doc_id
    facts = find_facts(context.documents, intent.answer, intent.anchor, doc_id,
                       intent.answer_start)  # fmt: skip
    if not any(f.doc_id == doc_id for f in facts):
        return NotApplicable(
            NAME, intent.name,
            f"no sentence, row or line of {doc_id} states {intent.answer!r} at offset "
            f"{intent.answer_start}",
        )  # fmt: skip
    stating = list(dict.fromkeys(f.doc_id for f in facts))
    total = len(context.documents)
    if len(stating) > 1 and len(stating) * 100 > MAX_DOCUMENTS_PERCENT * total:
        return NotApplicable(
            NAME, intent.name,
            f"the fact is stated in {len(stating)} of {total} documents "
            f"(over {MAX_DOCUMENTS_PERCENT}%)",
        )  # fmt: skip
    edits = {d: _deletions(context.document(d).text, facts, d, intent.name) for d in stating}
    about = f" about {intent.anchor!r}" if intent.anchor else ""
    return Plan(
        NAME, intent.name, "in_place", doc_id,
        rule=f"{len(facts)} fact(s) stating {intent.answer!r}{about} removed from "
        f"{len(stating)} document(s)",
        expect="abstain", traps=(intent.answer,),
        edits=edits[doc_id],
        elsewhere=tuple((d, edits[d]) for d in stating if d != doc_id),
        checks={"removed_facts": [_record(f) for f in facts], "anchor": intent.anchor},
    )  # fmt: skip


def _deletions(text: str, facts: Sequence[Fact], doc_id: str, intent: str) -> tuple[Edit, ...]:
    mine = [f for f in facts if f.doc_id == doc_id]
    return tuple(Edit(s, e, "", "removed_fact", intent) for s, e in removal_spans(text, mine))


def _record(fact: Fact) -> dict:
    return {"doc_id": fact.doc_id, "start": fact.start, "end": fact.end, "text": fact.text,
            "kind": fact.kind}  # fmt: skip


def statements_left(
    plan: Plan, documents: Sequence[Document], originals: dict[str, Document]
) -> list[str]:
    """What still states the removed answer in a mutant's corpus (`documents`, its mutants
    standing for their `originals`), by the loose detector; [] when nothing does. Without
    an anchor: near where the answer's sentence was in the expected document's mutant, or
    any removed sentence written anywhere."""
    answer, anchor = plan.traps[0], plan.checks.get("anchor")
    if anchor:
        left = remaining_statements(documents, answer, anchor)
    else:
        mutant_id = next((m for m, d in originals.items() if d.doc_id == plan.doc_id), None)
        near: list[tuple[str, int]] = []
        if mutant_id is not None:
            moved = apply_edits(originals[mutant_id].text, plan.edits)
            near = [(mutant_id, moved.moved(edit.start)) for edit in plan.edits]
        else:  # the expected document unchanged: where its facts stand
            near = [(plan.doc_id, edit.start) for edit in plan.edits]
        sentences = [f["text"] for f in plan.checks["removed_facts"]]
        left = remaining_statements(documents, answer, None, near=near, sentences=sentences)
    if len(left) > SHOWN_LEFT:
        left = left[:SHOWN_LEFT] + [f"and {len(left) - SHOWN_LEFT} more document(s)"]
    return left


PROBE = declare(NAME, "the answer's fact removed: the right reply is an abstention")
OPERATOR = Operator(NAME, plan, "nothing_retrieved", PROBE)
