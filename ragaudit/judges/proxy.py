"""The recording proxy: an OpenAI-compatible server on 127.0.0.1 in front of the judge.

The metric libraries talk to it as to any OpenAI-compatible server; it looks each chat call
up in ragaudit's call cache and replays it, or forwards it to the judge (bounded, retried,
redacted: backends/openai_http.py), stores the reply and counts it. So a rerun computes
nothing, and every call is counted as replayed, computed or failed.

Each metric evaluation gets its own base URL (`/t/<tag>/v1`): the calls, tokens (from the
replies' `usage`, never a local tokenizer), reply texts and failures of one evaluation are
kept apart from the others in flight. A call that fails reaches the library as HTTP 502
with the reason, and stays counted here with it, so no failure hides in a library's NaN.

A call is keyed by the judge's model, digest and server, the request body and the
repetition (run 1 or the stability rerun, which is asked afresh rather than replayed).

Every string of a judge's reply is redacted of the key and has each lone surrogate
replaced (backends.reply_text) before it is stored or handed to a library, and so is a
replayed one: a library's exception built from a reply (pydantic's `input_value=…`)
cannot hold what the reply no longer holds.
"""

from __future__ import annotations

import itertools
import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from ragaudit.backends.cache import CallCache, call_key
from ragaudit.backends.openai_http import OpenAIServer
from ragaudit.backends.openai_replies import BadReply
from ragaudit.backends.reply_text import each_string, storable
from ragaudit.errors import ModelCallFailed

KIND = "judge"
MAX_REQUEST_BYTES = 8 * 1024 * 1024


@dataclass(frozen=True)
class Judge:
    """The judge server the proxy forwards to."""

    model: str
    """The model name the server serves (sent in each request)."""
    base_url: str
    """Its base URL, ending before /chat/completions (e.g. http://127.0.0.1:8080/v1)."""
    digest: str
    """What keys its calls: the weights' sha256, or the server's listing digest."""
    digest_reason: str | None = None
    key_server: str | None = None
    """What keys its calls as the server (None: `base_url`). A server ragaudit starts gets
    a new port each time, so its calls are keyed by a fixed name instead."""

    @property
    def server(self) -> str:
        return self.key_server or self.base_url


@dataclass
class Evaluation:
    """What one metric evaluation cost, read by the runner when it ends."""

    repetition: int
    calls: int = 0
    replayed: int = 0
    computed: int = 0
    failed: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    tokens_unreported: int = 0
    """Calls whose reply carried no `usage` (their tokens are not counted)."""
    replies: list[str] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)


def checked_reply(reply: object) -> dict:
    """A chat completion reply that can be stored: an object whose first choice's
    message content is text (anything else is junk: a failed call with the reason)."""
    choices = reply.get("choices") if isinstance(reply, dict) else None
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise BadReply("the reply has no choices")
    message = choices[0].get("message")
    if not isinstance(message, dict) or not isinstance(message.get("content"), str):
        raise BadReply("the reply's first choice has no text content")
    return reply


