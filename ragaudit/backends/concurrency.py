"""Bounded in-flight calls to a remote server, with results taken in the order asked.

A remote engine (Ollama, an OpenAI-compatible server) declares `remote = True`; its calls
may overlap, at most `workers` at a time, because the server has parallel slots that a
serial run leaves idle. Local in-process models stay serial: they already use every core,
and llama.cpp's prefix reuse depends on the order of prompts.

Only the engine call runs on a worker thread. The caller takes each outcome in the order
the calls were asked and does everything with a visible effect (cache rows, counts,
failures) itself, in that order, so a concurrent run stores, counts and fails exactly as
a serial one does.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Generic, TypeVar

from ragaudit.errors import RagauditError

DEFAULT_WORKERS = 4
"""In-flight requests to one remote engine unless --workers says otherwise."""

Item = TypeVar("Item")
Value = TypeVar("Value")


@dataclass(frozen=True)
class Outcome(Generic[Value]):
    """What one call gave: its value, or the exception it raised (never both)."""

    value: Value | None = None
    error: BaseException | None = None


def in_flight(engine: object, workers: int) -> int:
    """How many calls to `engine` may be in flight: `workers` for a remote engine, else 1."""
    return max(1, workers) if getattr(engine, "remote", False) else 1


def check_workers(workers: int, flag: str = "--workers") -> int:
    """`workers` when it is at least 1; else one line naming the flag."""
    if not isinstance(workers, int) or workers < 1:
        raise RagauditError(f"{flag} {workers}: need at least 1 request in flight")
    return workers


def ordered_outcomes(
    call: Callable[[Item], Value],
    items: Sequence[Item],
    workers: int,
    *,
    stop_on_error: bool = False,
    answered: bool = False,
) -> Iterator[Outcome[Value]]:
    """`call(item)` for each item, at most `workers` at once, yielded in item order.

    Until the server has answered one call (`answered`, or a success here) the calls go
    one at a time: a server that is down or refusing is asked as a serial run asks it,
    one call and its retries after another, never `workers` at once. With
    `stop_on_error`, a call that fails means no later item is started (a serial caller
    would stop there); the first failure in order is the last outcome yielded. Closing
    the iterator early cancels the calls not yet started and waits for those in flight
    (an interrupt does not wait for them)."""
    opening = 0
    while not answered and opening < len(items):
        outcome = _attempt(call, items[opening])
        opening += 1
        yield outcome
        if outcome.error is not None and stop_on_error:
            return
        answered = outcome.error is None
    rest = items[opening:]
    if workers <= 1 or len(rest) <= 1:  # a thread pool for one call costs ~5 ms, saves nothing
        yield from _serial(call, rest, stop_on_error)
    else:
        yield from _pooled(call, rest, workers, stop_on_error)


def _pooled(
    call: Callable[[Item], Value], items: Sequence[Item], workers: int, stop_on_error: bool
) -> Iterator[Outcome[Value]]:
    first_failed = _FirstFailure(len(items))

    def guarded(index: int) -> Outcome[Value]:
        if stop_on_error and first_failed.before(index):
            return Outcome(error=_NotStarted())  # never reached: an earlier one failed
        outcome = _attempt(call, items[index])
        if outcome.error is not None:
            first_failed.note(index)
        return outcome

    pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="ragaudit-call")
    futures: list[Future] = [pool.submit(guarded, index) for index in range(len(items))]
    finished = False
    try:
        for future in futures:
            outcome = future.result()
            yield outcome
            if stop_on_error and outcome.error is not None:
                break
        finished = True
    except GeneratorExit:  # closed early by the caller: its calls in flight end here
        finished = True
        raise
    finally:
        # Ctrl-C (or any error) does not wait minutes for the requests in flight.
        pool.shutdown(wait=finished, cancel_futures=True)


def _attempt(call: Callable[[Item], Value], item: Item) -> Outcome[Value]:
    try:
        return Outcome(value=call(item))
    except Exception as error:  # handed to the caller, in order
        return Outcome(error=error)


def _serial(
    call: Callable[[Item], Value], items: Sequence[Item], stop_on_error: bool
) -> Iterator[Outcome[Value]]:
    for item in items:
        outcome = _attempt(call, item)
        yield outcome
        if stop_on_error and outcome.error is not None:
            return


class _NotStarted(Exception):
    """A call skipped because an earlier one failed (its outcome is never yielded)."""


class _FirstFailure:
    """The lowest index whose call failed so far, shared by the worker threads."""

    def __init__(self, none: int) -> None:
        self._lock = threading.Lock()
        self._index = none

    def note(self, index: int) -> None:
        with self._lock:
            self._index = min(self._index, index)

    def before(self, index: int) -> bool:
        with self._lock:
            return self._index < index
