"""The chunks an audit indexes: the user's chunking, with qualifying long documents replaced
by a parent and one child per subsection when the settings ask for the split."""

from __future__ import annotations

from dataclasses import dataclass

from ragaudit.auditing.settings import AuditSettings
from ragaudit.auditing.subsections import SplitDecision, SplitRules, decide
from ragaudit.documents import Document
from ragaudit.stack.chunking import Chunking, chunk_spans


@dataclass(frozen=True)
class AuditChunk:
    """One indexed unit. `text` is what a reader sees; `embed_text` what is embedded
    (they differ only for a split document's parent: lead-in + subsection headings)."""

    chunk_id: str
    doc_id: str
    source_type: str | None
    kind: str
    """`chunk` (the user's chunking), `parent` or `child` (the subsection splitter)."""
    start: int
    end: int
    text: str
    embed_text: str
    subsection: int | None = None


def split_rules(settings: AuditSettings) -> SplitRules:
    """The exclusion thresholds named in the settings."""
    return SplitRules(
        max_lead_in=settings.split_max_lead_in,
        min_subsections=settings.split_min_subsections,
        min_chars=settings.split_min_chars,
    )


def split_decisions(documents: list[Document], settings: AuditSettings) -> list[SplitDecision]:
    """The splitter's verdict on every document (split or which rule excluded it)."""
    marker, rules = settings.marker_pattern(), split_rules(settings)
    return [decide(doc.doc_id, doc.text, marker, rules) for doc in documents]


def base_chunks(doc: Document, settings: AuditSettings, name: str) -> list[AuditChunk]:
    """The user's chunking of one document, without any subsection split."""
    if settings.splitter == "document":
        spans = [(0, len(doc.text))]
    else:
        chunking = Chunking(
            settings.splitter, settings.chunk_size, settings.overlap, settings.overlap_rule
        )
        spans = chunk_spans(doc.text, chunking)
    return [
        AuditChunk(
            chunk_id=f"{name}/{doc.doc_id}#{index}",
            doc_id=doc.doc_id,
            source_type=doc.source_type,
            kind="chunk",
            start=start,
            end=end,
            text=doc.text[start:end],
            embed_text=doc.text[start:end],
        )
        for index, (start, end) in enumerate(spans)
    ]


def split_chunks(doc: Document, decision: SplitDecision, name: str) -> list[AuditChunk]:
    """A split document: its parent (full text, embedded as lead-in + headings) and one
    child per subsection (lead-in + that subsection)."""
    parent = AuditChunk(
        chunk_id=f"{name}/{doc.doc_id}#parent",
        doc_id=doc.doc_id,
        source_type=doc.source_type,
        kind="parent",
        start=0,
        end=len(doc.text),
        text=doc.text,
        embed_text=decision.parent_embed_text(),
    )
    children = [
        AuditChunk(
            chunk_id=f"{name}/{doc.doc_id}#sub-{sub.number}",
            doc_id=doc.doc_id,
            source_type=doc.source_type,
            kind="child",
            start=sub.start,
            end=sub.end,
            text=decision.child_text(sub),
            embed_text=decision.child_text(sub),
            subsection=sub.number,
        )
        for sub in decision.subsections
    ]
    return [parent, *children]


def build_chunks(
    documents: list[Document], settings: AuditSettings
) -> tuple[list[AuditChunk], list[SplitDecision]]:
    """Every chunk to index under `settings`, and the splitter's decisions (empty when the
    settings do not split)."""
    name = settings.chunking_name()
    decisions = split_decisions(documents, settings) if settings.split_subsections else []
    by_doc = {d.doc_id: d for d in decisions}
    chunks: list[AuditChunk] = []
    for doc in documents:
        decision = by_doc.get(doc.doc_id)
        if decision is not None and decision.split:
            chunks.extend(split_chunks(doc, decision, name))
        else:
            chunks.extend(base_chunks(doc, settings, name))
    return chunks, decisions
