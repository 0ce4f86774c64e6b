"""A service on 127.0.0.1 that misbehaves in time or shape, as its mode says: a real HTTP
process answering a `pipeline: http:` service's POST /ask and POST /ingest, Ollama's POST
/api/chat and an OpenAI-compatible POST /v1/chat/completions (each with an honest reply of
its own shape, REPLIES), and GET /__seen (the count of requests per path).

Run as `python tests/helpers/slow_service.py --mode MODE`; it prints `PORT <n>` first.
`start_slow(mode)` runs it for tests. Modes (every POST unless said):
- normal: the honest reply at once;
- trickle: the headers at once, then the honest body one byte a second;
- trickle_headers: the whole reply (status line and headers too) one byte a second;
- hang: never answers;
- throttle: 429 with `Retry-After: 99999`;
- redirect: 302 to LOCATION with an empty body; redirect_json: 302 to LOCATION with the
  honest reply as its body;
- deep: the answer is a list nested DEEP levels;
- huge_score: a context's score is the integer 10**400, written out in digits;
- many_contexts: MANY contexts; big_context: one context of BIG characters; big_answer:
  an answer of BIG characters.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run as a script, too
from helpers.mode_service import RunningService, serve, start_script  # noqa: E402

LOCATION = "/moved/ask"
DEEP = 100_000
MANY = 5_000
BIG = 200_000
CONTEXT = {"text": "a passage", "id": "c1", "score": 0.5}
REPLIES = {
    "/ask": {"answer": "an answer [1]", "contexts": [CONTEXT]},
    "/ingest": {"count": 1},
    "/api/chat": {"model": "slow", "message": {"role": "assistant", "content": "hi"},
                  "done": True},
    "/v1/chat/completions": {
        "id": "slow", "object": "chat.completion", "created": 0, "model": "slow",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": "hi"},
                     "finish_reason": "stop"}],
    },
}  # fmt: skip
MODES = ("normal", "trickle", "trickle_headers", "hang", "throttle", "redirect", "redirect_json",
         "deep", "huge_score", "many_contexts", "big_context", "big_answer")  # fmt: skip


class _State:
    mode = "normal"
    seen: Counter = Counter()
    lock = threading.Lock()


def reply_body(path: str, mode: str) -> bytes:
    """The JSON body a POST to `path` is answered with in `mode` (before any trickling)."""
    if mode == "deep":
        return b'{"answer": ' + b"[" * DEEP + b"]" * DEEP + b', "contexts": []}'
    if mode == "huge_score":
        score = b"1" + b"0" * 400  # 10**400 written out: JSON has no limit on a number
        return b'{"answer": "a", "contexts": [{"text": "a passage", "score": ' + score + b"}]}"
    reply = dict(REPLIES.get(path, {"error": f"no route {path}"}))
    if mode == "many_contexts":
        reply["contexts"] = [CONTEXT] * MANY
    elif mode == "big_context":
        reply["contexts"] = [{**CONTEXT, "text": "x" * BIG}]
    elif mode == "big_answer":
        reply["answer"] = "x" * BIG
    return json.dumps(reply).encode()


class SlowHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # else a reply waits ~40 ms on the client's delayed ACK

    def log_message(self, *args) -> None:
        pass

    def do_GET(self) -> None:
        if self.path == "/__seen":
            with _State.lock:
                data = json.dumps(dict(_State.seen)).encode()
            return self._whole(200, data)
        self._whole(404, json.dumps({"error": f"no route {self.path}"}).encode())

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        with _State.lock:
            _State.seen[self.path] += 1
        mode, body = _State.mode, reply_body(self.path, _State.mode)
        if mode == "hang":
            time.sleep(3600)
        elif mode == "throttle":
            self._whole(429, b'{"error": "slow down"}', {"Retry-After": "99999"})
        elif mode == "redirect":
            self._whole(302, b"", {"Location": LOCATION})
        elif mode == "redirect_json":
            self._whole(302, body, {"Location": LOCATION})
        elif mode == "trickle":
            self._head(200, len(body))
            self._trickle(body)
        elif mode == "trickle_headers":
            head = (f"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                    f"Content-Length: {len(body)}\r\n\r\n").encode()  # fmt: skip
            self._trickle(head + body)
        else:
            self._whole(200, body)

    def _head(self, status: int, length: int, headers: dict | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(length))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.flush()

    def _whole(self, status: int, data: bytes, headers: dict | None = None) -> None:
        self._head(status, len(data), headers)
        self.wfile.write(data)

    def _trickle(self, data: bytes) -> None:
        for byte in data:
            try:
                self.wfile.write(bytes([byte]))
                self.wfile.flush()
            except OSError:  # the client gave up
                return
            time.sleep(1.0)


class SlowService(RunningService):
    """A running slow service: `base_url` has no path (`/ask`, `/v1`... go after it)."""

    def seen(self) -> dict[str, int]:
        from helpers.control import get_json

        return get_json(f"{self.base_url}/__seen")


def start_slow(mode: str = "normal") -> SlowService:
    """Start the service as a subprocess in `mode` and wait until it listens."""
    return SlowService(*start_script(__file__, mode, "slow service"))


def main() -> None:
    serve(SlowHandler, MODES, _State, __doc__)


if __name__ == "__main__":
    main()
