"""The exported table's columns: one row per instance record, each column read from one field
of the record as the results file holds it (nothing recomputed), with its pandas dtype.

A list or an object (spans, the ranking, citations) is written as JSON text, so a reader
gets it back whole with `json.loads`; every other value is a plain nullable scalar. A field
a record lacks, or records as null, is null (an older results file lacks the newer ones:
`attribution` and the oracle columns are then null, `has_oracle` too). A mutate file's
columns are in `export.mutation`.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ragaudit.results.view import STACK_KIND, is_stack
from ragaudit.stack.diagnostics import diagnostic_fields

TEXT, FLAG, WHOLE, REAL = "string", "boolean", "Int64", "Float64"
"""The pandas nullable dtypes a column takes (Parquet keeps them; CSV writes them as text)."""


@dataclass(frozen=True)
class Source:
    """What a row is read from besides its record."""

    config: dict
    """The record's config record ({} when the file has none by that name)."""
    mutant: dict = field(default_factory=dict)
    """A mutate file: the record's mutant (`mutation.mutants[]`); {} in any other file."""
    closed_book: dict | None = None
    """A mutate file: the phrasing's closed-book entry; None when it was not asked."""


@dataclass(frozen=True)
class Column:
    """One exported column."""

    name: str
    dtype: str
    """One of TEXT, FLAG, WHOLE, REAL."""
    read: Callable[[dict, Source], Any]
    """(record, what else the row is read from) -> the value; None for null."""
    doc: str
    """What it holds, for docs/export.md."""
    of_mutant: bool = False
    """Read from the mutant, so also filled on a mutate file's row for a mutant without
    records (not applicable, robust), where every other column is null."""


def json_text(value: Any) -> str | None:
    """A list or an object as JSON text (None stays null)."""
    return None if value is None else json.dumps(value, ensure_ascii=False, allow_nan=False)


def _field(name: str) -> Callable[[dict, Source], Any]:
    return lambda record, _source: record.get(name)


def _json_field(name: str) -> Callable[[dict, Source], Any]:
    return lambda record, _source: json_text(record.get(name))


def _part(part: str, name: str, *, as_json: bool = False) -> Callable[[dict, Source], Any]:
    """A field of one of the record's objects (`generation`, `grade`, `citation_check`)."""

    def read(record: dict, _source: Source) -> Any:
        value = (record.get(part) or {}).get(name)
        return json_text(value) if as_json else value

    return read


def _oracle(part: str, name: str) -> Callable[[dict, Source], Any]:
    """A field of the oracle's generation or grade."""
    return lambda record, _source: ((record.get("oracle") or {}).get(part) or {}).get(name)


def _gold_answer(record: dict, _source: Source) -> str | None:
    answer = record.get("gold_answer")
    return "; ".join(answer) if isinstance(answer, list) else answer


def _has_oracle(record: dict, _source: Source) -> bool | None:
    # absent: the file predates oracle contexts (not measured); null: no oracle for it
    return None if "oracle" not in record else bool(record["oracle"])


def _ranked(name: str) -> Callable[[dict, Source], Any]:
    def read(record: dict, _source: Source) -> str | None:
        hits = sorted(record.get("retrieved") or [], key=lambda hit: hit["rank"])
        return json_text([hit.get(name) for hit in hits]) if "retrieved" in record else None

    return read


def _hop(role: str) -> Callable[[dict, Source], Any]:
    return lambda record, _source: (record.get("hops") or {}).get(role)


_IDENTITY = [
    Column("key", TEXT, _field("key"), "the record's unique key"),
    Column("probe", TEXT, _field("probe"), "the planted fault"),
    Column("layer", TEXT, _field("layer"), "the probe's layer (control, architectural, …)"),
    Column("instance_id", TEXT, _field("instance_id"), "the instance"),
    Column("config", TEXT, _field("config"), "the config's (or your stack's) name"),
    Column(
        "config_kind",
        TEXT,
        lambda _r, source: STACK_KIND if is_stack(source.config) else "builtin",
        "`stack` for your stack's column, else `builtin`",
    ),
    Column("embedder", TEXT, _field("embedder"), "the embedder spec the record ranked with"),
    Column("chunking", TEXT, _field("chunking"), "the chunking name, as in chunk ids"),
    Column("k", WHOLE, lambda r, source: r.get("k", source.config.get("k")), "chunks retrieved"),
]
_QUESTION = [
    Column("question", TEXT, _field("question"), "the question asked"),
    Column("gold_answer", TEXT, _gold_answer, "the gold answer; a list's items joined by `; `"),
    Column("gold_spans", TEXT, _json_field("gold_spans"), "JSON: the gold spans"),
    Column("trap_spans", TEXT, _json_field("trap_spans"), "JSON: the trap spans"),
    Column(
        "answer_doc_ids",
        TEXT,
        _json_field("answer_doc_ids"),
        "JSON: the answer-bearing documents",
    ),
    Column("anchor", TEXT, _field("anchor"), "the question's lookup key"),
]
_RETRIEVAL = [
    Column("retrieved_chunk_ids", TEXT, _ranked("chunk_id"), "JSON: retrieved chunk ids by rank"),
    Column("retrieved_scores", TEXT, _ranked("score"), "JSON: their scores, by rank"),
    Column(
        "retrieved",
        TEXT,
        _json_field("retrieved"),
        "JSON: the whole ranking (ids, ranks, scores, dense and BM25 parts, spans)",
    ),
    Column("retrieval_error", TEXT, _field("retrieval_error"), "why retrieval failed, if it did"),
    Column(
        "diagnostics_reason", TEXT, _field("diagnostics_reason"), "why the diagnostics are null"
    ),
]
_DIAGNOSTICS = {
    "gold_in_context": (FLAG, "every gold span lies whole in a retrieved chunk"),
    "span_preserved": (FLAG, "every gold span lies whole in some chunk of this chunking"),
    "gold_rank": (WHOLE, "rank of the best chunk holding a gold span (pool of 50)"),
    "gold_score": (REAL, "its score"),
    "trap_rank": (WHOLE, "rank of the best chunk holding a trap span"),
    "trap_score": (REAL, "its score"),
    "margin": (REAL, "gold_score - trap_score"),
    "header_in_answer_chunk": (FLAG, "boundary: the section header is in the answer's chunk"),
    "table_together": (FLAG, "table_split: the header and the row are in one chunk"),
    "items_in_context": (WHOLE, "summarisation: list items that arrived (of 5)"),
    "crowding_margin": (REAL, "duplicate_crowding: the target's score - the best copy's"),
    "affirmative_first": (FLAG, "negation: the affirmative ranks first; null: neither came"),
    "anchor_selectivity": (WHOLE, "chunks of this chunking holding the question's anchor"),
}
HOP_ROLES = ("mapping", "answer")
"""The keys of a multihop record's `hops`: each hop gets its own column."""


