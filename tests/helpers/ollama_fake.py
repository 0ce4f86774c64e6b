"""A small process that speaks Ollama's HTTP API on 127.0.0.1, for tests of the Ollama path.

Run as a script: `python tests/helpers/ollama_fake.py --mode normal|drop|error500 [--failures N]`.
It binds a random port and prints `PORT <n>` on its first stdout line. Modes:
- normal: serve every request;
- drop: close the connection without a reply for the first N requests, then serve;
- error500: answer HTTP 500 to the first N requests (N=-1: always), then serve;
- fail_after: serve the first N requests, then answer HTTP 500 to every later one;
- embed500: list the models (/api/tags) and chat, but answer HTTP 500 to the first N
  /api/embed requests (N=-1: every one), then serve.
"Never reachable" needs no process: use a port nothing listens on (`unused_port()`).

Embeddings are a deterministic hashed bag of words (similar texts -> similar vectors);
chat replies are canned: "fake reply to: <last user message, first 60 chars>".
`GET /__requests` returns the count of API requests seen, per path, so tests can check
that retries really happened; `GET /__embed_options` the `options` of the last /api/embed.
`/api/show` gives the model metadata in MODEL_INFO (mxbai-embed-large's real
`bert.context_length`, 512; none for the chat model). The `start_fake_ollama` helper runs
it for tests.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import math
import re
import socket
import subprocess
import sys
import threading
from collections import Counter
from dataclasses import dataclass
from http.server import ThreadingHTTPServer
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run as a script, too
from helpers.stand_in import JsonHandler  # noqa: E402

DIMENSIONS = 64
MODELS = {
    "mxbai-embed-large:latest": "sha256:" + hashlib.sha256(b"mxbai-embed-large").hexdigest(),
    "qwen2.5:7b": "sha256:" + hashlib.sha256(b"qwen2.5:7b").hexdigest(),
}
MODEL_INFO = {
    "mxbai-embed-large:latest": {"general.architecture": "bert", "bert.context_length": 512},
}


def fake_embedding(text: str) -> list[float]:
    """Hashed bag of words, L2-normalised."""
    vector = [0.0] * DIMENSIONS
    for word in re.findall(r"\w+", text.lower()):
        bucket = int(hashlib.sha256(word.encode()).hexdigest(), 16) % DIMENSIONS
        vector[bucket] += 1.0
    norm = math.sqrt(sum(v * v for v in vector)) or 1.0
    return [v / norm if any(vector) else 1.0 / math.sqrt(DIMENSIONS) for v in vector]


def fake_reply(messages: list[dict]) -> str:
    """The canned chat reply for a conversation."""
    last_user = next((m["content"] for m in reversed(messages) if m.get("role") == "user"), "")
    return f"fake reply to: {last_user[:60]}"


class FakeOllama(JsonHandler):
    mode = "normal"
    failures = 0
    seen: Counter = Counter()
    embed_options: dict | None = None
    lock = threading.Lock()

    def _read_json(self) -> dict:
        length = int(self.headers.get("Content-Length") or 0)
        return json.loads(self.rfile.read(length) or b"{}")

    def _misbehave(self) -> bool:
        """Count the request; True when this one must fail per the mode."""
        with self.lock:
            self.seen[self.path] += 1
            index = sum(self.seen.values())
            embeds = self.seen["/api/embed"]
        if self.mode == "drop" and index <= self.failures:
            self.close_connection = True
            with contextlib.suppress(OSError):
                self.connection.shutdown(socket.SHUT_RDWR)
            return True
        if (
            (self.mode == "error500" and (self.failures < 0 or index <= self.failures))
            or (self.mode == "fail_after" and index > self.failures)
            or (
                self.mode == "embed500"
                and self.path == "/api/embed"
                and (self.failures < 0 or embeds <= self.failures)
            )
        ):
            self._reply(500, {"error": "fake server error"})
            return True
        return False

    def do_GET(self) -> None:
        if self.path == "/__requests":
            with self.lock:
                return self._reply(200, dict(self.seen))
        if self.path == "/__embed_options":
            return self._reply(200, {"options": FakeOllama.embed_options})
        if self._misbehave():
            return
        if self.path == "/api/tags":
            models = [
                {"name": name, "model": name, "digest": digest, "size": 1, "details": {}}
                for name, digest in MODELS.items()
            ]
            return self._reply(200, {"models": models})
        if self.path == "/api/version":
            return self._reply(200, {"version": "0.0.0-fake"})
        self._reply(404, {"error": f"no route {self.path}"})

    def do_HEAD(self) -> None:
        self.send_response(200)
        self.end_headers()

    def do_POST(self) -> None:
        body = self._read_json()
        if self._misbehave():
            return
        model = body.get("model", "")
        known = model in MODELS or f"{model}:latest" in MODELS
        if self.path in ("/api/embed", "/api/chat", "/api/show") and not known:
            return self._reply(404, {"error": f"model '{model}' not found"})
        if self.path == "/api/embed":
            texts = body.get("input")
            texts = [texts] if isinstance(texts, str) else list(texts)
            FakeOllama.embed_options = body.get("options")
            return self._reply(
                200, {"model": model, "embeddings": [fake_embedding(t) for t in texts]}
            )
        if self.path == "/api/chat":
            message = {"role": "assistant", "content": fake_reply(body.get("messages", []))}
            return self._reply(
                200, {"model": model, "message": message, "done": True, "done_reason": "stop"}
            )
        if self.path == "/api/show":
            info = MODEL_INFO.get(model if model in MODELS else f"{model}:latest", {})
            return self._reply(200, {"details": {"family": "fake"}, "model_info": info})
        self._reply(404, {"error": f"no route {self.path}"})


def unused_port() -> int:
    """A 127.0.0.1 port with nothing listening (bound, then released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@dataclass
class FakeOllamaProcess:
    """A running fake server: its URL, and how to read its request counts and stop it."""

    process: subprocess.Popen
    url: str

    def requests(self) -> dict[str, int]:
        """API requests seen so far, per path."""
        from helpers.control import get_json

        return get_json(f"{self.url}/__requests")

    def embed_options(self) -> dict | None:
        """The `options` the last /api/embed request sent."""
        from helpers.control import get_json

        return get_json(f"{self.url}/__embed_options")["options"]

    def stop(self) -> None:
        """Terminate the process and wait for it."""
        self.process.terminate()
        self.process.wait(timeout=10)


def start_fake_ollama(mode: str = "normal", failures: int = 0) -> FakeOllamaProcess:
    """Start the fake server as a subprocess and wait until it listens."""
    process = subprocess.Popen(
        [
            sys.executable,
            str(Path(__file__).resolve()),
            "--mode",
            mode,
            "--failures",
            str(failures),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    line = process.stdout.readline().strip()
    if not line.startswith("PORT "):
        process.kill()
        raise RuntimeError(f"fake ollama did not start: {line!r}")
    return FakeOllamaProcess(process=process, url=f"http://127.0.0.1:{int(line.split()[1])}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "--mode", choices=["normal", "drop", "error500", "fail_after", "embed500"], default="normal"
    )
    parser.add_argument("--failures", type=int, default=0)
    args = parser.parse_args()
    FakeOllama.mode, FakeOllama.failures = args.mode, args.failures
    server = ThreadingHTTPServer(("127.0.0.1", 0), FakeOllama)
    print(f"PORT {server.server_address[1]}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
