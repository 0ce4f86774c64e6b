"""A warm rerun is fast and still an honest rerun: its records equal the cold run's (every
one rebuilt from the call cache and the persistent Chroma collections), the matrix's dense
ranking is the exact cosine ranking (the same in every process, the same chunks as
llama-index's retriever where its HNSW search is exact), and the weights and the corpus are
still checked: a changed weights file or corpus file is refused."""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass

import numpy as np
import pytest

from ragaudit import paths
from ragaudit.backends import minilm
from ragaudit.errors import RagauditError
from ragaudit.stack.index import build_index, open_client
from ragaudit.stack.retrieval import Retriever

DIMENSIONS = 384


@dataclass(frozen=True)
class Chunk:
    chunk_id: str
    doc_id: str
    text: str
    start: int = 0
    end: int = 1


class VectorsOnly:
    """An embedder identity for build_index; every vector is handed over, none computed."""

    spec = "test:vectors"
    name = "vectors"
    digest = "none"


def _unit_rows(rng: np.random.Generator, rows: int) -> np.ndarray:
    matrix = rng.standard_normal((rows, DIMENSIONS)).astype(np.float32)
    return matrix / np.linalg.norm(matrix, axis=1, keepdims=True)


def _indexed(tmp_path, count: int, seed: int = 7):
    """`count` chunks with random unit vectors in a persistent collection, and a Retriever."""
    vectors = _unit_rows(np.random.default_rng(seed), count)
    chunks = [Chunk(f"c/{i:05d}", f"d{i}", f"text {i}") for i in range(count)]
    by_text = {chunk.text: vector.tolist() for chunk, vector in zip(chunks, vectors, strict=True)}
    client = open_client(tmp_path / "chroma")
    index = build_index(client, VectorsOnly(), "c", chunks, vectors=by_text)
    assert index.added == count
    return chunks, vectors, Retriever(VectorsOnly(), chunks, index)


def _llama_index_ranking(index, query: list[float], depth: int) -> list[tuple[str, float]]:
    """The real library's dense search over the same collection: llama-index's
    VectorIndexRetriever on the Chroma store (it reports exp(-distance), and with cosine
    space distance is 1 - cosine, so cosine = 1 + ln(similarity))."""
    from llama_index.core.retrievers import VectorIndexRetriever
    from llama_index.core.schema import QueryBundle

    found = VectorIndexRetriever(index=index, similarity_top_k=depth).retrieve(
        QueryBundle(query_str="", embedding=query)
    )
    return [(hit.node.node_id, 1.0 + math.log(hit.score)) for hit in found]


def test_one_question_ranks_as_many_do(tmp_path):
    # the Lab, the audit and a stack column rank one question at a time: the same exact ranking
    chunks, vectors, retriever = _indexed(tmp_path, 3000)
    query = _unit_rows(np.random.default_rng(13), 1)[0]
    one = retriever.dense_ranking("q", query.tolist(), depth=50)
    assert [c for c, _ in one] == _brute_force(chunks, vectors, query, 50)


def _brute_force(chunks, vectors: np.ndarray, query: np.ndarray, depth: int) -> list[str]:
    """The exact top `depth` by cosine, written out independently: every dot product in
    float64, best first, equal cosines by chunk id."""
    cosines = vectors.astype(np.float64) @ query.astype(np.float64)
    order = sorted(range(len(chunks)), key=lambda i: (-cosines[i], chunks[i].chunk_id))
    return [chunks[i].chunk_id for i in order[:depth]]


def test_the_matrix_dense_ranking_is_the_exact_cosine_ranking(tmp_path):
    # 3,000 random vectors: a collection where Chroma's HNSW search is not exact
    chunks, vectors, retriever = _indexed(tmp_path, 3000)
    queries = _unit_rows(np.random.default_rng(11), 20)
    asked = {f"q{i}": query.tolist() for i, query in enumerate(queries)}
    ranked = retriever.dense_rankings(asked, depth=50)
    for (question, query), expected_cosines in zip(asked.items(), queries, strict=True):
        ids = [chunk_id for chunk_id, _ in ranked[question]]
        assert ids == _brute_force(chunks, vectors, expected_cosines, 50)
        rows = [int(chunk_id.split("/")[1]) for chunk_id in ids]
        cosines = vectors[rows].astype(np.float64) @ np.asarray(query, dtype=np.float64)
        assert [score for _, score in ranked[question]] == pytest.approx(cosines, abs=1e-6)


