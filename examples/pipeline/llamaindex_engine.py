"""A llama-index VectorStoreIndex query engine whose LLM is an OpenAI-compatible server
(llama.cpp here, through llama-index-llms-openai-like): the pipeline `llamaindex.yaml`
names. ragaudit calls `make(documents=...)` once and reads each Response's answer and
source_nodes."""

from __future__ import annotations

import os
from typing import Any

from minilm_embeddings import llamaindex_embedding


def make(
    documents: list[dict],
    model: str,
    k: int = 2,
    max_tokens: int = 64,
    base_url_env: str = "PIPELINE_BASE_URL",
    api_key_env: str = "PIPELINE_API_KEY",
) -> Any:
    from llama_index.core import Document, VectorStoreIndex
    from llama_index.core.node_parser import SentenceSplitter
    from llama_index.llms.openai_like import OpenAILike

    llm = OpenAILike(
        model=model, api_base=os.environ[base_url_env], api_key=os.environ.get(api_key_env, "none"),
        is_chat_model=True, max_tokens=max_tokens, context_window=1024, temperature=0.0,
    )  # fmt: skip
    index = VectorStoreIndex.from_documents(
        [Document(text=d["text"], id_=d["id"], metadata=d["metadata"]) for d in documents],
        embed_model=llamaindex_embedding(),
        transformations=[SentenceSplitter(chunk_size=200, chunk_overlap=20)],
    )
    return index.as_query_engine(llm=llm, similarity_top_k=k)
