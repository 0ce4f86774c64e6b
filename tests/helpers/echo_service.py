"""A service on 127.0.0.1 that echoes the key it is sent: a `pipeline: http:` service
(POST /ask, POST /ingest) and an OpenAI-compatible judge (GET /v1/models, POST
/v1/chat/completions), a real HTTP process misbehaving as its mode says. Every echo is
key_leaks.echoed(header): the `Authorization` header (else `X-Api-Key`) raw, JSON-escaped,
repr'd, URL-encoded and base64-encoded.

Run as `python tests/helpers/echo_service.py --mode MODE`; it prints `PORT <n>` first.
`start_echo(mode)` runs it for tests; POST /__mode {"mode": M} switches a running one.

The honest /ask reply is {"answer", "contexts": [{"text", "id", "score"}], "citations"}
(PIPELINE_MODES list where each mode puts the echo; `plain_*` modes reply contexts as
texts, for a stack file without `context_text`); /ingest answers 200 unless an `ingest_*`
mode; the judge answers as tests/helpers/judge_stand_in.py's rule says unless a `judge_*`
mode.
"""

from __future__ import annotations

import json
import sys
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from urllib.parse import quote

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from helpers.judge_stand_in import answer as judge_answer  # noqa: E402
from helpers.key_leaks import echoed  # noqa: E402
from helpers.mode_service import RunningService, serve, start_script  # noqa: E402

PIPELINE_MODES = {
    "answer": "the answer is the echo",
    "context_text": "a context's mapped text is the echo",
    "context_id": "a context's id is the echo",
    "context_score": "a context's score is the echo (text, not a number)",
    "citations": "a citation is the echo",
    "citations_object": "citations is an object holding the echo",
    "answer_object": "the answer is an object holding the echo",
    "context_not_text": "a context's mapped text is a list holding the echo",
    "plain_context": "a context read without a mapping is the echo",
    "plain_not_text": "a context read without a mapping is an object holding the echo",
    "error500": "HTTP 500 whose body is the echo",
    "error401": "HTTP 401 whose body is the echo",
    "error400": "HTTP 400 whose body is the echo",
    "not_json": "a 200 whose text body is the echo",
    "html": "a 200 HTML page holding the echo",
    "missing": "a reply without the answer, holding the echo",
    "redirect": "a 302 whose Location and JSON body hold the echo",
    "surrogate": 'the answer is "\\ud800" beside the echo',
}
INGEST_MODES = {
    "ingest500": "the ingest endpoint answers 500 with the echo",
    "ingest401": "the ingest endpoint answers 401 with the echo",
    "ingest302": "the ingest endpoint answers 302 to a Location holding the echo",
}
JUDGE_MODES = {
    "judge_extra": "a readable verdict with the echo in an extra field",
    "judge_invalid": "every field the libraries read is the echo (pydantic input_value)",
    "judge_text": "the reply text is the echo (not JSON)",
    "judge500": "HTTP 500 whose message is the echo",
    "judge401": "HTTP 401 whose message is the echo",
    "judge_models": "the model listing holds the echo as a digest and a field name",
    "judge_surrogate": 'a readable verdict with "\\ud800" and the echo in an extra field',
}
MODES = ("normal", *PIPELINE_MODES, *INGEST_MODES, *JUDGE_MODES)
# An ingest command that echoes the key it finds in $SVC_KEY on stdout and on two lines
# of stderr, then exits with the mode's status.
COMMAND_MODES = {"command_exit1": 1, "command_exit3": 3, "command_exit0_noisy": 0}
_COMMAND = (
    "import os, sys; sys.path.insert(0, {tests!r}); from helpers.key_leaks import echoed; "
    "e = echoed(os.environ['SVC_KEY']); print(e); print(e, file=sys.stderr); "
    "print('last line:', e, file=sys.stderr); sys.exit({status})"
)
_MAPPED = """
    context_text: text
    context_id: id
    context_score: score"""
_STACK = """name: echo
pipeline:
  http:
    url: URL/ask
    headers:
      Authorization: {env: SVC_KEY, prefix: "Bearer "}
      X-Api-Key: SVC_KEY
    body: {query: "{{question}}"}
    answer: $.answer
    contexts: $.contexts
    citations: $.citations MAPPED
    timeout: 5
  ingest: INGEST
"""


class _State:
    mode = "normal"


class EchoHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # else a reply waits ~40 ms on the client's delayed ACK

    def log_message(self, *args) -> None:
        pass

    def _send(self, status: int, data: bytes, kind: str = "application/json", **headers) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        for name, value in headers.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def _json(self, status: int, body: object, **headers) -> None:
        self._send(status, json.dumps(body).encode(), **headers)

    def _echo(self) -> str:
        return echoed(self.headers.get("Authorization") or self.headers.get("X-Api-Key") or "")

    def do_GET(self) -> None:
        if self.path == "/v1/models":
            entry = {"id": "echo-judge", "object": "model", "digest": "echo-1"}
            if _State.mode == "judge_models":
                entry = {"id": "echo-judge", "digest": self._echo(), self._echo(): 1}
            return self._json(200, {"object": "list", "data": [entry]})
        self._json(404, {"error": f"no route {self.path}"})

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if self.path == "/__mode":
            _State.mode = json.loads(raw)["mode"]
            return self._json(200, {"mode": _State.mode})
        if self.path == "/ingest":
            return self._ingest()
        if self.path == "/ask":
            return self._ask()
        if self.path == "/v1/chat/completions":
            return self._judge(json.loads(raw))
        self._json(404, {"error": f"no route {self.path}"})

    def _ingest(self) -> None:
        mode, echo = _State.mode, self._echo()
        if mode in ("ingest500", "ingest401"):
            return self._json(int(mode[-3:]), {"error": echo})
        if mode == "ingest302":
            return self._json(302, {"error": echo}, Location=f"/elsewhere?t={quote(echo)}")
        self._json(200, {"count": 1})

    def _ask(self) -> None:
        mode, echo = _State.mode, self._echo()
        context = {"text": "a passage", "id": "c1", "score": 0.5}
        reply: dict = {"answer": "an answer [1]", "contexts": [context], "citations": ["c1"]}
        if mode in ("error500", "error401", "error400"):
            return self._json(int(mode[-3:]), {"error": echo})
        if mode == "not_json":
            return self._send(200, echo.encode(), "text/plain")
        if mode == "html":
            return self._send(200, f"<html><body>{echo}</body></html>".encode(), "text/html")
        if mode == "redirect":
            return self._json(302, {**reply, "answer": echo}, Location=f"/ask?t={quote(echo)}")
        if mode == "missing":
            reply = {"note": echo}
        elif mode in ("answer", "context_text", "context_id", "context_score"):
            field = mode.removeprefix("context_")
            target, key = (reply, "answer") if mode == "answer" else (context, field)
            target[key] = echo
        elif mode == "citations":
            reply["citations"] = [echo]
        elif mode == "citations_object":
            reply["citations"] = {"cited": echo}
        elif mode == "answer_object":
            reply["answer"] = {"text": echo}
        elif mode == "context_not_text":
            context["text"] = [echo]
        elif mode == "plain_context":
            reply["contexts"] = [echo, "a passage"]
        elif mode == "plain_not_text":
            reply["contexts"] = [{"content": echo}]
        elif mode == "surrogate":
            reply["answer"] = f"half an emoji \ud800 {echo}"
        self._json(200, reply)

    def _judge(self, body: dict) -> None:
        mode, echo = _State.mode, self._echo()
        if mode in ("judge500", "judge401"):
            return self._json(int(mode[-3:]), {"error": {"message": echo}})
        prompt = "\n".join(str(m.get("content", "")) for m in body.get("messages", []))
        verdict = judge_answer(prompt)
        if mode == "judge_extra":
            verdict = {**verdict, "note": echo}
        if mode == "judge_surrogate":
            verdict = {**verdict, "note": f"\ud800 {echo}"}
        if mode == "judge_invalid":
            verdict = {field: echo for field in verdict}
        # the text holds the lone surrogate itself, not JSON's escape of it
        content = echo if mode == "judge_text" else json.dumps(verdict, ensure_ascii=False)
        message = {"role": "assistant", "content": content}
        self._json(200, {
            "id": "echo", "object": "chat.completion", "created": 0,
            "model": body.get("model", "echo-judge"),
            "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110},
        })  # fmt: skip


class EchoService(RunningService):
    """A running echo service: `base_url` has no path (`/ask`, `/v1` go after it)."""

    def set_mode(self, mode: str) -> None:
        from helpers.control import post_json

        post_json(f"{self.base_url}/__mode", {"mode": mode})


def pipeline_stack(folder: Path, url: str, ingest: str = "none", mapped: bool = True) -> Path:
    """A stack file asking the service at `url` (its key in $SVC_KEY, sent as `Bearer` and
    as X-Api-Key), each context read through a mapping unless not `mapped`."""
    stack = folder / "echo.yaml"
    text = _STACK.replace(" MAPPED", _MAPPED if mapped else "")
    stack.write_text(text.replace("URL", url).replace("INGEST", ingest))
    return stack


def ingest_command(status: int) -> str:
    """An `ingest:` entry running the echoing command (COMMAND_MODES), as flow YAML."""
    script = _COMMAND.format(tests=str(Path(__file__).resolve().parent.parent), status=status)
    return json.dumps({"command": [sys.executable, "-c", script, "{folder}"], "format": "jsonl"})


def start_echo(mode: str = "normal") -> EchoService:
    """Start the service as a subprocess in `mode` and wait until it listens."""
    return EchoService(*start_script(__file__, mode, "echo service"))


def main() -> None:
    serve(EchoHandler, MODES, _State, __doc__)


if __name__ == "__main__":
    main()
