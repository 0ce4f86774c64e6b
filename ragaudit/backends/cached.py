"""The cache-aware front of every backend: engines compute, these classes replay and count.

An engine (MiniLM, e5, Qwen, Ollama) only knows how to compute. Wrapping it here gives
every backend the same behaviour: a call is looked up by its key, replayed when stored,
computed and committed when not, and counted either way; a call whose engine raises is
counted as failed, recorded, and raised as ModelCallFailed (never an empty answer).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import NoReturn, Protocol

import numpy as np

from ragaudit.backends.base import (
    UNKNOWN_WINDOW,
    ChatMessage,
    InputWindow,
    Role,
    checked_messages,
)
from ragaudit.backends.cache import CallCache, call_key
from ragaudit.backends.concurrency import DEFAULT_WORKERS, Outcome, in_flight
from ragaudit.backends.executors import engine_outcomes, in_item_order
from ragaudit.errors import ModelCallFailed, RagauditError


class EmbeddingEngine(Protocol):
    """Computes embeddings; knows nothing of the cache."""

    backend: str
    name: str
    digest: str
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
    """Computes chat replies; knows nothing of the cache. An engine may also carry
    `reply_settings`, settings beyond the request that change its replies (llama.cpp's
    thread count): they key the calls and are recorded with the model."""

    backend: str
    name: str
    digest: str
    digest_reason: str | None

    def effective_params(self, params: dict) -> dict: ...

    def chat(self, messages: list[ChatMessage], params: dict) -> str: ...


@dataclass(frozen=True)
class CallResult:
    """A generator reply, whether it came from the cache, and the tokens it cost when it
    was computed (`usage`, from an engine that measures them, replayed with the reply)."""

    text: str
    replayed: bool
    usage: dict | None = None


def _unit_rows(matrix: np.ndarray) -> np.ndarray:
    matrix = np.asarray(matrix, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    if not np.all(np.isfinite(matrix)) or np.any(norms == 0):
        raise ValueError("the model returned a zero or non-finite vector")
    return matrix / norms


class CachedEmbedder:
    """An Embedder (see base.py) whose every text goes through the call cache."""

    def __init__(
        self,
        spec: str,
        engine: EmbeddingEngine,
        cache: CallCache,
        *,
        workers: int = DEFAULT_WORKERS,
    ) -> None:
        self.spec = spec
        self.engine = engine
        self.cache = cache
        self.workers = workers
        """Batches in flight at once when the engine is remote (a local one stays serial)."""
        self._answered = False  # calls go one at a time until the server answers one
        self.recipe = None
        """How a Ray worker builds this engine (set by backends.specs); None: here only."""
        self.name = engine.name
        self.digest = engine.digest
        self.key_digest, self.digest_reason = _key_digest(cache, engine)
        self._dimensions: int | None = engine.dimensions()

    @property
    def dimensions(self) -> int:
        """Vector length (asked of the model once when the engine cannot say up front)."""
        if self._dimensions is None:
            self._dimensions = len(self.embed(["dimension probe"], role="query")[0])
        return self._dimensions

    def input_window(self) -> InputWindow:
        """The engine's input window; unknown when the engine declares none."""
        declared = getattr(self.engine, "input_window", None)
        return declared() if declared else UNKNOWN_WINDOW

    def count_tokens(self, texts: list[str]) -> list[int] | None:
        """Each text's length in tokens (no model call); None when the engine cannot count."""
        counter = getattr(self.engine, "count_tokens", None)
        return list(counter(list(texts))) if counter else None

    def _key(self, text: str, role: Role) -> str:
        role_key = role if self.engine.uses_roles else None
        return call_key(
            self.engine.backend,
            self.name,
            self.key_digest,
            "embed",
            dict(getattr(self.engine, "params", {})),
            {"role": role_key, "text": text},
        )

    def embed(self, texts: list[str], role: Role = "passage") -> list[list[float]]:
        """Unit-length vectors, one per text; only texts never seen before are computed."""
        if role not in ("query", "passage"):
            raise RagauditError(f"embedding role {role!r} is not 'query' or 'passage'")
        if isinstance(texts, str):
            raise RagauditError("embed() takes a list of texts, not one string")
        keys = [self._key(text, role) for text in texts]
        stored = self.cache.get_many(keys)
        missing: dict[str, str] = {}
        for key, text in zip(keys, texts, strict=True):
            if key not in stored and key not in missing:
                missing[key] = text
        replayed = len(texts) - len(missing)
        if replayed:
            self.cache.count(self.spec, "replayed", replayed)
        pending = list(missing.items())
        # Long texts first (ties by order), so each batch pads to similar lengths.
        pending.sort(key=lambda item: -len(item[1]))
        size = self.engine.batch_size
        batches = [pending[start : start + size] for start in range(0, len(pending), size)]
        # Batches may be in flight together (a remote engine, Ray workers); each is stored,
        # counted or failed here in order, so the cache and the counts are a serial run's.
        outcomes = in_item_order(
            engine_outcomes(
                self,
                _engine_vectors,
                [([text for _, text in batch], role) for batch in batches],
                in_flight(self.engine, self.workers),
                stop_on_error=True,
                answered=self._answered,
            )
        )
        done = 0
        for batch, outcome in zip(batches, outcomes, strict=False):
            done += len(batch)
            if outcome.error is not None:
                outcomes.close()  # the batches behind it are never stored
                self._fail(outcome.error, len(batch) + len(pending) - done)
            stored.update(self._store(batch, outcome.value))
        return [np.frombuffer(stored[key], dtype=np.float32).tolist() for key in keys]

    def _fail(self, error: BaseException, failed: int) -> NoReturn:
        """Count `failed` texts as one failed call and raise ModelCallFailed.

        Texts queued behind the failed batch fail with this call too: counting them keeps
        every text the caller asked for in some count."""
        message = _describe(error)
        self.cache.record_failure(self.spec, "embed", message, n=failed)
        raise ModelCallFailed(
            f"{self.spec}: embedding {failed} text(s) failed: {message}"
        ) from error

    def _store(self, batch: list[tuple[str, str]], vectors: np.ndarray) -> dict[str, bytes]:
        self._answered = True  # the server answers: later batches may overlap
        items = [(key, vector.tobytes()) for (key, _), vector in zip(batch, vectors, strict=True)]
        self.cache.put_many(self.spec, "embed", items)
        self.cache.count(self.spec, "computed", len(items))
        return dict(items)


