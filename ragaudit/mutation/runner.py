"""One mutation audit: the cases and the column checked, every mutant built and checked on
its own corpus (the user's plus its own change), the unmutated corpus (the control row)
and each mutant ranked by the column, the records measured, optionally answered and
graded, then scored. ragaudit's own retrieval ranks each mutant as an overlay on one base
index (mutation.overlay); a user's retriever or pipeline is rebuilt once per group of
mutants that cannot interfere (mutation.groups). Every embedding goes through the call
cache, so an unchanged chunk replays its vector."""

from __future__ import annotations

import hashlib
import time
from collections import ChainMap
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from ragaudit.analysis import analyse
from ragaudit.auditing.corpus_io import as_corpus, path_of
from ragaudit.backends.cache import CallCache
from ragaudit.backends.specs import describe_model, load_generator
from ragaudit.grading.grade import grade_records
from ragaudit.mutation.cases import load_mutation_cases
from ragaudit.mutation.closed_book import (
    ask_closed_book,
    closed_book_failed_calls,
    closed_book_row,
)
from ragaudit.mutation.column import Column
from ragaudit.mutation.grouping import Mutant, OperatorMutants, build_mutants, control_mutants
from ragaudit.mutation.groups import group_mutants
from ragaudit.mutation.measure import Measured, add_offsets, measure, per_document
from ragaudit.mutation.operator import PIPELINE_CHUNKS, Context
from ragaudit.mutation.operators import CONTROL, CONTROL_PROBE, operators
from ragaudit.mutation.pipeline_column import ask_oracle
from ragaudit.mutation.score import mutation_section
from ragaudit.mutation.text import shingles
from ragaudit.results.schema import SCHEMA_VERSION
from ragaudit.runner.conditions import failure_reasons
from ragaudit.runner.generate import failed_calls
from ragaudit.runner.progress import Progress

DEFAULT_GENERATOR = "local:qwen2.5-0.5b"
"""The cheap local generator (the quick preset's)."""


@dataclass
class MutateInputs:
    """What the command line (or the library) names."""

    corpus: Any
    """A folder or JSONL path, or documents given in Python (auditing.corpus_io.as_corpus)."""
    cases: Any
    """A case file's path, or intents given in Python (auditing.cases.read_case_file)."""
    settings: Any = None
    """A settings file's path, or AuditSettings; None: the defaults (or the stack's)."""
    stack: Any = None
    """A stack file's path, or a parsed StackSpec (targets.objects builds one from Python)."""
    operators: tuple[str, ...] | None = None
    seed: int = 0
    generate: bool = True
    generator: str | None = None
    workers: int = 4
    argv: list[str] = field(default_factory=list)
    progress: Progress = field(default_factory=lambda: Progress(stream=None))
    """Where each stage reports its progress and ETA (silent by default)."""


def prepare(inputs: MutateInputs, cache: Any = None) -> Prepared:
    """Everything that can fail on bad input, before any model or file is opened: the
    corpus, the cases, the column, and every operator's mutants (each built and checked on
    its own corpus). `cache`: the call cache a boundary's window check may load the
    embedder's tokenizer through (None: no window check, no robust credit)."""
    progress = inputs.progress  # silent until the inputs are read: bad input is one line
    chosen = operators(inputs.operators)
    corpus = as_corpus(inputs.corpus)
    intents = load_mutation_cases(inputs.cases, corpus.documents)
    column = Column(inputs.settings, inputs.stack)
    window = column.window_check(cache, inputs.workers) if cache is not None else None
    context = Context(
        tuple(corpus.documents), tuple(intents), inputs.seed, column.splitter(), in_window=window
    )
    progress.stage("building mutants", len(chosen) * len(intents))
    built = []
    for op in chosen:
        built.append(build_mutants(op, context, progress.advance))
    # the near-duplicate checks' shingles of every document (156 MB for 1,100 man pages)
    # are not needed again: free them before the corpus is embedded
    shingles.cache_clear()
    return Prepared(corpus, intents, column, chosen, [control_mutants(context), *built])


@dataclass
class Prepared:
    """The inputs read and every mutant built, before any model runs."""

    corpus: Any
    intents: list
    column: Column
    chosen: list
    mutants: list[OperatorMutants]
    """The control row's entries first, then each operator's mutants."""

    def applied(self) -> list[Mutant]:
        return [m for group in self.mutants[1:] for m in group.mutants if m.applied]


