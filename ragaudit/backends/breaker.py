"""A circuit breaker per server and run: after N timeouts in a row, stop asking.

A hung server costs every request its whole deadline, and every retry another; at the
defaults (3 retries, 300 s) a small run would wait for hours. So the requests a run sends
to one server (its passages, its queries and its chat calls alike) share one breaker:
after RAGAUDIT_BREAKER_TIMEOUTS (default 3) timed-out requests in a row, no request is
sent to that server for the rest of the run, and every call still to make fails at once
with the reason. Any answer (even an HTTP error) resets the count; a refused connection
is not a timeout. 0 turns the breaker off.

The run is the call cache object (one per run): `breaker_for(cache, base_url)` gives the
same breaker to every model of that run on that server. A `pipeline: http:` service has
one of its own (targets.pipeline.http_client), which also counts a 429 or 503 asking for a
wait longer than RAGAUDIT_RETRY_AFTER_MAX: that server said it will not answer in time.
"""

from __future__ import annotations

import threading
import weakref

from ragaudit.backends.retry import env_number

BREAKER_ENV = "RAGAUDIT_BREAKER_TIMEOUTS"
DEFAULT_TIMEOUTS = 3

_breakers: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_lock = threading.Lock()


class CircuitBreaker:
    """Counts timeouts in a row for one server; `open` once `threshold` is reached."""

    def __init__(self, server: str, threshold: int) -> None:
        self.server = server
        self.threshold = threshold
        self._in_a_row = 0
        self._causes: list[str] = []
        self._lock = threading.Lock()

    @property
    def open(self) -> bool:
        """True when the server is no longer asked."""
        with self._lock:
            return self._tripped()

    def _tripped(self) -> bool:
        return bool(self.threshold) and self._in_a_row >= self.threshold

    def timed_out(self, cause: str = "timed out") -> bool:
        """One more request went unanswered: it timed out (or `cause`, such as a wait asked
        for past the one honoured). True when this one opened the breaker, to say so once."""
        with self._lock:
            was_open = self._tripped()
            self._in_a_row += 1
            if cause not in self._causes:
                self._causes.append(cause)
            return not was_open and self._tripped()

    def answered(self) -> None:
        """The server answered (whatever it said): the count starts again."""
        with self._lock:
            if not self._tripped():  # once open, it stays open for the run
                self._in_a_row, self._causes = 0, []

    def reason(self) -> str:
        """Why a call was not sent, in one line."""
        return f"not asked: {self._streak()}, so this run stopped asking it ({self._setting()})"

    def opened_line(self) -> str:
        """What the run says when the breaker opens."""
        return (
            f"{self._streak()}: this run stops asking it, and every call still to make "
            f"fails at once ({self._setting()})"
        )

    def _streak(self) -> str:
        with self._lock:
            causes = " or ".join(self._causes) or "timed out"
        return f"{self.server} {causes} {self.threshold} times in a row"

    def _setting(self) -> str:
        return f"{BREAKER_ENV}={self.threshold}"


def breaker_threshold() -> int:
    """Timeouts in a row that open the breaker (RAGAUDIT_BREAKER_TIMEOUTS; 0: never)."""
    return env_number(BREAKER_ENV, DEFAULT_TIMEOUTS, int)


def breaker_for(run: object, server: str) -> CircuitBreaker:
    """The breaker `run` (a call cache) shares for `server`, made on first use."""
    with _lock:
        per_server = _breakers.setdefault(run, {})
        if server not in per_server:
            per_server[server] = CircuitBreaker(server, breaker_threshold())
        return per_server[server]
