"""A hostile OpenAI-compatible server on 127.0.0.1: a real HTTP process that serves
`/v1/models`, `/v1/embeddings` and `/v1/chat/completions`, and misbehaves as its mode says.

Run as `python tests/helpers/hostile_openai_server.py --mode MODE`: it binds a free port and
prints `PORT <n>` first. `start_hostile(mode, salt)` runs it for tests; `POST /__mode` with
{"mode": M} switches the mode of a running server (the server "is fixed"), `GET /__seen`
returns every text it was asked to embed (in `texts`, and per request in `batches`), every
chat conversation (`chats`) and the count of API requests per path.

The honest answers (mode `normal`) are fixed functions of the input, so a test recomputes
them by hand: `server_vector(salt + text)` (DIMENSIONS floats from the sha256, never all
zero; `--salt` makes two servers' vectors differ) and `server_reply(messages)`. The model
list names EMBED_MODEL and CHAT_MODEL with a `digest` each. Modes (POST /embeddings and
/chat/completions unless said):

- normal; error500 (every POST answered 500); malformed_json (a 200 that is cut JSON);
  html (a 200 proxy page in HTML); fewer_items (one vector short); nan (a NaN component);
  hang (never answers); close_mid_body (announces 4096 bytes, sends 10, closes);
- echo_400: a 400 whose message repeats the Authorization header after 252 characters, so
  a cut at 300 characters keeps most of the key; echo_embedding: the `embedding` field is
  the Authorization header; echo_chat: the reply text holds it; echo_models: /models lists
  the models with the header as their `digest` and as a field name;
- no_index_reversed (items without `index`, in reverse order); string_index (`index` as
  strings, in string order); duplicate_index (every `index` 0, items in reverse order);
  missing_index (the last item has none); overflow (every component times 1e38: the
  direction is still the text's); underflow (every component times 1e-320: no direction
  survives); dimension_change (the first /embeddings answer has DIMENSIONS components,
  later ones DIMENSIONS + 8); no_models (/models lists nothing); null_content (chat
  `content` is null);
- throttle429 / throttle503: the first THROTTLED POST(s) are answered 429 / 503 with
  `Retry-After: 1`, and so is any POST sooner than 0.9 s after one (a client that did not
  wait); later ones honestly; throttle_long: 429 with `Retry-After: 3600`;
  trickle (the honest reply sent one byte every 0.2 s); huge_reply (a 3 MB reply with its
  Content-Length); huge_chunked (the same, chunked, with no length).

`--echo-forms` (start_hostile(echo_forms=True)) makes every echo of the header
key_leaks.echoed(header): raw, JSON-escaped, repr'd, URL-encoded and base64-encoded.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import math
import socket
import subprocess
import sys
import threading
import time
from collections import Counter
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

EMBED_MODEL = "hostile-embed"
CHAT_MODEL = "hostile-chat"
DIMENSIONS = 24
THROTTLED = 1
HUGE_BYTES = 3 * 1024 * 1024
MODES = (
    "normal",
    "error500",
    "malformed_json",
    "html",
    "fewer_items",
    "nan",
    "hang",
    "close_mid_body",
    "echo_400",
    "echo_embedding",
    "echo_chat",
    "echo_models",
    "no_index_reversed",
    "string_index",
    "duplicate_index",
    "missing_index",
    "overflow",
    "underflow",
    "dimension_change",
    "no_models",
    "null_content",
    "throttle429",
    "throttle503",
    "throttle_long",
    "trickle",
    "huge_reply",
    "huge_chunked",
)


def server_vector(text: str, dimensions: int = DIMENSIONS) -> list[float]:
    """The honest vector for `text`: bytes of sha256(text) and of its rehash, centred."""
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    digest += hashlib.sha256(digest).digest()
    return [byte / 255.0 - 0.5 + 1e-3 for byte in digest[:dimensions]]


def unit(vector: list[float]) -> list[float]:
    """`vector` scaled to length 1."""
    norm = math.sqrt(sum(v * v for v in vector))
    return [v / norm for v in vector]


def server_reply(messages: list[dict]) -> str:
    """The honest chat reply: the last user message's first 40 characters, quoted."""
    last = next((m.get("content", "") for m in reversed(messages) if m.get("role") == "user"), "")
    return f"hostile reply to: {last[:40]}"


class _State:
    lock = threading.Lock()
    mode = "normal"
    seen: Counter = Counter()
    texts: list[str] = []
    batches: list[list[str]] = []
    chats: list[list[dict]] = []
    salt = ""
    echo = str  # what the header is echoed as (--echo-forms: key_leaks.echoed)
    embed_answers = 0
    posts = 0
    throttled_at = -1e9


class HostileHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True

    def log_message(self, *args) -> None:
        pass

    # -- answering -----------------------------------------------------------------------

    def _send(self, status: int, data: bytes, kind: str = "application/json", **headers) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        for name, value in headers.items():
            self.send_header(name.replace("_", "-"), value)
        self.end_headers()
        self.wfile.write(data)

    def _json(self, status: int, body: object, **headers) -> None:
        self._send(status, json.dumps(body).encode(), **headers)

    def _auth(self) -> str:
        return _State.echo(self.headers.get("Authorization", ""))

    # -- routes --------------------------------------------------------------------------

    def do_GET(self) -> None:
        if self.path == "/__seen":
            with _State.lock:
                seen = {"texts": _State.texts, "batches": _State.batches, "chats": _State.chats}
                return self._json(200, {**seen, "requests": dict(_State.seen)})
        with _State.lock:
            _State.seen[self.path] += 1
            mode = _State.mode
        if self.path != "/v1/models":
            return self._json(404, {"error": {"message": f"no route {self.path}"}})
        if mode == "no_models":
            return self._json(200, {"object": "list", "data": []})
        entries = []
        for name in (EMBED_MODEL, CHAT_MODEL):
            digest = "sha256:" + hashlib.sha256(name.encode()).hexdigest()
            entry = {"id": name, "object": "model", "digest": digest}
            if mode == "echo_models":
                entry = {"id": name, "object": "model", "digest": self._auth(), self._auth(): 1}
            entries.append(entry)
        self._json(200, {"object": "list", "data": entries})

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if self.path == "/__mode":
            with _State.lock:
                _State.mode = json.loads(raw)["mode"]
            return self._json(200, {"mode": _State.mode})
        body = json.loads(raw or b"{}")
        with _State.lock:
            _State.seen[self.path] += 1
            _State.posts += 1
            posts, mode = _State.posts, _State.mode
            if self.path == "/v1/embeddings":
                _State.texts.extend(body.get("input") or [])
                _State.batches.append(list(body.get("input") or []))
            if self.path == "/v1/chat/completions":
                _State.chats.append(body.get("messages") or [])
        if self.path == "/v1/embeddings":
            honest = self._embeddings(body, mode)
        elif self.path == "/v1/chat/completions":
            honest = self._chat(body, mode)
        else:
            return self._json(404, {"error": {"message": f"no route {self.path}"}})
        self._misbehave(mode, posts, honest)

    def _embeddings(self, body: dict, mode: str) -> object:
        texts = list(body.get("input") or [])
        with _State.lock:
            _State.embed_answers += 1
            first = _State.embed_answers == 1
        size = DIMENSIONS + 8 if mode == "dimension_change" and not first else DIMENSIONS
        vectors = [server_vector(_State.salt + text, size) for text in texts]
        if mode == "overflow":
            vectors = [[v * 1e38 for v in vector] for vector in vectors]
        if mode == "underflow":
            vectors = [[v * 1e-320 for v in vector] for vector in vectors]
        if mode == "nan" and vectors:
            vectors[0][0] = float("nan")
        if mode == "echo_embedding" and vectors:
            vectors[0] = self._auth()
        items = [
            {"object": "embedding", "index": index, "embedding": vector}
            for index, vector in enumerate(vectors)
        ]
        if mode == "fewer_items":
            items = items[:-1]
        if mode == "no_index_reversed":
            items = [{"object": "embedding", "embedding": i["embedding"]} for i in items[::-1]]
        if mode == "string_index":
            items = sorted(
                ({**i, "index": str(i["index"])} for i in items), key=lambda i: i["index"]
            )
        if mode == "duplicate_index":
            items = [{**i, "index": 0} for i in items[::-1]]
        if mode == "missing_index" and items:
            items[-1] = {"object": "embedding", "embedding": items[-1]["embedding"]}
        return {"object": "list", "model": body.get("model"), "data": items}

    def _chat(self, body: dict, mode: str) -> object:
        content = server_reply(body.get("messages") or [])
        if mode == "echo_chat":
            content = f"{content} (you sent {self._auth()})"
        message = {"role": "assistant", "content": None if mode == "null_content" else content}
        return {
            "object": "chat.completion",
            "model": body.get("model"),
            "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
        }

    def _misbehave(self, mode: str, posts: int, honest: object) -> None:
        data = json.dumps(honest).encode()
        if mode == "error500":
            return self._json(500, {"error": {"message": "hostile server error"}})
        if mode == "malformed_json":
            return self._send(200, data[: len(data) // 2])
        if mode == "html":
            return self._send(200, b"<html><body>502 Bad Gateway</body></html>", "text/html")
        if mode == "hang":
            time.sleep(3600)
            return None
        if mode == "close_mid_body":
            return self._cut_short()
        if mode == "echo_400":
            message = "x" * 240 + f" header was {self._auth()}"  # a cut at 300 keeps most
            return self._json(400, {"error": {"message": message}})
        if mode in ("throttle429", "throttle503") and self._throttled(posts):
            status = 429 if mode == "throttle429" else 503
            return self._json(status, {"error": {"message": "slow down"}}, Retry_After="1")
        if mode == "throttle_long":
            return self._json(429, {"error": {"message": "slow down"}}, Retry_After="3600")
        if mode == "trickle":
            return self._trickle(data)
        if mode == "huge_reply":
            return self._send(200, _padded(data))
        if mode == "huge_chunked":
            return self._chunked(_padded(data))
        return self._send(200, data)

    def _throttled(self, posts: int) -> bool:
        """The first THROTTLED POSTs are, and any POST within 0.9 s of a throttled one (a
        client that ignored Retry-After)."""
        with _State.lock:
            if posts <= THROTTLED or time.monotonic() - _State.throttled_at < 0.9:
                _State.throttled_at = time.monotonic()
                return True
        return False

    def _cut_short(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", "4096")
        self.end_headers()
        self.wfile.write(b'{"object": ')
        self.wfile.flush()
        self.close_connection = True
        with contextlib.suppress(OSError):
            self.connection.shutdown(socket.SHUT_RDWR)

    def _trickle(self, data: bytes) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        try:
            for byte in data:
                self.wfile.write(bytes([byte]))
                self.wfile.flush()
                time.sleep(0.2)
        except OSError:  # the client gave up: the point of the mode
            self.close_connection = True

    def _chunked(self, data: bytes) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        try:
            for start in range(0, len(data), 65536):
                piece = data[start : start + 65536]
                self.wfile.write(f"{len(piece):x}\r\n".encode() + piece + b"\r\n")
            self.wfile.write(b"0\r\n\r\n")
        except OSError:
            self.close_connection = True


class _QuietServer(ThreadingHTTPServer):
    def handle_error(self, request, client_address) -> None:
        pass  # a client that hangs up on a hostile reply is the point, not news


def _padded(data: bytes) -> bytes:
    """`data` (a JSON object) with whitespace before its last brace, to HUGE_BYTES."""
    return data[:-1] + b" " * max(0, HUGE_BYTES - len(data)) + b"}"


@dataclass
class HostileServer:
    """A running hostile server: `base_url` ends in /v1."""

    process: subprocess.Popen
    base_url: str

    def set_mode(self, mode: str) -> None:
        """Switch the running server to `mode`."""
        from helpers.control import post_json

        post_json(f"{self.base_url[:-3]}/__mode", {"mode": mode})

    def seen(self) -> dict:
        """{"texts": every text asked to embed, "requests": API requests per path}."""
        from helpers.control import get_json

        return get_json(f"{self.base_url[:-3]}/__seen")

    def stop(self) -> None:
        """Terminate the process and wait for it."""
        self.process.terminate()
        self.process.wait(timeout=10)


def start_hostile(mode: str = "normal", salt: str = "", echo_forms: bool = False) -> HostileServer:
    """Start the server as a subprocess in `mode` and wait until it listens."""
    forms = ["--echo-forms"] if echo_forms else []
    process = subprocess.Popen(
        [sys.executable, str(Path(__file__).resolve()), "--mode", mode, "--salt", salt, *forms],
        stdout=subprocess.PIPE,
        text=True,
    )
    line = process.stdout.readline().strip()
    if not line.startswith("PORT "):
        process.kill()
        raise RuntimeError(f"hostile server did not start: {line!r}")
    return HostileServer(process, f"http://127.0.0.1:{int(line.split()[1])}/v1")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--mode", choices=MODES, default="normal")
    parser.add_argument("--salt", default="")
    parser.add_argument("--echo-forms", action="store_true")
    args = parser.parse_args()
    _State.mode, _State.salt = args.mode, args.salt
    if args.echo_forms:
        sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
        from helpers.key_leaks import echoed

        _State.echo = echoed
    server = _QuietServer(("127.0.0.1", 0), HostileHandler)
    server.daemon_threads = True
    print(f"PORT {server.server_address[1]}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
