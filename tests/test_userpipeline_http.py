"""`pipeline: http:` end to end: a real RAG service process on 127.0.0.1
(tests/helpers/rag_service.py) ingesting the corpus through its endpoint or a command,
or holding it already (asserted by the user); its header's value read from an environment
variable and never written; its HTML-wrapped contexts located; each fault mode (HTTP 500,
a missing answer, a context that is not text) a counted failed call with a one-line reason;
--workers 4 giving the records and counts of --workers 1."""

from __future__ import annotations

import hashlib
import json
import sqlite3
import sys
from contextlib import closing
from pathlib import Path

import pytest
from helpers.pipeline_service import running_service

from ragaudit.cli.main import main
from ragaudit.probes.catalogue import shipped

PROBES = len(shipped())  # the planted corpus's probes: one record each at --n 1

ROOT = Path(__file__).resolve().parents[1]
KEY = "svc-key-7f3a9c2e5b1d"
STACK = """name: svc
pipeline:
  http:
    url: URL/ask
    headers: {X-Api-Key: SVC_KEY}
    body: {query: "{{question}}"}
    answer: $.data.answer
    contexts: $.data.sources
    context_text: content
    context_id: meta.id
    context_score: $.relevance
    timeout: 10
  ingest: INGEST
"""


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGAUDIT_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("SVC_KEY", KEY)
    monkeypatch.setenv("RAGAUDIT_RETRIES", "1")
    monkeypatch.setenv("RAGAUDIT_RETRY_DELAY", "0")
    return tmp_path / "home"


def run(home: Path, tmp_path: Path, url: str, ingest: str, *flags: str) -> tuple[int, dict]:
    stack = tmp_path / "svc.yaml"
    stack.write_text(STACK.replace("URL", url).replace("INGEST", ingest))
    out = home / "out.json"
    code = main(["run", "--stack", str(stack), "--stack-only", "--n", "1", "--out", str(out),
                 *flags])  # fmt: skip
    written = out if code == 0 else home / "out.failed.json"
    return code, json.loads(written.read_text())


def questions() -> list[str]:
    seen = {}
    for line in (ROOT / "corpus" / "questions.jsonl").open():
        entry = json.loads(line)
        if entry["instance_id"].endswith("-000"):
            seen.setdefault(entry["question"], None)
    return list(seen)


def faulty(question: str) -> bool:  # the server's rule, from its docstring
    return hashlib.sha256(question.encode()).hexdigest()[0] in "02468ace"


def test_ingest_endpoint_header_from_env_and_html_contexts(home, tmp_path, capsys):
    with running_service("--key", KEY, "--html") as url:
        code, results = run(home, tmp_path, url, f"{{url: '{url}/ingest', batch: 100}}")
    err = capsys.readouterr().err
    assert code == 0, err
    records = [r for r in results["instances"] if r["config"] == "svc"]
    assert len(records) == PROBES and all(len(r["pipeline"]["contexts"]) == 3 for r in records)
    # <p>-wrapped, whitespace collapsed: every context still placed on its paragraph
    assert f"0 of {3 * PROBES} contexts match no document" in err  # 3 a record
    for record in records:
        for hit in record["retrieved"]:
            chunk = results["chunks"][hit["chunk_id"]]
            text = (ROOT / "corpus" / "documents" / f"{chunk['doc_id']}.txt").read_text()
            assert " ".join(text[hit["start"] : hit["end"]].split()) in chunk["text"]
    assert all(r["generation"]["status"] == "ok" for r in records)
    assert "indexed_documents" not in results["configs"][0]
    files = [p for p in home.rglob("*") if p.is_file()]
    assert not any(KEY[:8] in p.read_bytes().decode("utf-8", "replace") for p in files)
    assert KEY[:8] not in err


def test_a_missing_key_is_refused_naming_the_variable(home, tmp_path, monkeypatch, capsys):
    monkeypatch.delenv("SVC_KEY")
    code = main(["run", "--stack-only", "--n", "1", "--stack", str(_stack(tmp_path))])
    err = capsys.readouterr().err.strip()
    assert code == 2 and "environment variable SVC_KEY is not set" in err
    assert not (home / "cache.sqlite").exists()


def _stack(tmp_path: Path) -> Path:
    stack = tmp_path / "svc.yaml"
    stack.write_text(STACK.replace("URL", "http://127.0.0.1:9").replace("INGEST", "none"))
    return stack


