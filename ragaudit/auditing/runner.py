"""One audit run: structural check, index, per-phrasing ranks and the slot policy, per-intent
spread, optional dilution report. Produces the audit results document (docs/audit-results.md)."""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ragaudit.auditing.cases import Case, StructureReport
from ragaudit.auditing.chunks import AuditChunk, build_chunks
from ragaudit.auditing.corpus_io import path_of
from ragaudit.auditing.dilution import dilution_report
from ragaudit.auditing.engine import (
    AuditIndex,
    EmbedFailure,
    build_index,
    embed_questions,
    embed_text_of,
    rank_chunks,
)
from ragaudit.auditing.inputs import AuditInputs, check_inputs
from ragaudit.auditing.intents import intent_summaries
from ragaudit.auditing.policy import Candidate, PolicyOutcome, apply_policy
from ragaudit.auditing.report import SCHEMA_VERSION
from ragaudit.auditing.settings import AuditSettings
from ragaudit.auditing.subsections import SplitDecision, summarise
from ragaudit.auditing.target import prepare_stack, rank_with_stack
from ragaudit.backends.cache import CallCache
from ragaudit.backends.concurrency import DEFAULT_WORKERS
from ragaudit.backends.specs import describe_model, load_embedder
from ragaudit.documents import Corpus
from ragaudit.runner.progress import Progress
from ragaudit.stack.windows import survey_window


@dataclass
class AuditOutcome:
    """Either a fatal structural report (nothing was embedded) or the results document."""

    structure: StructureReport
    cases_path: Path | None
    results: dict | None


def run_audit(inputs: AuditInputs, argv: list[str] | None = None) -> AuditOutcome:
    """Check, index, rank and evaluate every case; see docs/audit-results.md for the output.
    Without a case file (dilution only) nothing is embedded."""
    started = time.perf_counter()
    checked = check_inputs(inputs)  # the stack file too, before any embedding
    settings, cases, structure = checked.settings, checked.cases, checked.structure
    if checked.corpus is None:  # a fatal structure: nothing embedded
        return AuditOutcome(structure, inputs.cases, None)
    corpus, stack = checked.corpus, checked.stack
    # their splitter and retriever built before the cache or Chroma opens: a bad one writes nothing
    prepared = prepare_stack(stack, corpus.documents) if cases and stack is not None else None
    cache = CallCache()
    progress = inputs.progress or Progress(stream=None)
    progress.watch_failures(cache)
    progress.stage("cutting the corpus", len(corpus.documents))
    chunks, decisions = build_chunks(corpus.documents, settings)
    progress.finish_stage()
    if cases and stack is not None:  # their splitter and ranking, our slot policy on top
        depth = max(inputs.rank_depth, settings.candidate_pool)
        got = rank_with_stack(prepared, cases, settings, depth, cache, workers=inputs.workers)
        records = _case_records(cases, got.ranked, got.indexed, settings, depth, got.failures)
        ranking = _Ranking(got.models, records, got.failures, got.index_section)
    elif cases:
        ranking = _rank_cases(
            cases, chunks, decisions, settings, inputs.rank_depth, cache, inputs.workers, progress
        )
    else:
        ranking = _Ranking()
    dilution = dilution_report(corpus.documents, settings) if inputs.dilution else None
    results = _results_document(
        inputs, argv, settings, corpus, structure, cases, ranking, dilution, cache, started
    )
    progress.done()
    return AuditOutcome(structure, inputs.cases, results)


@dataclass
class _Ranking:
    """What embedding and ranking the cases gave; empty when there is no case file."""

    models: list[dict] = field(default_factory=list)
    records: list[dict] = field(default_factory=list)
    failures: list[EmbedFailure] = field(default_factory=list)
    index_section: dict | None = None


