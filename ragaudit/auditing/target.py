"""`ragaudit audit --stack`: the user's corpus and cases through their own stack.

Their splitter cuts the corpus (exact spans, approximate ones counted); their retriever, or
our core over their embedder (dense, or BM25 fusion), ranks each case's question; then the
audit's slot policy (candidate pool, threshold, per-source cap, floor and backfill range)
applies on top of that ranking exactly as it does to the built-in one. The settings file
still gives the policy; the stack gives the chunks, the ranking and k.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from ragaudit.auditing.cases import Case
from ragaudit.auditing.chunks import AuditChunk
from ragaudit.auditing.engine import EmbedFailure, build_index, embed_questions, rank_chunks
from ragaudit.auditing.policy import Candidate
from ragaudit.auditing.settings import AuditSettings
from ragaudit.backends.specs import describe_model
from ragaudit.errors import ModelCallFailed, RagauditError
from ragaudit.stack.windows import survey_window
from ragaudit.targets.column import TargetColumn
from ragaudit.targets.stackfile import StackSpec, check_stack, load_stack


@dataclass
class StackRanking:
    """What the stack made of the audit: each case's ranking (None when its call failed)."""

    models: list[dict] = field(default_factory=list)
    ranked: dict[str, list[Candidate] | None] = field(default_factory=dict)
    indexed: dict[str, AuditChunk] = field(default_factory=dict)
    """The chunks a case can be answered from, by id (what `rank_reason` counts)."""
    failures: list[EmbedFailure] = field(default_factory=list)
    index_section: dict = field(default_factory=dict)


@dataclass(frozen=True)
class PreparedStack:
    """The user's stack built over their corpus (targets.column) before anything is opened
    or written, with its splitter's chunks as audit chunks."""

    column: TargetColumn
    chunks: list[AuditChunk]

    @property
    def stack(self) -> StackSpec:
        return self.column.stack


def prepare_stack(stack: StackSpec, documents: Sequence[Any]) -> PreparedStack:
    """Cut the corpus with their splitter and build their retriever (bounded by the stack's
    limits): a bad component is one line here, before the call cache or Chroma is opened."""
    column = TargetColumn(stack, documents)
    return PreparedStack(column, as_audit_chunks(column.chunks, documents))


def load_audit_stack(source: Any) -> StackSpec:
    """The stack file (or a StackSpec given in Python), checked (components importable)
    before anything is embedded. A `pipeline:` stack ranks each case by the contexts its
    pipeline returns (auditing.pipeline_ranking)."""
    stack = source if isinstance(source, StackSpec) else load_stack(source)
    check_stack(stack, list(stack.probes or ()), [])  # probes are the planted corpus's
    if stack.pipeline is not None:  # checked as run --dry-run checks it: nothing called
        TargetColumn(stack, (), dry_run=True)
    return stack


def stack_settings(stack: StackSpec, settings: AuditSettings, where: str) -> AuditSettings:
    """The settings' slot policy with the stack's k and hybrid (re-validated, so a floor
    wider than the stack's k is one line naming the stack file)."""
    k = stack.k if stack.k is not None else settings.k  # a pipeline's k may be its own
    values = settings.model_dump() | {"k": k, "hybrid": stack.hybrid}
    if stack.embedder is not None:
        values["embedder"] = stack.embedder["spec"]
    try:
        return AuditSettings.model_validate(values)
    except ValidationError as error:
        message = error.errors()[0]["msg"].removeprefix("Value error, ")
        raise RagauditError(f"{where}: the settings with k={stack.k}: {message}") from None


def audit_chunks(stack: StackSpec, documents: Sequence[Any]) -> tuple[list[AuditChunk], int]:
    """The stack's chunks of `documents` as audit chunks, and how many are approximate (no
    retriever built)."""
    column = TargetColumn(stack, documents, cut_only=True)
    return as_audit_chunks(column.chunks, documents), column.approximate


def as_audit_chunks(chunks: Sequence[Any], documents: Sequence[Any]) -> list[AuditChunk]:
    """The stack's chunks of the user's documents as audit chunks."""
    types = {d.doc_id: d.source_type for d in documents}
    return [
        AuditChunk(c.chunk_id, c.doc_id, types[c.doc_id], "chunk", c.start, c.end, c.text, c.text)
        for c in chunks
    ]


def rank_with_stack(
    prepared: PreparedStack,
    cases: Sequence[Case],
    settings: AuditSettings,
    depth: int,
    cache: Any,
    **load: Any,
) -> StackRanking:
    """Every case ranked by the prepared stack to `depth` (`load` goes to load_embedder)."""
    stack, chunks, approximate = prepared.stack, prepared.chunks, prepared.column.approximate
    if prepared.column.pipeline is not None:
        return _rank_with_pipeline(prepared, cases, cache, load.get("workers", 1))
    if prepared.column.retriever is not None:
        ranking = _rank_with_theirs(prepared, cases, depth)
    else:
        ranking = _rank_with_core(prepared, cases, settings, depth, cache, load)
    _check_scores(stack, settings, ranking)
    ranking.index_section.update(
        chunks=len(chunks), approximate_spans=approximate, parents=0, children=0,
        split=None, split_reason="the stack's splitter cuts the corpus (no subsection split)",
        stack=stack.to_config_json(),
    )  # fmt: skip
    return ranking


