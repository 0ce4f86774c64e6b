"""Instrument statistics: does the corpus measure what it claims? (the seed's "tests are
not decoration").

All model-free: boundary straddle counts, near-duplicate instance pairs (token Jaccard),
anchor selectivity, table header/row placement, chunk counts per chunking.
"""

from __future__ import annotations

import itertools
import re
import statistics
from collections.abc import Iterable, Sequence

from ragaudit.corpus.build import Corpus
from ragaudit.probes.base import Instance, Span
from ragaudit.stack.chunking import Chunk, Chunking, chunk_corpus

NEAR_DUPLICATE = 0.8
MATRIX_CHUNKINGS = ("fixed-1000-0", "recursive-1000-0", "recursive-1000-200", "recursive-512-128")
TABLE_TOGETHER_CHUNKING = "recursive-4000-0"
STOPWORDS = frozenset(
    """a an and are as at be by can do does for from get has have how in is it its may
    must of on one or so that the their them there these this to under was what when where
    which who whom why will with within much many long often every any all list""".split()
)
_TOKEN = re.compile(r"[a-z0-9]+")


def tokens(text: str) -> set[str]:
    """Lower-cased alphanumeric tokens (digits count: they are what tells codes apart)."""
    return set(_TOKEN.findall(text.lower()))


def jaccard(a: set[str], b: set[str]) -> float:
    """|a & b| / |a | b| (0 for two empty sets)."""
    union = a | b
    return len(a & b) / len(union) if union else 0.0


def span_whole(span: Span, chunks: Iterable[Chunk]) -> bool:
    """Some chunk of the span's document holds it whole."""
    return any(
        c.doc_id == span.doc_id and c.start <= span.start and span.end <= c.end for c in chunks
    )


def together(first: Span, second: Span, chunks: Iterable[Chunk]) -> bool:
    """Some single chunk holds both spans whole."""
    return any(
        c.doc_id == first.doc_id == second.doc_id
        and c.start <= min(first.start, second.start)
        and max(first.end, second.end) <= c.end
        for c in chunks
    )


def _by_doc(chunks: Sequence[Chunk]) -> dict[str, list[Chunk]]:
    out: dict[str, list[Chunk]] = {}
    for chunk in chunks:
        out.setdefault(chunk.doc_id, []).append(chunk)
    return out


def _spans(instance: Instance, role: str) -> list[Span]:
    every = (*instance.gold_spans, *instance.trap_spans, *instance.extra_spans)
    return [s for s in every if s.role == role]


def boundary_stats(corpus: Corpus, chunk_sets: dict[str, list[Chunk]]) -> dict:
    """Per chunking: boundary gold spans preserved whole, and header in the answer's chunk
    (overall and by span length class)."""
    instances = corpus.instances_of("boundary")
    out: dict = {"n": len(instances), "chunkings": {}}
    for name, chunks in chunk_sets.items():
        docs = _by_doc(chunks)
        preserved = header = 0
        by_class: dict[str, list[int]] = {}
        for instance in instances:
            gold = instance.gold_spans[0]
            doc_chunks = docs.get(gold.doc_id, [])
            whole = span_whole(gold, doc_chunks)
            with_header = any(together(gold, h, doc_chunks) for h in _spans(instance, "header"))
            preserved += whole
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


def table_stats(corpus: Corpus, chunk_sets: dict[str, list[Chunk]]) -> dict:
    """Per chunking: table_split instances whose header row and answer row share a chunk."""
    instances = corpus.instances_of("table_split")
    out = {}
    for name, chunks in chunk_sets.items():
        docs = _by_doc(chunks)
        count = 0
        for instance in instances:
            row, head = _spans(instance, "table_row")[0], _spans(instance, "table_header")[0]
            count += together(row, head, docs.get(row.doc_id, []))
        out[name] = {"together": count, "n": len(instances)}
    return out


def instance_tokens(corpus: Corpus) -> dict[str, dict[str, set[str]]]:
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


def near_duplicates(corpus: Corpus) -> dict:
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


def question_terms(instance: Instance) -> list[str]:
    """The question's content terms and its anchor phrase: the candidate lookup keys."""
    terms = [t for t in _TOKEN.findall(instance.question.lower()) if t not in STOPWORDS]
    if instance.anchor:
        terms.append(instance.anchor.lower())
    return list(dict.fromkeys(terms))


def anchor_selectivity(corpus: Corpus, chunks: Sequence[Chunk]) -> dict:
    """For each question, how many chunks its most selective content term or phrase occurs
    in (terms found nowhere are skipped); min / median / max and single-chunk counts."""
    lowered = [c.text.lower() for c in chunks]
    per_question = {}
    for instance in corpus.instances:
        best = None
        for term in question_terms(instance):
            pattern = re.compile(r"(?<![a-z0-9])" + re.escape(term) + r"(?![a-z0-9])")
            count = sum(1 for text in lowered if term in text and pattern.search(text))
            if count and (best is None or count < best[1]):
                best = (term, count)
        per_question[instance.instance_id] = {
            "term": best[0] if best else None,
            "chunks": best[1] if best else None,
        }
    counts = [q["chunks"] for q in per_question.values() if q["chunks"] is not None]
    single = [iid for iid, q in per_question.items() if q["chunks"] == 1]
    return {
        "questions": len(per_question),
        "chunks": len(chunks),
        "min": min(counts) if counts else None,
        "median": statistics.median(counts) if counts else None,
        "max": max(counts) if counts else None,
        "single_chunk": len(single),
        "single_chunk_probes": sorted({iid.rsplit("-", 1)[0] for iid in single}),
        "per_question": per_question,
    }


def instrument_stats(corpus: Corpus) -> dict:
    """Every statistic `ragaudit corpus --stats` prints, as one JSON-ready dict."""
    names = (*MATRIX_CHUNKINGS, TABLE_TOGETHER_CHUNKING)
    chunk_sets = {name: chunk_corpus(corpus.documents, Chunking.from_name(name)) for name in names}
    return {
        "seed": corpus.seed,
        "n": corpus.n,
        "documents": len(corpus.documents),
        "instances": len(corpus.instances),
        "filler_documents": corpus.filler_count,
        "chunk_counts": {name: len(chunks) for name, chunks in chunk_sets.items()},
        "boundary": boundary_stats(corpus, {n: chunk_sets[n] for n in MATRIX_CHUNKINGS}),
        "table_split": table_stats(corpus, chunk_sets),
        "near_duplicates": near_duplicates(corpus),
        "anchor_selectivity": anchor_selectivity(corpus, chunk_sets["recursive-1000-0"]),
    }