@dataclass
class _Run:
    """What every stage of one mutation audit reads."""

    inputs: MutateInputs
    ready: Prepared
    cache: Any
    got: Measured = field(default_factory=Measured)

    def __post_init__(self) -> None:
        chosen = self.ready.chosen
        self.layers = {op.name: op.probe.layer for op in chosen} | {CONTROL: CONTROL_PROBE.layer}
        self.measures = {op.name: op.handled_without_generation for op in chosen}
        self.measures[CONTROL] = CONTROL
        self.by_name = {i.name: i for i in self.ready.intents}

    def measure(self, mutants: list, ranked: Any, doc_chunks: Any) -> None:
        """The records of `mutants` from one ranked corpus (mutation.measure)."""
        measure(self.got, mutants, self.by_name, ranked, doc_chunks, self.ready.column,
                self.layers, self.measures, self.inputs.generate)  # fmt: skip

    def failed(self, failures: list) -> None:
        self.got.failures += [_failure(f, self.ready.column) for f in failures]


def run_mutation(inputs: MutateInputs) -> dict:
    """The results document of one mutation audit (see docs/mutate.md)."""
    started = time.perf_counter()
    cache = CallCache()
    inputs.progress.watch_failures(cache)
    run = _Run(inputs, prepare(inputs, cache), cache)
    ranked_by = _rank_overlays if run.ready.column.overlay else _rank_rebuilt
    section, models, builds = ranked_by(run)
    ready = run.ready
    results = _document(inputs, ready.corpus, ready.column, ready.mutants, run.got, builds,
                        section)  # fmt: skip
    results["models"] = models
    failures = run.got.failures + _answer(run, results)
    analyse(results)
    _score(run, results)
    results["conditions"] = {
        "calls": cache.stats(),
        "calls_by_model": cache.stats_by_model(),
        "failed_calls": failures,
        "failure_reasons": failure_reasons(cache.failures()),
        "elapsed_seconds": round(time.perf_counter() - started, 2),
        "elapsed_reason": None,
    }
    inputs.progress.done()
    return results


def _rank_overlays(run: _Run) -> tuple[dict, list, dict]:
    """ragaudit's own retrieval: one base index, each mutant an overlay on it."""
    ready, got, progress = run.ready, run.got, run.inputs.progress
    every_case = [c for i in ready.intents for c in i.cases]
    base, section = ready.column.base_index(
        ready.corpus.documents, every_case, run.cache, run.inputs.workers, progress
    )
    control = base.control(every_case)
    base_chunks = per_document(control.chunks)
    add_offsets(got, control.chunks)
    run.measure(ready.mutants[0].mutants, control, base_chunks)
    applied = ready.applied()
    progress.stage("ranking mutants", len(applied))
    indexes = []
    for mutant in applied:
        ranked = base.mutant(mutant, run.by_name[mutant.intent].cases)
        add_offsets(got, ranked.chunks)
        run.measure([mutant], ranked, ChainMap(per_document(ranked.chunks), base_chunks))
        run.failed(ranked.failures)
        indexes.append(_overlay_entry(mutant, ranked, base_chunks))
        progress.advance(1)
    run.failed(control.failures)
    builds = {
        "kind": "overlay", "builds": 1, "mutants": indexes,
        "basis": "one base index; each mutant ranked over it plus its own change",
    }  # fmt: skip
    return section, [describe_model(base.embedder)], builds


def _rank_rebuilt(run: _Run) -> tuple[None, list, dict]:
    """A user's retriever or pipeline: built over the unmutated corpus, then once per group
    of mutants that cannot interfere (mutation.groups)."""
    ready, got, progress = run.ready, run.got, run.inputs.progress
    documents, column = ready.corpus.documents, ready.column
    groups = group_mutants(ready.applied(), ready.intents, documents)
    progress.stage("building your column per corpus", 1 + len(groups))
    corpora = [(ready.mutants[0].mutants, documents)]
    corpora += [(g.mutants, g.documents(documents)) for g in groups]
    models: list = []
    for mutants, docs in corpora:
        cases = [c for m in mutants for c in run.by_name[m.intent].cases]
        ranked = column.rank(docs, cases, run.cache, run.inputs.workers)
        add_offsets(got, ranked.chunks)
        before = len(got.records)
        run.measure(mutants, ranked, per_document(ranked.chunks))
        if column.pipeline:  # its oracle entry asked this corpus's gold passages
            new = got.records[before:]
            got.failures += ask_oracle(ranked, new, got.chunks, run.cache, run.inputs.workers)
        run.failed(ranked.failures)
        models += [m for m in ranked.models if m not in models]
        progress.advance(1)
    return None, models, _rebuild_entry(groups)


