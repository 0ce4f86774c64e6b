"""A `pipeline: http:` (or `oracle: http:`) entry asked: one request per question, the
reply read through the entry's response mapping.

The url and body are templates. `{{question}}` in the url is the question URL-quoted; in a
body given as YAML/JSON (a mapping or list) a string equal to `{{question}}` (or
`{{contexts}}`, the oracle's list of context texts) becomes that value and any other
string has the placeholder replaced by the text, then the body is sent as JSON; in a body
given as text the placeholders are replaced by the JSON-escaped text (so a JSON body
written as text stays JSON). Header values are read from the environment variables the
entry names, when it is built; a missing or control-character value is bad input naming
the variable, never the value, and every message built from a reply is redacted of them.

The entry's `timeout` is a deadline for the whole request: connecting, sending, the reply's
headers and its whole body (backends.deadline), so a service trickling its reply is cut
off at it. Network errors, timeouts, 429 and 5xx are retried (backends.retry,
RAGAUDIT_RETRIES...); after RAGAUDIT_BREAKER_TIMEOUTS requests in a row left unanswered (a
timeout, or a Retry-After past RAGAUDIT_RETRY_AFTER_MAX) the service is not asked again
this run (backends.breaker), said in one line when it happens. What still fails is one
failed call (ModelCallFailed) with a one-line reason: a 4xx; a 3xx (a redirect is not an
answer, and it is not followed: the reason names its Location); a reply larger than
RAGAUDIT_MAX_REPLY_MB, empty, not JSON or nested too deep (targets.pipeline.reply_json); a
mapped field missing or of the wrong kind.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from typing import Any
from urllib.parse import quote, urlsplit

from ragaudit.backends.breaker import CircuitBreaker, breaker_threshold
from ragaudit.backends.deadline import deadline_client
from ragaudit.backends.openai_http import max_reply_bytes
from ragaudit.backends.redact import Redactor, one_line
from ragaudit.backends.retry import (
    RetriesExhausted,
    RetryPolicy,
    call_with_retries,
    describe_network_error,
    retry_after,
)
from ragaudit.errors import ModelCallFailed, RagauditError
from ragaudit.targets.pipeline.answer import (
    Context,
    PipelineAnswer,
    id_of,
    read_citations,
    score_of,
    text_of,
)
from ragaudit.targets.pipeline.reply_json import UnreadableReply, reply_json
from ragaudit.targets.response_paths import ResponsePath, compile_path

QUESTION, CONTEXTS = "{{question}}", "{{contexts}}"


class Redactors:
    """Every header value's Redactor, applied in turn."""

    def __init__(self, secrets: list[str]) -> None:
        self._each = [Redactor(secret) for secret in secrets if secret]

    def __call__(self, text: object) -> str:
        text = str(text)
        for redact in self._each:
            text = redact(text)
        return text


def header_values(headers: dict, label: str) -> dict[str, str]:
    """Header name -> value, read from the environment variables the entry names."""
    values = {}
    for name, given in headers.items():
        env, prefix = (given, "") if isinstance(given, str) else (given["env"], given["prefix"])
        value = os.environ.get(env)
        if value is None:
            raise RagauditError(f"{label}: header {name}: environment variable {env} is not set")
        if any(ord(c) < 32 or ord(c) == 127 for c in value):
            raise RagauditError(
                f"{label}: header {name}: environment variable {env} holds a control "
                "character (a trailing newline from a secret file?); strip it"
            )
        values[name] = prefix + value
    return values


def render(template: Any, values: dict[str, Any]) -> Any:
    """`template` with each placeholder (``{{question}}``...) replaced (module docstring)."""
    if isinstance(template, str):
        if template in values:
            return values[template]
        for placeholder, value in values.items():
            shown = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
            template = template.replace(placeholder, shown)
        return template
    if isinstance(template, dict):
        return {key: render(value, values) for key, value in template.items()}
    if isinstance(template, list):
        return [render(value, values) for value in template]
    return template


def _text_body(template: str, values: dict[str, Any]) -> str:
    escaped = {
        placeholder: json.dumps(value, ensure_ascii=False)[1:-1]
        if isinstance(value, str)
        else json.dumps(value, ensure_ascii=False)
        for placeholder, value in values.items()
    }
    return render(template, escaped)


