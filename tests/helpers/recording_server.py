"""A local HTTP process on 127.0.0.1 that records every request it gets (one JSON line per
request: method, path and the ids of the documents a JSON body's "documents" holds,
appended to a log file) and answers each with
``{"answer": "recorded", "sources": []}``: proof of whether a command contacted a service.

`recording_server(log)` starts it as its own process and yields its base URL.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

SERVER = r"""
import json, sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LOG = sys.argv[1]


class Handler(BaseHTTPRequestHandler):
    disable_nagle_algorithm = True  # else a reply waits ~40 ms on the client's delayed ACK
    def log_message(self, *args):
        pass

    def _answer(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length)
        try:
            ids = [d["id"] for d in json.loads(body)["documents"]]
        except (ValueError, KeyError, TypeError):
            ids = []
        entry = {"method": self.command, "path": self.path, "ids": ids}
        with open(LOG, "a") as log:
            log.write(json.dumps(entry) + "\n")
        reply = json.dumps({"answer": "recorded", "sources": []}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(reply)))
        self.end_headers()
        self.wfile.write(reply)

    do_GET = do_POST = do_PUT = _answer


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(server.server_address[1], flush=True)
server.serve_forever()
"""


def entries(log: Path) -> list[dict]:
    """The recorded requests, in order: ``{"method", "path", "ids"}`` each."""
    if not log.exists():
        return []
    return [json.loads(line) for line in log.read_text().splitlines() if line.strip()]


def requests(log: Path) -> list[str]:
    """The recorded requests, ``"POST /ingest"`` each, in order."""
    return [f"{entry['method']} {entry['path']}" for entry in entries(log)]


@contextmanager
def recording_server(log: Path) -> Iterator[str]:
    """The server's base URL (``http://127.0.0.1:<port>``) while it runs, logging to `log`."""
    process = subprocess.Popen(
        [sys.executable, "-c", SERVER, str(log)], stdout=subprocess.PIPE, text=True
    )
    try:
        port = int(process.stdout.readline())
        yield f"http://127.0.0.1:{port}"
    finally:
        process.terminate()
        process.wait(timeout=10)