def _answer(run: _Run, results: dict) -> list[dict]:
    """With generation: every record answered and graded (a pipeline's answers came with
    its contexts), each phrasing asked closed-book; the failed calls."""
    inputs, column = run.inputs, run.ready.column
    if not inputs.generate:
        return []
    if column.pipeline:
        grade_records(results["instances"], results["chunks"])
        return []
    from ragaudit.mutation.answer import answer_records

    generator = load_generator(inputs.generator or DEFAULT_GENERATOR, run.cache)
    results["models"].append(describe_model(generator))
    answer_records(results, generator, column, inputs.workers, inputs.progress)
    failures = failed_calls(results["instances"], generator.spec)
    # the model may already know the answer: such a phrasing certifies no mutant
    inputs.progress.stage("asking each phrasing closed-book", 1)
    results["closed_book"] = ask_closed_book(run.ready.intents, generator, inputs.workers)
    inputs.progress.advance(1)
    return failures + closed_book_failed_calls(results["closed_book"], generator.spec)


def _score(run: _Run, results: dict) -> None:
    """The `mutation` section, its closed-book row included."""
    inputs, ready = run.inputs, run.ready
    column = ready.column
    unmeasured = PIPELINE_CHUNKS if column.pipeline and not inputs.generate else None
    section = mutation_section(results, ready.mutants, ready.chosen, inputs.generate, unmeasured)
    closed = results.get("closed_book")
    section["closed_book"] = closed_book_row(closed, ready.intents) if closed else None
    section["closed_book_reason"] = None if closed else _closed_book_reason(inputs, column)
    results["mutation"] = section


def _closed_book_reason(inputs: MutateInputs, column: Column) -> str:
    if not inputs.generate:
        return "not asked: --no-generate loads no generator"
    return "not asked: a pipeline answers with its own model, which ragaudit cannot ask alone"


def _failure(failure: Any, column: Column) -> dict:
    """A failed call as the results file counts it (one call; the model that failed)."""
    model = getattr(failure, "model", None) or column.embedder_label
    return {"kind": failure.kind, "item": failure.item, "error": failure.error,
            "model": model, "calls": 1}  # fmt: skip


def _overlay_entry(mutant: Mutant, ranked: Any, base_chunks: dict) -> dict:
    """What one mutant's overlay changed in the base index."""
    return {
        "mutant": mutant.mutant_id, "dropped_documents": list(mutant.dropped),
        "added_documents": [d.doc_id for d in mutant.added],
        "chunks_dropped": sum(len(base_chunks.get(d, ())) for d in mutant.dropped),
        "chunks_added": len(ranked.chunks), "texts_embedded": ranked.embedded,
    }  # fmt: skip


def _rebuild_entry(groups: list) -> dict:
    """The corpora a user's retriever or pipeline was built over: the unmutated one, then
    one per group of mutants that cannot interfere."""
    return {
        "kind": "rebuild", "builds": 1 + len(groups),
        "basis": "your retriever or pipeline built once over the unmutated corpus and once "
        "per group of mutants that touch no document another of the group relies on",
        "groups": [[m.mutant_id for m in g.mutants] for g in groups],
    }  # fmt: skip


def _document(
    inputs: MutateInputs, corpus: Any, column: Column, mutants: list[OperatorMutants],
    got: Measured, builds: dict, section: dict | None,
) -> dict:  # fmt: skip
    digest = hashlib.sha256()
    for doc in sorted(corpus.documents, key=lambda d: d.doc_id):
        digest.update(f"{doc.doc_id}\0{doc.source_type}\0{doc.text}\n".encode())
    probes = []
    for group in mutants:
        n = sum(1 for r in got.records if r["probe"] == group.operator)
        layer = "control" if group.operator == CONTROL else "architectural"
        probes.append({"name": group.operator, "layer": layer, "n": n})
    return {
        "schema_version": SCHEMA_VERSION,
        "created_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "complete": True,
        "run": {
            "kind": "mutate", "preset": "mutate", "argv": list(inputs.argv),
            "seed": inputs.seed, "operators": [g.operator for g in mutants[1:]],
            "generate": inputs.generate, "gen_configs": [column.name] if inputs.generate else [],
            "gen_probes": [p["name"] for p in probes] if inputs.generate else [],
            "indexes": [section] if section else [], "builds": builds,
            "chunk_counts": {column.chunking_name: section["chunks"]} if section else {},
            "cases_file": path_of(inputs.cases, "cases given in Python"),
        },
        "corpus": {
            "path": path_of(inputs.corpus, None, resolve=True),
            "documents": len(corpus.documents),
            "sha256": digest.hexdigest(), "probes": probes, "seed": inputs.seed,
            "skipped": [vars(s) for s in corpus.skipped], "skipped_count": len(corpus.skipped),
        },
        "configs": [column.config_json()],
        "embedders": [{"spec": column.embedder_label, "role": "primary"}],
        "generator": {"spec": inputs.generator or DEFAULT_GENERATOR} if inputs.generate else None,
        "models": [], "conditions": {}, "chunks": got.chunks,
        "chunk_offsets": {column.chunking_name: got.offsets},
        "instances": got.records, "cells": [], "comparisons": [], "extra_measurements": {},
    }  # fmt: skip
