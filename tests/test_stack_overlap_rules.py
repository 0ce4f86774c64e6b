"""The two overlap rules on the committed corpus (issue 12): carry_tail's spans are exact,
it carries the header into the answer's chunk exactly for the shortest boundary spans, and
it changes every multi-chunk document, which LangChain's rule did not."""

from __future__ import annotations

from dataclasses import replace

import pytest

from ragaudit.auditing.chunks import base_chunks
from ragaudit.auditing.settings import AuditSettings
from ragaudit.cli.corpus import format_stats
from ragaudit.cli.main import main
from ragaudit.corpus.files import load_planted_corpus
from ragaudit.corpus.stats import boundary_stats, instrument_stats
from ragaudit.documents import Document as AuditDocument
from ragaudit.results.view import chunking_of
from ragaudit.stack.chunking import Chunking, chunk_corpus
from ragaudit.stack.configs import A_PRIME, MATRIX_CHUNKINGS, TABLE_SPLIT_WIDE, B
from ragaudit.stack.diagnostics import ChunkingView

B_NAME = "recursive-1000-200-carry_tail"
LANGCHAIN_1000 = Chunking("recursive", 1000, 200, "langchain")
# Every chunking a run cuts, the 4000 one, and each overlap under LangChain's rule too.
EVERY_CHUNKING = [
    *MATRIX_CHUNKINGS,
    TABLE_SPLIT_WIDE,
    LANGCHAIN_1000,
    Chunking("recursive", 512, 128, "langchain"),
]


@pytest.fixture(scope="module")
def corpus():
    return load_planted_corpus()


@pytest.mark.parametrize("chunking", EVERY_CHUNKING, ids=lambda c: c.name)
def test_spans_are_exact_on_every_corpus_document(corpus, chunking):
    documents = {d.doc_id: d for d in corpus.documents}
    chunks = chunk_corpus(corpus.documents, chunking)
    assert {c.doc_id for c in chunks} == set(documents)  # every document, none skipped
    for chunk in chunks:
        assert documents[chunk.doc_id].text[chunk.start : chunk.end] == chunk.text
        assert chunk.text == chunk.text.strip() or chunking.splitter == "fixed"


@pytest.mark.parametrize("chunking", [c for c in EVERY_CHUNKING if c.overlap_rule == "carry_tail"
                                      and c.overlap and c.splitter == "recursive"],
                         ids=lambda c: c.name)  # fmt: skip
def test_carry_tail_is_the_overlap_0_chunk_behind_a_tail_of_the_one_before(corpus, chunking):
    plain = chunk_corpus(corpus.documents, replace(chunking, overlap=0))
    carried = chunk_corpus(corpus.documents, chunking)
    assert [(c.doc_id, c.end) for c in carried] == [(c.doc_id, c.end) for c in plain]
    for index, chunk in enumerate(carried):
        own = plain[index]
        assert chunk.start <= own.start and chunk.text.endswith(own.text)
        if own.index == 0:
            assert chunk.start == own.start  # a document's first chunk carries nothing
            continue
        previous = plain[index - 1]
        tail = chunk.text[: previous.end - chunk.start]
        # The carried text is the previous chunk's tail, at most `overlap` characters of it,
        # and begins cleanly (after a separator, never on whitespace).
        assert previous.text.endswith(tail) and 0 < len(tail) <= chunking.overlap
        assert not tail[0].isspace()
        assert len(previous.text) <= chunking.overlap or tail != previous.text


def test_b_carries_the_header_into_the_answer_chunk_exactly_for_the_shortest_spans(corpus):
    views = {
        c.name: ChunkingView(c.name, chunk_corpus(corpus.documents, c))
        for c in (A_PRIME.chunking, B.chunking, LANGCHAIN_1000)
    }
    stats = boundary_stats(corpus, views)["chunkings"]
    by_class = {
        name: {k: (v["count"], v["n"]) for k, v in row["header_by_length_class"].items()}
        for name, row in stats.items()
    }
    # The study: 0/25 without overlap, 7/25 with 200, exactly the 71-80-character spans
    # (7/6/6/6 instances per class in 25).
    assert stats[B_NAME]["header_in_answer_chunk"] == 7
    assert by_class[B_NAME] == {"71-80": (7, 7), "141": (0, 6), "261": (0, 6), "421": (0, 6)}
    assert stats["recursive-1000-0"]["header_in_answer_chunk"] == 0
    # LangChain's merge never reaches across the blank line after the header.
    assert stats["recursive-1000-200-langchain"]["header_in_answer_chunk"] == 0
    assert all(row["span_preserved"] == 25 for row in stats.values())


