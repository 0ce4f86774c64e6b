"""The issue's model-free acceptance on the committed corpus (n=25 per probe): what the
chunkings do to the planted spans, checked without any embedder."""

from __future__ import annotations

import pytest

from ragaudit.corpus.files import load_planted_corpus
from ragaudit.runner.retrieve import table_split_wide
from ragaudit.stack.chunking import Chunking, chunk_corpus
from ragaudit.stack.configs import MATRIX
from ragaudit.stack.diagnostics import ChunkingView, spans_with_role, table_together


@pytest.fixture(scope="module")
def corpus():
    return load_planted_corpus()


@pytest.fixture(scope="module")
def views(corpus):
    names = {c.chunking_name: c for c in MATRIX}
    return {
        name: ChunkingView(
            name, chunk_corpus(corpus.documents, Chunking(c.splitter, c.chunk_size, c.overlap))
        )
        for name, c in names.items()
    }


def probe(corpus, name):
    instances = [i for i in corpus.instances if i.probe == name]
    assert len(instances) == 25, f"{name}: expected 25 instances, found {len(instances)}"
    return instances


def test_boundary_span_cut_under_A_and_whole_under_A_prime(corpus, views):
    boundary = probe(corpus, "boundary")
    preserved = {
        name: sum(all(views[name].preserved(s) for s in i.gold_spans) for i in boundary)
        for name in ("fixed-1000-0", "recursive-1000-0")
    }
    assert preserved == {"fixed-1000-0": 0, "recursive-1000-0": 25}


def test_header_never_in_the_answers_chunk_at_zero_overlap(corpus, views):
    boundary = probe(corpus, "boundary")
    assert all(spans_with_role(i, "header") for i in boundary)
    for name in ("fixed-1000-0", "recursive-1000-0"):
        together = sum(
            all(
                views[name].together(g, h)
                for g in i.gold_spans
                for h in spans_with_role(i, "header")
            )
            for i in boundary
        )
        assert together == 0, name


def test_table_header_and_row_apart_in_the_matrix_and_together_at_4000(corpus, views):
    tables = probe(corpus, "table_split")
    for name, view in views.items():
        assert [table_together(i, view) for i in tables] == [False] * 25, name
    wide = table_split_wide(corpus)
    assert wide["chunking"] == "recursive-4000-0"
    assert wide["table_together"] == {"count": 25, "n": 25}


def test_summarisation_cannot_have_all_five_items_at_k3(corpus, views):
    # Each chunk lies in one document; items in five documents need five chunks, so no
    # k=3 config can hold all five, whatever the embedder ranks first.
    summaries = probe(corpus, "summarisation")
    k3 = {c.chunking_name for c in MATRIX if c.k == 3}
    for instance in summaries:
        items = spans_with_role(instance, "item") or list(instance.gold_spans)
        assert len(items) == 5
        for name in k3:
            holding = [views[name].holding(item) for item in items]
            assert all(holding), (instance.instance_id, name)
            assert len({chunks[0].doc_id for chunks in holding}) > 3
