"""A stand-in for a GPU model server: speaks Ollama's HTTP API on 127.0.0.1, answers every
embedding or chat call after a fixed delay, and serves at most `slots` calls at once (the
rest wait for a slot, as on a server with that many parallel sequences).

Run as `python tests/helpers/stand_in.py --slots 4 --delay 0.05 [--fail-marker TEXT ...]`:
it binds a free port and prints `PORT <n>` first. It records the calls per path and the
peak of calls in flight at once (waiting or served), read at `GET /__stats` and cleared by
`POST /__reset`. A call whose request body holds a fail marker is answered HTTP 500,
every time (a request that a retry cannot cure): which calls fail is a property of their
input, never of their arrival order, so a concurrent client must see what a serial one
sees. Any model name is served; `/api/tags` lists EMBED_MODEL and CHAT_MODEL. Vectors and
replies are fixed functions of the input, so a run against it is reproducible.
`start_stand_in` runs it as a subprocess.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

EMBED_MODEL = "stand-in-embed"
CHAT_MODEL = "stand-in-chat"
DIMENSIONS = 32


def stand_in_vector(text: str) -> list[float]:
    """A fixed vector for `text` (the bytes of its sha256, centred); never all zero."""
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return [byte / 255.0 - 0.5 + 1e-3 for byte in digest[:DIMENSIONS]]


def stand_in_reply(messages: list[dict]) -> str:
    """The fixed reply to a conversation: its last user message's first 40 characters."""
    last = next((m.get("content", "") for m in reversed(messages) if m.get("role") == "user"), "")
    return f"stand-in reply to: {last[:40]}"


class _Load:
    """Calls in flight, their peak, and calls per path; shared by the handler threads."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.in_flight = 0
        self.peak = 0
        self.calls: Counter = Counter()

    def enter(self, path: str) -> None:
        with self.lock:
            self.calls[path] += 1
            self.in_flight += 1
            self.peak = max(self.peak, self.in_flight)

    def leave(self) -> None:
        with self.lock:
            self.in_flight -= 1

    def snapshot(self) -> dict:
        with self.lock:
            return {"calls": dict(self.calls), "peak_in_flight": self.peak}

    def reset(self) -> None:
        with self.lock:
            self.calls.clear()
            self.peak = self.in_flight


class JsonHandler(BaseHTTPRequestHandler):
    """A keep-alive (HTTP/1.1) handler that answers in JSON and logs nothing, so the output
    of a benchmark or a test stays clean: the stand-in's base, and the tests' fake Ollama's."""

    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # else a reply waits ~40 ms on the client's delayed ACK

    def log_message(self, *args) -> None:
        pass

    def _reply(self, status: int, body: dict) -> None:
        """Answer `status` with `body` as JSON (its length sent, so the connection stays open)."""
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


class StandInHandler(JsonHandler):
    """The handler; the class attributes are set once by `serve`."""

    delay = 0.0
    slots = threading.BoundedSemaphore(1)
    fail_markers: tuple[str, ...] = ()
    load = _Load()

    def do_GET(self) -> None:
        if self.path == "/__stats":
            return self._reply(200, self.load.snapshot())
        if self.path == "/api/tags":
            names = [f"{EMBED_MODEL}:latest", f"{CHAT_MODEL}:latest"]
            digests = ["sha256:" + hashlib.sha256(n.encode()).hexdigest() for n in names]
            models = [
                {"name": n, "model": n, "digest": d, "size": 1, "details": {}}
                for n, d in zip(names, digests, strict=True)
            ]
            return self._reply(200, {"models": models})
        self._reply(404, {"error": f"no route {self.path}"})

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if self.path == "/__reset":
            self.load.reset()
            return self._reply(200, {})
        if self.path == "/api/show":
            return self._reply(200, {"details": {"family": "stand-in"}, "model_info": {}})
        if self.path not in ("/api/embed", "/api/chat"):
            return self._reply(404, {"error": f"no route {self.path}"})
        self.load.enter(self.path)
        try:
            with self.slots:  # a call waits here for a free slot, as on the real server
                time.sleep(self.delay)
            self._answer(raw)
        finally:
            self.load.leave()

    def _answer(self, raw: bytes) -> None:
        text = raw.decode("utf-8", "replace")
        if any(marker in text for marker in self.fail_markers):
            return self._reply(500, {"error": "stand-in failure for a marked input"})
        body = json.loads(raw or b"{}")
        model = body.get("model", "")
        if self.path == "/api/embed":
            texts = body.get("input")
            texts = [texts] if isinstance(texts, str) else list(texts)
            vectors = [stand_in_vector(text) for text in texts]
            return self._reply(200, {"model": model, "embeddings": vectors})
        message = {"role": "assistant", "content": stand_in_reply(body.get("messages", []))}
        self._reply(200, {"model": model, "message": message, "done": True, "done_reason": "stop"})


def serve(slots: int, delay: float, fail_markers: Sequence[str] = ()) -> None:
    """Serve on a free 127.0.0.1 port until killed, printing `PORT <n>` first."""
    StandInHandler.slots = threading.BoundedSemaphore(slots)
    StandInHandler.delay, StandInHandler.fail_markers = delay, tuple(fail_markers)
    server = ThreadingHTTPServer(("127.0.0.1", 0), StandInHandler)
    server.daemon_threads = True
    print(f"PORT {server.server_address[1]}", flush=True)
    server.serve_forever()


@dataclass
class StandInProcess:
    """A running stand-in server: its URL, its load figures, and how to stop it."""

    process: subprocess.Popen
    url: str

    def stats(self) -> dict:
        """{"calls": {path: n}, "peak_in_flight": n} since the start or the last reset."""
        from helpers.control import get_json

        return get_json(f"{self.url}/__stats", timeout=10)

    def reset(self) -> None:
        """Clear the call counts and the peak."""
        from helpers.control import post_json

        post_json(f"{self.url}/__reset", timeout=10)

    def stop(self) -> None:
        """Terminate the process and wait for it."""
        self.process.terminate()
        self.process.wait(timeout=10)


def start_stand_in(
    slots: int = 4, delay: float = 0.05, fail_markers: Sequence[str] = ()
) -> StandInProcess:
    """Start the stand-in server as a subprocess and wait until it listens."""
    command = [sys.executable, str(Path(__file__).resolve()), "--slots", str(slots)]
    command += ["--delay", str(delay)]
    for marker in fail_markers:
        command += ["--fail-marker", marker]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    line = process.stdout.readline().strip()
    if not line.startswith("PORT "):
        process.kill()
        raise RuntimeError(f"the stand-in server did not start: {line!r}")
    return StandInProcess(process, f"http://127.0.0.1:{int(line.split()[1])}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python tests/helpers/stand_in.py")
    parser.add_argument("--slots", type=int, default=4, help="calls served at once")
    parser.add_argument("--delay", type=float, default=0.05, help="seconds per call")
    parser.add_argument(
        "--fail-marker", action="append", default=[], help="answer 500 to bodies holding it"
    )
    args = parser.parse_args(argv)
    serve(args.slots, args.delay, args.fail_marker)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
