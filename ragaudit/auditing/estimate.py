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
from pathlib import Path

from ragaudit.auditing.cases import Case, StructureReport
from ragaudit.auditing.chunks import build_chunks
from ragaudit.auditing.engine import embed_text_of
from ragaudit.auditing.inputs import AuditInputs, check_inputs
from ragaudit.auditing.settings import AuditSettings
from ragaudit.auditing.target import audit_chunks
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
    checked = check_inputs(inputs)
    if checked.corpus is None:  # a fatal structure: nothing would be embedded
        return AuditEstimate(checked.structure, inputs.cases, None)
    estimates = _estimates(checked.cases, checked.corpus, checked.settings, checked.stack)
    return AuditEstimate(checked.structure, inputs.cases, estimates)


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
