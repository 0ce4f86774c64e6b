"""Corpora for a column that must be rebuilt per corpus (a user's retriever, a `pipeline:`):
mutants may share one only when none of them changes, adds or removes a document that
another intent of that corpus expects or holds the answer of. As few corpora as a greedy
pass allows; each is one build (or ingest) of the user's code."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ragaudit.documents import Document
from ragaudit.mutation.cases import MutationIntent
from ragaudit.mutation.grouping import Mutant
from ragaudit.mutation.text import holds


@dataclass
class MutantGroup:
    """Mutants (of any operators) that can share one corpus: the user's corpus with every
    one of their changes."""

    mutants: list[Mutant]

    def documents(self, base: Sequence[Document]) -> list[Document]:
        dropped = {d for m in self.mutants for d in m.dropped}
        added = [d for m in self.mutants for d in m.added]
        return [d for d in base if d.doc_id not in dropped] + added


def protected_documents(intent: MutationIntent, documents: Sequence[Document]) -> set[str]:
    """What no other mutant of the intent's corpus may touch: its expected sources and
    every document holding its answer."""
    return set(intent.expected_sources) | {
        d.doc_id for d in documents if holds(d.text, intent.answer)
    }


def interferes(mutant: Mutant, intent: MutationIntent, protected: set[str]) -> bool:
    """Whether `mutant`'s change reaches `intent`'s records: it touches a document the
    intent relies on, or adds one stating the intent's answer or anchor."""
    if mutant.intent == intent.name or mutant.touched & protected:
        return True
    said = [v for v in (intent.answer, intent.anchor) if v]
    return any(holds(doc.text, v) for doc in mutant.added for v in said)


def group_mutants(
    mutants: Sequence[Mutant], intents: Sequence[MutationIntent], documents: Sequence[Document]
) -> list[MutantGroup]:
    """The applied `mutants` in as few non-interfering groups as a first-fit pass finds
    (in the order given: operator order, then intent order)."""
    by_name = {i.name: i for i in intents}
    protected = {i.name: protected_documents(i, documents) for i in intents}
    groups: list[MutantGroup] = []
    for mutant in mutants:
        mine = by_name[mutant.intent]
        for group in groups:
            clash = any(
                interferes(mutant, by_name[o.intent], protected[o.intent])
                or interferes(o, mine, protected[mine.name])
                for o in group.mutants
            )
            if not clash:
                group.mutants.append(mutant)
                break
        else:
            groups.append(MutantGroup([mutant]))
    return groups
