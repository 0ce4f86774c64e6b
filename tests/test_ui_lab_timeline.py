"""The Lab draws what it changes: the chunk timeline of the chosen instance's documents under
the Lab's live chunking, redrawn as the setting changes, retrieved chunks marked by rank;
small multiples for "all instances".

The page tests stand a fake index in for the embedded one (a ranking that lists the
instance's answer document's chunks last-first), so they run in a second; chunking is the
real one over the committed corpus."""

from __future__ import annotations

import pytest
from helpers.ui_fixtures import chart_specs, open_app, texts

from ragaudit.documents import Document
from ragaudit.probes.base import Instance, Span
from ragaudit.stack.chunking import Chunking, chunk_corpus, chunk_document
from ragaudit.stack.diagnostics import ChunkingView
from ragaudit.stack.retrieval import Hit
from ragaudit.ui import lab_page
from ragaudit.ui.lab_engine import LabIndex, load_lab_corpus
from ragaudit.ui.lab_timeline import boundary_rows, instance_spans, lab_boxes

LANES = ("chunks (even)", "chunks (odd)")


def _hit(chunk, rank: int) -> Hit:
    return Hit(chunk.chunk_id, chunk.doc_id, rank, 1.0 / rank, None, None, chunk.start, chunk.end)


def _instance(doc_id: str, gold: tuple[int, int], header: tuple[int, int]) -> Instance:
    return Instance(
        probe="boundary",
        layer="architectural",
        instance_id="boundary-x",
        question="?",
        gold_answer="x",
        gold_spans=(Span(doc_id, *gold, "g", "gold"),),
        extra_spans=(Span(doc_id, *header, "h", "header"),),
        answer_doc_ids=(doc_id,),
    )


def test_the_boundary_table_shows_a_span_cut_then_held_whole_when_overlap_grows():
    doc = Document("d", "x" * 25)
    instance = _instance("d", gold=(8, 14), header=(0, 5))
    spans = instance_spans(instance, "d")
    # fixed 10/0 over 25 characters: 0-10, 10-20, 20-25; the gold 8-14 straddles 10.
    plain = chunk_document(doc, Chunking("fixed", 10, 0, "carry_tail"))
    rows = boundary_rows(lab_boxes(plain, [_hit(plain[2], 1)]), spans)
    assert [r["chars"] for r in rows] == ["0–10", "10–20", "20–25"]
    assert [r["cuts through"] for r in rows] == ["gold", "gold", "—"]
    assert [r["holds whole"] for r in rows] == ["header", "—", "—"]
    assert [r["retrieved"] for r in rows] == ["—", "—", "rank 1"]
    # fixed 10/4 slides by 6: 0-10, 6-16, 12-22, 18-25; 6-16 holds the gold whole.
    slid = chunk_document(doc, Chunking("fixed", 10, 4, "carry_tail"))
    rows = boundary_rows(lab_boxes(slid, [_hit(slid[1], 2), _hit(slid[3], 1)]), spans)
    assert [r["chars"] for r in rows] == ["0–10", "6–16", "12–22", "18–25"]
    assert [r["holds whole"] for r in rows] == ["header", "gold", "—", "—"]
    assert [r["cuts through"] for r in rows] == ["gold", "—", "gold", "—"]
    assert [r["retrieved"] for r in rows] == ["—", "rank 2", "—", "rank 1"]


class _LastFirst:
    """A stand-in retriever: the asking instance's answer document's chunks, last first."""

    def __init__(self, view: ChunkingView, questions: dict[str, str]) -> None:
        self.view, self.questions = view, questions

    def ranking(
        self, question: str, hybrid: bool, depth: int, query_embedding: object = None
    ) -> list[Hit]:
        chunks = self.view.by_doc[self.questions[question]][::-1][:depth]
        return [_hit(chunk, rank) for rank, chunk in enumerate(chunks, 1)]


def _fake_index(embedder_spec: str, chunking: Chunking, n: int | None = None) -> LabIndex:
    corpus = load_lab_corpus(n)
    chunks = chunk_corpus(corpus.documents, chunking)
    view = ChunkingView(chunking.name, chunks)
    questions = {i.question: i.answer_doc_ids[0] for i in corpus.instances if i.answer_doc_ids}
    by_id = {c.chunk_id: c for c in chunks}
    return LabIndex(embedder_spec, chunking.name, _LastFirst(view, questions), view, by_id, 0, 0)


@pytest.fixture
def lab(ragaudit_home, monkeypatch):
    """The Lab page over the committed corpus with the stand-in index (no results file)."""
    import streamlit as st

    monkeypatch.setattr(lab_page, "build_lab_index", _fake_index)
    st.cache_resource.clear()  # no real index from another test; ours never outlives this
    yield
    st.cache_resource.clear()


def _timelines(at) -> list[dict]:
    return [s for s in chart_specs(at) if any(t.get("y") == [LANES[0]] for t in s["data"])]


