"""Bounded retries with exponential backoff for network-level failures of remote backends.

Only failures that a retry can cure are retried: connection refused or reset, a closed
connection without a reply, timeouts, HTTP 5xx and HTTP 429 (too many requests). Any other
4xx (e.g. model not pulled) fails at once. A 429 or 503 that says `Retry-After` (seconds or
an HTTP date) is retried after that long, capped at RAGAUDIT_RETRY_AFTER_MAX seconds
(default 60); without it, after the usual backoff. Settings come from the environment so
tests and users can tune them without code: RAGAUDIT_RETRIES (attempts after the first,
default 3), RAGAUDIT_RETRY_DELAY (first backoff in seconds, default 0.5, doubled each
time), RAGAUDIT_TIMEOUT (seconds one request may take, default 300: for an
OpenAI-compatible server a deadline for the whole request, its reply body included).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from typing import TypeVar

from ragaudit.errors import RagauditError

T = TypeVar("T")


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how patiently a remote call is retried."""

    retries: int = 3
    """Attempts after the first one."""
    delay: float = 0.5
    """Seconds before the first retry; doubled before each further one."""
    max_delay: float = 8.0
    timeout: float = 300.0
    """Seconds one request may take (generation on a busy server is slow)."""
    max_retry_after: float = 60.0
    """The longest wait a server's Retry-After is honoured for."""

    @classmethod
    def from_env(cls) -> RetryPolicy:
        """The policy named by RAGAUDIT_RETRIES / RAGAUDIT_RETRY_DELAY / RAGAUDIT_TIMEOUT."""
        return cls(
            retries=env_number("RAGAUDIT_RETRIES", cls.retries, int),
            delay=env_number("RAGAUDIT_RETRY_DELAY", cls.delay, float),
            timeout=env_number("RAGAUDIT_TIMEOUT", cls.timeout, float),
            max_retry_after=env_number("RAGAUDIT_RETRY_AFTER_MAX", cls.max_retry_after, float),
        )


def env_number(name: str, default, kind):
    """The number in environment variable `name` (`default` when unset), or one line naming
    it when it is not a non-negative `kind`."""
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = kind(raw)
    except ValueError:
        raise RagauditError(f"environment variable {name}={raw!r} is not a number") from None
    if value < 0:
        raise RagauditError(f"environment variable {name}={raw!r} must not be negative")
    return value


class RetriesExhausted(Exception):
    """A retryable failure that persisted through every attempt."""

    def __init__(self, attempts: int, last_error: BaseException) -> None:
        super().__init__(f"{attempts} attempt(s), last: {describe_network_error(last_error)}")
        self.attempts = attempts
        self.last_error = last_error


def is_retryable(error: BaseException) -> bool:
    """True for refused/reset/closed connections, timeouts, HTTP 5xx and 429."""
    import httpx
    import ollama

    if isinstance(error, ollama.ResponseError):
        return error.status_code >= 500 or error.status_code == 429
    if isinstance(error, httpx.HTTPStatusError):
        return error.response.status_code >= 500 or error.response.status_code == 429
    # The ollama client turns httpx.ConnectError into the builtin ConnectionError.
    return isinstance(error, ConnectionError | httpx.TransportError | TimeoutError)


def describe_network_error(error: BaseException) -> str:
    """A short, specific cause: 'connection refused', 'HTTP 500: boom', ..."""
    import httpx
    import ollama

    if isinstance(error, ollama.ResponseError):
        return f"HTTP {error.status_code}: {error.error}"
    if isinstance(error, ConnectionError) and not isinstance(error, ConnectionResetError):
        return "connection refused"
    if isinstance(error, httpx.RemoteProtocolError):
        return "connection closed without a reply"
    if isinstance(error, httpx.TimeoutException):
        return "timed out"
    text = str(error).strip()
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


def retry_after(error: BaseException) -> float | None:
    """The seconds a 429 or 503 reply asks to wait (`Retry-After`), or None."""
    import httpx

    if not isinstance(error, httpx.HTTPStatusError):
        return None
    if error.response.status_code not in (429, 503):
        return None
    raw = (error.response.headers.get("Retry-After") or "").strip()
    if not raw:
        return None
    try:
        return max(0.0, float(raw))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(raw)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def call_with_retries(
    call: Callable[[], T],
    policy: RetryPolicy,
    sleep: Callable[[float], None] = time.sleep,
    *,
    give_up: Callable[[BaseException], bool] | None = None,
) -> T:
    """Run `call`, retrying retryable failures (after the server's Retry-After, capped,
    else the backoff); raise RetriesExhausted or the fatal error. `give_up(error)` True
    ends the retries early (a server the run stopped asking)."""
    delay = policy.delay
    for attempt in range(1, policy.retries + 2):
        try:
            return call()
        except Exception as error:
            if not is_retryable(error):
                raise
            if attempt > policy.retries or (give_up is not None and give_up(error)):
                raise RetriesExhausted(attempt, error) from error
            asked = retry_after(error)
            if asked is not None:
                sleep(min(asked, policy.max_retry_after))
            else:
                sleep(min(delay, policy.max_delay))
            delay *= 2
    raise AssertionError("unreachable")
