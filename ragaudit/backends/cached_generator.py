"""The cache-aware front of a generator: a chat call is looked up by its key, replayed when
stored, computed and committed when not (with the seconds it took and what computed it),
and counted either way, once per prompt by its final outcome; a call whose engine raises is
counted as failed, recorded, and raised as ModelCallFailed (never an empty answer).
See backends/cached.py for the embedder's front and front_setup.py for what both settle.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import NoReturn

from ragaudit.backends.base import ChatMessage, GenerationEngine, checked_messages
from ragaudit.backends.cache import CallCache, call_key
from ragaudit.backends.concurrency import Outcome, in_flight
from ragaudit.backends.executors import engine_outcomes
from ragaudit.backends.front_setup import (
    describe_error,
    key_digest,
    key_server,
    model_identity,
    share_run_breaker,
)
from ragaudit.errors import ModelCallFailed


@dataclass(frozen=True)
class CallResult:
    """A generator reply, whether it came from the cache, and the tokens it cost when it
    was computed (`usage`, from an engine that measures them, replayed with the reply)."""

    text: str
    replayed: bool
    usage: dict | None = None


class CachedGenerator:
    """A Generator (see base.py) whose every call goes through the call cache."""

    def __init__(self, spec: str, engine: GenerationEngine, cache: CallCache) -> None:
        self.spec = spec
        self.engine = engine
        self.cache = cache
        self.name = engine.name
        self.digest = engine.digest
        self.key_digest, self.digest_reason = key_digest(cache, engine)
        self.server = key_server(engine)
        settings = dict(getattr(engine, "reply_settings", {}))
        self.identity = model_identity(cache, engine, self.key_digest, "generate", settings)
        share_run_breaker(cache, engine)
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
            self.engine.backend,
            self.name,
            self.key_digest,
            "generate",
            settings,
            messages,
            self.server,
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
        started = time.perf_counter()
        try:
            reply = self._reply(call)
        except Exception as error:  # every engine failure is counted, then raised
            self._fail(error, call.key)
        return self._store(call, reply, time.perf_counter() - started)

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
            _timed_reply,
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
            self._fail(outcome.error, call.key)
        return self._store(call, *outcome.value)

    def _fail(self, error: BaseException, key: str) -> NoReturn:
        """Count the call (once, however often it was asked) and raise ModelCallFailed."""
        message = describe_error(error)
        self.cache.record_failure(self.spec, "generate", message, keys=[key])
        raise ModelCallFailed(f"{self.spec}: generation failed: {message}") from error

    def _store(self, call: _Call, reply: tuple[str, dict | None], seconds: float) -> CallResult:
        self._answered = True  # the server answers: later calls may overlap
        text, usage = reply
        row = {"text": text} if usage is None else {"text": text, "usage": usage}
        value = json.dumps(row, ensure_ascii=False).encode()
        self.cache.put(
            self.spec, "generate", call.key, value, identity=self.identity, seconds=seconds
        )
        self.cache.count(self.spec, "computed", keys=[call.key])
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


def _timed_reply(engine: GenerationEngine, payload: tuple) -> tuple[tuple[str, dict | None], float]:
    """`_chat_reply` and the seconds it took (what the row records)."""
    started = time.perf_counter()
    reply = _chat_reply(engine, payload)
    return reply, time.perf_counter() - started
