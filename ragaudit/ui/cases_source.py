"""An intent's source document, read as the mutation view reads a user's corpus, and its
fact drawn in place: the sentence highlighted, the answer's span [start, end) within it.

The corpus is the one the cases file names (`generated_by.corpus`: its path, relative to
the inspector's working folder as a run's is, and its document count), read by
ui.user_corpus with the audit's reader. Only the paragraph around the fact is drawn: a
manual page can be long, and a file holds dozens of intents.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ragaudit.ui.cases_review import sentence_span
from ragaudit.ui.docview import highlighted_html
from ragaudit.ui.user_corpus import user_corpus

CONTEXT_CHARS = 600
"""The most drawn on either side of the sentence, cut at a paragraph break when nearer."""


@dataclass(frozen=True)
class SourceText:
    """An intent's source document, or why it is not shown."""

    doc_id: str
    text: str | None
    problem: str | None = None
    """One line: no corpus, no such document, or a document that changed since mining."""


def corpus_documents(document: Mapping) -> tuple[dict[str, str], str | None]:
    """doc_id -> text of the corpus the cases file was mined from, or ({}, why not)."""
    corpus = (document.get("generated_by") or {}).get("corpus") or {}
    read = user_corpus({"corpus": corpus})
    return read.documents, read.problem


def source_text(intent: Mapping, documents: Mapping[str, str], problem: str | None) -> SourceText:
    """The intent's source document from `documents`, checked against its recorded span:
    a document whose [start, end) no longer holds the answer is reported, not drawn."""
    source = (intent.get("provenance") or {}).get("source") or {}
    doc_id = str(source.get("doc_id") or "")
    if not doc_id:
        return SourceText(doc_id, None, "the intent records no source document")
    if problem is not None:
        return SourceText(doc_id, None, problem)
    text = documents.get(doc_id)
    if text is None:
        return SourceText(doc_id, None, f"the corpus holds no document {doc_id}")
    start, end = source.get("start"), source.get("end")
    if (
        not isinstance(start, int)
        or not isinstance(end, int)
        or (text[start:end] != str(intent.get("answer")))
    ):
        return SourceText(doc_id, text, f"{doc_id} on disk is not the text the cases were "
                          f"mined from: [{start}, {end}) does not hold the answer")  # fmt: skip
    return SourceText(doc_id, text)


def _window(text: str, start: int, end: int) -> tuple[int, int]:
    """[start, end) widened to the paragraph around it, at most CONTEXT_CHARS each side."""
    low = max(0, start - CONTEXT_CHARS)
    break_before = text.rfind("\n\n", low, start)
    high = min(len(text), end + CONTEXT_CHARS)
    break_after = text.find("\n\n", end, high)
    return (break_before + 2 if break_before >= 0 else low,
            break_after if break_after >= 0 else high)  # fmt: skip


def fact_html(text: str, source: Mapping) -> str:
    """The paragraph holding the fact, its sentence and answer highlighted (HTML escaped
    by docview.highlighted_html, the inspector's one document drawing)."""
    start, end = int(source["start"]), int(source["end"])
    sentence = sentence_span(text, source) or (start, end)
    low, high = _window(text, min(start, sentence[0]), max(end, sentence[1]))
    spans = [  # the answer first: where two spans cover a character, the first one colours it
        {"start": start - low, "end": end - low, "role": "answer"},
        {"start": sentence[0] - low, "end": sentence[1] - low, "role": "sentence"},
    ]
    return highlighted_html(text[low:high], [], spans)
