"""No mutant's change reaches another intent's records (issue 38), for each kind of column:
ragaudit's own retrieval (a settings file: each mutant an overlay on one base index), a
user's retriever (a stack file: rebuilt per group of mutants) and a user's `pipeline:`
(rebuilt per group). The corpus is small and the columns retrieve deep, so a shared corpus
would hand one intent's records the other intent's planted documents."""

from __future__ import annotations

import json

from test_mutate_discriminates import CASES, FILLER, POLICY, RETRIEVER, TABLE
from test_mutate_pipeline import PIPELINE

from ragaudit.cli.main import main

SETTINGS = "name: deep\nsplitter: recursive\nchunk_size: 300\noverlap: 0\nk: 8\n"
STACK = """name: theirs
splitter:
  class: langchain_text_splitters.RecursiveCharacterTextSplitter
  args: {chunk_size: 300, chunk_overlap: 0}
retriever:
  factory: overlap_retriever:make
  args: {}
k: 8
"""
PIPELINE_STACK = """name: paragraphs
pipeline:
  factory: isolation_rag:make
  args: {}
"""
OPERATORS = ["supersede", "near_duplicate", "remove_answer"]


def _workspace(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGAUDIT_HOME", str(tmp_path / "home"))
    monkeypatch.syspath_prepend(str(tmp_path))
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "handbook.md").write_text(POLICY, encoding="utf-8")
    (corpus / "cranes.md").write_text(TABLE, encoding="utf-8")
    for i, text in enumerate(FILLER):
        (corpus / f"news-{i}.md").write_text(text, encoding="utf-8")
    (tmp_path / "cases.yaml").write_text(CASES, encoding="utf-8")
    (tmp_path / "overlap_retriever.py").write_text(RETRIEVER, encoding="utf-8")
    (tmp_path / "isolation_rag.py").write_text(PIPELINE, encoding="utf-8")
    return tmp_path


def _mutate(workspace, flag: str, name: str, text: str, *extra: str) -> dict:
    column = workspace / name
    column.write_text(text, encoding="utf-8")
    out = workspace / f"{name}.json"
    status = main(["mutate", str(workspace / "corpus"), str(workspace / "cases.yaml"), flag,
                   str(column), "--operators", *OPERATORS, *extra, "--out", str(out)])  # fmt: skip
    assert status in (0, 1)
    return json.loads(out.read_text(encoding="utf-8"))


def _foreign(results: dict) -> list[tuple[str, str]]:
    """(record, document) for every record that was handed a document planted for
    another intent: a mutant document's id ends with its operator and intent."""
    seen = []
    for record in results["instances"]:
        intent = record["meta"]["intent"]
        for hit in record["retrieved"]:
            doc = hit["doc_id"]
            if "~" in doc and not doc.endswith(f"~{intent}"):
                seen.append((record["key"], doc))
    return seen


def test_an_overlay_hands_no_record_another_intents_mutant(tmp_path, monkeypatch):
    workspace = _workspace(tmp_path, monkeypatch)
    results = _mutate(workspace, "--settings", "deep.yaml", SETTINGS, "--no-generate")
    planted = {d for m in results["mutation"]["mutants"] for d in m["added_documents"]}
    # both intents' supersede and near_duplicate mutants exist, so a shared corpus would hold
    # four planted documents; k=8 over 300-character chunks reaches most of the corpus
    assert len(planted) >= 4, planted
    retrieved = {h["doc_id"] for r in results["instances"] for h in r["retrieved"]}
    assert planted & retrieved  # the planted documents do reach their own records
    assert _foreign(results) == []
    assert results["run"]["builds"]["kind"] == "overlay"
    assert results["run"]["builds"]["builds"] == 1


def test_a_users_retriever_is_rebuilt_per_group_and_no_record_meets_a_foreign_mutant(
    tmp_path, monkeypatch
):
    workspace = _workspace(tmp_path, monkeypatch)
    results = _mutate(workspace, "--stack", "theirs.yaml", STACK, "--no-generate")
    builds = results["run"]["builds"]
    assert builds["kind"] == "rebuild"
    # the two intents live in different documents (handbook, cranes), so an operator's two
    # mutants may share a corpus; one intent's two mutants never do
    for group in builds["groups"]:
        intents = [m.split("/", 1)[1] for m in group]
        assert len(intents) == len(set(intents)), group
    assert builds["builds"] == 1 + len(builds["groups"])
    applied = sum(1 for m in results["mutation"]["mutants"] if m["status"] not in
                  ("control", "not_applicable", "robust"))  # fmt: skip
    assert sum(len(g) for g in builds["groups"]) == applied
    for key, doc in _foreign(results):
        # a shared corpus may hold a foreign mutant only if it touches nothing this intent
        # relies on: never a copy of this intent's own document
        intent = key.split("/")[1]
        expected = {"overtime-rate": "handbook", "crane-k2": "cranes"}[intent]
        assert not doc.startswith(expected + "~"), (key, doc)


def test_a_pipeline_groups_keep_an_intents_documents_as_they_are(tmp_path, monkeypatch):
    workspace = _workspace(tmp_path, monkeypatch)
    # the crane table also states the overtime answer: its mutants may no longer share a
    # corpus with the overtime intent's (they would change a document it holds its answer in)
    table = (workspace / "corpus" / "cranes.md").read_text(encoding="utf-8")
    (workspace / "corpus" / "cranes.md").write_text(
        table + "\nCrane drivers on the quay earn 150 percent for night lifts.\n", "utf-8"
    )
    results = _mutate(workspace, "--stack", "paragraphs.yaml", PIPELINE_STACK)
    groups = results["run"]["builds"]["groups"]
    for group in groups:
        assert len({m.split("/", 1)[1] for m in group}) == 1, group
    builds = [json.loads(line) for line in
              (workspace / "isolation_rag.py.builds.jsonl").read_text().splitlines()]  # fmt: skip
    assert len(builds) == 1 + len(groups)
