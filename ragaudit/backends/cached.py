"""The cache-aware front of every backend: engines compute, these classes replay and count.

An engine (MiniLM, e5, Qwen, Ollama) only knows how to compute. Wrapping it here gives
every backend the same behaviour: a call is looked up by its key, replayed when stored,
computed and committed when not, and counted either way, once per text by its final
outcome; a call whose engine raises is counted as failed, recorded, and raised as
ModelCallFailed (never an empty answer). Generation's front is in cached_generator.py;
what both settle once about their engine (keyed digest, server, identity, the run's
breaker) in front_setup.py.

A vector is stored only when it is finite and of length 1 after normalising (computed in
float64, so large components do not overflow to a zero vector), and of the model's
dimension: the length of the first vector stored for the model's identity. A batch of
another length is a failed call.
"""

from __future__ import annotations

import time
from typing import NoReturn

import numpy as np

from ragaudit.backends.base import (
    UNKNOWN_WINDOW,
    EmbeddingEngine,
    GenerationEngine,
    InputWindow,
    Role,
)
from ragaudit.backends.cache import CallCache, call_key
from ragaudit.backends.cached_generator import CachedGenerator, CallResult
from ragaudit.backends.concurrency import DEFAULT_WORKERS, in_flight
from ragaudit.backends.executors import engine_outcomes, in_item_order
from ragaudit.backends.front_setup import (
    describe_error,
    key_digest,
    key_server,
    model_identity,
    share_run_breaker,
)
from ragaudit.errors import ModelCallFailed, RagauditError

__all__ = ["CachedEmbedder", "CachedGenerator", "CallResult", "EmbeddingEngine"]
__all__ += ["GenerationEngine"]


def _unit_rows(matrix: np.ndarray) -> np.ndarray:
    """`matrix`'s rows scaled to length 1 (float32), or ValueError when one cannot be."""
    matrix = np.asarray(matrix, dtype=np.float64)
    if matrix.ndim != 2 or not np.all(np.isfinite(matrix)):
        raise ValueError("the model returned a zero or non-finite vector")
    with np.errstate(all="ignore"):  # a zero or denormal row is caught below, not warned
        units = (matrix / np.linalg.norm(matrix, axis=1, keepdims=True)).astype(np.float32)
        norms = np.linalg.norm(units.astype(np.float64), axis=1)
    if not np.all(np.isfinite(units)) or not np.all(np.abs(norms - 1.0) < 1e-3):
        raise ValueError("the model returned a vector with no direction (zero or too small)")
    return units


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
        self.key_digest, self.digest_reason = key_digest(cache, engine)
        self.server = key_server(engine)
        params = dict(getattr(engine, "params", {}))
        self.identity = model_identity(cache, engine, self.key_digest, "embed", params)
        share_run_breaker(cache, engine)
        self._fixed: int | None = cache.stored_dimensions(self.identity)
        """The model's dimension: its first stored vector's length (None: none yet)."""
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
            self.server,
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
                _timed_vectors,
                [([text for _, text in batch], role) for batch in batches],
                in_flight(self.engine, self.workers),
                stop_on_error=True,
                answered=self._answered,
            )
        )
        done = 0
        for batch, outcome in zip(batches, outcomes, strict=False):
            done += len(batch)
            error = outcome.error or self._wrong_dimension(outcome.value[0])
            if error is not None:
                outcomes.close()  # the batches behind it are never stored
                self._fail(error, [key for key, _ in pending[done - len(batch) :]])
            stored.update(self._store(batch, *outcome.value))
        return [np.frombuffer(stored[key], dtype=np.float32).tolist() for key in keys]

    def _wrong_dimension(self, vectors: np.ndarray) -> ValueError | None:
        """Why `vectors` cannot be this model's (another length than its first), or None."""
        if self._fixed is None or vectors.shape[1] == self._fixed:
            return None
        return ValueError(
            f"the model returned {vectors.shape[1]}-dimensional vectors; its first had "
            f"{self._fixed}"
        )

    def _fail(self, error: BaseException, failed: list[str]) -> NoReturn:
        """Count the `failed` texts (by key) as one failed call and raise ModelCallFailed.

        Texts queued behind the failed batch fail with this call too: counting them keeps
        every text the caller asked for in some count; a text that failed before in this
        run is not counted twice."""
        message = describe_error(error)
        self.cache.record_failure(self.spec, "embed", message, len(failed), keys=failed)
        raise ModelCallFailed(
            f"{self.spec}: embedding {len(failed)} text(s) failed: {message}"
        ) from error

    def _store(
        self, batch: list[tuple[str, str]], vectors: np.ndarray, seconds: float
    ) -> dict[str, bytes]:
        self._answered = True  # the server answers: later batches may overlap
        self._fixed = self._fixed or vectors.shape[1]
        items = [(key, vector.tobytes()) for (key, _), vector in zip(batch, vectors, strict=True)]
        self.cache.put_many(
            self.spec, "embed", items, identity=self.identity, seconds=seconds / len(items)
        )
        self.cache.count(self.spec, "computed", keys=[key for key, _ in items])
        return dict(items)


def _engine_vectors(engine: EmbeddingEngine, payload: tuple[list[str], Role]) -> np.ndarray:
    """The engine's unit vectors for (texts, role): no cache, so safe on a worker thread or
    a Ray worker."""
    texts, role = payload
    vectors = _unit_rows(engine.embed_batch(texts, role))
    if vectors.shape[0] != len(texts):
        raise ValueError(f"asked for {len(texts)} vectors, got {vectors.shape[0]}")
    return vectors


def _timed_vectors(
    engine: EmbeddingEngine, payload: tuple[list[str], Role]
) -> tuple[np.ndarray, float]:
    """`_engine_vectors` and the seconds it took (each row records its share)."""
    started = time.perf_counter()
    vectors = _engine_vectors(engine, payload)
    return vectors, time.perf_counter() - started
