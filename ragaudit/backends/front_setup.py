"""What a cache-aware front (backends/cached.py) settles once about its engine: the digest
its calls are keyed by, the server they are keyed by, the identity its rows record, and the
breaker it shares with the run's other models on that server.

- Digest: a known digest is remembered per (backend, model, server). An unavailable one (a
  remote model that is gone, a server that is down) falls back on the last digest that same
  server reported, so stored calls still replay; the reported digest stays "unavailable"
  and the reason says what was used. Another server's digest is never used.
- Server: an engine whose model names and digests are its server's own (an
  OpenAI-compatible server: `key_server`) keys every call by that URL, so a call stored
  from one server never replays for another.
- Identity: what computed a row (backend, model, keyed digest, server, request parameters),
  recorded in the cache's `identities` table; its vectors' length is fixed by the first.
"""

from __future__ import annotations

from typing import Any

from ragaudit.backends.breaker import breaker_for
from ragaudit.backends.cache import CallCache
from ragaudit.errors import RagauditError


def key_server(engine: Any) -> str | None:
    """The server URL that keys the engine's calls, or None (not keyed by server)."""
    return getattr(engine, "key_server", None)


def key_digest(cache: CallCache, engine: Any) -> tuple[str, str | None]:
    """The digest calls are keyed by, and the digest reason to report."""
    server = key_server(engine) or ""
    if engine.digest != "unavailable":
        cache.remember_digest(engine.backend, engine.name, engine.digest, server)
        return engine.digest, engine.digest_reason
    last = cache.last_digest(engine.backend, engine.name, server)
    if last is None:
        return "unavailable", engine.digest_reason
    reason = f"{engine.digest_reason}; calls are keyed by the last digest seen, {last}"
    return last, reason


def model_identity(
    cache: CallCache, engine: Any, digest: str, kind: str, params: dict | None = None
) -> str:
    """The identity the engine's rows record (registered in the cache once)."""
    description = {
        "backend": engine.backend,
        "model": engine.name,
        "digest": digest,
        "kind": kind,
        "server": key_server(engine),
        "params": dict(params or {}),
    }
    return cache.remember_identity(description)


def share_run_breaker(cache: CallCache, engine: Any) -> None:
    """Give an engine that can stop asking a hung server the breaker its run shares."""
    share = getattr(engine, "share_breaker", None)
    server = key_server(engine)
    if share is not None and server:
        share(breaker_for(cache, server))


def describe_error(error: BaseException) -> str:
    """One line for an engine's failure."""
    text = str(error).strip().splitlines()[0] if str(error).strip() else ""
    if isinstance(error, RagauditError) and text:
        return text  # already one clear line (e.g. the Ollama URL and cause)
    return f"{type(error).__name__}: {text}" if text else type(error).__name__