def test_it_ranks_as_llama_index_does_where_hnsw_is_exact(tmp_path):
    # 60 chunks: fewer than HNSW's search breadth, so its search visits every one
    chunks, _, retriever = _indexed(tmp_path, 60)
    queries = _unit_rows(np.random.default_rng(3), 10)
    asked = {f"q{i}": query.tolist() for i, query in enumerate(queries)}
    ranked = retriever.dense_rankings(asked, depth=50)
    for question, query in asked.items():
        through_llama_index = _llama_index_ranking(retriever.chunk_index.index, query, 50)
        assert [c for c, _ in ranked[question]] == [c for c, _ in through_llama_index]
        assert [s for _, s in ranked[question]] == pytest.approx(
            [s for _, s in through_llama_index], abs=1e-6
        )


def test_a_hybrid_ranking_scores_bm25_only_chunks_with_their_true_cosine(tmp_path):
    chunks, vectors, retriever = _indexed(tmp_path, 200)
    query = _unit_rows(np.random.default_rng(5), 1)[0]
    dense = retriever.dense_rankings({"text 199": query.tolist()}, depth=5)["text 199"]
    hits = retriever.ranking("text 199", True, 5, query.tolist(), dense=dense)
    # "199" appears in one chunk's text only: BM25 puts it first in its ranking
    bm25_found = next(hit for hit in hits if hit.chunk_id == "c/00199")
    assert bm25_found.dense_score == pytest.approx(float(vectors[199] @ query), abs=1e-6)


def _run(out, env) -> dict:
    command = [sys.executable, "-m", "ragaudit", "run", "--no-generate", "--n", "2"]
    command += ["--embedders", "local:minilm", "--out", str(out)]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(out.read_text())


@pytest.fixture
def private_corpus(tmp_path):
    """A copy of the committed corpus in a fresh data folder, and the environment to use it."""
    corpus = tmp_path / "corpus"
    shutil.copytree(paths.corpus_dir(), corpus)
    env = {**os.environ, "RAGAUDIT_HOME": str(tmp_path / "home"), "RAGAUDIT_CORPUS": str(corpus)}
    env.pop("RAGAUDIT_CONTENTION_PATTERN", None)
    return corpus, env


@pytest.mark.slow(model=False)  # whole retrieval-only runs; no generator
def test_a_warm_rerun_rebuilds_the_cold_runs_records_and_refuses_a_changed_corpus(
    private_corpus, tmp_path
):
    corpus, env = private_corpus
    cold = _run(tmp_path / "cold.json", env)
    warm = _run(tmp_path / "warm.json", env)
    assert warm["conditions"]["calls"]["computed"] == 0
    assert all(index["added"] == 0 for index in warm["run"]["indexes"])
    assert warm["instances"] == cold["instances"]
    assert warm["cells"] == cold["cells"]
    # one changed corpus file: the next rerun stops before any work, naming it
    document = next(corpus.glob("documents/*"))
    document.write_text(document.read_text() + " ")
    command = [sys.executable, "-m", "ragaudit", "run", "--no-generate", "--n", "2"]
    done = subprocess.run(
        [*command, "--out", str(tmp_path / "third.json")], env=env, capture_output=True, text=True
    )
    assert done.returncode == 2
    assert f"changed: documents/{document.name}" in done.stderr


def test_a_changed_weights_file_is_refused_even_with_a_verified_stamp(
    ragaudit_home, tmp_path, monkeypatch
):
    weights = tmp_path / "model.onnx"
    shutil.copyfile(minilm.model_file(), weights)
    monkeypatch.setattr(minilm, "model_file", lambda: weights)
    assert minilm.MiniLMEngine().digest  # verified, and its stamp written
    data = bytearray(weights.read_bytes())
    data[len(data) // 2] ^= 0xFF  # same size, one byte different
    weights.write_bytes(bytes(data))
    with pytest.raises(RagauditError, match="does not match the pinned"):
        minilm.MiniLMEngine()


def test_a_rerun_that_computes_nothing_never_loads_the_model(ragaudit_home, monkeypatch):
    loads = []
    monkeypatch.setattr(minilm, "load_session", lambda: loads.append(1))
    engine = minilm.MiniLMEngine()  # the weights verified, the session not yet created
    assert engine.digest and loads == []
