"""The one retrieval core in ragaudit.stack: its tokenizer, its fusion and tie-break, its
embedding loop, the cosine it gives chunks only BM25 found, and the audit ranking through it
exactly as config M does (real MiniLM, real Chroma)."""

from __future__ import annotations

import pytest

from ragaudit import paths
from ragaudit.auditing import corpus_io
from ragaudit.auditing.chunks import build_chunks
from ragaudit.auditing.engine import build_index as build_audit_index
from ragaudit.auditing.engine import embed_questions, rank_chunks
from ragaudit.auditing.settings import AuditSettings
from ragaudit.backends.cache import CallCache
from ragaudit.backends.llamaindex import as_llamaindex_embedding
from ragaudit.backends.specs import load_embedder
from ragaudit.documents import Document
from ragaudit.errors import ModelCallFailed
from ragaudit.stack.chunking import Chunking, chunk_corpus
from ragaudit.stack.configs import M
from ragaudit.stack.index import EMBED_BATCH, build_index, embed_texts, open_client
from ragaudit.stack.retrieval import (
    POOL_DEPTH,
    Retriever,
    reciprocal_rank_fusion,
    tokenize,
    true_cosines,
)


def test_a_hyphenated_code_is_one_token_plus_its_parts():
    assert tokenize("4417-B") == ["4417-b", "4417", "b"]
    assert tokenize("Site 4417-B keeps team_12 at 38 days; see QX-7731.") == [
        "site", "4417-b", "4417", "b", "keeps", "team_12", "team", "12", "at", "38", "days",
        "see", "qx-7731", "qx", "7731",
    ]  # fmt: skip


def test_fusion_sums_reciprocal_ranks_and_breaks_ties_by_the_first_rankings_score():
    dense = [("m", 0.9), ("x", 0.8), ("c", 0.7)]
    bm25 = [("c", 5.0), ("d", 4.0), ("m", 3.0)]
    fused = reciprocal_rank_fusion([dense, bm25])
    # m: 1/61 + 1/63, c: 1/63 + 1/61 (a tie: m has the higher cosine, though "c" < "m");
    # x: 1/62 and d: 1/62 (a tie: x is in the dense ranking, d is not, though "d" < "x").
    assert [chunk_id for chunk_id, _ in fused] == ["m", "c", "x", "d"]
    assert [score for _, score in fused] == pytest.approx(
        [1 / 61 + 1 / 63, 1 / 61 + 1 / 63, 1 / 62, 1 / 62]
    )


def test_fusion_ties_absent_from_the_first_ranking_go_by_chunk_id():
    fused = reciprocal_rank_fusion([[("p", 0.1)], [("y", 9.0)], [("x", 1.0)]])
    # all three score 1/61: p is in the first ranking, then x before y
    assert fused == [("p", 1 / 61), ("x", 1 / 61), ("y", 1 / 61)]


class ScriptedEmbedder:
    """Answers [1, 0] per text; fails any call holding a text containing 'bad', or every
    call when `down`. Records each call's texts."""

    def __init__(self, down: bool = False) -> None:
        self.down = down
        self.calls: list[list[str]] = []

    def embed(self, texts: list[str], role: str = "passage") -> list[list[float]]:
        self.calls.append(list(texts))
        if self.down or any("bad" in text for text in texts):
            raise ModelCallFailed(f"refused {len(texts)} text(s)")
        return [[1.0, 0.0] for _ in texts]


def test_a_failing_batch_costs_only_its_bad_text_and_records_it():
    embedder = ScriptedEmbedder()
    vectors, errors = embed_texts(embedder, ["alpha", "bad one", "gamma", "alpha"])
    assert vectors == {"alpha": [1.0, 0.0], "gamma": [1.0, 0.0]}
    assert errors == {"bad one": "refused 1 text(s)"}
    # the batch once (each distinct text once, longest first: "bad one" has 7 characters,
    # the others 5, kept in their order), then each text alone
    assert embedder.calls == [["bad one", "alpha", "gamma"], ["bad one"], ["alpha"], ["gamma"]]


class CountingEmbedder(ScriptedEmbedder):
    """Counts one token per word, as a tokenizer might where words are long."""

    def count_tokens(self, texts: list[str]) -> list[int]:
        return [len(text.split()) for text in texts]


def test_texts_go_longest_first_in_the_embedders_tokens_when_it_can_count():
    texts = ["a b c d", "elephantine", "x y", "hippopotamus words"]
    embedder = CountingEmbedder()
    embed_texts(embedder, texts)
    # by tokens: 4, 2, 2, 1 (ties by characters: 18 before 3); by characters it would be
    # "hippopotamus words", "elephantine", "a b c d", "x y"
    assert embedder.calls == [["a b c d", "hippopotamus words", "x y", "elephantine"]]
    given = CountingEmbedder()  # counts passed in (the window survey's) are used as given
    embed_texts(
        given, texts, tokens={"a b c d": 1, "elephantine": 9, "x y": 3, "hippopotamus words": 2}
    )
    assert given.calls == [["elephantine", "x y", "hippopotamus words", "a b c d"]]


