"""The records of one ranked corpus (the control, one mutant's overlay, or a group of
mutants rebuilt together): a record per (mutant, phrasing), the chunks those records read
(what they retrieved and what holds their spans) and the offsets of the chunks of every
document the corpus added."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ragaudit.mutation.grouping import Mutant
from ragaudit.mutation.pipeline_column import answer_record
from ragaudit.mutation.records import mutant_record


@dataclass
class Measured:
    """What the results file gathers from every ranked corpus."""

    records: list[dict] = field(default_factory=list)
    chunks: dict[str, dict] = field(default_factory=dict)
    offsets: dict[str, list[list[int]]] = field(default_factory=dict)
    failures: list[dict] = field(default_factory=list)


def per_document(chunks: Sequence[Any]) -> dict[str, list[Any]]:
    """Chunks by document, in order."""
    out: dict[str, list[Any]] = {}
    for chunk in chunks:
        out.setdefault(chunk.doc_id, []).append(chunk)
    return out


def measure(
    into: Measured, mutants: Sequence[Mutant], intents: Mapping[str, Any], ranked: Any,
    doc_chunks: Mapping[str, list[Any]], column: Any, layers: dict, measures: dict,
    generate: bool,
) -> None:  # fmt: skip
    """Add the records of `mutants` (each asked its intent's phrasings) from `ranked`;
    `doc_chunks` are the corpus's chunks by document (base and added)."""
    records = []
    for mutant in mutants:
        for case in intents[mutant.intent].cases:
            ranking = ranked.ranked.get(case.case_id)
            error = None if ranking is not None else _failure(ranked, case.case_id)
            gold_docs = {s.doc_id for s in (*mutant.gold_spans, *mutant.extra_spans)}
            corpus_chunks = [c for d in gold_docs for c in doc_chunks.get(d, ())]
            record = mutant_record(
                mutant, case, column, layers[mutant.operator], measures[mutant.operator],
                ranking, corpus_chunks, ranked.indexed, error,
            )  # fmt: skip
            if column.pipeline:
                replies = getattr(ranked, "answers", {})
                answer_record(record, replies.get(case.case_id), generate)
            records.append(record)
    into.records += records
    for chunk_id in {hit["chunk_id"] for r in records for hit in r["retrieved"]}:
        _keep(into, ranked.indexed[chunk_id], doc_chunks, column)
    for record in records:
        for span in record["gold_spans"] + record["extra_spans"]:
            for chunk in doc_chunks.get(span["doc_id"], ()):
                if chunk.start < span["end"] and span["start"] < chunk.end:
                    _keep(into, chunk, doc_chunks, column)


def _keep(into: Measured, chunk: Any, doc_chunks: Mapping[str, list[Any]], column: Any) -> None:
    if chunk.chunk_id in into.chunks:
        return
    siblings = doc_chunks.get(chunk.doc_id, [chunk])
    index = next((i for i, c in enumerate(siblings) if c.chunk_id == chunk.chunk_id), 0)
    into.chunks[chunk.chunk_id] = {
        "doc_id": chunk.doc_id, "chunking": column.chunking_name, "index": index,
        "start": chunk.start, "end": chunk.end, "text": chunk.text,
    }  # fmt: skip


def add_offsets(into: Measured, chunks: Sequence[Any]) -> None:
    """The [start, end) of every chunk of the documents `chunks` cover."""
    for doc_id, doc_chunks in per_document(chunks).items():
        into.offsets.setdefault(doc_id, [[c.start, c.end] for c in doc_chunks])


def _failure(ranked: Any, case_id: str) -> str:
    return next((f.error for f in ranked.failures if f.item == case_id), "retrieval failed")
