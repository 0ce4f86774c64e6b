"""A llama-index retriever that ranks chunks by BM25 over their words: small and fast, so
the example's mutation audit runs in seconds with no model. Yours would wrap your vector
store, hybrid weights or reranker the same way (a factory taking the splitter's chunks)."""

from __future__ import annotations

import re
from typing import Any

from llama_index.core.retrievers import BaseRetriever
from llama_index.core.schema import NodeWithScore, QueryBundle

WORD = re.compile(r"\w+")


def words(text: str) -> list[str]:
    return WORD.findall(text.lower())


class KeywordRetriever(BaseRetriever):
    """The `k` chunks whose words score highest under BM25 against the question's."""

    def __init__(self, nodes: list[Any], k: int = 4) -> None:
        from rank_bm25 import BM25Okapi

        super().__init__()
        self.nodes, self.k = nodes, k
        self.bm25 = BM25Okapi([words(node.get_content()) for node in nodes])

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        scores = self.bm25.get_scores(words(query_bundle.query_str))
        best = sorted(range(len(self.nodes)), key=lambda i: -scores[i])[: self.k]
        return [NodeWithScore(node=self.nodes[i], score=float(scores[i])) for i in best]


def keyword_retriever(chunks: list[Any]) -> KeywordRetriever:
    """The factory ragaudit calls with the splitter's chunks (llama-index TextNodes), once
    per corpus: the original and every mutated one."""
    return KeywordRetriever(chunks, k=4)
