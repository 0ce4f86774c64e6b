"""The indexed document set of a pipeline run is every document handed over (a factory's
`documents=`, an ingest endpoint's batches), not only those its contexts were found in: so
compare and gate (compare.agreement) pair two runs of the same corpus whose pipelines
returned contexts from other documents. The witnesses are the pipeline itself (a factory
that writes down the ids it was handed) and a recording server on 127.0.0.1 (the ids the
ingest posted)."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest
from helpers.pipeline_modules import write_word_rag
from helpers.recording_server import entries, recording_server

from ragaudit.cli.main import main
from ragaudit.comparison.agreement import agreement, indexed_documents

WITNESS = """
import json
from pathlib import Path

import RAG


def make(documents, k, log):
    Path(log).write_text(json.dumps([d["id"] for d in documents]))
    return RAG.make(documents, k=k)
"""
HTTP = """name: svc
pipeline:
  http:
    url: URL/ask
    body: {query: "{{question}}"}
    answer: answer
    contexts: sources
    timeout: 10
  ingest: {url: URL/ingest, batch: 50}
"""


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGAUDIT_HOME", str(tmp_path / "home"))
    monkeypatch.syspath_prepend(str(tmp_path))
    return tmp_path / "home"


def run(home: Path, stack: Path, name: str) -> dict:
    out = home / f"{name}.json"
    code = main(["run", "--stack", str(stack), "--stack-only", "--n", "1", "--out", str(out)])
    assert code == 0
    return json.loads(out.read_text())


def test_a_factory_records_every_document_it_was_handed(home, tmp_path):
    rag = f"word_rag_{uuid.uuid4().hex[:8]}"
    write_word_rag(tmp_path, rag)
    witness = f"witness_{uuid.uuid4().hex[:8]}"
    (tmp_path / f"{witness}.py").write_text(WITNESS.replace("RAG", rag))
    results = {}
    for k in (1, 3):
        stack = tmp_path / f"k{k}.yaml"
        log = tmp_path / f"handed-{k}.json"
        stack.write_text(f"name: words\npipeline:\n  factory: {witness}:make\n"
                         f"  args: {{k: {k}, log: '{log}'}}\n")  # fmt: skip
        results[k] = run(home, stack, f"k{k}")
        handed = set(json.loads(log.read_text()))
        found = {h["doc_id"] for r in results[k]["instances"] for h in r["retrieved"]}
        assert found < handed  # its contexts come from fewer documents than it was handed
        documents = indexed_documents(results[k])
        assert documents.source == "recorded" and documents.ids == handed
    assert agreement(results[1], results[3]).paired


def test_an_ingest_endpoint_records_every_document_posted(home, tmp_path):
    log = tmp_path / "requests.jsonl"
    with recording_server(log) as url:
        stack = tmp_path / "svc.yaml"
        stack.write_text(HTTP.replace("URL", url))
        results = run(home, stack, "svc")
    posted = {i for entry in entries(log) if entry["path"] == "/ingest" for i in entry["ids"]}
    assert posted and not any(r["retrieved"] for r in results["instances"])  # no context
    documents = indexed_documents(results)
    assert documents.source == "recorded" and documents.ids == posted


def test_an_asserted_set_pairs_only_with_the_same_assertion(home, tmp_path):
    """`ingest: none`: the service holds the corpus by the user's word, so the run's indexed
    set is "asserted by the user" (issue 28's rule): refused against an ordinary run of the
    same service and corpus, paired with another asserted run."""
    log = tmp_path / "requests.jsonl"
    with recording_server(log) as url:
        ordinary, asserted = tmp_path / "svc.yaml", tmp_path / "asserted.yaml"
        ordinary.write_text(HTTP.replace("URL", url))
        asserted.write_text(HTTP.replace("URL", url).replace(f"{{url: {url}/ingest, batch: 50}}",
                                                             "none"))  # fmt: skip
        handed = run(home, ordinary, "handed")
        first, second = run(home, asserted, "asserted-1"), run(home, asserted, "asserted-2")
    # the service returned no context, so no document is claimed as indexed by the
    # asserted runs (the ordinary run claims the documents it posted)
    assert {d for per in first["chunk_offsets"].values() for d in per} == set()
    assert indexed_documents(first).source == "asserted"
    refused = agreement(first, handed)
    assert not refused.paired and len(refused.differs) == 1
    assert "a set asserted by the user agrees only with itself" in refused.differs[0]
    assert not agreement(handed, first).paired
    assert agreement(first, second).paired
