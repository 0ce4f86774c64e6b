"""The names the rules read code by, shared by the Python and the JavaScript rules: what a
log call, a failure counter, a network exception and an HTTP status check look like."""

from __future__ import annotations

import re

FAILURE_NAME = re.compile(r"(?i)err|fail|degrad|miss|skip|broken|lost|unavailable")
"""A variable, field or function named for a failure: `failed_calls`, `retrievalError`,
`result["degraded"]`, `mark_failed()`. Assigning, incrementing or appending to one marks
or counts the failure."""

COUNTING_METHODS = frozenset({"append", "add", "push", "extend", "update", "inc", "increment"})
"""Methods that count when called on a failure-named collection (`failures.append(...)`)."""

LOG_ROOTS = frozenset({
    "logging", "logger", "log", "LOG", "LOGGER", "_log", "_logger", "warnings", "traceback",
    "console", "sys", "process", "click", "st", "typer",
})  # fmt: skip
"""Objects whose method calls log: `logger.warning(...)`, `console.error(...)`,
`sys.stderr.write(...)`, `st.error(...)`."""

LOG_FUNCTIONS = frozenset({"print", "warn", "log", "echo", "print_exc", "eprint"})
"""Bare calls that log."""

PROMISE = re.compile(
    r"(?i)\b(mark|marks|marked|marking|count|counts|counted|counting|"
    r"record|records|recorded|flag|flags|flagged|tally|track|tracked)\b"
)
"""A comment's verb promising that a failure is kept (the originating study's
audit: "degrade to baseline and mark it in the result"; the marking half was never
implemented)."""

PROMISE_SUBJECT = re.compile(r"(?i)fail|error|degrad|miss|exception|hiccup|timeout")
"""What the promise must be about: a comment "count the chunks" promises nothing here."""

NETWORK_EXCEPTION = re.compile(
    r"(?i)^(Exception|BaseException|OSError|IOError|EnvironmentError|socket\..*)$|"
    r"Connection|Timeout|Network|Transport|URLError|RequestException|ClientError|"
    r"ConnectError|ReadError|ProtocolError|ChunkedEncoding|RemoteDisconnected|APIConnection"
)
"""Exception types that cover a network failure (a reset connection, a timeout, DNS).
`HTTPError` alone does not: requests and urllib raise it for a status code only."""

HTTP_STATUS_ATTRS = frozenset({"status_code", "status", "statusCode", "ok", "raise_for_status"})
"""Attributes a status check reads (`response.status_code`, `res.ok`, `res.status`)."""

HTTP_ERROR_NAMES = re.compile(r"HTTPError|HTTPStatusError|StatusCodeError|HttpError")
"""Exception types raised for an HTTP status only."""


def is_retry_status(value: object) -> bool:
    """408, 425, 429 and 5xx: the status codes a retry helper retries on."""
    return (
        isinstance(value, int)
        and not isinstance(value, bool)
        and (value in (408, 425, 429) or 500 <= value <= 599)
    )


def counts_a_failure(callee: str, receiver: str | None) -> bool:
    """Whether a call counts or marks a failure, by its names: a counting method on a
    failure-named receiver (`failures.append(e)`, `errors.push(e)`), or a failure-named
    function or method (`record_failure()`, `result.markDegraded()`). `callee` is the
    function's or the method's name; `receiver` the text of the object a method is called
    on, None for a bare function call."""
    if receiver is not None and callee in COUNTING_METHODS:
        return bool(FAILURE_NAME.search(receiver))
    return bool(FAILURE_NAME.search(callee))


RETRY_NAME = re.compile(r"(?i)attempt|retr(y|ies)|tries|backoff")
"""A loop variable or function named for retrying."""

SLEEP_NAME = re.compile(r"(?i)^(sleep|delay|wait|backoff|setTimeout)$")
"""A call that waits before the next try."""

CONTROL_FLOW_EXCEPTIONS = frozenset({
    "KeyError", "IndexError", "LookupError", "StopIteration", "StopAsyncIteration",
    "ImportError", "ModuleNotFoundError", "KeyboardInterrupt", "SystemExit", "GeneratorExit",
})  # fmt: skip
"""Exceptions Python code catches as control flow (a missing key, an optional import, Ctrl-C), not
as a failed call: a fallback after one of these is not a hidden failure."""