def _bars(figure: dict) -> list[tuple[int, int, str]]:
    """(start, end, label) of each chunk bar as the figure draws it."""
    chunks = [t for t in figure["data"] if t["y"][0] in LANES]
    return [(t["base"][0], t["base"][0] + t["x"][0], t["text"][0]) for t in chunks]


def _held_together(at, first: str, second: str) -> bool:
    """Some chunk row of the boundary table holds both roles whole."""
    (table,) = at.table
    return any(first in row and second in row for row in table.value["holds whole"])


def test_the_timeline_redraws_as_the_overlap_changes_and_marks_ranks(lab):
    at = open_app(page="pages/lab.py", probe="boundary", instance="boundary-000")
    assert not at.exception, at.exception
    (plain,) = _timelines(at)
    before = _bars(plain)
    # boundary-000 under recursive 1000/0 is 0-37 (its header), 39-1031, 1033-1400; the
    # stand-in ranks them last first, so k=3 marks all three, k=1 only the last.
    assert before == [
        (0, 37, "#0 · rank 3"),
        (39, 1031, "#1 · rank 2"),
        (1033, 1400, "#2 · rank 1"),
    ]
    at.slider(key="lab_k").set_value(1).run()
    assert [label for *_, label in _bars(_timelines(at)[0])] == ["#0", "#1", "#2 · rank 1"]
    assert not _held_together(at, "gold", "header")  # no overlap: the header is stranded
    at.selectbox(key="lab_overlap").set_value(200).run()
    (carried,) = _timelines(at)
    after = _bars(carried)
    assert "recursive-1000-200-carry_tail" in carried["layout"]["title"]["text"]
    # carry_tail prefixes each overlap-0 chunk with at most 200 characters of the one before:
    # the same ends, every later start moved back by 1 to 200 characters.
    assert [end for _, end, _ in after] == [end for _, end, _ in before]
    assert after[0][0] == before[0][0]
    assert all(0 < b[0] - a[0] <= 200 for a, b in zip(after[1:], before[1:], strict=True))
    # The 71-80-character class: its header paragraph travels whole into the answer's chunk.
    assert _held_together(at, "gold", "header")


def _multiples(at) -> dict[str, list[tuple[int, int, str]]]:
    """Each small multiple's title -> its chunk bars, from the one grid figure."""
    (grid,) = [
        s for s in chart_specs(at) if "xaxis2" in s["layout"] or "annotations" in s["layout"]
    ]
    titles = [
        a["text"].removeprefix("<b>").removesuffix("</b>") for a in grid["layout"]["annotations"]
    ]
    axes = ["x"] + [f"x{i}" for i in range(2, len(titles) + 1)]
    bars = {axis: [] for axis in axes}
    for trace in grid["data"]:
        if trace["y"][0] in LANES:
            bars[trace["xaxis"]].append(
                (trace["base"][0], trace["base"][0] + trace["x"][0], trace["text"][0])
            )
    return dict(zip(titles, (bars[axis] for axis in axes), strict=True))


def test_all_instances_draws_one_small_timeline_per_instance(lab):
    at = open_app(page="pages/lab.py", probe="boundary")
    assert not at.exception, at.exception
    corpus_n = load_lab_corpus().n
    multiples = _multiples(at)
    # One per instance, each over its own document, in corpus order.
    assert list(multiples) == [f"boundary-{i:03d}" for i in range(corpus_n)]
    # boundary-000 as in the single view: the stand-in's last-first ranks at k=3.
    assert multiples["boundary-000"] == [
        (0, 37, "#0 · rank 3"),
        (39, 1031, "#1 · rank 2"),
        (1033, 1400, "#2 · rank 1"),
    ]
    assert "Every instance's first document under `recursive-1000-0`**, k=3" in texts(at)
    at.selectbox(key="lab_size").set_value(256).run()
    multiples = _multiples(at)
    assert len(multiples) == corpus_n
    # Smaller chunks: boundary-000's 1,400 characters in more than 1400/256 pieces.
    assert len(multiples["boundary-000"]) >= 6
    assert "Every instance's first document under `recursive-256-0`" in texts(at)


def test_an_instance_over_five_documents_draws_three_and_says_so(lab):
    at = open_app(page="pages/lab.py", probe="summarisation", instance="summarisation-000")
    assert not at.exception, at.exception
    titles = [s["layout"]["title"]["text"] for s in _timelines(at)]
    assert titles == [f"summarisation-000-{i} · recursive-1000-0" for i in (1, 2, 3)]
    assert "Documents of this instance drawn: 60% 3/5." in texts(at)
    at.selectbox(key="lab_instance").set_value("all instances").run()
    corpus_n = load_lab_corpus().n
    share = f"100% {corpus_n}/{corpus_n}"  # every summarisation question names five documents
    assert f"Instances with more documents than the one drawn: {share}" in texts(at)
