"""Oracle context: the chunks of a record's own chunking that hold its gold spans (and
the table header a row needs, EVIDENCE_ROLES), and nothing else, i.e. what a perfect
retriever would have handed the generator.

For each gold span, the one chunk that holds it whole if one does (the first such in
document order: with carry_tail overlap a span can lie whole in two), else the fewest chunks
that together cover it (a span cut by a boundary), taken greedily from the span's start.
The chunks are deduplicated and ordered by document (in the order the gold spans first name
them), then by position in the document. A record with no gold span has no oracle.

Chunk positions are the results file's `chunk_offsets` (every chunk of every chunking, the
list index being the chunk's index); ids and texts are its `chunks` map, to which the
retrieval stage adds every record's oracle chunks (`oracle_chunk_ids_of`), so the inspector
can show them and generation reads them from the results file like retrieved ones.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from ragaudit.errors import RagauditError
from ragaudit.stack.chunking import chunk_offsets


def _span_cover(span: dict, offsets: Sequence[Sequence[int]]) -> list[int]:
    """Chunk indexes for one span: the first chunk holding it whole, else a greedy cover."""
    start, end = span["start"], span["end"]
    for index, (chunk_start, chunk_end) in enumerate(offsets):
        if chunk_start <= start and end <= chunk_end:
            return [index]
    chosen: list[int] = []
    reach = start
    while reach < end:
        ahead = [i for i, (s, e) in enumerate(offsets) if e > reach and s < end]
        if not ahead:
            break  # the rest of the span lies in no chunk (it was stripped as whitespace)
        # The chunk reaching furthest among those that start by `reach`; when none does (a
        # stripped gap between chunks), the next one to start.
        started = [i for i in ahead if offsets[i][0] <= reach]
        nearest = min(offsets[i][0] for i in ahead)
        pool = started or [i for i in ahead if offsets[i][0] == nearest]
        best = max(pool, key=lambda i: (offsets[i][1], -i))
        chosen.append(best)
        reach = offsets[best][1]
    return chosen


def oracle_positions(
    gold_spans: Sequence[dict], offsets: dict[str, Sequence[Sequence[int]]]
) -> list[tuple[str, int]]:
    """(doc_id, chunk index) of the oracle context's chunks, in context order.

    `offsets` maps a doc_id to its chunks' [start, end] in chunk order (one chunking's part
    of `chunk_offsets`). A span whose document has no recorded chunks is an error.
    """
    doc_rank: dict[str, int] = {}
    picked: set[tuple[str, int]] = set()
    for span in gold_spans:
        doc_id = span["doc_id"]
        if doc_id not in offsets:
            raise RagauditError(f"no chunk offsets recorded for document {doc_id}")
        doc_rank.setdefault(doc_id, len(doc_rank))
        picked.update((doc_id, index) for index in _span_cover(span, offsets[doc_id]))
    return sorted(picked, key=lambda pos: (doc_rank[pos[0]], pos[1]))


def chunk_id_index(chunks_by_id: dict[str, dict]) -> dict[tuple[str, str, int], str]:
    """(chunking, doc_id, index) -> chunk id, from the results file's `chunks` map."""
    return {
        (chunk.get("chunking") or chunk_id.split("/", 1)[0], chunk["doc_id"], chunk["index"]): (
            chunk_id
        )
        for chunk_id, chunk in chunks_by_id.items()
        if "doc_id" in chunk and "index" in chunk
    }


EVIDENCE_ROLES = ("table_header",)
"""Extra span roles a reader needs to read the gold: a table row's values mean nothing
without the header naming its columns, so table_split's oracle holds the header too (a
row-only oracle would call the severed header a generator ceiling)."""


def evidence_extras(record: dict) -> list[dict]:
    """The record's extra spans the oracle context must hold beside its gold spans."""
    return [s for s in record.get("extra_spans") or [] if s.get("role") in EVIDENCE_ROLES]


def oracle_chunk_ids(
    record: dict, chunk_offsets: dict, ids: dict[tuple[str, str, int], str]
) -> list[str]:
    """The chunk ids of `record`'s oracle context ([] when it has no gold span).

    `chunk_offsets` is the results file's; `ids` is `chunk_id_index` of its chunks. A chunk
    the results file does not hold is an error naming the record.
    """
    spans = record.get("gold_spans") or []
    if not spans:
        return []
    spans = [*spans, *evidence_extras(record)]
    chunking = record["chunking"]
    try:
        positions = oracle_positions(spans, (chunk_offsets or {}).get(chunking) or {})
    except RagauditError as error:
        raise RagauditError(f"instance {record.get('key')}: {error} under {chunking}") from None
    missing = [pos for pos in positions if (chunking, *pos) not in ids]
    if missing:
        doc_id, index = missing[0]
        raise RagauditError(
            f"instance {record.get('key')}: oracle chunk {index} of {doc_id} under {chunking} "
            "is not in the results file's chunks"
        )
    return [ids[(chunking, *pos)] for pos in positions]


def oracle_chunk_ids_of(records: Iterable[dict], chunkings: dict[str, Sequence[Any]]) -> set[str]:
    """Every chunk id some record's oracle context uses, from the run's chunkings (chunk
    objects with chunk_id, doc_id, index, start, end): what the results' chunks must hold."""
    offsets = chunk_offsets(chunkings)
    ids = {(name, c.doc_id, c.index): c.chunk_id for name, cs in chunkings.items() for c in cs}
    used: set[str] = set()
    seen: set[tuple[str, str, str]] = set()
    for record in records:
        key = (record["chunking"], record["probe"], record["instance_id"])
        if key not in seen:  # every embedder and config over one chunking: one oracle
            seen.add(key)
            used.update(oracle_chunk_ids(record, offsets, ids))
    return used
