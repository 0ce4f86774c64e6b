"""Instrument statistics: does the corpus measure what it claims? (the originating
study's "tests are not decoration").

All model-free: boundary straddle counts, near-duplicate instance pairs (token Jaccard),
anchor selectivity, table header/row placement, chunk counts per chunking, and what each
overlap rule changes against the same cut at overlap 0. Where a span lies
and how far an anchor narrows the index are the run's own diagnostics
(`ragaudit.stack.diagnostics`), so `ragaudit corpus --stats` and the results file cannot
disagree on what they mean.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Hashable
from collections.abc import Set as AbstractSet
from dataclasses import replace

from ragaudit.corpus.build import REFERENCE_CHUNKING, PlantedCorpus
from ragaudit.stack.chunking import OVERLAP_RULES, Chunking, chunk_corpus
from ragaudit.stack.configs import MATRIX_CHUNKINGS, TABLE_SPLIT_WIDE
from ragaudit.stack.diagnostics import (
    ChunkingView,
    anchor_summary,
    header_in_answer_chunk,
    span_preserved,
    table_together,
)

NEAR_DUPLICATE = 0.8
_TOKEN = re.compile(r"[a-z0-9]+")


def tokens(text: str) -> set[str]:
    """Lower-cased alphanumeric tokens (digits count: they are what tells codes apart)."""
    return set(_TOKEN.findall(text.lower()))


def jaccard(a: AbstractSet[Hashable], b: AbstractSet[Hashable]) -> float:
    """|a & b| / |a | b| (0 for two empty sets): over tokens here, over word shingles in
    the mutation operators' near-duplicate check."""
    union = a | b
    return len(a & b) / len(union) if union else 0.0


def boundary_stats(corpus: PlantedCorpus, views: dict[str, ChunkingView]) -> dict:
    """Per chunking: boundary gold spans preserved whole, and header in the answer's chunk
    (overall and by span length class)."""
    instances = corpus.instances_of("boundary")
    out: dict = {"n": len(instances), "chunkings": {}}
    for name, view in views.items():
        preserved = header = 0
        by_class: dict[str, list[int]] = {}
        for instance in instances:
            with_header = header_in_answer_chunk(instance, view)
            preserved += span_preserved(instance, view)
            header += with_header
            counts = by_class.setdefault(instance.meta.get("length_class", "?"), [0, 0])
            counts[0] += with_header
            counts[1] += 1
        out["chunkings"][name] = {
            "span_preserved": preserved,
            "span_cut": len(instances) - preserved,
            "header_in_answer_chunk": header,
            "header_by_length_class": {k: {"count": v[0], "n": v[1]} for k, v in by_class.items()},
        }
    return out


def table_stats(corpus: PlantedCorpus, views: dict[str, ChunkingView]) -> dict:
    """Per chunking: table_split instances whose header row and answer row share a chunk."""
    instances = corpus.instances_of("table_split")
    return {
        name: {
            "together": sum(bool(table_together(i, view)) for i in instances),
            "n": len(instances),
        }
        for name, view in views.items()
    }


def instance_tokens(corpus: PlantedCorpus) -> dict[str, dict[str, set[str]]]:
    """probe -> instance id -> tokens of its answer-bearing (else its own) documents, minus
    the tokens every document of that probe shares (siblings are compared on what varies)."""
    out: dict[str, dict[str, set[str]]] = {}
    for probe in corpus.probes:
        per_instance = {}
        doc_tokens = []
        for instance in corpus.instances_of(probe):
            # Unanswerable instances have no answer-bearing document: use their own.
            ids = instance.answer_doc_ids or [
                d.doc_id
                for d in corpus.documents
                if d.metadata.get("instance_id") == instance.instance_id
            ]
            docs = [corpus.document(d) for d in ids]
            sets = [tokens(d.text) for d in docs]
            doc_tokens += sets
            if sets:
                per_instance[instance.instance_id] = set().union(*sets)
        shared = set.intersection(*doc_tokens) if doc_tokens else set()
        out[probe] = {iid: toks - shared for iid, toks in per_instance.items()}
    return out


