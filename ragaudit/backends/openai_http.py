"""One OpenAI-compatible server as a model sees it: its URL, its key, and every request to it
bounded in time and size, retried, and described in one redacted line.

- The key is read from the variable named by `api_key_env` before any request: spaces or
  a newline around it (as read from a mounted secret file) are stripped, with one line on
  stderr naming the variable; a control character inside it is refused in one line naming
  the variable, never the value.
- RAGAUDIT_TIMEOUT (default 300 s) is a deadline for the whole request: connecting,
  sending, the reply's headers and its whole body (a server trickling its reply a byte at
  a time, headers or body, is cut off at the deadline, like one that never answers:
  backends/deadline.py).
- A reply body is read streamed and refused past RAGAUDIT_MAX_REPLY_MB (default 64 MB,
  the decoded size): a stated Content-Length past it is refused before reading. A reply
  that is too large is not retried.
- Retries, Retry-After on 429 and 503: backends/retry.py. After RAGAUDIT_BREAKER_TIMEOUTS
  timeouts in a row the run stops asking the server (backends/breaker.py).
- Every message built from what the server sent (an error, a reply that cannot be read)
  goes through one redacting formatter (backends/redact.py) before it is cut short.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable

import httpx

from ragaudit.backends.breaker import CircuitBreaker, breaker_threshold
from ragaudit.backends.deadline import deadline_client
from ragaudit.backends.openai_replies import BadReply
from ragaudit.backends.redact import Redactor, one_line
from ragaudit.backends.retry import (
    RetriesExhausted,
    RetryPolicy,
    call_with_retries,
    describe_network_error,
    env_number,
)
from ragaudit.errors import ModelCallFailed, RagauditError

MAX_REPLY_ENV = "RAGAUDIT_MAX_REPLY_MB"
DEFAULT_MAX_REPLY_MB = 64.0
_noted: set[int] = set()  # (variable, value) pairs whose stripped key was already said


class ReplyTooLarge(Exception):
    """A reply past the size cap (never retried: a retry would send it again)."""


def api_key(variable: str) -> str:
    """The key in environment variable `variable` ('' when unset), stripped of surrounding
    whitespace; a control character inside it is one RagauditError naming the variable."""
    raw = os.environ.get(variable) or ""
    key = raw.strip()
    if any(ord(char) < 32 or ord(char) == 127 for char in key):
        raise RagauditError(
            f"${variable} holds a control character inside the key; fix the variable "
            "(its value is not shown)"
        )
    if key != raw and key and hash((variable, raw)) not in _noted:
        _noted.add(hash((variable, raw)))  # once, not once per model on the server
        print(
            f"note: ${variable} has spaces or a newline around the key (as read from a "
            "file); they were stripped before sending",
            file=sys.stderr,
        )
    return key


def max_reply_bytes() -> int:
    """The largest reply body read, in bytes (RAGAUDIT_MAX_REPLY_MB)."""
    return int(env_number(MAX_REPLY_ENV, DEFAULT_MAX_REPLY_MB, float) * 1024 * 1024)


class OpenAIServer:
    """`request(what, path, body, read)` sends GET (body None) or POST and returns
    `read(decoded JSON)`; every failure, `read`'s included, is one ModelCallFailed naming
    the base URL, `what` and the model, redacted."""

    def __init__(
        self, model: str, base_url: str, api_key_env: str, retry: RetryPolicy | None = None
    ) -> None:
        self.model = model
        self.base_url = base_url
        self.api_key_env = api_key_env
        self.retry = retry or RetryPolicy.from_env()
        self.max_reply = max_reply_bytes()
        key = api_key(api_key_env)
        self._has_key = bool(key)
        self.redact = Redactor(key)
        """The formatter every message from this server goes through."""
        self.breaker = CircuitBreaker(base_url, breaker_threshold())
        """This server's breaker; a cache-aware front swaps in its run's (share_breaker)."""
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        self._client = deadline_client(self.retry.timeout, base_url, headers=headers)

    def share_breaker(self, breaker: CircuitBreaker) -> None:
        """Count timeouts on `breaker`, which the run's other models share."""
        self.breaker = breaker

    def request(self, what: str, path: str, body: dict | None = None, read: Callable = None):
        """`read` of the JSON the server answers to GET/POST `path` (retried as retry.py
        says; `read` raising is a refused call, described like the server's errors)."""
        url = f"{self.base_url}{path}"
        where = f"openai-compatible server at {self.base_url}"
        if self.breaker.open:
            raise ModelCallFailed(f"{where}: {what} for {self.model!r}: {self.breaker.reason()}")
        try:
            reply = call_with_retries(
                lambda: self._send(url, body), self.retry, give_up=lambda _: self.breaker.open
            )
            return read(reply) if read is not None else reply
        except RetriesExhausted as error:
            cause = self._describe(error.last_error)
            raise ModelCallFailed(
                self.redact(
                    f"{where} failed {what} for {self.model!r} after {error.attempts} "
                    f"attempt(s): {cause}"
                )
            ) from None
        except Exception as error:
            cause = self._describe(error)
            raise ModelCallFailed(
                self.redact(f"{where} refused {what} for {self.model!r}: {cause}")
            ) from None

    def _send(self, url: str, body: dict | None) -> object:
        request = self._client.build_request("GET" if body is None else "POST", url, json=body)
        try:
            response = self._client.send(request, stream=True)
        except httpx.TimeoutException:
            self.breaker.timed_out()
            raise
        try:
            content = self._read_body(response)
        except httpx.TimeoutException:
            self.breaker.timed_out()
            raise
        finally:
            response.close()
        self.breaker.answered()
        whole = httpx.Response(
            response.status_code, headers=response.headers, content=content, request=request
        )
        whole.raise_for_status()
        return json.loads(content)

    def _read_body(self, response: httpx.Response) -> bytes:
        stated = response.headers.get("Content-Length", "")
        if stated.isdigit() and int(stated) > self.max_reply:
            raise ReplyTooLarge(f"Content-Length {int(stated)} bytes")
        chunks, size = [], 0
        for chunk in response.iter_bytes():
            size += len(chunk)
            if size > self.max_reply:
                raise ReplyTooLarge(f"more than {self.max_reply} bytes")
            chunks.append(chunk)
        return b"".join(chunks)

    def _describe(self, error: BaseException) -> str:
        if isinstance(error, httpx.HTTPStatusError):
            status = error.response.status_code
            cause = f"HTTP {status}: {_server_message(error.response, self.redact)}"
            if status == 401:
                cause += (
                    f" (the key in ${self.api_key_env} was refused)"
                    if self._has_key
                    else f" (no key sent: ${self.api_key_env} is unset)"
                )
            return cause
        if isinstance(error, ReplyTooLarge):
            limit = self.max_reply / 1024 / 1024
            return f"the reply is larger than {limit:g} MB ({error}; {MAX_REPLY_ENV})"
        if isinstance(error, httpx.TimeoutException):
            return (
                f"no complete reply within the {self.retry.timeout:g} s deadline (RAGAUDIT_TIMEOUT)"
            )
        if isinstance(error, httpx.ConnectError):
            return f"cannot connect ({one_line(error, self.redact)})"
        if isinstance(error, json.JSONDecodeError | UnicodeDecodeError):
            return "the reply is not JSON"
        if isinstance(error, BadReply):
            return one_line(error, self.redact)
        return one_line(describe_network_error(error), self.redact)


def _server_message(response: httpx.Response, redact: Redactor) -> str:
    """The error the server gave ({"error": {"message"}} in the OpenAI format), one line,
    redacted before it is cut."""
    try:
        error = response.json().get("error")
        text = error.get("message") if isinstance(error, dict) else error
    except (ValueError, AttributeError):
        text = None
    return one_line(str(text or response.text or response.reason_phrase), redact)
