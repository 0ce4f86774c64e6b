"""The case file (intents, each asked in several phrasings, each phrasing naming the sources
it must retrieve) and the structural check that runs before anything is embedded: two
cases with the same normalised question are fake coverage (the originating study's copy-pasted
"rephrasing sentinel"), and an intent asked only one way is tested from one angle.

One case file serves `ragaudit audit` and `ragaudit mutate`: an intent may name the value its
expected document states (`answer:`) and the entity its question is about (`anchor:`); the
audit records both on its cases, mutate requires the answer (ragaudit.mutation.cases)."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, model_validator

from ragaudit.errors import RagauditError
from ragaudit.fileio.lines import Loc, line_of, load_with_lines, validate


def _one_line(value: str) -> str:
    # A case id is printed in one-line messages and in tables: no line breaks in it.
    if any(ch < " " or ch == "\x7f" for ch in value):
        raise ValueError("must be one line (no line breaks or control characters)")
    return value


Label = Annotated[str, AfterValidator(_one_line)]


class PhrasingSpec(BaseModel):
    """One way of asking; `expect` sources must all land in the top-k, and at least one of
    `expect_any` must (either may be inherited from the intent)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    q: str = Field(min_length=1)
    id: Label | None = None
    expect: list[str] | None = None
    expect_any: list[str] | None = None


class IntentSpec(BaseModel):
    """One thing a user wants to know, asked in `phrasings`."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    intent: Label = Field(min_length=1)
    expect: list[str] | None = None
    expect_any: list[str] | None = None
    answer: str | None = Field(default=None, min_length=1)
    """The value the expected document states, verbatim: required by `ragaudit mutate`,
    recorded by the audit."""
    anchor: str | None = Field(default=None, min_length=1)
    """The entity the question is about, as written in the document."""
    phrasings: list[PhrasingSpec | str] = Field(min_length=1)
    known_without_context: bool | None = None
    """Set by `ragaudit cases`: its generator answered the question with no context, so the
    case says little about retrieval. Recorded, never used to score (mutate asks its own)."""
    provenance: dict[str, Any] | None = None
    """Set by `ragaudit cases`: the source span, the method, each check and its result, the
    generator and the seed. Carried for review; neither reader acts on it."""


class CaseFile(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    intents: list[IntentSpec] = Field(min_length=1)
    generated_by: dict[str, Any] | None = None
    """What `ragaudit cases` mined from: the corpus, generator, seed, prompts, thresholds."""
    counts: dict[str, Any] | None = None
    rejected: list[dict[str, Any]] | None = None
    """Candidates `ragaudit cases` dropped, each with its reason: for review only."""
    unverified: list[dict[str, Any]] | None = None
    """Candidates whose generator call failed: never intents, never asked."""

    @model_validator(mode="after")
    def _unique_intents(self) -> CaseFile:
        seen: set[str] = set()
        for index, intent in enumerate(self.intents):
            if intent.intent in seen:
                raise ValueError(f"intents.{index}.intent: intent {intent.intent!r} appears twice")
            seen.add(intent.intent)
        return self


@dataclass(frozen=True)
class Case:
    """One phrasing of one intent, resolved: what the audit actually asks."""

    case_id: str
    intent: str
    question: str
    expect_all: tuple[str, ...]
    expect_any: tuple[str, ...]
    line: int | None
    answer: str | None = None
    """The intent's `answer:`, when the case file gives one."""
    anchor: str | None = None
    """The intent's `anchor:`, when the case file gives one."""

    @property
    def expected_sources(self) -> tuple[str, ...]:
        """Every source named, required ones first."""
        return self.expect_all + tuple(s for s in self.expect_any if s not in self.expect_all)


@dataclass
class StructureReport:
    """What the structural check found."""

    entries: int
    distinct: int
    duplicates: list[tuple[Case, Case]] = field(default_factory=list)
    single_phrasing_intents: list[str] = field(default_factory=list)

    @property
    def fatal(self) -> bool:
        return bool(self.duplicates)

    def fatal_lines(self, cases_path: Path) -> list[str]:
        """The lines printed when the coverage is fake."""
        out = ["[fatal] duplicate phrasings in the case list, the coverage is fake:"]
        for first, second in self.duplicates:
            out.append(
                f"  - case {first.case_id}{_at(first)} and case {second.case_id}{_at(second)}"
                " have the same question"
            )
        out.append(
            f"  {Path(cases_path).name} has {self.entries} entries but only "
            f"{self.distinct} distinct phrasings."
        )
        return out


def _at(case: Case) -> str:
    return f" (line {case.line})" if case.line is not None else ""


def normalise_question(text: str) -> str:
    """Case, width, punctuation and spacing folded away: what makes two questions 'the same'."""
    text = unicodedata.normalize("NFKC", text).casefold()
    text = re.sub(r"[^\w\s]", " ", text)
    return " ".join(text.split())


WHAT = "case file"


CasesSource = Path | str | Sequence[IntentSpec]
"""A case file's path, or the intents themselves built in Python (`ragaudit.Case`)."""