def _diagnostics() -> list[Column]:
    """One column per model-free diagnostic, in the retrieval stage's order (`hops` as one
    column per hop); a diagnostic with no declared type is kept as JSON text."""
    columns = []
    for name in diagnostic_fields():
        if name == "hops":
            columns += [
                Column(f"hops_{role}", FLAG, _hop(role), f"multihop: the {role} hop arrived")
                for role in HOP_ROLES
            ]
        elif name in _DIAGNOSTICS:
            dtype, doc = _DIAGNOSTICS[name]
            columns.append(Column(name, dtype, _field(name), doc))
        else:
            columns.append(Column(name, TEXT, _json_field(name), "diagnostic, as JSON"))
    columns.append(
        Column("gold_rank_reason", TEXT, _field("gold_rank_reason"), "why gold_rank is null")
    )
    return columns


_GENERATION = [
    Column("generated", FLAG, lambda r, _s: bool(r.get("generation")), "generation ran on it"),
    Column("generator", TEXT, _part("generation", "generator"), "the generator spec"),
    Column("generation_status", TEXT, _part("generation", "status"), "`ok` or `failed_call`"),
    Column("reply", TEXT, _part("generation", "reply"), "the model's raw reply"),
    Column("generation_error", TEXT, _part("generation", "error"), "why the call failed"),
    Column(
        "citations",
        TEXT,
        _part("generation", "citations", as_json=True),
        "JSON: chunk ids cited",
    ),
    Column("replayed", FLAG, _part("generation", "replayed"), "the reply came from the cache"),
    Column("prompt_sha256", TEXT, _part("generation", "prompt_sha256"), "the prompt's digest"),
    Column("verdict", TEXT, _part("grade", "verdict"), "the grader's verdict; null: not graded"),
    Column("correct", FLAG, _part("grade", "correct"), "the grader judged the answer right"),
    Column("grade_branch", TEXT, _part("grade", "branch"), "the grader branch that decided"),
    Column(
        "items_named",
        TEXT,
        _part("grade", "items_named", as_json=True),
        "JSON: list items the reply named",
    ),
    Column("citation_outcome", TEXT, _part("citation_check", "outcome"), "the citation check"),
    Column("citation_flagged", FLAG, _part("citation_check", "flagged"), "a guardrail flags it"),
    Column("citation_detail", TEXT, _part("citation_check", "detail"), "the check's detail"),
    Column(
        "missing_values",
        TEXT,
        _part("citation_check", "missing_values", as_json=True),
        "JSON: asserted values in no cited chunk",
    ),
]
_ORACLE = [
    Column("has_oracle", FLAG, _has_oracle, "an oracle context was asked; null: not measured"),
    Column(
        "oracle_chunk_ids",
        TEXT,
        lambda r, _s: json_text((r.get("oracle") or {}).get("chunk_ids")),
        "JSON: the gold chunks the oracle prompt held",
    ),
    Column("oracle_status", TEXT, _oracle("generation", "status"), "the oracle call's status"),
    Column("oracle_reply", TEXT, _oracle("generation", "reply"), "the oracle reply"),
    Column("oracle_verdict", TEXT, _oracle("grade", "verdict"), "the oracle reply's verdict"),
    Column("oracle_correct", FLAG, _oracle("grade", "correct"), "the oracle answer is right"),
    Column(
        "attribution",
        TEXT,
        _field("attribution"),
        "retrieval, generation, ceiling, correct or failed_call; null: not attributed",
    ),
]


def columns() -> list[Column]:
    """Every exported column, in the order they are written."""
    return [*_IDENTITY, *_QUESTION, *_RETRIEVAL, *_diagnostics(), *_GENERATION, *_ORACLE]