def test_b_changes_every_multi_chunk_document_and_keeps_the_chunk_count(corpus):
    plain = chunk_corpus(corpus.documents, A_PRIME.chunking)
    carried = chunk_corpus(corpus.documents, B.chunking)
    assert len(carried) == len(plain)
    multi = {c.doc_id for c in plain if c.index > 0}
    assert multi, "the corpus has documents of more than one chunk"
    for doc_id in multi:
        before = [c.text for c in plain if c.doc_id == doc_id]
        after = [c.text for c in carried if c.doc_id == doc_id]
        assert after[0] == before[0]  # the first chunk has nothing to carry
        # Every later chunk ends where it did and begins with carried text.
        assert all(a != b and a.endswith(b) for a, b in zip(after[1:], before[1:], strict=True))


def test_corpus_stats_print_both_rules_side_by_side(corpus):
    lines = format_stats(instrument_stats(corpus))
    rows = {line.split()[0]: line for line in lines if line.startswith("  recursive-")}
    b_row = next(line for line in lines if line.startswith(f"  {B_NAME} ") and "cut" in line)
    assert b_row.endswith("header in answer chunk 7/25 (71-80 7/7, 141 0/6, 261 0/6, 421 0/6)")
    assert "header in answer chunk 0/25" in rows["recursive-1000-0"]
    langchain = [line for line in lines if line.startswith("  recursive-1000-200-langchain ")]
    assert len(langchain) == 2 and "header in answer chunk 0/25" in langchain[0]
    changed = next(line for line in lines if line.startswith(f"  {B_NAME} ") and " vs " in line)
    multi = len({c.doc_id for c in chunk_corpus(corpus.documents, A_PRIME.chunking) if c.index})
    assert f"vs recursive-1000-0: {multi}/{multi} documents of more than one chunk" in changed


def test_a_results_config_names_its_chunking_with_its_rule():
    record = {"splitter": "recursive", "chunk_size": 1000, "overlap": 200}
    assert chunking_of({**record, "overlap_rule": "carry_tail"}) == B_NAME
    assert chunking_of({**record, "overlap_rule": "langchain"}) == "recursive-1000-200-langchain"
    # A file written before overlap rules: its chunk ids carry no rule.
    assert chunking_of(record) == "recursive-1000-200"
    assert chunking_of(B.to_json()) == B.chunking_name


def test_the_audits_chunking_picks_the_rule_carry_tail_by_default():
    text = "Pump log\n\nThe pump ran. It stopped at noon. Then it ran again.\n\nDone."
    doc = AuditDocument(doc_id="d", text=text, source_type=None)
    default = AuditSettings(chunk_size=40, overlap=25, k=1)
    langchain = AuditSettings(chunk_size=40, overlap=25, k=1, overlap_rule="langchain")
    assert default.chunking_name() == "recursive-40-25-carry_tail"
    assert langchain.chunking_name() == "recursive-40-25-langchain"
    carried = [c.text for c in base_chunks(doc, default, default.chunking_name())]
    assert carried[1] == "Pump log\n\nThe pump ran. It stopped at noon."  # the header travels
    merged = [c.text for c in base_chunks(doc, langchain, langchain.chunking_name())]
    assert merged[1] == "The pump ran. It stopped at noon."  # across "\n\n" nothing is carried


def test_drift_names_a_different_overlap_rule(tmp_path, capsys):
    prod, test = tmp_path / "prod.yaml", tmp_path / "eval.yaml"
    prod.write_text("overlap: 200\n")
    test.write_text("overlap: 200\noverlap_rule: langchain\n")
    assert main(["drift", str(prod), str(test)]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "drift: prod.yaml vs eval.yaml: 1 of 20 retrieval constants differ"
    (line,) = [line for line in lines if line.strip().startswith("overlap_rule:")]
    assert "prod.yaml carry_tail (default), eval.yaml langchain" in line
