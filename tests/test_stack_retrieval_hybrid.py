"""Dense retrieval through llama-index over a real Chroma, BM25, and their fusion, on a
small hand-made corpus with the real MiniLM embedder."""

from __future__ import annotations

import re

import pytest

from ragaudit.backends.cache import CallCache
from ragaudit.backends.llamaindex import as_llamaindex_embedding
from ragaudit.backends.specs import load_embedder
from ragaudit.documents import Document
from ragaudit.stack.chunking import Chunking, chunk_corpus
from ragaudit.stack.index import build_index, collection_name, open_client
from ragaudit.stack.retrieval import Retriever

TOPICS = [
    "Forklift batteries are charged overnight in the east bay and swapped every morning.",
    "The cafeteria serves vegetarian lunches on Wednesdays and fish on Fridays.",
    "Visitors must sign in at reception and wear a badge at all times on site.",
    "Fire drills happen twice a year; everyone gathers at the assembly point by the gate.",
]
# Near-identical documents told apart only by an opaque code: dense similarity barely
# separates them, BM25 does (the study's "identifier leverage").
CODES = ["QX-7731", "LM-2048", "TR-5590", "BK-3317", "ZP-8802", "WN-6624"]


def corpus() -> list[Document]:
    docs = [Document(f"topic-{i}", (text + " ") * 3) for i, text in enumerate(TOPICS)]
    docs += [
        Document(f"code-{code}", f"Storage rule {code}: solvent drums stay in the cage. " * 2)
        for code in CODES
    ]
    return docs


@pytest.fixture
def retriever(ragaudit_home):
    embedder = load_embedder("local:minilm", CallCache())
    chunks = chunk_corpus(corpus(), Chunking("recursive", 200, 0))
    index = build_index(
        open_client(), embedder, "recursive-200-0", chunks, as_llamaindex_embedding(embedder)
    )
    return Retriever(embedder, chunks, index)


def test_dense_ranking_finds_the_topic_and_reports_cosines_with_spans(retriever):
    hits = retriever.retrieve("When do fire drills take place and where do people gather?", 3)
    assert [h.rank for h in hits] == [1, 2, 3]
    assert hits[0].doc_id == "topic-3"
    scores = [h.score for h in hits]
    assert scores == sorted(scores, reverse=True) and all(-1.0 <= s <= 1.0 for s in scores)
    assert all(h.dense_score == h.score and h.bm25_score is None for h in hits)
    text = {d.doc_id: d.text for d in corpus()}
    for hit in hits:
        assert text[hit.doc_id][hit.start : hit.end] == retriever.chunks[hit.chunk_id].text


def test_hybrid_fuses_bm25_so_a_rare_code_reaches_the_top(retriever):
    question = "Which storage rule does QX-7731 set for solvent drums?"
    hybrid = retriever.retrieve(question, 3, hybrid=True)
    assert hybrid[0].doc_id == "code-QX-7731"
    assert hybrid[0].bm25_score > 0 and hybrid[0].dense_score is not None
    # Other code documents share every word but the code: BM25 ranks the target first.
    lexical = retriever.bm25.ranking(question)
    assert lexical[0][0].startswith("recursive-200-0/code-QX-7731#")
    # The fused score is reciprocal-rank fusion: at most 2/(60+1).
    assert hybrid[0].score <= 2 / 61 + 1e-12


def test_smaller_k_is_a_slice_of_the_larger_ranking(retriever):
    question = "What happens to forklift batteries overnight?"
    for hybrid in (False, True):
        eight = retriever.retrieve(question, 8, hybrid=hybrid)
        assert retriever.retrieve(question, 3, hybrid=hybrid) == eight[:3]


def test_reopening_a_complete_collection_adds_and_computes_nothing(ragaudit_home, retriever):
    first = retriever.chunk_index
    assert first.added == len(first.chunk_ids) and first.complete
    cache = CallCache()  # a new run: fresh counts over the same stored calls
    embedder = load_embedder("local:minilm", cache)
    chunks = chunk_corpus(corpus(), Chunking("recursive", 200, 0))
    again = build_index(
        open_client(), embedder, "recursive-200-0", chunks, as_llamaindex_embedding(embedder)
    )
    assert again.name == first.name and again.added == 0
    assert again.collection.count() == len(chunks)
    assert cache.stats()["computed"] == 0


def test_collection_names_are_valid_for_chroma_and_distinct_per_chunking():
    a = collection_name("ollama:mxbai-embed-large:latest", "recursive-1000-200", "ab" * 32)
    b = collection_name("ollama:mxbai-embed-large:latest", "recursive-1000-0", "ab" * 32)
    for name in (a, b, collection_name("x", "y", "0" * 64)):
        assert 3 <= len(name) <= 512 and re.fullmatch(
            r"[a-zA-Z0-9][a-zA-Z0-9._-]*[a-zA-Z0-9]", name
        )
    assert a != b
