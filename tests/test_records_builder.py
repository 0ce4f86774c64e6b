"""The one instance-record builder (issue 42, item 1): what a record holds before
retrieval, in the file's field order, whichever writer builds it."""

from __future__ import annotations

from ragaudit.results.records import instance_record

SPAN = {"doc_id": "d1", "start": 3, "end": 9, "text": "38 days", "role": "gold"}


def test_a_record_before_retrieval_holds_its_head_and_nothing_measured():
    record = instance_record(
        probe="boundary", layer="architectural", instance_id="boundary-007", config="A",
        embedder="local:minilm", chunking="fixed-1000-0", k=3, question="How long?",
        gold_answer="38 days", spans=([SPAN], [], []), answer_doc_ids=("d1",),
        anchor="section 4417-B", grading={"kind": "value"}, meta={"site": "x"},
        diagnostics=("gold_in_context", "gold_rank"),
    )  # fmt: skip
    assert list(record.items()) == [
        ("key", "boundary/boundary-007/A/local:minilm"), ("probe", "boundary"),
        ("layer", "architectural"), ("instance_id", "boundary-007"), ("config", "A"),
        ("embedder", "local:minilm"), ("chunking", "fixed-1000-0"), ("k", 3),
        ("question", "How long?"), ("gold_answer", "38 days"), ("gold_spans", [SPAN]),
        ("trap_spans", []), ("extra_spans", []), ("answer_doc_ids", ["d1"]),
        ("anchor", "section 4417-B"), ("grading", {"kind": "value"}), ("meta", {"site": "x"}),
        ("retrieved", []), ("retrieval_error", None), ("gold_in_context", None),
        ("gold_rank", None), ("generation", None), ("grade", None), ("citation_check", None),
    ]  # fmt: skip


def test_a_mutant_record_names_its_own_key():
    record = instance_record(
        probe="supersede", layer="architectural", instance_id="case-1", config="mine",
        embedder="local:minilm", chunking=None, k=None, question=None, gold_answer=None,
        spans=([], [], []), answer_doc_ids=(), anchor=None, grading=None, meta=None,
        diagnostics=(), key="supersede/case-1@2/mine/local:minilm",
    )  # fmt: skip
    assert record["key"] == "supersede/case-1@2/mine/local:minilm"
    assert record["instance_id"] == "case-1"
