"""One mutation audit: the cases and the column checked, one corpus per operator built and
checked, each corpus (and the unmutated one, the control row) ranked by the column, the
records measured, optionally answered and graded, then scored. Every embedding goes through
the call cache, so a document unchanged by an operator replays its chunks' vectors."""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ragaudit.analysis import analyse
from ragaudit.audit.corpus_io import load_corpus
from ragaudit.backends.cache import CallCache
from ragaudit.backends.specs import describe_model, load_generator
from ragaudit.grading.grade import grade_records
from ragaudit.mutate.cases import load_mutation_cases
from ragaudit.mutate.column import Column
from ragaudit.mutate.grouping import OperatorCorpus, build_operator_corpus, control_corpus
from ragaudit.mutate.operator import PIPELINE_CHUNKS, Context
from ragaudit.mutate.operators import CONTROL, CONTROL_PROBE, operators
from ragaudit.mutate.pipeline_column import answer_record
from ragaudit.mutate.records import mutant_record
from ragaudit.mutate.score import mutation_section
from ragaudit.pipeline.generate import failed_calls
from ragaudit.results.schema import SCHEMA_VERSION

DEFAULT_GENERATOR = "local:qwen2.5-0.5b"
"""The cheap local generator (the quick preset's)."""


@dataclass
class MutateInputs:
    """What the command line names."""

    corpus: Path
    cases: Path
    settings: Path | None = None
    stack: Path | None = None
    operators: tuple[str, ...] | None = None
    seed: int = 0
    generate: bool = True
    generator: str | None = None
    workers: int = 4
    argv: list[str] = field(default_factory=list)


def prepare(inputs: MutateInputs) -> tuple[Any, list, Column, list, list[OperatorCorpus]]:
    """Everything that can fail on bad input, before any model or file is opened: the
    corpus, the cases, the column, and every operator corpus with its mutants."""
    chosen = operators(inputs.operators)
    corpus = load_corpus(inputs.corpus)
    intents = load_mutation_cases(inputs.cases, corpus.documents)
    column = Column(inputs.settings, inputs.stack)
    context = Context(tuple(corpus.documents), tuple(intents), inputs.seed, column.splitter())
    corpora = [control_corpus(context)] + [build_operator_corpus(op, context) for op in chosen]
    return corpus, intents, column, chosen, corpora


def run_mutation(inputs: MutateInputs) -> dict:
    """The results document of one mutation audit (see docs/mutate.md)."""
    started = time.perf_counter()
    corpus, intents, column, chosen, corpora = prepare(inputs)
    cache = CallCache()
    layers = {op.name: op.probe.layer for op in chosen} | {CONTROL: CONTROL_PROBE.layer}
    measures = {op.name: op.handled_without_generation for op in chosen} | {CONTROL: CONTROL}
    records, chunks, offsets, indexes, models, failures = [], {}, {}, [], [], []
    for operator_corpus in corpora:
        got = _retrieve(operator_corpus, intents, column, cache, inputs, layers, measures)
        records += got["records"]
        chunks.update(got["chunks"])
        for doc_id, spans in got["offsets"].items():
            offsets.setdefault(column.chunking_name, {})[doc_id] = spans
        indexes.append(got["index"])
        models += [m for m in got["models"] if m not in models]
        failures += got["failures"]
    results = _document(inputs, corpus, column, corpora, records, chunks, offsets, indexes)
    results["models"] = models
    if inputs.generate and column.pipeline:  # its answers came with its contexts
        grade_records(results["instances"], results["chunks"])
    elif inputs.generate:
        from ragaudit.mutate.answer import answer_records

        generator = load_generator(inputs.generator or DEFAULT_GENERATOR, cache)
        results["models"].append(describe_model(generator))
        answer_records(results, generator, column, inputs.workers)
        failures += failed_calls(results["instances"], generator.spec)
    analyse(results)
    unmeasured = PIPELINE_CHUNKS if column.pipeline and not inputs.generate else None
    results["mutation"] = mutation_section(results, corpora, chosen, inputs.generate, unmeasured)
    results["conditions"] = {
        "calls": cache.stats(),
        "calls_by_model": cache.stats_by_model(),
        "failed_calls": failures,
        "elapsed_seconds": round(time.perf_counter() - started, 2),
        "elapsed_reason": None,
    }
    return results


