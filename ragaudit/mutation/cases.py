"""The case file as `ragaudit mutate` reads it: the audit's (ragaudit.auditing.cases), where
each intent must name the answer its expected document states (`answer:`) and may name the
entity its question is about (`anchor:`).

An intent's answer must appear verbatim in one of its expected sources; the first that holds
it is the document its mutants change. An intent without an answer, or whose sources do not
hold it, is refused in one line naming the intent, before anything is embedded."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ragaudit.auditing.cases import (
    WHAT,
    Case,
    CasesSource,
    IntentSpec,
    read_case_file,
    resolve_cases,
)
from ragaudit.documents import Document
from ragaudit.errors import RagauditError
from ragaudit.fileio.lines import line_of
from ragaudit.mutation.text import find_whole_value, holds


@dataclass(frozen=True)
class MutationIntent:
    """One intent, resolved: its phrasings as audit cases and where its answer sits."""

    name: str
    answer: str
    anchor: str | None
    cases: tuple[Case, ...]
    doc_id: str
    """The first expected source that holds the answer: the document mutants change."""
    answer_start: int
    """Where the answer first appears in that document."""
    line: int | None

    @property
    def answer_end(self) -> int:
        return self.answer_start + len(self.answer)

    @property
    def expected_sources(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(s for c in self.cases for s in c.expected_sources))


def load_mutation_cases(source: CasesSource, documents: list[Document]) -> list[MutationIntent]:
    """Read, validate and resolve a case file (or intents given in Python) against the
    corpus `documents`."""
    spec, path, lines = read_case_file(source)
    cases = resolve_cases(spec, path, lines)
    by_id = {doc.doc_id: doc for doc in documents}
    intents = []
    for i, intent in enumerate(spec.intents):

        def where(field: str, i: int = i) -> str:
            at = line_of(("intents", i, field), lines) or line_of(("intents", i), lines)
            return f"{WHAT} {path}: line {at}: intents[{i}].{field}"

        if intent.answer is None:
            raise RagauditError(
                f"{where('answer')}: intent {intent.intent!r} names no answer: mutate needs "
                "the value its expected document states, verbatim"
            )
        own = tuple(c for c in cases if c.intent == intent.intent)
        intents.append(_resolve(intent, own, by_id, where, line_of(("intents", i), lines)))
    return intents


def _resolve(
    intent: IntentSpec,
    cases: tuple[Case, ...],
    by_id: dict[str, Document],
    where: Callable[[str], str],
    line: int | None,
) -> MutationIntent:
    sources = list(dict.fromkeys(s for c in cases for s in c.expected_sources))
    for source in sources:
        if source not in by_id:
            raise RagauditError(
                f"{where('expect')}: intent {intent.intent!r} expects unknown source id {source!r}"
            )
    holder = next((s for s in sources if holds(by_id[s].text, intent.answer)), None)
    if holder is None:
        raise RagauditError(
            f"{where('answer')}: intent {intent.intent!r}: answer {intent.answer!r} appears in "
            f"none of its expected sources ({', '.join(sources)})"
        )
    start = find_whole_value(intent.answer, by_id[holder].text)
    if intent.anchor is not None and intent.anchor not in by_id[holder].text:
        raise RagauditError(
            f"{where('anchor')}: intent {intent.intent!r}: anchor {intent.anchor!r} does not "
            f"appear in {holder}"
        )
    return MutationIntent(intent.intent, intent.answer, intent.anchor, cases, holder, start, line)
