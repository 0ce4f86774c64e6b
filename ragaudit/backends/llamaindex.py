"""llama-index adapters: our cache-wrapped embedder as a BaseEmbedding, our generator as an LLM.

Both go through the same CallCache as direct calls, so a pipeline built on llama-index
replays, counts and fails exactly like the rest of ragaudit. Queries and passages map
to e5's roles: `_get_query_embedding` -> role "query", `_get_text_embedding(s)` ->
role "passage". Chat messages reach the generator as messages (the model's own chat
template formats them), not flattened into one prompt.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Sequence
from typing import Any

from ragaudit.backends.cached import CachedEmbedder, CachedGenerator


def as_llamaindex_embedding(embedder: CachedEmbedder, batch_size: int = 256):
    """A llama_index.core BaseEmbedding answering through `embedder` (and its cache)."""
    # llama-index batches texts itself (10 by default); a large batch lets our front
    # look them up in the cache together and batch only the misses.
    return _embedding_class()(embedder, embed_batch_size=batch_size)


def as_llamaindex_llm(
    generator: CachedGenerator, params: dict | None = None, context_window: int = 8192
):
    """A llama-index CustomLLM answering through `generator` (and its cache).

    `params` are the generation parameters for every call (temperature, seed, max_tokens,
    top_p, stop). Each response's `raw` carries {"replayed": bool}.
    """
    return _llm_class()(generator, dict(params or {}), context_window)


def _role(role: Any) -> str:
    """A llama-index role (enum or string) as our generators name it; any other is "user"."""
    value = getattr(role, "value", role)
    return value if value in ("system", "user", "assistant") else "user"


def _plain_messages(messages: Sequence[Any]) -> list[dict]:
    """llama-index ChatMessages as the {"role", "content"} dicts our generators take."""
    return [{"role": _role(m.role), "content": m.content or ""} for m in messages]


def _ask(generator: CachedGenerator, messages: list[dict], params: dict) -> tuple[str, dict]:
    """The generator's answer and the `raw` every response carries: whether it was replayed."""
    result = generator.generate_detailed(messages, params)
    return result.text, {"replayed": result.replayed}


def _once(item: Any) -> Iterator[Any]:
    # Our generators do not stream: a stream is the whole answer as one delta.
    yield item


# The adapter classes subclass llama-index's, so they are built on first use (llama_index is
# heavy to import) and once: every adapter is an instance of the same class.


@functools.cache
def _embedding_class() -> type:
    from llama_index.core.base.embeddings.base import BaseEmbedding
    from pydantic import PrivateAttr

    class RagauditEmbedding(BaseEmbedding):
        _embedder: Any = PrivateAttr()

        def __init__(self, wrapped: CachedEmbedder, **kwargs: Any) -> None:
            super().__init__(model_name=wrapped.spec, **kwargs)
            self._embedder = wrapped

        @classmethod
        def class_name(cls) -> str:
            return "RagauditEmbedding"

        @property
        def ragaudit_embedder(self) -> CachedEmbedder:
            return self._embedder

        def _get_query_embedding(self, query: str) -> list[float]:
            return self._embedder.embed([query], role="query")[0]

        def _get_text_embedding(self, text: str) -> list[float]:
            return self._embedder.embed([text], role="passage")[0]

        def _get_text_embeddings(self, texts: list[str]) -> list[list[float]]:
            return self._embedder.embed(list(texts), role="passage")

        async def _aget_query_embedding(self, query: str) -> list[float]:
            return self._get_query_embedding(query)

        async def _aget_text_embedding(self, text: str) -> list[float]:
            return self._get_text_embedding(text)

        async def _aget_text_embeddings(self, texts: list[str]) -> list[list[float]]:
            return self._get_text_embeddings(texts)

    return RagauditEmbedding


@functools.cache
def _llm_class() -> type:
    from llama_index.core.base.llms import types
    from llama_index.core.llms import CustomLLM
    from llama_index.core.llms.callbacks import llm_chat_callback, llm_completion_callback
    from pydantic import PrivateAttr

    class RagauditLLM(CustomLLM):
        _generator: Any = PrivateAttr()
        _params: dict = PrivateAttr()
        _context_window: int = PrivateAttr()

        def __init__(self, wrapped: CachedGenerator, params: dict, context_window: int) -> None:
            super().__init__()
            self._generator, self._params, self._context_window = wrapped, params, context_window

        @classmethod
        def class_name(cls) -> str:
            return "RagauditLLM"

        @property
        def ragaudit_generator(self) -> CachedGenerator:
            return self._generator

        @property
        def metadata(self) -> types.LLMMetadata:
            return types.LLMMetadata(
                context_window=self._context_window,
                num_output=int(self._params.get("max_tokens", 256)),
                is_chat_model=True,
                model_name=self._generator.spec,
            )

        @llm_chat_callback()
        def chat(self, messages, **kwargs: Any) -> types.ChatResponse:
            text, raw = _ask(self._generator, _plain_messages(messages), self._params)
            message = types.ChatMessage(role=types.MessageRole.ASSISTANT, content=text)
            return types.ChatResponse(message=message, raw=raw)

        @llm_chat_callback()
        def stream_chat(self, messages, **kwargs: Any):
            response = self.chat(messages, **kwargs)
            message = response.message
            return _once(
                types.ChatResponse(message=message, delta=message.content, raw=response.raw)
            )

        @llm_completion_callback()
        def complete(self, prompt: str, formatted: bool = False, **kwargs: Any):
            text, raw = _ask(self._generator, [{"role": "user", "content": prompt}], self._params)
            return types.CompletionResponse(text=text, raw=raw)

        @llm_completion_callback()
        def stream_complete(self, prompt: str, formatted: bool = False, **kwargs: Any):
            response = self.complete(prompt, formatted=formatted, **kwargs)
            return _once(
                types.CompletionResponse(text=response.text, delta=response.text, raw=response.raw)
            )

    return RagauditLLM
