"""A small RAG service on 127.0.0.1 for the `pipeline: http:` tests and the benchmark
(benchmarks/pipeline.py): a real HTTP process speaking JSON, zero-delay unless asked
(`--delay` seconds per answer, at most `--slots` answered at once).

Run as `python tests/helpers/rag_service.py [flags]`.

POST /ingest {"documents": [{id, text, metadata}]} adds documents; POST /ask {"query": q}
ranks the paragraphs by shared words and replies
{"data": {"answer": <first paragraph>, "sources": [{"content", "meta": {"id"}, "relevance"}]}}.
`--key K` requires the header X-Api-Key: K (else 401). `--fault MODE` makes every question
whose sha256 starts with an even hex digit fault: `500`, `missing` (no answer field),
`number` (a context's content is a number). `--html` wraps each context in <p> tags with
its whitespace collapsed (a normalised context); `--corpus FILE.jsonl` preloads documents.
Prints its port on stdout when listening.
"""

from __future__ import annotations

import argparse
import hashlib
import heapq
import json
import re
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PASSAGES: list[tuple[str, str]] = []
WORDS: list[set[str]] = []  # each passage's words, computed once (ranking stays cheap)
SEEN: set[tuple[str, str]] = set()
LOCK = threading.Lock()


def words(text: str) -> set[str]:
    return set(re.findall(r"\w+", text.lower()))


def add(documents: list[dict]) -> None:
    with LOCK:
        for doc in documents:
            for para in doc["text"].split("\n\n"):
                if para.strip() and (doc["id"], para) not in SEEN:  # ingest is idempotent
                    SEEN.add((doc["id"], para))
                    PASSAGES.append((doc["id"], para))
                    WORDS.append(words(para))


def faulty(question: str) -> bool:
    return hashlib.sha256(question.encode()).hexdigest()[0] in "02468ace"


class Handler(BaseHTTPRequestHandler):
    disable_nagle_algorithm = True  # else a reply waits ~40 ms on the client's delayed ACK
    options: argparse.Namespace
    slots: threading.Semaphore

    def log_message(self, *args) -> None:
        pass

    def _json(self, status: int, body: object) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
        options = self.options
        if options.key and self.headers.get("X-Api-Key") != options.key:
            return self._json(401, {"error": "bad key"})
        if self.path == "/ingest":
            add(body["documents"])
            return self._json(200, {"count": len(PASSAGES)})
        if self.path != "/ask":
            return self._json(404, {"error": self.path})
        with self.slots:
            if options.delay:
                time.sleep(options.delay)
            question = body["query"]
            if options.fault and faulty(question):
                if options.fault == "500":
                    return self._json(500, {"error": "the index is rebuilding"})
                if options.fault == "missing":
                    return self._json(200, {"data": {"sources": []}})
            q = words(question)
            order = heapq.nsmallest(
                options.k, range(len(PASSAGES)), key=lambda i: (-len(q & WORDS[i]), PASSAGES[i][0])
            )
            ranked = [PASSAGES[i] for i in order]
            sources = []
            for doc_id, text in ranked:
                content: object = text
                if options.html:
                    content = "<p>" + " ".join(text.split()) + "</p>"
                if options.fault == "number" and faulty(question):
                    content = 42
                sources.append({"content": content, "meta": {"id": doc_id},
                                "relevance": float(len(q & words(text)))})  # fmt: skip
            answer = ranked[0][1] if ranked else "no documents"
            return self._json(200, {"data": {"answer": answer, "sources": sources}})


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--key", default=None)
    parser.add_argument("--fault", default=None, choices=["500", "missing", "number"])
    parser.add_argument("--html", action="store_true")
    parser.add_argument("--corpus", default=None)
    parser.add_argument("--delay", type=float, default=0.0)
    parser.add_argument("--slots", type=int, default=64)
    parser.add_argument("--k", type=int, default=3)
    options = parser.parse_args()
    if options.corpus:
        with open(options.corpus) as lines:
            add([json.loads(line) for line in lines if line.strip()])
    Handler.options, Handler.slots = options, threading.Semaphore(options.slots)
    server = ThreadingHTTPServer(("127.0.0.1", options.port), Handler)
    server.daemon_threads = True
    print(server.server_address[1], flush=True)
    sys.stdout.close()
    server.serve_forever()


if __name__ == "__main__":
    main()
