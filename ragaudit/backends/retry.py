"""Bounded retries with exponential backoff for network-level failures of remote backends.

Only failures that a retry can cure are retried: connection refused or reset, a closed
connection without a reply, timeouts, and HTTP 5xx. A 4xx (e.g. model not pulled) fails at
once. Settings come from the environment so tests and users can tune them without code:
RAGAUDIT_RETRIES (attempts after the first, default 3), RAGAUDIT_RETRY_DELAY (first
backoff in seconds, default 0.5, doubled each time), RAGAUDIT_TIMEOUT (seconds per request,
default 300).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass
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

    @classmethod
    def from_env(cls) -> RetryPolicy:
        """The policy named by RAGAUDIT_RETRIES / RAGAUDIT_RETRY_DELAY / RAGAUDIT_TIMEOUT."""
        return cls(
            retries=_env_number("RAGAUDIT_RETRIES", cls.retries, int),
            delay=_env_number("RAGAUDIT_RETRY_DELAY", cls.delay, float),
            timeout=_env_number("RAGAUDIT_TIMEOUT", cls.timeout, float),
        )


def _env_number(name: str, default, kind):
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
    """True for refused/reset/closed connections, timeouts and HTTP 5xx."""
    import httpx
    import ollama

    if isinstance(error, ollama.ResponseError):
        return error.status_code >= 500
    if isinstance(error, httpx.HTTPStatusError):
        return error.response.status_code >= 500
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


def call_with_retries(
    call: Callable[[], T], policy: RetryPolicy, sleep: Callable[[float], None] = time.sleep
) -> T:
    """Run `call`, retrying retryable failures; raise RetriesExhausted or the fatal error."""
    delay = policy.delay
    for attempt in range(1, policy.retries + 2):
        try:
            return call()
        except Exception as error:
            if not is_retryable(error):
                raise
            if attempt > policy.retries:
                raise RetriesExhausted(attempt, error) from error
            sleep(min(delay, policy.max_delay))
            delay *= 2
    raise AssertionError("unreachable")
