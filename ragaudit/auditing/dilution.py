"""Long-document dilution: the longest chunks of the user's chunking with their count of
subsection markers (a long chunk spanning many subsections is the average of many topics),
and what the subsection splitter would do to each document."""

from __future__ import annotations

from ragaudit.auditing.chunks import base_chunks, split_decisions
from ragaudit.auditing.settings import AuditSettings
from ragaudit.auditing.subsections import count_markers, summarise
from ragaudit.documents import Document

LONGEST = 20


def dilution_report(
    documents: list[Document], settings: AuditSettings, longest: int = LONGEST
) -> dict:
    """The results file's `dilution` section."""
    marker = settings.marker_pattern()
    name = settings.chunking_name().removesuffix("+sub")
    chunks = [c for doc in documents for c in base_chunks(doc, settings, name)]
    ranked = sorted(chunks, key=lambda c: (-len(c.text), c.chunk_id))[:longest]
    decisions = split_decisions(documents, settings)
    by_doc = {d.doc_id: d for d in decisions}
    return {
        "chunking": name,
        "subsection_marker": settings.subsection_marker,
        "chunks_total": len(chunks),
        "longest_chunks": [
            {
                "chunk_id": c.chunk_id,
                "source": c.doc_id,
                "chars": len(c.text),
                "markers": count_markers(c.text, marker),
                "would_split": by_doc[c.doc_id].split,
                "excluded_by": by_doc[c.doc_id].excluded_by,
                "preview": c.text[:160],
            }
            for c in ranked
        ],
        "splitter": {
            "applied": settings.split_subsections,
            "rules": {
                "max_lead_in": settings.split_max_lead_in,
                "min_subsections": settings.split_min_subsections,
                "min_chars": settings.split_min_chars,
            },
            **summarise(decisions),
            "documents_considered": [
                {
                    "doc_id": d.doc_id,
                    "chars": d.chars,
                    "markers": d.markers,
                    "numbers": list(d.numbers),
                    "lead_in_chars": len(d.lead_in.strip()),
                    "split": d.split,
                    "excluded_by": d.excluded_by,
                    "rules_tripped": list(d.rules_tripped),
                }
                for d in decisions
                if d.candidate
            ],
        },
        "per_source_cap": settings.per_source_cap,
        "per_source_cap_reason": None
        if settings.per_source_cap is not None
        else "no per_source_cap in the settings: a split document may fill every slot",
    }
