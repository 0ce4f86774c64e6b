"""A pipeline that names the contexts its answer cites: the plain callable's `citations` key
and an `http:` entry's `citations` mapping. Each cited context id becomes the chunk its
context was located as; an id naming no returned context stays as given, and the citation
check (grading.citation_check) reads only the cited chunks that were in the context. Both
pipelines return the same two corpus paragraphs (control-000's third, filler-000's second)
as `ctx-a` and `ctx-b` and cite `ctx-a` plus `ghost-9`, which is none of them; the answer to
the control question quotes ctx-a (satisfied), the answer to the boundary question quotes
a phrase in no document (caught, naming the ghost). Expected values are written by hand."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from ragaudit.cli.main import main

DOCUMENTS = Path(__file__).resolve().parents[1] / "corpus" / "documents"
A = (DOCUMENTS / "control-000.txt").read_text().split("\n\n")[2]
B = (DOCUMENTS / "filler-000.txt").read_text().split("\n\n")[1]
HELD = "lightning conductors are inspected every 41 days"
GHOST = "purple elephant ledger"
CITED_A = "stack-cites/control-000#p0"
EXPECTED = {
    "control": (
        [CITED_A, "ghost-9"],
        {"outcome": "satisfied", "detail": f"cited chunk holds: {HELD}", "flagged": False},
    ),
    "boundary": (
        [CITED_A, "ghost-9"],
        {
            "outcome": "caught",
            "detail": f"not in any cited chunk: {GHOST}; citations not in the context: ghost-9",
            "missing_values": [GHOST],
            "flagged": True,
        },
    ),
}
ANSWER = """
import json, sys


def answer(question, a, b):
    quote = "HELD" if "lightning" in question else "GHOST"
    return {
        "answer": f'It says "{quote}".',
        "contexts": [{"id": "ctx-a", "text": a}, {"id": "ctx-b", "text": b}],
        "citations": ["ctx-a", "ghost-9"],
    }
""".replace("HELD", HELD).replace("GHOST", GHOST)
FACTORY = (
    ANSWER
    + """

def make(documents, a, b):
    return lambda question: answer(question, a, b)
"""
)
SERVER = (
    ANSWER
    + """
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        given = answer(body["query"], sys.argv[1], sys.argv[2])
        reply = json.dumps({"data": {"answer": given["answer"], "sources": given["contexts"]},
                            "cited": given["citations"]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(reply)))
        self.end_headers()
        self.wfile.write(reply)


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(server.server_address[1], flush=True)
server.serve_forever()
"""
)
HTTP = """name: cites
pipeline:
  http:
    url: URL/ask
    body: {query: "{{question}}"}
    answer: $.data.answer
    contexts: $.data.sources
    context_text: text
    context_id: id
    citations: $.cited
    timeout: 10
  ingest: none
probes: [control, boundary]
"""


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGAUDIT_HOME", str(tmp_path / "home"))
    monkeypatch.syspath_prepend(str(tmp_path))
    return tmp_path / "home"


def checked(home: Path, stack: Path) -> dict:
    out = home / "out.json"
    code = main(["run", "--stack", str(stack), "--stack-only", "--n", "1", "--out", str(out)])
    assert code == 0
    records = json.loads(out.read_text())["instances"]
    return {
        r["probe"]: (r["generation"]["citations"], r["citation_check"])
        for r in records
        if r["config"] == "cites"
    }


def test_a_callables_own_citations_are_checked(home, tmp_path):
    (tmp_path / "citing_rag.py").write_text(FACTORY)
    stack = tmp_path / "cites.yaml"
    args = json.dumps({"a": A, "b": B})
    stack.write_text(f"name: cites\npipeline:\n  factory: citing_rag:make\n  args: {args}\n"
                     "probes: [control, boundary]\n")  # fmt: skip
    assert checked(home, stack) == EXPECTED


def test_an_http_services_citations_mapping_is_checked(home, tmp_path):
    script = tmp_path / "citing_service.py"
    script.write_text(SERVER)
    server = subprocess.Popen([sys.executable, str(script), A, B], stdout=subprocess.PIPE,
                              text=True)  # fmt: skip
    try:
        url = f"http://127.0.0.1:{int(server.stdout.readline())}"
        stack = tmp_path / "cites.yaml"
        stack.write_text(HTTP.replace("URL", url))
        assert checked(home, stack) == EXPECTED
    finally:
        server.terminate()
        server.wait(timeout=10)
