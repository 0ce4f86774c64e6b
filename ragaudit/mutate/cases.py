"""The mutation case file: audit's intents and phrasings, plus the answer each intent's
expected document states (`answer:`) and the entity its question is about (`anchor:`).

An intent's answer must appear verbatim in one of its expected sources; the first that holds
it is the document its mutants change. An intent whose sources do not hold it is refused in
one line naming the intent, before anything is embedded."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from ragaudit.audit.cases import Case, IntentSpec, PhrasingSpec
from ragaudit.documents import Document
from ragaudit.errors import RagauditError
from ragaudit.fileio.lines import line_of, load_with_lines, validate
from ragaudit.mutate.text import find_value, holds

WHAT = "mutation case file"


class MutationIntentSpec(IntentSpec):
    """An audit intent with the value its expected document states."""

    answer: str = Field(min_length=1)
    anchor: str | None = Field(default=None, min_length=1)


class MutationCaseFile(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    intents: list[MutationIntentSpec] = Field(min_length=1)


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


def load_mutation_cases(path: Path, documents: list[Document]) -> list[MutationIntent]:
    """Read, validate and resolve a mutation case file against the corpus `documents`."""
    path = Path(path)
    data, lines = load_with_lines(path, WHAT)
    spec = validate(MutationCaseFile, data, path, WHAT, lines)
    _unique_intents(spec, path, lines)
    by_id = {doc.doc_id: doc for doc in documents}
    intents = []
    seen_ids: set[str] = set()
    for i, intent in enumerate(spec.intents):
        cases = _cases(intent, i, path, lines, seen_ids)

        def where(field: str, i: int = i) -> str:
            at = line_of(("intents", i, field), lines) or line_of(("intents", i), lines)
            return f"{WHAT} {path}: line {at}: intents[{i}].{field}"

        intents.append(_resolve(intent, cases, by_id, where, line_of(("intents", i), lines)))
    return intents


def _unique_intents(spec: MutationCaseFile, path: Path, lines: dict) -> None:
    seen: set[str] = set()
    for i, intent in enumerate(spec.intents):
        if intent.intent in seen:
            at = line_of(("intents", i, "intent"), lines)
            raise RagauditError(
                f"{WHAT} {path}: line {at}: intents[{i}].intent: intent {intent.intent!r} "
                "appears twice"
            )
        seen.add(intent.intent)


def _cases(
    intent: MutationIntentSpec, i: int, path: Path, lines: dict, seen_ids: set[str]
) -> tuple[Case, ...]:
    """The intent's phrasings as audit cases (the same rules as `ragaudit audit`)."""
    out = []
    for j, raw in enumerate(intent.phrasings):
        loc = ("intents", i, "phrasings", j)
        where = f"{WHAT} {path}: line {line_of(loc, lines)}: intents[{i}].phrasings[{j}]"
        if not (raw if isinstance(raw, str) else raw.q).strip():
            raise RagauditError(f"{where}.q: the question is blank")
        phrasing = PhrasingSpec(q=raw) if isinstance(raw, str) else raw
        expect_all = phrasing.expect if phrasing.expect is not None else intent.expect
        expect_any = phrasing.expect_any if phrasing.expect_any is not None else intent.expect_any
        if not expect_all and not expect_any:
            raise RagauditError(
                f"{where}: names no expected source (give expect or expect_any here or on "
                "the intent)"
            )
        case_id = f"{intent.intent}/{phrasing.id or j + 1}"
        if case_id in seen_ids:
            raise RagauditError(f"{where}.id: case id {case_id!r} is used twice")
        seen_ids.add(case_id)
        out.append(
            Case(case_id, intent.intent, phrasing.q, tuple(expect_all or ()),
                 tuple(expect_any or ()), line_of(loc + ("q",), lines))
        )  # fmt: skip
    return tuple(out)


def _resolve(
    intent: MutationIntentSpec,
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
    start = find_value(by_id[holder].text, intent.answer)
    if intent.anchor is not None and intent.anchor not in by_id[holder].text:
        raise RagauditError(
            f"{where('anchor')}: intent {intent.intent!r}: anchor {intent.anchor!r} does not "
            f"appear in {holder}"
        )
    return MutationIntent(intent.intent, intent.answer, intent.anchor, cases, holder, start, line)