def _retrieve(
    operator_corpus: OperatorCorpus, intents: list, column: Column, cache: Any,
    inputs: MutateInputs, layers: dict, measures: dict,
) -> dict:  # fmt: skip
    """Rank every phrasing of every applied mutant over the operator's corpus (a pipeline:
    ask it, built over that corpus, and locate its contexts)."""
    workers = inputs.workers
    applied = {m.intent: m for m in operator_corpus.mutants if m.applied}
    cases = [c for i in intents if i.name in applied for c in i.cases]
    name = operator_corpus.operator
    ranked = column.rank(operator_corpus.documents, cases, cache, workers) if cases else None
    chunks_all = ranked.chunks if ranked else column.cut(operator_corpus.documents)
    records = []
    for intent in intents:
        mutant = applied.get(intent.name)
        for case in intent.cases if mutant else ():
            ranking = ranked.ranked.get(case.case_id)
            error = None if ranking is not None else _failure(ranked, case.case_id)
            records.append(
                mutant_record(
                    mutant, case, column, layers[name], measures[name], ranking,
                    chunks_all, ranked.indexed, error,
                )
            )  # fmt: skip
            if column.pipeline:
                replies = ranked.answers if ranked else {}
                answer_record(records[-1], replies.get(case.case_id), inputs.generate)
    per_doc: dict[str, list] = {}
    for chunk in chunks_all:
        per_doc.setdefault(chunk.doc_id, []).append(chunk)
    used = {hit["chunk_id"] for r in records for hit in r["retrieved"]}
    used |= {c.chunk_id for r in records for c in _gold_chunks(r, per_doc)}
    chunk_json = {}
    for doc_id, doc_chunks in per_doc.items():
        for index, chunk in enumerate(doc_chunks):
            if chunk.chunk_id in used:
                chunk_json[chunk.chunk_id] = {
                    "doc_id": doc_id, "chunking": column.chunking_name, "index": index,
                    "start": chunk.start, "end": chunk.end, "text": chunk.text,
                }  # fmt: skip
    changed = operator_corpus.changed
    index = {
        "operator": name, "documents": len(operator_corpus.documents),
        "changed_documents": sorted(changed), "chunks": len(chunks_all),
        "changed_chunks": sum(1 for c in chunks_all if c.doc_id in changed),
    }  # fmt: skip
    offsets = {d: [[c.start, c.end] for c in cs] for d, cs in per_doc.items()}
    return {
        "records": records, "chunks": chunk_json, "offsets": offsets, "index": index,
        "models": ranked.models if ranked else [],
        "failures": [vars(f) for f in ranked.failures] if ranked else [],
    }  # fmt: skip


def _gold_chunks(record: dict, per_doc: dict) -> list:
    """The chunks the oracle prompt reads: those holding a gold or table span."""
    spans = record["gold_spans"] + record["extra_spans"]
    return [
        c for s in spans for c in per_doc.get(s["doc_id"], ())
        if c.start < s["end"] and s["start"] < c.end
    ]  # fmt: skip


def _failure(ranked: Any, case_id: str) -> str:
    return next((f.error for f in ranked.failures if f.item == case_id), "retrieval failed")


def _document(
    inputs: MutateInputs, corpus: Any, column: Column, corpora: list[OperatorCorpus],
    records: list, chunks: dict, offsets: dict, indexes: list,
) -> dict:  # fmt: skip
    digest = hashlib.sha256()
    for doc in sorted(corpus.documents, key=lambda d: d.doc_id):
        digest.update(f"{doc.doc_id}\0{doc.source_type}\0{doc.text}\n".encode())
    probes = []
    for operator_corpus in corpora:
        n = sum(1 for r in records if r["probe"] == operator_corpus.operator)
        layer = "control" if operator_corpus.operator == CONTROL else "architectural"
        probes.append({"name": operator_corpus.operator, "layer": layer, "n": n})
    return {
        "schema_version": SCHEMA_VERSION,
        "created_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "complete": True,
        "run": {
            "kind": "mutate", "preset": "mutate", "argv": list(inputs.argv),
            "seed": inputs.seed, "operators": [c.operator for c in corpora[1:]],
            "generate": inputs.generate, "gen_configs": [column.name] if inputs.generate else [],
            "gen_probes": [p["name"] for p in probes] if inputs.generate else [],
            "indexes": [], "operator_indexes": indexes,
            "chunk_counts": {column.chunking_name: indexes[0]["chunks"]},
            "cases_file": str(inputs.cases),
        },
        "corpus": {
            "path": str(inputs.corpus), "documents": len(corpus.documents),
            "sha256": digest.hexdigest(), "probes": probes, "seed": inputs.seed,
        },
        "configs": [column.config_json()],
        "embedders": [{"spec": column.embedder_label, "role": "primary"}],
        "generator": {"spec": inputs.generator or DEFAULT_GENERATOR} if inputs.generate else None,
        "models": [], "conditions": {}, "chunks": chunks, "chunk_offsets": offsets,
        "instances": records, "cells": [], "comparisons": [], "extra_measurements": {},
    }  # fmt: skip
