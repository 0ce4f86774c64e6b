"""A retriever factory as a user writes one: BM25 candidates, then dense reranking.

A stack file names it as ``rerank_retriever:make_retriever`` (see ``own_retriever.yaml``).
ragaudit calls it once with the stack splitter's chunks (llama-index TextNodes: ``node_id``
is the chunk id, ``get_content()`` its text) and the stack file's ``args``; it returns a
plain function ``question -> [(chunk id, score)]``, best first. ragaudit then asks every
question through it and measures what comes back, exactly as it measures its own retrieval.

The ranking: BM25 (rank-bm25's Okapi) shortlists ``candidates`` chunks that share a word
with the question, then the shortlist is reordered by the cosine of question and chunk
embeddings and the best ``top_k`` are returned with their cosine as the score.

The embedding function here is ragaudit's offline all-MiniLM-L6-v2
(``load_embedder("local:minilm")``), so the example runs with no server. A user would put
their own embedding client there: their OpenAI-compatible ``/v1/embeddings`` endpoint,
their sentence-transformers model, the client their service already uses.
"""

from __future__ import annotations

import re

from rank_bm25 import BM25Okapi

from ragaudit.backends.specs import load_embedder

WORD = re.compile(r"\w+")


def words(text: str) -> list[str]:
    """Lowercase word tokens for BM25."""
    return WORD.findall(text.lower())


def make_retriever(chunks, candidates: int = 20, top_k: int = 10):
    """BM25 over `chunks` shortlists `candidates`; dense cosine picks the best `top_k`."""
    ids = [node.node_id for node in chunks]
    texts = [node.get_content() for node in chunks]
    bm25 = BM25Okapi([words(text) or ["\0"] for text in texts])  # rank-bm25 wants no empty doc
    embedder = load_embedder("local:minilm")  # <- your own embedding client goes here
    vectors: dict[int, list[float]] = {}  # chunk position -> vector, embedded on first need

    def retrieve(question: str) -> list[tuple[str, float]]:
        scores = bm25.get_scores(words(question))
        shortlist = sorted(range(len(ids)), key=lambda i: (-scores[i], i))[:candidates]
        shortlist = [i for i in shortlist if scores[i] > 0]
        missing = [i for i in shortlist if i not in vectors]
        if missing:
            got = embedder.embed([texts[i] for i in missing], role="passage")
            vectors.update(zip(missing, got, strict=True))
        query = embedder.embed([question], role="query")[0]
        cosine = {i: sum(a * b for a, b in zip(query, vectors[i], strict=True)) for i in shortlist}
        best = sorted(shortlist, key=lambda i: (-cosine[i], i))[:top_k]
        return [(ids[i], float(cosine[i])) for i in best]

    return retrieve
