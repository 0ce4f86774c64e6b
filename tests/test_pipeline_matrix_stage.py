"""The retrieval stage on a small hand-made corpus: one record per instance × config ×
embedder, shared work, and an embedder whose calls fail marked and counted, never dropped."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from helpers.stage_fixtures import run_stage_once

from ragaudit.documents import Document
from ragaudit.probes.base import Instance, Span
from ragaudit.stack.configs import MATRIX
from ragaudit.stack.diagnostics import diagnostic_fields

FILLER = "The plant keeps its records in the main office and reviews them each quarter"


def planted(doc_id: str, sentence: str, at: int) -> tuple[Document, Span]:
    """A document whose `sentence` starts at character `at` (filler ends on '. ')."""
    pad = ((FILLER + " ") * 40)[: at - 2].rstrip() + ". "
    pad = pad.ljust(at)
    text = pad + sentence + "\n\n" + (FILLER + ". ") * 6
    return Document(doc_id, text), Span(doc_id, at, at + len(sentence), sentence)


def small_corpus() -> SimpleNamespace:
    boundary_doc, gold = planted(
        "b-1", "Eyewash stations at site 4417-B are checked every 38 days", 960
    )
    control_doc, control_gold = planted("c-1", "The loading dock at site 2210-K opens at 6 am", 300)
    neg_doc, neg_gold = planted("n-1", "Store 77-Q does not permit solvent drums", 200)
    aff_doc, aff_trap = planted("n-2", "Store 81-R does permit solvent drums", 200)
    aff_trap = Span(aff_trap.doc_id, aff_trap.start, aff_trap.end, aff_trap.text, "trap")
    instances = [
        Instance(
            "boundary",
            "architectural",
            "boundary-001",
            "How often are eyewash stations at site 4417-B checked?",
            "38 days",
            (gold,),
            anchor="4417-B",
        ),
        Instance(
            "control",
            "control",
            "control-001",
            "When does the loading dock at site 2210-K open?",
            "6 am",
            (control_gold,),
            anchor="2210-K",
        ),
        Instance(
            "negation",
            "embedding",
            "negation-001",
            "Does store 77-Q permit solvent drums?",
            "no",
            (neg_gold,),
            (aff_trap,),
            anchor="77-Q",
        ),
    ]
    docs = [boundary_doc, control_doc, neg_doc, aff_doc]
    return SimpleNamespace(documents=docs, instances=instances, n=1, seed=7)


@pytest.fixture(scope="module")
def stage_output(tmp_path_factory):
    """One run of the stage, read (never changed) by every test below."""
    return run_stage_once(tmp_path_factory.mktemp("ragaudit-home"), small_corpus(), MATRIX)


def test_one_record_per_instance_config_and_embedder_with_every_field(stage_output):
    out, _ = stage_output
    records = out["instances"]
    assert len(records) == 3 * 7 + 1 * 7
    assert len({r["key"] for r in records}) == len(records)
    for record in records:
        assert all(field in record for field in diagnostic_fields())
        assert record["key"] == "/".join(
            [record["probe"], record["instance_id"], record["config"], record["embedder"]]
        )
    primary = [r for r in records if r["embedder"] == "local:minilm"]
    assert all(r["retrieval_error"] is None for r in primary)
    counts = out["chunk_counts"]
    assert all(len(r["retrieved"]) == min(r["k"], counts[r["chunking"]]) for r in primary)
    for record in primary:  # every retrieved chunk is in the chunks map with its text
        for hit in record["retrieved"]:
            chunk = out["chunks"][hit["chunk_id"]]
            assert (chunk["start"], chunk["end"]) == (hit["start"], hit["end"])
            assert chunk["chunking"] == record["chunking"]


def test_the_planted_boundary_span_is_cut_by_fixed_and_kept_by_recursive(stage_output):
    out, _ = stage_output
    boundary = {
        r["config"]: r
        for r in out["instances"]
        if r["probe"] == "boundary" and r["embedder"] == "local:minilm"
    }
    assert boundary["A"]["span_preserved"] is False and boundary["A"]["gold_in_context"] is False
    assert all(boundary[c]["span_preserved"] for c in ("A_prime", "B", "C", "C_prime", "D", "M"))
    gain = next(
        c
        for c in out["comparisons"]
        if c["name"] == "A->A_prime"
        and c["probe"] == "boundary"
        and c["embedder"] == "local:minilm"
    )
    assert gain["gains"] == ["boundary-001"] and gain["gain_kinds"] == {
        "preservation": 1,
        "ranking": 0,
    }


def test_failed_embedding_calls_are_counted_marked_and_kept(stage_output):
    out, cache = stage_output
    failed = [r for r in out["instances"] if r["embedder"] == "ollama:mxbai-embed-large"]
    assert len(failed) == 7 and {r["probe"] for r in failed} == {"control"}
    for record in failed:
        assert record["retrieval_error"].startswith("embedding call failed")
        assert record["retrieved"] == [] and record["gold_in_context"] is None
        assert record["diagnostics_reason"]
    marked = {key for entry in out["failed_calls"] for key in entry["instance_keys"]}
    assert marked == {r["key"] for r in failed}
    assert all(entry["model"] == "ollama:mxbai-embed-large" for entry in out["failed_calls"])
    assert cache.stats_by_model()["ollama:mxbai-embed-large"]["failed"] > 0
    excluded = [c for c in out["comparisons"] if c["embedder"] == "ollama:mxbai-embed-large"]
    assert excluded and all(c["n"] == 0 and c["excluded"] == 1 for c in excluded)
    assert all(c["mcnemar_p"] is None and c["mcnemar_p_reason"] for c in excluded)


def test_every_documents_chunk_offsets_are_recorded_per_chunking(stage_output):
    # The inspector draws chunk boundaries from these; it never re-chunks the corpus.
    out, _ = stage_output
    offsets = out["chunk_offsets"]
    docs = small_corpus().documents
    assert set(offsets) == {"fixed-1000-0", "recursive-1000-0", "recursive-1000-200-carry_tail",
                            "recursive-512-128-carry_tail"}  # fmt: skip
    assert all(set(per_doc) == {d.doc_id for d in docs} for per_doc in offsets.values())
    # fixed 1000/0 tiles a document exactly: b-1 is longer than 1000 and shorter than 2000
    length = len(docs[0].text)
    assert 1000 < length < 2000
    assert offsets["fixed-1000-0"]["b-1"] == [[0, 1000], [1000, length]]
    for chunk in out["chunks"].values():  # the list index is the chunk's index
        assert offsets[chunk["chunking"]][chunk["doc_id"]][chunk["index"]] == [
            chunk["start"],
            chunk["end"],
        ]
