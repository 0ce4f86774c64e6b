"""The audit's index and rankings, through the one retrieval core (ragaudit.stack): the same
embedding loop, Chroma collection, Retriever, BM25 and fusion as the matrix, so a hybrid
audit is config M's hybrid.

An audit chunk is embedded and searched by its `embed_text` (a split document's parent is
embedded as lead-in + headings but shows its whole text), so the index is built with that
reader. Embedding failures are never dropped: a chunk whose embedding fails is left out of
the index *and recorded*, so a case expecting its source reads "not indexed", and a
question whose embedding fails is a failed case that stays in the denominator."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from operator import attrgetter
from typing import Any

from ragaudit import paths
from ragaudit.auditing.chunks import AuditChunk
from ragaudit.auditing.policy import Candidate
from ragaudit.stack.index import build_index as build_chunk_index
from ragaudit.stack.index import embed_texts, open_client
from ragaudit.stack.retrieval import Retriever

embed_text_of = attrgetter("embed_text")
"""How the index reads an audit chunk: by what it embeds, not what it shows."""


@dataclass
class EmbedFailure:
    """One text that could not be embedded after the backend's retries."""

    kind: str
    """`passage` (a chunk) or `query` (a case's question)."""
    item: str
    """The chunk id or case id."""
    error: str


@dataclass
class AuditIndex:
    """The indexed chunks of one audit and the failures met while embedding them."""

    chunks: list[AuditChunk]
    indexed: dict[str, AuditChunk]
    """The chunks that are in the collection, by id."""
    retriever: Retriever
    collection_name: str
    failures: list[EmbedFailure] = field(default_factory=list)


def build_index(
    embedder: Any, chunks: list[AuditChunk], chunking_name: str,
    on_batch: Callable[[int], None] | None = None,
) -> AuditIndex:  # fmt: skip
    """Embed `chunks` (through the call cache) into the (embedder, chunking) collection under
    data/chroma/audit, adding only what it lacks, as the matrix does (`on_batch(n)` after
    each batch of n texts embedded: progress)."""
    chunk_index = build_chunk_index(
        open_client(paths.chroma_dir() / "audit"),
        embedder,
        chunking_name,
        chunks,
        None,  # llama-index opens only if asked (ChunkIndex.index): its import costs memory
        searched_text=embed_text_of,
        on_batch=on_batch,
    )
    indexed = {c.chunk_id: c for c in chunks if c.chunk_id not in chunk_index.failures}
    failures = [
        EmbedFailure("passage", chunk_id, error) for chunk_id, error in chunk_index.failures.items()
    ]
    retriever = Retriever(embedder, list(indexed.values()), chunk_index)
    return AuditIndex(chunks, indexed, retriever, chunk_index.name, failures)


def embed_questions(
    embedder: Any, questions: list[tuple[str, str]]
) -> tuple[dict[str, list[float]], list[EmbedFailure]]:
    """case_id -> query vector for every (case_id, question) that could be embedded, and a
    failure recorded for each one that could not."""
    vectors, errors = embed_texts(embedder, [q for _, q in questions], role="query")
    found = {case_id: vectors[q] for case_id, q in questions if q in vectors}
    failures = [
        EmbedFailure("query", case_id, errors[q]) for case_id, q in questions if q in errors
    ]
    return found, failures


DEFAULT_RANK_DEPTH = 100
"""How far down a ranking a case is ranked (and a source's rank reported) unless told
(`ragaudit audit --rank-depth`); at least the settings' candidate pool either way."""


def rank_chunks(
    index: AuditIndex, query_vector: list[float], question: str, depth: int, hybrid: bool
) -> list[Candidate]:
    """The first `depth` chunks for one question, best first, as policy candidates: the
    Retriever's ranking (dense, or config M's fusion when `hybrid`), scored by the dense
    cosine a threshold applies to."""
    hits = index.retriever.ranking(question, hybrid, depth, query_vector)
    return [
        Candidate(
            chunk_id=hit.chunk_id,
            source=hit.doc_id,
            source_type=index.indexed[hit.chunk_id].source_type,
            rank=hit.rank,
            score=round(hit.dense_score, 6),
            bm25_score=None if hit.bm25_score is None else round(hit.bm25_score, 6),
        )
        for hit in hits
    ]