def _rank_cases(
    cases: list[Case],
    chunks: list[AuditChunk],
    decisions: list[SplitDecision],
    settings: AuditSettings,
    rank_depth: int,
    cache: CallCache,
    workers: int = DEFAULT_WORKERS,
    progress: Any = None,
) -> _Ranking:
    """Embed the chunks and the questions, then rank and apply the slot policy per case."""
    progress = progress or Progress(stream=None)
    embedder = load_embedder(settings.embedder, cache, workers=workers)
    models = [describe_model(embedder)]
    progress.stage("embedding the corpus", len({embed_text_of(c) for c in chunks}))
    index = build_index(embedder, chunks, settings.chunking_name(), progress.advance)
    progress.finish_stage()  # the chunks the collection already held
    progress.stage("ranking cases", len(cases))
    depth = max(rank_depth, settings.candidate_pool)
    query_vectors, query_failures = embed_questions(
        embedder, [(c.case_id, c.question) for c in cases]
    )
    failures = index.failures + query_failures
    ranked = {
        c.case_id: rank_chunks(index, query_vectors[c.case_id], c.question, depth, settings.hybrid)
        for c in cases
        if c.case_id in query_vectors
    }
    progress.advance(len(cases))
    records = _case_records(cases, ranked, index.indexed, settings, depth, failures)
    index_section = _index_section(index, settings, decisions)
    # which chunks run past the embedder's window (a `document` splitter's long articles)
    window = survey_window(embedder, [embed_text_of(c) for c in index.chunks])
    index_section.update(embedder=embedder.spec, **window.fields(index.chunks, embed_text_of))
    if decisions:
        index_section["split"] = summarise(decisions)
    return _Ranking(models, records, failures, index_section)


def _case_records(
    cases: list[Case],
    ranked: dict,
    indexed: dict,
    settings: AuditSettings,
    depth: int,
    failures: list[EmbedFailure],
) -> list[dict]:
    """One record per case from its ranking (absent or None: its call failed)."""
    return [
        _case_record(case, ranked.get(case.case_id), indexed, settings, depth, failures)
        for case in cases
    ]  # fmt: skip


def _results_document(
    inputs: AuditInputs,
    argv: list[str] | None,
    settings: AuditSettings,
    corpus: Corpus,
    structure: StructureReport,
    cases: list[Case],
    ranking: _Ranking,
    dilution: dict | None,
    cache: CallCache,
    started: float,
) -> dict:
    """The audit results document (docs/audit-results.md), field order as written."""
    return {
        "schema_version": SCHEMA_VERSION,
        "kind": "audit",
        "created_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "complete": True,
        "argv": list(argv or []),
        "corpus": _corpus_section(corpus),
        "cases_file": path_of(inputs.cases, "cases given in Python"),
        "settings": {
            "path": path_of(inputs.settings, None),
            "values": settings.model_dump(mode="json"),
        },
        "models": ranking.models,
        "structure": _structure_section(structure),
        "index": ranking.index_section,
        "index_reason": None if cases else "no case file: dilution report only, nothing embedded",
        "cases": ranking.records,
        "intents": intent_summaries(cases, ranking.records),
        "summary": _summary(ranking.records, ranking.failures),
        "dilution": dilution,
        "dilution_reason": None if dilution else "not requested (run with --dilution)",
        "conditions": {
            "calls": cache.stats(),
            "calls_by_model": cache.stats_by_model(),
            "embedding_failures": [vars(f) for f in ranking.failures],
            "elapsed_seconds": round(time.perf_counter() - started, 2),
        },
    }


def _case_record(
    case: Case,
    ranked: list[Candidate] | None,
    indexed: dict[str, AuditChunk],
    settings: AuditSettings,
    depth: int,
    failures: list[EmbedFailure],
) -> dict:
    record = {
        "case_id": case.case_id,
        "intent": case.intent,
        "question": case.question,
        "line": case.line,
        "expect_all": list(case.expect_all),
        "expect_any": list(case.expect_any),
        "answer": case.answer,
        "anchor": case.anchor,
    }
    if ranked is None:
        error = next((f.error for f in failures if f.item == case.case_id), "embedding failed")
        return record | {
            "status": "failed_call",
            "error": error,
            "sources": [
                _unknown_source(s, case, "the question could not be embedded")
                for s in case.expected_sources
            ],
            "top_k": [],
            "policy": None,
        }
    outcome = apply_policy(ranked, settings)
    sources = [
        _source_record(source, case, ranked, outcome, indexed, depth)
        for source in case.expected_sources
    ]
    required_ok = all(s["in_top_k"] for s in sources if s["required"])
    any_ok = not case.expect_any or any(
        s["in_top_k"] for s in sources if s["source"] in case.expect_any
    )
    backfilled = set(outcome.backfilled_chunk_ids)
    return record | {
        "status": "pass" if required_ok and any_ok else "fail",
        "error": None,
        "sources": sources,
        "top_k": [_candidate_json(c, c.chunk_id in backfilled) for c in outcome.selected],
        "policy": _policy_json(outcome),
    }


