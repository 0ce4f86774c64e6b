"""llama-index adapters: roles mapped, same cache, a real index retrieves through them."""

from __future__ import annotations

import numpy as np
import pytest

from ragaudit.backends.cache import CallCache
from ragaudit.backends.llamaindex import as_llamaindex_embedding, as_llamaindex_llm
from ragaudit.backends.specs import load_embedder, load_generator
from ragaudit.errors import ModelCallFailed


@pytest.fixture
def cache(ragaudit_home):
    return CallCache()


def test_query_and_text_embeddings_map_to_e5_roles(cache):
    from llama_index.core.base.embeddings.base import BaseEmbedding

    embedder = load_embedder("local:e5-small", cache=cache)
    adapter = as_llamaindex_embedding(embedder)
    assert isinstance(adapter, BaseEmbedding)
    text = "invoices are kept for seven years"
    assert adapter.get_query_embedding(text) == embedder.embed([text], role="query")[0]
    assert adapter.get_text_embedding(text) == embedder.embed([text], role="passage")[0]
    assert adapter.get_text_embedding_batch([text, "other"]) == embedder.embed([text, "other"])
    # three distinct (role, text) calls computed; every other request was a replay
    assert cache.stats() == {"replayed": 5, "computed": 3, "failed": 0}


def test_a_vector_index_retrieves_through_the_adapter(cache):
    from llama_index.core import Document, VectorStoreIndex

    adapter = as_llamaindex_embedding(load_embedder("local:minilm", cache=cache))
    documents = [
        Document(text="The eyewash station is next to the loading dock."),
        Document(text="Quarterly taxes are filed by the finance team."),
        Document(text="The cafeteria serves lunch from noon."),
    ]
    index = VectorStoreIndex.from_documents(documents, embed_model=adapter)
    hits = index.as_retriever(similarity_top_k=1).retrieve("where can I rinse my eyes?")
    assert hits[0].node.get_content() == documents[0].text
    assert cache.stats()["computed"] == 4


@pytest.mark.slow
def test_llm_chat_sends_messages_and_reports_replay(cache):
    from llama_index.core.llms import LLM, ChatMessage

    generator = load_generator("local:qwen2.5-0.5b", cache=cache)
    llm = as_llamaindex_llm(generator, params={"max_tokens": 16})
    assert isinstance(llm, LLM)
    assert llm.metadata.is_chat_model and llm.metadata.model_name == "local:qwen2.5-0.5b"
    messages = [
        ChatMessage(role="system", content="Answer in one short sentence."),
        ChatMessage(role="user", content="What is the capital of France?"),
    ]
    first = llm.chat(messages)
    assert "Paris" in first.message.content and first.raw == {"replayed": False}
    direct = generator.generate_detailed(
        [{"role": m.role.value, "content": m.content} for m in messages], {"max_tokens": 16}
    )
    assert direct.replayed and direct.text == first.message.content
    # a stream is the whole answer as one delta, replayed from the same cache
    streamed = list(llm.stream_chat(messages))
    assert [r.delta for r in streamed] == [first.message.content]
    assert streamed[0].raw == {"replayed": True}
    assert llm.complete("What is the capital of France?").text.strip() != ""


@pytest.mark.slow
def test_llm_failure_surfaces_as_model_call_failed(ragaudit_home):
    cache = CallCache()
    llm = as_llamaindex_llm(load_generator("local:qwen2.5-0.5b", cache=cache, n_ctx=256))
    with pytest.raises(ModelCallFailed):
        llm.complete("word " * 2000)
    assert cache.stats()["failed"] == 1


def test_embedding_vectors_are_unit_length(cache):
    adapter = as_llamaindex_embedding(load_embedder("local:minilm", cache=cache))
    vector = np.array(adapter.get_query_embedding("anything at all"))
    assert abs(np.linalg.norm(vector) - 1.0) < 1e-5
