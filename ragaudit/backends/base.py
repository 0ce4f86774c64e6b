"""The two contracts every backend implements (`EmbeddingEngine`, `GenerationEngine`), and what
they share: input windows, generation parameters, thread counts, chat messages.
Implementations live beside this file; the cache-aware fronts in cached.py and
cached_generator.py wrap them."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Literal, Protocol

import numpy as np

from ragaudit.errors import RagauditError

Role = Literal["query", "passage"]
ChatMessage = dict[str, str]  # {"role": "system"|"user"|"assistant", "content": "..."}
TokenBasis = Literal["tokenizer", "estimated", "unknown"]
Overflow = Literal["truncated", "windowed", "unknown"]


@dataclass(frozen=True)
class InputWindow:
    """How many tokens of a text an embedder reads, and how chunk lengths are counted."""

    tokens: int | None
    """The window in tokens, special tokens included; None when it cannot be known."""
    basis: TokenBasis
    """`tokenizer`: texts are counted with the tokenizer the model runs; `estimated`: with
    another one (the count is a guess, and said to be); `unknown`: not counted."""
    overflow: Overflow
    """What the model does with tokens past the window: `truncated` (they are never
    embedded) or `windowed` (embedded as the mean of window-long pieces)."""
    source: str
    """Where `tokens` comes from, or why it is unknown."""


DEFAULT_PARAMS: dict = {"temperature": 0.0, "seed": 17, "max_tokens": 256, "top_p": 1.0, "stop": []}
"""Every generator's parameters and their defaults: greedy, seeded, so replies replay."""

DEFAULT_N_CTX = 8192
"""The context window, in tokens, a generator is run with unless told (llama.cpp's n_ctx,
Ollama's num_ctx, which it truncates prompts beyond, silently); a k=8 prompt needs ~2,200."""


def effective_params(params: dict) -> dict:
    """DEFAULT_PARAMS merged with `params` (stop as a list); an unknown key is one line
    naming it. Shared by every generation engine, so all refuse and default alike."""
    unknown = sorted(set(params) - set(DEFAULT_PARAMS))
    if unknown:
        raise RagauditError(
            f"generation parameter {unknown[0]!r} is not supported; "
            f"valid: {', '.join(sorted(DEFAULT_PARAMS))}"
        )
    effective = {**DEFAULT_PARAMS, **params}
    effective["stop"] = list(effective["stop"] or [])
    return effective


def threads_from_env(name: str) -> int:
    """A thread count from the environment variable `name`, else one per core; anything
    but a positive whole number is refused in one line naming the variable."""
    raw = os.environ.get(name, "").strip()
    if not raw:
        return max(1, os.cpu_count() or 1)
    if not raw.isdigit() or int(raw) < 1:
        raise RagauditError(f"{name}={raw!r} is not a positive whole number")
    return int(raw)


UNKNOWN_WINDOW = InputWindow(None, "unknown", "unknown", "the embedder declares no input window")
"""What any embedder that declares no window reports."""


class EmbeddingEngine(Protocol):
    """Computes embeddings; knows nothing of the cache (backends.cached.CachedEmbedder wraps
    it: replay, counting, failures)."""

    backend: str
    name: str
    digest: str
    """The sha256 of the weights (embedded) or the server's digest (Ollama), or
    ``"unavailable"`` when it cannot be had (then `digest_reason` says why)."""
    digest_reason: str | None
    uses_roles: bool
    """False when the model ignores query/passage roles (then both share cache rows)."""
    batch_size: int

    def embed_batch(self, texts: list[str], role: Role) -> np.ndarray: ...

    def dimensions(self) -> int | None: ...

    # Optional: an engine may declare `input_window() -> InputWindow` and
    # `count_tokens(texts) -> list[int]` (one count per text), and `params` (request
    # parameters that change a vector, keyed with it). Without them its window is unknown.


class GenerationEngine(Protocol):
    """Computes chat replies; knows nothing of the cache (backends.cached_generator.
    CachedGenerator wraps it). Raises on failure, never returns '' to stand for an error
    (an empty string is a real, recordable reply). An engine may also carry
    `reply_settings`, settings beyond the request that change its replies (llama.cpp's
    thread count): they key the calls and are recorded with the model."""

    backend: str
    name: str
    digest: str
    digest_reason: str | None

    def effective_params(self, params: dict) -> dict: ...

    def chat(self, messages: list[ChatMessage], params: dict) -> str: ...


def checked_messages(messages: list[ChatMessage]) -> list[ChatMessage]:
    """`messages` as plain {"role", "content"} dicts, or one RagauditError naming the bad one."""
    if not isinstance(messages, list) or not messages:
        raise RagauditError("messages must be a non-empty list of {'role', 'content'} dicts")
    checked = []
    for index, message in enumerate(messages):
        role, content = message.get("role"), message.get("content")
        if role not in ("system", "user", "assistant") or not isinstance(content, str):
            raise RagauditError(
                f"messages[{index}]: needs role system|user|assistant and string content, "
                f"got role={role!r}"
            )
        checked.append({"role": role, "content": content})
    return checked