IN_PYTHON = Path("<cases given in Python>")
"""What an error names as the case file when the intents were given in Python."""


def read_case_file(source: CasesSource) -> tuple[CaseFile, Path, dict[Loc, int]]:
    """Read and validate a case file (YAML or JSON), or intents given in Python: the cases,
    what errors name as their file, and the line of each field (none in Python). Anything
    else (a Case alone, a dict, an item that is not a Case) is one line naming its type."""
    if isinstance(source, (str, Path)):
        path = Path(source)
        data, lines = load_with_lines(path, WHAT)
        return validate(CaseFile, data, path, WHAT, lines), path, lines
    if isinstance(source, (IntentSpec, Mapping)) or not isinstance(source, Iterable):
        # a Case alone or a dict would be iterated into its fields or keys
        raise RagauditError(
            f"cases: expected a case file's path or a list of ragaudit.Case, got "
            f"{type(source).__name__}"
        )
    intents = list(source)
    for index, intent in enumerate(intents):
        if not isinstance(intent, IntentSpec):
            raise RagauditError(
                f"cases[{index}]: expected a ragaudit.Case, got {type(intent).__name__}"
            )
    data = {"intents": [intent.model_dump(exclude_none=True) for intent in intents]}
    return validate(CaseFile, data, IN_PYTHON, WHAT, {}), IN_PYTHON, {}


def resolve_cases(spec: CaseFile, path: Path, lines: dict[Loc, int]) -> list[Case]:
    """Each phrasing of each intent as a case, its expected sources inherited from the
    intent where it names none."""
    cases: list[Case] = []
    seen_ids: dict[str, Loc] = {}
    for i, intent in enumerate(spec.intents):
        for j, raw in enumerate(intent.phrasings):
            loc: Loc = ("intents", i, "phrasings", j)
            where = f"{WHAT} {path}: line {line_of(loc, lines)}: intents[{i}].phrasings[{j}]"
            # a bare string phrasing is checked here: PhrasingSpec would raise on '' itself
            if not (raw if isinstance(raw, str) else raw.q).strip():
                raise RagauditError(f"{where}.q: the question is blank")
            phrasing = PhrasingSpec(q=raw) if isinstance(raw, str) else raw
            expect_all = phrasing.expect if phrasing.expect is not None else intent.expect
            expect_any = (
                phrasing.expect_any if phrasing.expect_any is not None else intent.expect_any
            )
            if not expect_all and not expect_any:
                raise RagauditError(
                    f"{where}: names no expected source (give expect or expect_any here "
                    "or on the intent)"
                )
            case_id = f"{intent.intent}/{phrasing.id or j + 1}"
            if case_id in seen_ids:
                raise RagauditError(f"{where}.id: case id {case_id!r} is used twice")
            seen_ids[case_id] = loc
            cases.append(
                Case(
                    case_id=case_id,
                    intent=intent.intent,
                    question=phrasing.q,
                    expect_all=tuple(expect_all or ()),
                    expect_any=tuple(expect_any or ()),
                    line=line_of(loc + ("q",), lines),
                    answer=intent.answer,
                    anchor=intent.anchor,
                )
            )
    return cases


def load_cases(source: CasesSource) -> list[Case]:
    """Read and validate a case file (YAML or JSON), or intents given in Python, into
    resolved cases."""
    spec, path, lines = read_case_file(source)
    return resolve_cases(spec, path, lines)


def check_structure(cases: list[Case]) -> StructureReport:
    """Duplicate normalised questions (fatal) and intents asked only one way (flagged)."""
    first_by_text: dict[str, Case] = {}
    duplicates: list[tuple[Case, Case]] = []
    for case in cases:
        key = normalise_question(case.question)
        if key in first_by_text:
            duplicates.append((first_by_text[key], case))
        else:
            first_by_text[key] = case
    per_intent: dict[str, int] = {}
    for case in cases:
        per_intent[case.intent] = per_intent.get(case.intent, 0) + 1
    return StructureReport(
        entries=len(cases),
        distinct=len(first_by_text),
        duplicates=duplicates,
        single_phrasing_intents=[name for name, count in per_intent.items() if count == 1],
    )


def check_sources(
    cases: list[Case],
    known: set[str],
    cases_path: Path | None,
    skipped: dict[str, str] | None = None,
) -> None:
    """A case naming a source the corpus does not hold is a clear error, not a failed case.
    `skipped` maps the would-be id of each skipped file to why it was skipped."""
    import difflib

    for case in cases:
        for source in case.expected_sources:
            if source in known:
                continue
            where = f"case file {cases_path}: " + (
                f"line {case.line}: " if case.line is not None else ""
            )
            if skipped and source in skipped:
                raise RagauditError(
                    f"{where}case {case.case_id} expects source {source!r}, whose file was "
                    f"skipped ({skipped[source]})"
                )
            close = difflib.get_close_matches(source, sorted(known), n=1, cutoff=0.6)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise RagauditError(
                f"{where}case {case.case_id} expects unknown source id {source!r}{hint}"
            )