def _source_record(
    source: str,
    case: Case,
    ranked: list[Candidate],
    outcome: PolicyOutcome,
    indexed: dict[str, AuditChunk],
    depth: int,
) -> dict:
    best = next((c for c in ranked if c.source == source), None)
    position = next(
        (i for i, c in enumerate(outcome.selected, start=1) if c.source == source), None
    )
    record = {
        "source": source,
        "required": source in case.expect_all,
        "rank": best.rank if best else None,
        "rank_reason": None,
        "best_chunk_id": best.chunk_id if best else None,
        "score": best.score if best else None,
        "in_top_k": position is not None,
        "position": position,
        "via_backfill": position is not None
        and outcome.selected[position - 1].chunk_id in outcome.backfilled_chunk_ids,
    }
    if best is None:
        present = any(c.doc_id == source for c in indexed.values())
        record["rank_reason"] = (
            f"not in the first {min(depth, len(indexed))} of {len(indexed)} chunks"
            if present
            else "source not indexed: its chunks could not be embedded"
        )
    return record


def _unknown_source(source: str, case: Case, reason: str) -> dict:
    return {
        "source": source, "required": source in case.expect_all, "rank": None,
        "rank_reason": reason, "best_chunk_id": None, "score": None,
        "in_top_k": False, "position": None, "via_backfill": False,
    }  # fmt: skip


def _candidate_json(candidate: Candidate, backfilled: bool) -> dict:
    return {
        "chunk_id": candidate.chunk_id,
        "source": candidate.source,
        "source_type": candidate.source_type,
        "rank": candidate.rank,
        "score": candidate.score,
        "bm25_score": candidate.bm25_score,
        "backfilled": backfilled,
    }


def _policy_json(outcome: PolicyOutcome) -> dict:
    return {
        "below_threshold": outcome.below_threshold,
        "skipped_by_cap": outcome.skipped_by_cap,
        "floor_slots": outcome.floor_slots,
        "floor_present_before": outcome.floor_present_before,
        "floor_backfilled": outcome.floor_backfilled,
        "floor_unfilled": outcome.floor_unfilled,
        "floor_type_in_backfill_range": outcome.floor_type_in_backfill_range,
    }


def _summary(records: list[dict], failures: list[EmbedFailure]) -> dict:
    return {
        "cases": len(records),
        "passed": sum(r["status"] == "pass" for r in records),
        "failed": sum(r["status"] == "fail" for r in records),
        "failed_calls": sum(r["status"] == "failed_call" for r in records),
        "passage_embedding_failures": sum(f.kind == "passage" for f in failures),
        "query_embedding_failures": sum(f.kind == "query" for f in failures),
    }


def _corpus_section(corpus: Corpus) -> dict:
    digest = hashlib.sha256()
    for doc in sorted(corpus.documents, key=lambda d: d.doc_id):
        digest.update(f"{doc.doc_id}\0{doc.source_type}\0{doc.text}\n".encode())
    return {
        "path": corpus.root,
        "documents": len(corpus.documents),
        "source_types": sorted({d.source_type or "(none)" for d in corpus.documents}),
        "sha256": digest.hexdigest(),
        "skipped": [vars(s) for s in corpus.skipped],
        "skipped_count": len(corpus.skipped),
    }


def _structure_section(structure: StructureReport) -> dict:
    return {
        "entries": structure.entries,
        "distinct_phrasings": structure.distinct,
        "duplicates": [[a.case_id, b.case_id] for a, b in structure.duplicates],
        "single_phrasing_intents": structure.single_phrasing_intents,
    }


def _index_section(index: AuditIndex, settings: AuditSettings, decisions: list) -> dict:
    kinds = [c.kind for c in index.chunks]
    return {
        "chunking": settings.chunking_name(),
        "collection": index.collection_name,
        "chunks": len(index.chunks),
        "indexed": len(index.indexed),
        "not_indexed": len(index.chunks) - len(index.indexed),
        "parents": kinds.count("parent"),
        "children": kinds.count("child"),
        "split": None,
        "split_reason": None if decisions else "split_subsections is off in the settings",
    }