class HttpService:
    """One service as the entry describes it; `ask(values)` makes one request."""

    def __init__(self, entry: dict, label: str) -> None:
        self.entry, self.label = entry, label
        self.headers = header_values(entry.get("headers") or {}, label)
        self.redact = Redactors(list(self.headers.values()))
        self.paths = {
            key: compile_path(entry[key]) if entry.get(key) else None
            for key in ("answer", "contexts", "context_text", "context_id", "context_score",
                        "citations")
        }  # fmt: skip
        self.policy = RetryPolicy.from_env()
        self.max_reply = max_reply_bytes()
        self.timeout = entry.get("timeout", 60.0)
        parts = urlsplit(entry["url"])
        self.breaker = CircuitBreaker(f"{parts.scheme}://{parts.netloc}", breaker_threshold())
        """Counts this service's requests left unanswered in a row (backends.breaker)."""
        self._client: Any = None

    def request(self, values: dict[str, Any]) -> Any:
        """The reply's JSON for one request with the placeholders' `values`."""
        entry = self.entry
        if self.breaker.open:
            raise self._failed(self.breaker.reason())
        url = entry["url"]
        for placeholder, value in values.items():
            url = url.replace(
                placeholder, quote(value if isinstance(value, str) else json.dumps(value))
            )
        body, kind = entry.get("body"), None
        if isinstance(body, dict | list):
            content, kind = json.dumps(render(body, values), ensure_ascii=False), "application/json"
        elif isinstance(body, str):
            content = _text_body(body, values)
            kind = "application/json" if _is_json(content) else "text/plain"
        else:
            content = None
        headers = dict(self.headers)
        if kind is not None:
            headers.setdefault("Content-Type", kind)
        if self._client is None:
            self._client = deadline_client(self.timeout, entry["url"])
        method = entry.get("method", "POST")
        try:
            data = call_with_retries(
                lambda: self._once(method, url, content, headers),
                self.policy,
                give_up=lambda _: self.breaker.open,
            )
        except ModelCallFailed:
            raise
        except RetriesExhausted as error:
            raise self._failed(f"{error.attempts} attempt(s), last: "
                               f"{self._describe(error.last_error)}") from None  # fmt: skip
        except Exception as error:
            raise self._failed(self._describe(error)) from None
        try:
            return reply_json(data)
        except UnreadableReply as error:
            raise self._failed(str(error)) from None

    def _once(self, method: str, url: str, content: str | None, headers: dict) -> bytes:
        """One request's reply body; a redirect, a reply too large, an HTTP error or a
        timeout raises (the last two retried by the caller), each counted on the breaker."""
        import httpx

        try:
            with self._client.stream(method, url, content=content, headers=headers) as reply:
                data = bytearray()
                for part in reply.iter_bytes():
                    data += part
                    if len(data) > self.max_reply:
                        raise self._failed(
                            f"reply larger than {self.max_reply} bytes (RAGAUDIT_MAX_REPLY_MB)"
                        )
        except httpx.TimeoutException:
            self._unanswered("timed out")
            raise
        if 300 <= reply.status_code < 400:  # its body read all the same: the connection ends clean
            self.breaker.answered()
            raise self._failed(_redirect(reply))
        if reply.status_code >= 400:
            text = bytes(data).decode("utf-8", "replace")
            error = httpx.HTTPStatusError(
                f"HTTP {reply.status_code}: {text}", request=reply.request, response=reply
            )
            asked = retry_after(error)
            if asked is not None and asked > self.policy.max_retry_after:
                self._unanswered("asked for a wait past RAGAUDIT_RETRY_AFTER_MAX")
            else:
                self.breaker.answered()
            raise error
        self.breaker.answered()
        return bytes(data)

    def _unanswered(self, cause: str) -> None:
        """One more request left unanswered; the line that says so once the breaker opens."""
        if self.breaker.timed_out(cause):
            print(f"{self.label}: {self.breaker.opened_line()}", file=sys.stderr)

    def _describe(self, error: BaseException) -> str:
        import httpx

        if isinstance(error, httpx.HTTPStatusError):
            return str(error)
        if isinstance(error, httpx.TimeoutException):
            return f"no complete reply within the {self.timeout:g} s deadline (its timeout)"
        return describe_network_error(error)

    def _failed(self, reason: str) -> ModelCallFailed:
        return ModelCallFailed(f"{self.label}: {one_line(reason, self.redact)}")

    def answer_of(self, reply: Any) -> PipelineAnswer:
        """The reply read through the mapping: the answer, each context, the citations."""
        found, answer = self.paths["answer"].one(reply)
        if not found:
            raise self._failed(f"the reply has no {self.paths['answer'].text} (the answer)")
        answer = text_of(answer, f"the answer at {self.paths['answer'].text}", self.label)
        contexts: tuple[Context, ...] = ()
        if self.paths["contexts"] is not None:
            contexts = tuple(self._context(item) for item in self._items(reply))
        citations = None
        if self.paths["citations"] is not None:
            found, value = self.paths["citations"].one(reply)
            citations = read_citations(value, self.label) if found else None
        return PipelineAnswer(self.redact(answer), contexts, citations)

    def _items(self, reply: Any) -> list[Any]:
        path = self.paths["contexts"]
        found = path.find(reply)
        if len(found) == 1 and isinstance(found[0], list):
            return found[0]  # the path named the list itself
        if not found and not path.one(reply)[0]:
            raise self._failed(f"the reply has no {path.text} (the contexts)")
        return found

    def _context(self, item: Any) -> Context:
        text_path = self.paths["context_text"]
        if text_path is None:
            return Context(text_of(item, "a context", self.label))
        text = _field(text_path, item, self.label, "a context's text", required=True)
        return Context(
            self.redact(text_of(text, f"a context's text at {text_path.text}", self.label)),
            id_of(_field(self.paths["context_id"], item, self.label, "id")),
            score_of(_field(self.paths["context_score"], item, self.label, "score"), self.label),
        )

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None


def _field(
    path: ResponsePath | None, item: Any, label: str, what: str, required: bool = False
) -> Any:
    if path is None:
        return None
    found, value = path.one(item)
    if not found and required:
        raise ModelCallFailed(f"{label}: a context has no {path.text} ({what})")
    return value


def _is_json(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


def _redirect(reply: Any) -> str:
    """A 3xx reply as a reason: its body is not the answer, and it is not followed."""
    where = reply.headers.get("Location")
    to = f"to {where!r}" if where else "with no Location"
    return (
        f"HTTP {reply.status_code} redirect {to}: a redirect is not an answer and ragaudit "
        "does not follow it; give the URL it names in the stack file"
    )


def http_pipeline(entry: dict, label: str) -> tuple[Callable[[str], PipelineAnswer], HttpService]:
    """The asker of a `pipeline: http:` entry, and its service (to close)."""
    service = HttpService(entry, label)
    return (lambda question: service.answer_of(service.request({QUESTION: question}))), service