class RecordingProxy:
    """The proxy's server and its per-evaluation records; `start()` binds a free port."""

    def __init__(self, judge: Judge, cache: CallCache, upstream: OpenAIServer) -> None:
        self.judge = judge
        self.cache = cache
        self.upstream = upstream
        self.identity = cache.remember_identity(
            {
                "backend": "openai",
                "model": judge.model,
                "digest": judge.digest,
                "kind": KIND,
                "server": judge.server,
            }
        )
        self._lock = threading.Lock()
        self._evaluations: dict[str, Evaluation] = {}
        self._tags = itertools.count(1)
        self._server: ThreadingHTTPServer | None = None

    # -- lifecycle ---------------------------------------------------------------------

    def start(self) -> RecordingProxy:
        proxy = self

        class Handler(_ProxyHandler):
            owner = proxy

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> RecordingProxy:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- evaluations -------------------------------------------------------------------

    def open_evaluation(self, repetition: int) -> tuple[str, Evaluation]:
        """A base URL for one metric evaluation, and the record its calls fill."""
        if self._server is None:
            raise RuntimeError("the proxy is not started")
        tag = f"e{next(self._tags)}"
        evaluation = Evaluation(repetition)
        with self._lock:
            self._evaluations[tag] = evaluation
        port = self._server.server_address[1]
        return f"http://127.0.0.1:{port}/t/{tag}/v1", evaluation

    def close_evaluation(self, base_url: str) -> None:
        tag = base_url.rstrip("/").split("/")[-2]
        with self._lock:
            self._evaluations.pop(tag, None)

    def _evaluation(self, tag: str) -> Evaluation | None:
        with self._lock:
            return self._evaluations.get(tag)

    # -- one call ----------------------------------------------------------------------

    def answer(self, evaluation: Evaluation, body: dict) -> tuple[int, dict]:
        """(HTTP status, reply) for one chat call: replayed, computed, or failed (502)."""
        forwarded = {key: value for key, value in body.items() if key != "stream"}
        forwarded["model"] = self.judge.model
        key = call_key(
            "openai",
            self.judge.model,
            self.judge.digest,
            KIND,
            {"repetition": evaluation.repetition},
            forwarded,
            self.judge.server,
        )
        stored = self.cache.get(key)
        if stored is not None:
            reply = self.safe(json.loads(stored.decode("utf-8")))
            self.cache.count(self.judge.model, "replayed", keys=[key])
            self._note(evaluation, reply, "replayed")
            return 200, reply
        started = time.perf_counter()
        try:
            reply = self.upstream.request(
                "POST /chat/completions", "/chat/completions", forwarded, read=checked_reply
            )
        except ModelCallFailed as error:
            reason = str(error)
            self.cache.record_failure(self.judge.model, KIND, reason, keys=[key])
            with self._lock:
                evaluation.calls += 1
                evaluation.failed += 1
                evaluation.failures.append(reason)
            return 502, {"error": {"message": reason, "type": "judge_call_failed"}}
        reply = self.safe(reply)
        blob = json.dumps(reply, ensure_ascii=False, allow_nan=False).encode("utf-8")
        seconds = time.perf_counter() - started
        self.cache.put(self.judge.model, KIND, key, blob, identity=self.identity, seconds=seconds)
        self.cache.count(self.judge.model, "computed", keys=[key])
        self._note(evaluation, reply, "computed")
        return 200, reply

    def safe(self, reply: object) -> object:
        """`reply` with every string redacted of the key and fit to store."""
        return each_string(reply, lambda text: storable(self.upstream.redact(text)))

    def _note(self, evaluation: Evaluation, reply: dict, outcome: str) -> None:
        usage = reply.get("usage") if isinstance(reply.get("usage"), dict) else {}
        prompt, completion = usage.get("prompt_tokens"), usage.get("completion_tokens")
        with self._lock:
            evaluation.calls += 1
            setattr(evaluation, outcome, getattr(evaluation, outcome) + 1)
            evaluation.replies.append(reply["choices"][0]["message"]["content"])
            if isinstance(prompt, int) and isinstance(completion, int):
                evaluation.prompt_tokens += prompt
                evaluation.completion_tokens += completion
            else:
                evaluation.tokens_unreported += 1


class _ProxyHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True
    owner: RecordingProxy

    def log_message(self, *args: object) -> None:
        pass

    def _reply(self, status: int, body: dict) -> None:
        data = json.dumps(body, ensure_ascii=False).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        self._reply(404, {"error": {"message": f"no route {self.path}"}})

    def do_POST(self) -> None:
        parts = self.path.split("/")  # /t/<tag>/v1/chat/completions
        length = int(self.headers.get("Content-Length") or 0)
        if length > MAX_REQUEST_BYTES:
            return self._reply(413, {"error": {"message": "request too large"}})
        raw = self.rfile.read(length)
        evaluation = self.owner._evaluation(parts[2]) if len(parts) > 2 else None
        if parts[3:] != ["v1", "chat", "completions"] or evaluation is None:
            return self._reply(404, {"error": {"message": f"no route {self.path}"}})
        try:
            body = json.loads(raw)
        except (ValueError, UnicodeDecodeError):
            body = None
        if not isinstance(body, dict):
            return self._reply(400, {"error": {"message": "the request is not a JSON object"}})
        status, reply = self.owner.answer(evaluation, body)
        self._reply(status, reply)
