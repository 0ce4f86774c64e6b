"""Spec strings -> cache-wrapped backends: `local:minilm`, `local:e5-small`, `local:qwen2.5-1.5b`,
`local:qwen2.5-0.5b`, `ollama:<model>`, `openai:<model>` (any OpenAI-compatible server).

What each prefix serves, and which function builds its engines, is declared once in
`ragaudit.backends.catalogue`; this module checks a spec against those declarations and
wraps the engine in the call cache. Every `load_*` call returns a fresh cache-aware front
(embedded engines themselves are shared per process: see backends/local.py).
"""

from __future__ import annotations

from ragaudit.backends.cache import CallCache
from ragaudit.backends.cached import CachedEmbedder, CachedGenerator
from ragaudit.backends.catalogue import (
    EMBEDDER,
    GENERATOR,
    Backend,
    backend_registry,
)
from ragaudit.backends.concurrency import DEFAULT_WORKERS
from ragaudit.backends.executors import EngineRecipe
from ragaudit.backends.retry import RetryPolicy
from ragaudit.errors import RagauditError
from ragaudit.registry import Registry, resolve, unknown_name_message


def option_keys(backends: Registry[Backend] | None = None) -> tuple[str, ...]:
    """What `options=` may hold for a spec whose backend takes them, each key once, in the
    backends' order: every registered backend's `options` (default: the shipped backends and
    the plugins', read when asked), which a stack file's embedder/generator entry may name
    (openai: base_url and api_key_env)."""
    backends = backends if backends is not None else backend_registry()
    return tuple(dict.fromkeys(key for backend in backends.items() for key in backend.options))


def backend_of(spec: str, kind: str, backends: Registry[Backend] | None = None) -> Backend:
    """The backend serving `spec` as a `kind` (EMBEDDER or GENERATOR); a spec none serves is
    one line suggesting the closest example."""
    backends = backends if backends is not None else backend_registry()
    prefix = spec.partition(":")[0]
    if prefix in backends:
        backend = backends.get(prefix)
        offer = backend.offer(kind)
        if offer is not None and offer.serves(prefix, spec):
            return backend
    examples = [
        example
        for backend in backends.items()
        if backend.offer(kind) is not None
        for example in backend.offer(kind).suggestions()
    ]
    raise RagauditError(unknown_name_message(f"{kind} spec", spec, examples))


def check_embedder_spec(spec: str, backends: Registry[Backend] | None = None) -> None:
    """Refuse a spec that names no embedder, before anything loads (a run checks its flags
    first)."""
    backend_of(spec, EMBEDDER, backends)


def check_generator_spec(spec: str, backends: Registry[Backend] | None = None) -> None:
    """Refuse a spec that names no generator, before anything loads."""
    backend_of(spec, GENERATOR, backends)


def server_options(
    spec: str, options: dict | None, backends: Registry[Backend] | None = None
) -> dict:
    """`options` checked for `spec`: `base_url` (default OPENAI_BASE_URL, else the OpenAI
    API) and `api_key_env` (the variable holding the key, default OPENAI_API_KEY), both
    optional; a value set for a spec whose backend takes no such option is refused."""
    backends = backends if backends is not None else backend_registry()
    keys = option_keys(backends)
    given = dict(options or {})
    unknown = sorted(set(given) - set(keys))
    if unknown:
        raise RagauditError(
            f"{spec}: option {unknown[0]!r} is not supported; valid: {', '.join(keys)}"
        )
    named = [key for key in keys if given.get(key) is not None]
    if named:
        prefix, _, model = spec.partition(":")
        backend = backends.get(prefix) if prefix in backends else None
        if backend is None or not model or named[0] not in backend.options:
            takers = [f"{b.prefix}:<model>" for b in backends.items() if named[0] in b.options]
            raise RagauditError(f"{spec}: {named[0]} applies to {' or '.join(takers)} specs only")
    for key in named:
        if not isinstance(given[key], str) or not given[key].strip():
            raise RagauditError(f"{spec}: {key} must be a non-empty string")
    return {key: given.get(key) for key in keys}


def load_embedder(
    spec: str,
    cache: CallCache | None = None,
    *,
    host: str | None = None,
    retry: RetryPolicy | None = None,
    n_ctx: int | None = None,
    workers: int = DEFAULT_WORKERS,
    options: dict | None = None,
    backends: Registry[Backend] | None = None,
) -> CachedEmbedder:
    """The embedder named by `spec`, answering through `cache` (default: paths.cache_path()).

    `host` and `n_ctx` apply to Ollama only (defaults: OLLAMA_HOST, 8192): `n_ctx` is the
    num_ctx sent with every embed, so the input window is the smaller of it and the model's
    context length. `retry` applies to remote servers (default RetryPolicy.from_env()).
    `options` (`base_url`, `api_key_env`) apply to openai: specs only (see server_options).
    `workers`: batches in flight at once to a remote server (a local model stays serial).
    `backends`: where the spec's backend is looked up (default: the shipped ones).
    """
    check_embedder_spec(spec, backends)
    server_options(spec, options, backends)
    cache = cache if cache is not None else CallCache()
    args = {"host": host, "retry": retry, "n_ctx": n_ctx, "options": options}
    if backends is not None:
        args["backends"] = backends
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
    backends: Registry[Backend] | None = None,
):
    """The engine behind `load_embedder` (no cache): what each Ray worker builds once."""
    backend = backend_of(spec, EMBEDDER, backends)
    settings = server_options(spec, options, backends)
    build = resolve(backend.embedders.engine)
    return build(spec, host=host, retry=retry, n_ctx=n_ctx, options=settings)


def load_generator(
    spec: str,
    cache: CallCache | None = None,
    *,
    n_ctx: int | None = None,
    host: str | None = None,
    retry: RetryPolicy | None = None,
    options: dict | None = None,
    backends: Registry[Backend] | None = None,
) -> CachedGenerator:
    """The generator named by `spec`, answering through `cache`.

    `n_ctx` is the context window in tokens for embedded models (default 8192; a k=8
    prompt of 1,000-character chunks needs about 2,200); for Ollama it is sent as num_ctx.
    `host` applies to Ollama only, `retry` to remote servers, `options` to openai: specs.
    """
    check_generator_spec(spec, backends)
    server_options(spec, options, backends)
    cache = cache if cache is not None else CallCache()
    args = {"n_ctx": n_ctx, "host": host, "retry": retry, "options": options}
    if backends is not None:
        args["backends"] = backends
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
    backends: Registry[Backend] | None = None,
):
    """The engine behind `load_generator` (no cache): what each Ray worker builds once."""
    backend = backend_of(spec, GENERATOR, backends)
    settings = server_options(spec, options, backends)
    build = resolve(backend.generators.engine)
    return build(spec, host=host, retry=retry, n_ctx=n_ctx, options=settings)


def describe_model(
    backend_object: CachedEmbedder | CachedGenerator, backends: Registry[Backend] | None = None
) -> dict:
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
    backends = backends if backends is not None else backend_registry()
    prefix, _, model = backend_object.spec.partition(":")
    if prefix in backends and model:
        for attribute in backends.get(prefix).recorded:
            described[attribute] = getattr(backend_object.engine, attribute)
    return described