class CachedGenerator:
    """A Generator (see base.py) whose every call goes through the call cache."""

    def __init__(self, spec: str, engine: GenerationEngine, cache: CallCache) -> None:
        self.spec = spec
        self.engine = engine
        self.cache = cache
        self.name = engine.name
        self.digest = engine.digest
        self.key_digest, self.digest_reason = _key_digest(cache, engine)
        self._answered = False  # calls go one at a time until the server answers one
        self.recipe = None
        """How a Ray worker builds this engine (set by backends.specs); None: here only."""

    def call_key(self, messages: list[ChatMessage], params: dict | None = None) -> str:
        """The cache key this call would use (also a stable id for the prompt)."""
        effective = self.engine.effective_params(dict(params or {}))
        return self._key(checked_messages(messages), effective)

    def _key(self, messages: list[ChatMessage], effective: dict) -> str:
        # An engine's settings that change its replies (llama.cpp's threads) key them too.
        settings = {**effective, **getattr(self.engine, "reply_settings", {})}
        return call_key(
            self.engine.backend, self.name, self.key_digest, "generate", settings, messages
        )

    def generate(self, messages: list[ChatMessage], params: dict | None = None) -> str:
        """The reply text (an empty string only when the model really replied nothing)."""
        return self.generate_detailed(messages, params).text

    def generate_detailed(
        self, messages: list[ChatMessage], params: dict | None = None
    ) -> CallResult:
        """The reply and whether it was replayed from the cache."""
        call = self._prepare(messages, params)
        if call.replay is not None:
            return self._replayed(call.replay)
        try:
            reply = self._reply(call)
        except Exception as error:  # every engine failure is counted, then raised
            self._fail(error)
        return self._store(call, reply)

    def generate_each(self, requests: list[tuple], *, workers: int) -> Iterator:
        """Each (messages, params[, the prompts before it in its reuse segment]) request's
        reply (CallResult), or the ModelCallFailed it cost, yielded in the order asked:
        exactly what `generate_detailed` on each in turn gives (the same cache rows, counts
        and failures), with up to `workers` calls in flight when the engine is remote.
        Under a Ray executor each reply is stored as it arrives (a later prompt's may come
        first), so a kill loses only the calls in flight."""
        checked: dict[int, list[ChatMessage]] = {}

        def check(messages: list[ChatMessage]) -> list[ChatMessage]:
            # Once per prompt: a segment's chain repeats its earlier prompts (the same lists).
            if id(messages) not in checked:
                checked[id(messages)] = checked_messages(messages)
            return checked[id(messages)]

        calls = [self._prepare(*request, check=check) for request in requests]
        first: dict[str, _Call] = {}
        for call in calls:
            if call.replay is None:
                first.setdefault(call.key, call)
        fresh = list(first.values())  # in the order asked, so each is next when its turn comes
        arrivals = engine_outcomes(
            self,
            _chat_reply,
            [(call.messages, call.effective, call.after) for call in fresh],
            in_flight(self.engine, workers),
            answered=self._answered,
        )
        finished: dict[str, CallResult | ModelCallFailed] = {}
        try:
            for call in calls:
                if call.replay is not None:
                    yield self._replayed(call.replay)
                elif first[call.key] is call:
                    while call.key not in finished:  # stored as each arrives
                        index, outcome = next(arrivals)
                        done = fresh[index]
                        finished[done.key] = _as_outcome(
                            lambda c=done, o=outcome: self._finish(c, o)
                        )
                    yield finished.pop(call.key)
                else:  # a key asked before: it replays (or, having failed, is asked again)
                    yield _as_outcome(lambda c=call: self.generate_detailed(c.messages, c.params))
        finally:
            arrivals.close()

    def _prepare(
        self,
        messages: list[ChatMessage],
        params: dict | None,
        after: Sequence = (),
        check: Callable[[list[ChatMessage]], list[ChatMessage]] | None = None,
    ) -> _Call:
        check = check or checked_messages
        messages = check(messages)
        effective = self.engine.effective_params(dict(params or {}))
        key = self._key(messages, effective)
        chain = tuple(check(earlier) for earlier in after)
        return _Call(messages, params, effective, key, self.cache.get(key), chain)

    def _reply(self, call: _Call) -> tuple[str, dict | None]:
        return _chat_reply(self.engine, (call.messages, call.effective, call.after))

    def _replayed(self, stored: bytes) -> CallResult:
        self.cache.count(self.spec, "replayed")
        row = json.loads(stored)
        return CallResult(text=row["text"], replayed=True, usage=row.get("usage"))

    def _finish(self, call: _Call, outcome: Outcome) -> CallResult:
        if outcome.error is not None:
            self._fail(outcome.error)
        return self._store(call, outcome.value)

    def _fail(self, error: BaseException) -> NoReturn:
        message = _describe(error)
        self.cache.record_failure(self.spec, "generate", message)
        raise ModelCallFailed(f"{self.spec}: generation failed: {message}") from error

    def _store(self, call: _Call, reply: tuple[str, dict | None]) -> CallResult:
        self._answered = True  # the server answers: later calls may overlap
        text, usage = reply
        row = {"text": text} if usage is None else {"text": text, "usage": usage}
        self.cache.put(
            self.spec, "generate", call.key, json.dumps(row, ensure_ascii=False).encode()
        )
        self.cache.count(self.spec, "computed")
        return CallResult(text=text, replayed=False, usage=usage)