def test_a_down_backend_is_recorded_for_every_text_without_a_call_per_text():
    embedder = ScriptedEmbedder(down=True)
    texts = [f"text {n}" for n in range(2 * EMBED_BATCH + 2)]
    vectors, errors = embed_texts(embedder, texts)
    assert vectors == {} and set(errors) == set(texts)
    # first batch: 1 call + 64 alone, all failed, so the backend is down; then 1 + 1
    assert len(embedder.calls) == 1 + 64 + 1 + 1


def test_open_client_in_memory_writes_nothing_and_on_disk_makes_its_folder(ragaudit_home):
    open_client(in_memory=True).get_or_create_collection("probe", embedding_function=None)
    assert list(ragaudit_home.iterdir()) == []
    open_client(ragaudit_home / "store")
    assert (ragaudit_home / "store").is_dir()
    open_client()  # the default: the vector-store folder under RAGAUDIT_HOME
    assert paths.chroma_dir().is_dir() and paths.chroma_dir().is_relative_to(ragaudit_home)


def test_true_cosines_are_the_dot_products_of_the_stored_unit_vectors():
    collection = open_client(in_memory=True).get_or_create_collection(
        "cosines", embedding_function=None
    )
    collection.upsert(ids=["a", "b"], embeddings=[[1.0, 0.0], [0.6, 0.8]])
    cosines = true_cosines(collection, ["a", "b"], [0.8, 0.6])
    assert cosines == pytest.approx({"a": 0.8, "b": 0.6 * 0.8 + 0.8 * 0.6})


SITES = ["4417-B", "4417-C", "2210-K", "77-Q", "81-R", "QX-7731"]
FACTS = [
    "Eyewash stations at site {code} are checked every {n} days by the safety officer.",
    "The loading dock at site {code} opens at {n} am and closes after the last truck.",
    "Store {code} keeps {n} solvent drums in the locked cage behind the workshop.",
    "Forklift batteries at site {code} are charged overnight and swapped every {n} hours.",
    "Visitors to site {code} sign in at reception and wear badge number {n} at all times.",
]
QUESTIONS = [
    "How often are eyewash stations at site 4417-B checked?",
    "When does the loading dock at 2210-K open?",
    "How many solvent drums does store 77-Q keep?",
    "Which site swaps forklift batteries every few hours?",
    "QX-7731 visitors badge",
]


def site_texts() -> dict[str, str]:
    """One document per site, long enough for M's chunking to cut it into several chunks."""
    texts = {}
    for s, code in enumerate(SITES):
        lines = [fact.format(code=code, n=7 + 3 * s + f) for f, fact in enumerate(FACTS)]
        texts[f"site-{code}"] = "\n\n".join(" ".join(lines[i:] + lines[:i]) for i in range(5))
    return texts


def test_the_audits_hybrid_ranks_exactly_as_config_m(ragaudit_home):
    embedder = load_embedder("local:minilm", CallCache())
    texts = site_texts()
    chunking = Chunking(M.splitter, M.chunk_size, M.overlap)
    matrix_chunks = chunk_corpus([Document(d, t) for d, t in texts.items()], chunking)
    settings = AuditSettings(
        splitter=M.splitter, chunk_size=M.chunk_size, overlap=M.overlap, hybrid=True
    )
    audit_chunks, _ = build_chunks(
        [corpus_io.Document(d, t, "sites") for d, t in texts.items()], settings
    )
    # the same chunks on both sides
    assert [(c.chunk_id, c.text) for c in audit_chunks] == [
        (c.chunk_id, c.text) for c in matrix_chunks
    ]
    assert len(matrix_chunks) >= 3 * len(texts)
    matrix_index = build_index(
        open_client(), embedder, chunking.name, matrix_chunks, as_llamaindex_embedding(embedder)
    )
    matrix = Retriever(embedder, matrix_chunks, matrix_index)
    audit_index = build_audit_index(embedder, audit_chunks, settings.chunking_name())
    vectors, failures = embed_questions(embedder, [(q, q) for q in QUESTIONS])
    assert failures == [] and audit_index.failures == []
    for question in QUESTIONS:
        expected = matrix.ranking(question, hybrid=True, depth=POOL_DEPTH)
        got = rank_chunks(audit_index, vectors[question], question, POOL_DEPTH, hybrid=True)
        assert [c.chunk_id for c in got] == [h.chunk_id for h in expected], question
        # the audit records scores to 6 decimals
        dense = [h.dense_score for h in expected]
        assert [c.score for c in got] == pytest.approx(dense, abs=1e-6)
        bm25 = [h.bm25_score for h in expected]
        assert [c.bm25_score for c in got] == pytest.approx(bm25, abs=1e-6)