@pytest.mark.parametrize(
    ("fault", "reason"),
    [
        ("500", "HTTP 500"),
        ("missing", "the reply has no $.data.answer (the answer)"),
        ("number", "a context's text at content is int 42, not text"),
    ],
)
def test_each_fault_is_a_counted_failed_call(home, tmp_path, capsys, fault, reason):
    corpus = tmp_path / "export"
    assert main(["corpus", "--export", str(corpus), "--format", "jsonl"]) == 0
    with running_service("--key", KEY, "--fault", fault, "--corpus",
                         str(corpus / "documents.jsonl")) as url:  # fmt: skip
        code, results = run(home, tmp_path, url, "none")
    err = capsys.readouterr().err
    expected = [q for q in questions() if faulty(q)]
    assert 0 < len(expected) < PROBES
    assert code == 1 and "Traceback" not in err
    assert results["conditions"]["calls"]["failed"] == len(expected)
    failed = [r for r in results["instances"] if r["retrieval_error"]]
    assert sorted(r["question"] for r in failed) == sorted(expected)
    assert all(reason in r["retrieval_error"] and "\n" not in r["retrieval_error"] for r in failed)
    assert results["configs"][0]["indexed_documents"] == "asserted by the user"


def test_an_http_4xx_is_a_counted_failed_call(home, tmp_path, monkeypatch, capsys):
    corpus = tmp_path / "export"
    assert main(["corpus", "--export", str(corpus), "--format", "jsonl"]) == 0
    monkeypatch.setenv("SVC_KEY", "not-the-key")  # the service answers 401 to every question
    with running_service("--key", KEY, "--corpus", str(corpus / "documents.jsonl")) as url:
        code, results = run(home, tmp_path, url, "none")
    err = capsys.readouterr().err
    assert code == 1 and "Traceback" not in err
    assert results["conditions"]["calls"]["failed"] == PROBES
    failed = [r["retrieval_error"] for r in results["instances"]]
    assert len(failed) == PROBES and all("HTTP 401" in e and "\n" not in e for e in failed)
    assert not any("not-the-key" in e for e in failed)


def cache_rows(path: Path) -> list[tuple]:
    """The stored calls (key, model, kind, value, identity), sorted by key."""
    with closing(sqlite3.connect(path)) as db:
        return db.execute(
            "SELECT key, model, kind, value, identity FROM calls ORDER BY key"
        ).fetchall()


def stable(results: dict) -> list[dict]:
    keep = ("key", "retrieved", "gold_in_context", "gold_rank", "generation", "grade", "pipeline")
    return [{k: r.get(k) for k in keep} for r in results["instances"]]


def test_workers_four_match_workers_one_and_an_ingest_command(home, tmp_path):
    post = (
        "import json,sys,httpx; docs=[json.loads(l) for l in open(sys.argv[2] + "
        "'/documents.jsonl')]; r=httpx.post(sys.argv[1] + '/ingest', json={'documents': docs},"
        " headers={'X-Api-Key': sys.argv[3]}); sys.exit(r.status_code != 200)"
    )
    with running_service("--key", KEY, "--fault", "500") as url:
        command = json.dumps([sys.executable, "-c", post, url, "{folder}", KEY])
        ingest = f"{{command: {command}, format: jsonl}}"
        serial = run(home, tmp_path, url, ingest, "--workers", "1")
        serial_rows = cache_rows(home / "cache.sqlite")
        (home / "cache.sqlite").unlink()
        for extra in ("-wal", "-shm"):
            Path(f"{home / 'cache.sqlite'}{extra}").unlink(missing_ok=True)
        pooled = run(home, tmp_path, url, ingest, "--workers", "4")
    assert serial[0] == pooled[0] == 1
    assert stable(serial[1]) == stable(pooled[1])
    # the same rows stored: one per answered question, keyed and valued alike
    pooled_rows = cache_rows(home / "cache.sqlite")
    assert len(serial_rows) == PROBES - len([q for q in questions() if faulty(q)])
    assert pooled_rows == serial_rows
    assert serial[1]["conditions"]["calls"] == pooled[1]["conditions"]["calls"]
    assert serial[1]["conditions"]["calls"]["computed"] == PROBES - len(
        [q for q in questions() if faulty(q)]
    )
