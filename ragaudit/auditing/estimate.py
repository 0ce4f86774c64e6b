"""`ragaudit audit --dry-run`'s estimate: every input checked as the audit checks it
(settings, cases and their structure, corpus, the sources the cases name, the stack file),
then the embedding calls the audit would make; nothing embedded, nothing written.

The calls are the distinct texts the audit embeds: each chunk's searched text (the
settings' chunking, or the stack's splitter) and each case's question. As for the matrix,
which of them the cache holds is told from the keys built as the cache recorded the
embedder's stored calls were keyed (runner.estimate.embed_estimate), and the time is that of
the rest at the mean the cache recorded for the embedder, or of a short timed sample of it
when none was. A stack's own retriever makes its own calls: they are not counted. A fatal
structural check estimates nothing, as the audit embeds nothing (AuditOutcome).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from ragaudit.auditing.cases import (
    Case,
    StructureReport,
    check_sources,
    check_structure,
    load_cases,
)
from ragaudit.auditing.chunks import build_chunks
from ragaudit.auditing.corpus_io import as_corpus, path_of
from ragaudit.auditing.engine import embed_text_of
from ragaudit.auditing.runner import AuditInputs, settings_of
from ragaudit.auditing.settings import AuditSettings, check_floor_source_type
from ragaudit.auditing.target import audit_chunks, load_audit_stack, stack_settings
from ragaudit.documents import Corpus
from ragaudit.runner.estimate import CallEstimate, embed_estimate, open_cache
from ragaudit.targets.stackfile import StackSpec

NO_EMBEDDING = "n/a"


@dataclass(frozen=True)
class AuditEstimate:
    """Either a fatal structural report (nothing estimated: `estimates` is None) or the
    calls the audit would make."""

    structure: StructureReport
    cases_path: Path | None
    estimates: list[CallEstimate] | None


def audit_estimates(inputs: AuditInputs) -> AuditEstimate:
    """Check `inputs` as run_audit does (bad input raises RagauditError, one line), then
    the embedding calls an audit of them would make, read from the call cache read-only."""
    settings = settings_of(inputs.settings)
    cases = load_cases(inputs.cases) if inputs.cases is not None else []
    structure = check_structure(cases)
    if structure.fatal:
        return AuditEstimate(structure, inputs.cases, None)
    corpus = as_corpus(inputs.corpus)
    where = path_of(inputs.settings, "settings given in Python")
    check_floor_source_type(settings, {d.source_type for d in corpus.documents}, where)
    skipped = {str(PurePosixPath(s.path).with_suffix("")): s.reason for s in corpus.skipped}
    check_sources(cases, corpus.ids(), inputs.cases, skipped)
    stack = load_audit_stack(inputs.stack) if inputs.stack else None
    if stack is not None:
        settings = stack_settings(stack, settings, stack.where("k"))
    return AuditEstimate(structure, inputs.cases, _estimates(cases, corpus, settings, stack))


def _estimates(
    cases: list[Case], corpus: Corpus, settings: AuditSettings, stack: StackSpec | None
) -> list[CallEstimate]:
    if not cases:
        return [CallEstimate("audit: dilution report only", 0, 0, 0.0, "nothing is embedded",
                             tokens_reason=NO_EMBEDDING)]  # fmt: skip
    questions = {case.question for case in cases}
    cache = open_cache()
    if stack is None:
        chunks, _ = build_chunks(corpus.documents, settings)
        what = f"audit: embed {settings.embedder}"
    elif stack.retriever is None:
        chunks, _ = audit_chunks(stack, corpus.documents)
        what = f"audit stack {stack.name}: embed {settings.embedder}"
    else:
        reason = "not counted: your retriever makes its own calls"
        return [CallEstimate(f"audit stack {stack.name}: retriever", 0, 0, None, reason,
                             tokens_reason=NO_EMBEDDING)]  # fmt: skip
    passages = [embed_text_of(chunk) for chunk in chunks]
    return [
        embed_estimate(what, settings.embedder, passages, sorted(questions), cache, sample=True)
    ]