@dataclass(frozen=True)
class _Call:
    """One generation request, checked and keyed; `replay` is its stored reply, if any."""

    messages: list[ChatMessage]
    params: dict | None
    effective: dict
    key: str
    replay: bytes | None
    after: tuple = ()
    """The prompts before this one in its prefix-reuse segment (generate.reuse_chains)."""


def _engine_vectors(engine: EmbeddingEngine, payload: tuple[list[str], Role]) -> np.ndarray:
    """The engine's unit vectors for (texts, role): no cache, so safe on a worker thread or
    a Ray worker."""
    texts, role = payload
    vectors = _unit_rows(engine.embed_batch(texts, role))
    if vectors.shape[0] != len(texts):
        raise ValueError(f"asked for {len(texts)} vectors, got {vectors.shape[0]}")
    return vectors


def _chat_reply(engine: GenerationEngine, payload: tuple) -> tuple[str, dict | None]:
    """The engine's reply to (messages, effective params, the prompts before it in its
    reuse segment) and the tokens it cost, from an engine that measures them
    (`chat_measured`, which also reuses prefixes along the segment), else None: no cache,
    so safe anywhere (a Ray worker measures on its own engine and hands both back)."""
    messages, effective, after = payload
    measured = getattr(engine, "chat_measured", None)
    if measured is not None:
        text, usage = measured(messages, effective, after)
    else:
        text, usage = engine.chat(messages, effective), None
    if not isinstance(text, str):
        raise ValueError(f"the model returned {type(text).__name__}, not text")
    return text, usage


def _as_outcome(step: Callable[[], CallResult]) -> CallResult | ModelCallFailed:
    try:
        return step()
    except ModelCallFailed as error:
        return error


def _key_digest(cache: CallCache, engine) -> tuple[str, str | None]:
    """The digest calls are keyed by, and the digest reason to report.

    A known digest is remembered. An unavailable one (a remote model that is gone, a
    server that is down) falls back on the last digest seen, so stored calls still
    replay; the reported digest stays "unavailable" and the reason says what was used.
    """
    if engine.digest != "unavailable":
        cache.remember_digest(engine.backend, engine.name, engine.digest)
        return engine.digest, engine.digest_reason
    last = cache.last_digest(engine.backend, engine.name)
    if last is None:
        return "unavailable", engine.digest_reason
    reason = f"{engine.digest_reason}; calls are keyed by the last digest seen, {last}"
    return last, reason


def _describe(error: BaseException) -> str:
    text = str(error).strip().splitlines()[0] if str(error).strip() else ""
    if isinstance(error, RagauditError) and text:
        return text  # already one clear line (e.g. the Ollama URL and cause)
    return f"{type(error).__name__}: {text}" if text else type(error).__name__
