"""The user's code under a time limit and a result-size limit: their splitter, their
retriever factory and their retriever run in this process, and without limits a retriever
returning an endless generator, or a splitter returning 5,000 copies of each document,
hangs the run for ever.

A call runs in a thread of its own and is waited for up to its limit. Python cannot kill
a thread: a call past its limit is abandoned (it goes on in the background until it
returns or the process exits; the thread is a daemon, so it never holds the exit up) and
reported as timed out. A subprocess could be killed, but the user's retriever holds its
own state (an index built by the factory, a client, a model) that would have to be built
and pickled across, so the thread is the lighter bound. What a call returns is consumed
inside that thread, at most one item past its limit (itertools.islice), so an endless
generator is refused, never exhausted.

The defaults (`UserCodeLimits`) are documented in docs/stack-files.md; a stack file's
`limits:` changes them."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from itertools import islice
from typing import Any


@dataclass(frozen=True)
class UserCodeLimits:
    """How long and how much the user's components may take (a stack file's `limits:`)."""

    build_seconds: float = 300.0
    """Importing a component's module, and constructing it (the splitter's class, the
    retriever factory's call): an index built in the factory takes its time here."""
    split_seconds: float = 60.0
    """The splitter on one document."""
    call_seconds: float = 30.0
    """The retriever on one question."""
    max_results: int = 1000
    """Items the retriever may return for one question (ragaudit keeps the first 50)."""
    max_chunks_per_document: int = 10_000
    """Chunks the splitter may return for one document."""
    max_chunk_text_ratio: float = 10.0
    """Characters of chunk text the splitter may return per character of the document
    (an overlap of half a chunk is 2, a hierarchical parser's three levels about 3)."""
    max_contexts: int = 1000
    """Contexts a `pipeline:` may return for one question (its citations too)."""
    max_context_chars: int = 100_000
    """Characters of one context a `pipeline:` returns (its text, id or document id)."""
    max_answer_chars: int = 100_000
    """Characters of a `pipeline:`'s (or its oracle's) answer to one question."""


class CallTimedOut(Exception):
    """The user's call did not return within its limit (it was abandoned, not stopped)."""


class TooManyResults(Exception):
    """The user's call returned more items than its limit."""


class Abandoned:
    """The calls of one component abandoned past their limit and maybe still running, so
    the next call is not made beside one of them (the user's code need not be
    thread-safe)."""

    def __init__(self) -> None:
        self.running: list[threading.Thread] = []

    def still_running(self) -> bool:
        """Whether an abandoned call of this component has not returned yet."""
        self.running = [thread for thread in self.running if thread.is_alive()]
        return bool(self.running)


def call_bounded(
    function: Callable[[], Any], seconds: float, abandoned: Abandoned | None = None
) -> Any:
    """`function()` in its own thread, waited for `seconds`: what it returned, or what it
    raised raised here, or CallTimedOut (the thread is left to finish on its own and kept
    in `abandoned`)."""
    outcome: dict[str, Any] = {}

    def run() -> None:
        try:
            outcome["value"] = function()
        except BaseException as error:  # the user's code: whatever it raised, re-raised below
            outcome["error"] = error

    thread = threading.Thread(target=run, name="ragaudit-user-code", daemon=True)
    thread.start()
    thread.join(seconds)
    if thread.is_alive():
        if abandoned is not None:
            abandoned.running.append(thread)
        raise CallTimedOut(f"no answer within {seconds:g} s (the call was abandoned)")
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


def take_bounded(items: Iterable[Any], limit: int) -> list[Any]:
    """The items of `items` as a list, refused with TooManyResults past `limit`: at most
    limit + 1 are drawn, so an endless generator ends here."""
    taken = list(islice(iter(items), limit + 1))
    if len(taken) > limit:
        raise TooManyResults(f"more than {limit:,} items (the limit is max_results)")
    return taken