def near_duplicates(corpus: PlantedCorpus) -> dict:
    """The closest pair of instances within each probe and across probes (token Jaccard)."""
    per_probe = instance_tokens(corpus)
    within = {}
    for probe, sets in per_probe.items():
        best = None
        for (a, ta), (b, tb) in itertools.combinations(sets.items(), 2):
            score = jaccard(ta, tb)
            if best is None or score > best["jaccard"]:
                best = {"pair": [a, b], "jaccard": round(score, 4)}
        within[probe] = best or {
            "pair": None,
            "jaccard": None,
            "reason": "no answer-bearing documents",
        }
    best_across = None
    for (_, sp), (_, sq) in itertools.combinations(per_probe.items(), 2):
        for (a, ta), (b, tb) in itertools.product(sp.items(), sq.items()):
            score = jaccard(ta, tb)
            if best_across is None or score > best_across["jaccard"]:
                best_across = {"pair": [a, b], "jaccard": round(score, 4)}
    return {"threshold": NEAR_DUPLICATE, "within": within, "across": best_across}


def anchor_selectivity(corpus: PlantedCorpus, view: ChunkingView) -> dict:
    """The run's anchor summary over one chunking, plus each question's count."""
    per_question = {
        i.instance_id: view.anchor_selectivity(i.anchor) for i in corpus.instances if i.anchor
    }
    return {**anchor_summary(corpus.instances, view), "per_question": per_question}


def rule_twins(chunkings: tuple[Chunking, ...]) -> tuple[Chunking, ...]:
    """The chunkings, each recursive one with an overlap beside its twin under every other
    overlap rule (recursive-1000-200-carry_tail, then recursive-1000-200-langchain)."""
    out: list[Chunking] = []
    for chunking in chunkings:
        out.append(chunking)
        if chunking.splitter == "recursive" and chunking.overlap:
            out += [replace(chunking, overlap_rule=rule) for rule in OVERLAP_RULES]
    return tuple(dict.fromkeys(out))


def overlap_rule_stats(corpus: PlantedCorpus, chunkings: tuple[Chunking, ...]) -> dict:
    """Per recursive chunking with an overlap: against the same cut at overlap 0, the
    documents of more than one chunk whose chunk texts differ, and the chunks that differ."""
    out: dict = {}
    for chunking in chunkings:
        if chunking.splitter != "recursive" or not chunking.overlap:
            continue
        baseline = replace(chunking, overlap=0)
        changed_docs = multi = changed_chunks = chunks = 0
        for doc in corpus.documents:
            texts = [c.text for c in chunk_corpus([doc], chunking)]
            plain = [c.text for c in chunk_corpus([doc], baseline)]
            chunks += len(texts)
            changed_chunks += sum(text not in plain for text in texts)
            if len(plain) > 1:
                multi += 1
                changed_docs += texts != plain
        out[chunking.name] = {
            "baseline": baseline.name,
            "documents_changed": changed_docs,
            "multi_chunk_documents": multi,
            "chunks_changed": changed_chunks,
            "chunks": chunks,
        }
    return out


def instrument_stats(corpus: PlantedCorpus) -> dict:
    """Every statistic `ragaudit corpus --stats` prints, as one JSON-ready dict."""
    measured = rule_twins(MATRIX_CHUNKINGS)
    chunkings = dict.fromkeys((*measured, TABLE_SPLIT_WIDE, REFERENCE_CHUNKING))
    views = {
        chunking.name: ChunkingView(chunking.name, chunk_corpus(corpus.documents, chunking))
        for chunking in chunkings
    }
    matrix = {c.name: views[c.name] for c in measured}
    return {
        "seed": corpus.seed,
        "n": corpus.n,
        "documents": len(corpus.documents),
        "instances": len(corpus.instances),
        "filler_documents": corpus.filler_count,
        "chunk_counts": {name: len(view.chunks) for name, view in views.items()},
        "boundary": boundary_stats(corpus, matrix),
        "overlap_rules": overlap_rule_stats(corpus, measured),
        "table_split": table_stats(corpus, views),
        "near_duplicates": near_duplicates(corpus),
        "anchor_selectivity": anchor_selectivity(corpus, views[REFERENCE_CHUNKING.name]),
    }