def _rank_with_core(
    prepared: PreparedStack,
    cases: Sequence[Case],
    settings: AuditSettings,
    depth: int,
    cache: Any,
    load: dict,
) -> StackRanking:
    stack, chunks = prepared.stack, prepared.chunks
    embedder = prepared.column.embedder(cache, **load)
    index = build_index(embedder, chunks, stack.chunking_name)
    vectors, query_failures = embed_questions(embedder, [(c.case_id, c.question) for c in cases])
    ranked = {
        c.case_id: rank_chunks(index, vectors[c.case_id], c.question, depth, settings.hybrid)
        if c.case_id in vectors
        else None
        for c in cases
    }
    window = survey_window(embedder, [c.text for c in chunks])
    section = {
        "chunking": stack.chunking_name, "collection": index.collection_name,
        "indexed": len(index.indexed), "not_indexed": len(chunks) - len(index.indexed),
        "embedder": embedder.spec, **window.fields(chunks),
    }  # fmt: skip
    failures = index.failures + query_failures
    return StackRanking([describe_model(embedder)], ranked, index.indexed, failures, section)


def _rank_with_theirs(prepared: PreparedStack, cases: Sequence[Case], depth: int) -> StackRanking:
    """Each case's question asked once; a question the retriever fails on (raises, times
    out, returns junk) is that case's failure, counted, and the next case is asked."""
    stack, chunks, documents = prepared.stack, prepared.chunks, prepared.column.documents
    retriever = prepared.column.retriever
    types = {d.doc_id: d.source_type for d in documents}
    indexed = {c.chunk_id: c for c in chunks}
    ranking = StackRanking(indexed=indexed)
    for case in cases:
        try:
            hits = retriever.ranking(case.question, depth)
        except ModelCallFailed as error:
            ranking.ranked[case.case_id] = None
            ranking.failures.append(EmbedFailure("query", case.case_id, str(error)))
            continue
        ranking.ranked[case.case_id] = [_candidate(hit, types) for hit in hits]
    for extra in retriever.extra_chunks:
        indexed.setdefault(extra.chunk_id, _as_audit_chunk(extra, types))
    ranking.index_section = {
        "chunking": stack.chunking_name, "collection": None, "indexed": len(chunks),
        "not_indexed": 0, "embedder": stack.embedder_label,
        "over_window": None, "over_window_reason": "their retriever embeds the chunks itself",
    }  # fmt: skip
    return ranking


def _rank_with_pipeline(
    prepared: PreparedStack, cases: Sequence[Case], cache: Any, workers: int
) -> StackRanking:
    """Their pipeline asked each case's question once; its located contexts, in the order
    it returned them, are the case's ranking (a failed call is that case's failure)."""
    from ragaudit.auditing.pipeline_ranking import rank_with_pipeline

    stack, documents = prepared.stack, prepared.column.documents
    got = rank_with_pipeline(
        stack, documents, cases, cache, workers, built=prepared.column.pipeline
    )
    types = {d.doc_id: d.source_type for d in documents}
    indexed = {cid: _as_audit_chunk(chunk, types) for cid, chunk in got.indexed.items()}
    ranked = {
        case_id: None if candidates is None else [
            Candidate(c.chunk_id, c.source, types.get(c.source), c.rank, c.score)
            for c in candidates
        ]
        for case_id, candidates in got.ranked.items()
    }  # fmt: skip
    failures = [EmbedFailure("query", f.item, f.error) for f in got.failures]
    section = {
        "chunking": stack.chunking_name, "collection": None, "indexed": len(indexed),
        "not_indexed": 0, "embedder": stack.embedder_label, "chunks": len(indexed),
        "over_window": None, "over_window_reason": "their pipeline retrieves by itself",
        "stack": stack.to_config_json(),
    }  # fmt: skip
    return StackRanking(got.models, ranked, indexed, failures, section)


def _check_scores(stack: StackSpec, settings: AuditSettings, ranking: StackRanking) -> None:
    """A score threshold needs a score: refuse hits without one when the settings gate."""
    floor_gate = settings.floor is not None and settings.floor.min_score is not None
    if settings.min_score is None and not floor_gate:
        return
    for candidates in ranking.ranked.values():
        if any(c.score is None for c in candidates or ()):
            raise RagauditError(
                f"{stack.where('retriever', 'factory')}: returned hits without a score, so "
                "the settings' min_score cannot apply; return (chunk, score) pairs or drop it"
            )


def _candidate(hit: Any, types: dict[str, str | None]) -> Candidate:
    """Their hit as a policy candidate, scored by their score (a threshold reads it)."""
    score = hit.dense_score if hit.dense_score is not None else hit.score
    return Candidate(hit.chunk_id, hit.doc_id, types.get(hit.doc_id), hit.rank, score)


def _as_audit_chunk(chunk: Any, types: dict[str, str | None]) -> AuditChunk:
    return AuditChunk(
        chunk.chunk_id, chunk.doc_id, types.get(chunk.doc_id), "chunk",
        chunk.start, chunk.end, chunk.text, chunk.text,
    )  # fmt: skip
