"""llama-index adapters: our cache-wrapped embedder as a BaseEmbedding, our generator as an LLM.

Both go through the same CallCache as direct calls, so a pipeline built on llama-index
replays, counts and fails exactly like the rest of ragaudit. Queries and passages map
to e5's roles: `_get_query_embedding` -> role "query", `_get_text_embedding(s)` ->
role "passage". Chat messages reach the generator as messages (the model's own chat
template formats them), not flattened into one prompt.
"""

from __future__ import annotations

from typing import Any

from ragaudit.backends.cached import CachedEmbedder, CachedGenerator


def as_llamaindex_embedding(embedder: CachedEmbedder, batch_size: int = 256):
    """A llama_index.core BaseEmbedding answering through `embedder` (and its cache)."""
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

    # llama-index batches texts itself (10 by default); a large batch lets our front
    # look them up in the cache together and batch only the misses.
    return RagauditEmbedding(embedder, embed_batch_size=batch_size)


def as_llamaindex_llm(
    generator: CachedGenerator, params: dict | None = None, context_window: int = 8192
):
    """A llama-index CustomLLM answering through `generator` (and its cache).

    `params` are the generation parameters for every call (temperature, seed, max_tokens,
    top_p, stop). Each response's `raw` carries {"replayed": bool}.
    """
    from llama_index.core.base.llms.types import (
        ChatMessage,
        ChatResponse,
        CompletionResponse,
        LLMMetadata,
        MessageRole,
    )
    from llama_index.core.llms import CustomLLM
    from llama_index.core.llms.callbacks import llm_chat_callback, llm_completion_callback
    from pydantic import PrivateAttr

    fixed_params = dict(params or {})

    class RagauditLLM(CustomLLM):
        _generator: Any = PrivateAttr()

        def __init__(self, wrapped: CachedGenerator, **kwargs: Any) -> None:
            super().__init__(**kwargs)
            self._generator = wrapped

        @classmethod
        def class_name(cls) -> str:
            return "RagauditLLM"

        @property
        def ragaudit_generator(self) -> CachedGenerator:
            return self._generator

        @property
        def metadata(self) -> LLMMetadata:
            return LLMMetadata(
                context_window=context_window,
                num_output=int(fixed_params.get("max_tokens", 256)),
                is_chat_model=True,
                model_name=self._generator.spec,
            )

        def _ask(self, messages: list[dict]) -> tuple[str, bool]:
            result = self._generator.generate_detailed(messages, fixed_params)
            return result.text, result.replayed

        @llm_chat_callback()
        def chat(self, messages, **kwargs: Any) -> ChatResponse:
            plain = [{"role": _role(m.role), "content": m.content or ""} for m in messages]
            text, replayed = self._ask(plain)
            return ChatResponse(
                message=ChatMessage(role=MessageRole.ASSISTANT, content=text),
                raw={"replayed": replayed},
            )

        @llm_chat_callback()
        def stream_chat(self, messages, **kwargs: Any):
            response = self.chat(messages, **kwargs)

            def gen():
                yield ChatResponse(
                    message=response.message, delta=response.message.content, raw=response.raw
                )

            return gen()

        @llm_completion_callback()
        def complete(self, prompt: str, formatted: bool = False, **kwargs: Any):
            text, replayed = self._ask([{"role": "user", "content": prompt}])
            return CompletionResponse(text=text, raw={"replayed": replayed})

        @llm_completion_callback()
        def stream_complete(self, prompt: str, formatted: bool = False, **kwargs: Any):
            response = self.complete(prompt, formatted=formatted, **kwargs)

            def gen():
                yield CompletionResponse(text=response.text, delta=response.text, raw=response.raw)

            return gen()

    def _role(role: Any) -> str:
        value = getattr(role, "value", role)
        return value if value in ("system", "user", "assistant") else "user"

    return RagauditLLM(generator)
