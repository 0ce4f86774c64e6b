"""Model-free diagnostics from spans and chunk spans, on hand-made chunks and rankings."""

from __future__ import annotations

from ragaudit.probes.base import Instance, Span
from ragaudit.stack.chunking import Chunk
from ragaudit.stack.diagnostics import ChunkingView, anchor_summary, diagnose, span_in
from ragaudit.stack.retrieval import Hit


def chunk(doc: str, index: int, start: int, end: int) -> Chunk:
    return Chunk(f"t/{doc}#{index}", doc, index, start, end, "x" * (end - start))


def ranking(*chunks: Chunk, scores: list[float] | None = None) -> list[Hit]:
    scores = scores or [1.0 - 0.1 * i for i in range(len(chunks))]
    return [
        Hit(c.chunk_id, c.doc_id, i + 1, s, s, None, c.start, c.end)
        for i, (c, s) in enumerate(zip(chunks, scores, strict=True))
    ]


def instance(probe: str, gold, traps=(), extra=(), anchor=None) -> Instance:
    return Instance(
        probe,
        "architectural",
        f"{probe}-001",
        "q?",
        "v",
        tuple(gold),
        tuple(traps),
        tuple(extra),
        anchor=anchor,
    )


def test_a_span_is_in_a_chunk_only_when_whole_and_in_the_same_document():
    c = chunk("d", 0, 100, 200)
    assert span_in(Span("d", 100, 200, ""), c)
    assert not span_in(Span("d", 99, 150, ""), c)
    assert not span_in(Span("d", 150, 201, ""), c)
    assert not span_in(Span("e", 120, 130, ""), c)


def test_a_cut_gold_span_is_neither_preserved_nor_in_context():
    chunks = [chunk("d", 0, 0, 1000), chunk("d", 1, 1000, 1500), chunk("h", 0, 0, 900)]
    gold = Span("d", 950, 1040, "g")
    header = Span("d", 0, 30, "h", role="header")
    view = ChunkingView("t", chunks)
    by_id = {c.chunk_id: c for c in chunks}
    out = diagnose(instance("boundary", [gold], extra=[header]), view, ranking(*chunks), 3, by_id)
    assert out["span_preserved"] is False and out["gold_in_context"] is False
    assert out["gold_rank"] is None and out["header_in_answer_chunk"] is False
    whole = Span("d", 900, 990, "g")
    out = diagnose(instance("boundary", [whole], extra=[header]), view, ranking(*chunks), 3, by_id)
    assert out["span_preserved"] and out["gold_in_context"] and out["gold_rank"] == 1
    assert out["header_in_answer_chunk"] is True


def test_gold_ranked_beyond_k_is_ranked_but_not_in_context_and_margin_is_gold_minus_trap():
    chunks = [chunk(f"d{i}", 0, 0, 500) for i in range(5)]
    by_id = {c.chunk_id: c for c in chunks}
    gold, trap = Span("d4", 10, 50, "g"), Span("d1", 10, 50, "t", role="trap")
    ranked = ranking(*chunks, scores=[0.9, 0.8, 0.7, 0.6, 0.5])
    out = diagnose(
        instance("distractor", [gold], [trap]), ChunkingView("t", chunks), ranked, 3, by_id
    )
    assert out["gold_in_context"] is False and out["gold_rank"] == 5
    assert out["trap_rank"] == 2 and abs(out["margin"] - (0.5 - 0.8)) < 1e-9


def test_negation_ordering_and_summarisation_items():
    chunks = [chunk(f"d{i}", 0, 0, 500) for i in range(6)]
    by_id = {c.chunk_id: c for c in chunks}
    view = ChunkingView("t", chunks)
    negated, affirmative = Span("d2", 0, 10, "n"), Span("d0", 0, 10, "a", role="trap")
    neg = instance("negation", [negated], [affirmative])
    assert diagnose(neg, view, ranking(*chunks), 3, by_id)["affirmative_first"] is True
    reordered = ranking(chunks[2], chunks[0], *chunks[3:])
    assert diagnose(neg, view, reordered, 3, by_id)["affirmative_first"] is False
    neither = ranking(*chunks[3:])
    assert diagnose(neg, view, neither, 3, by_id)["affirmative_first"] is None
    items = [Span(f"d{i}", 0, 10, f"i{i}", role="item") for i in range(5)]
    summary = instance("summarisation", items)
    out = diagnose(summary, view, ranking(*chunks), 3, by_id)
    assert out["items_in_context"] == 3 and out["gold_in_context"] is False
    assert diagnose(summary, view, ranking(*chunks), 5, by_id)["gold_in_context"] is True


def test_table_together_hops_and_anchor_selectivity():
    chunks = [
        Chunk("t/d#0", "d", 0, 0, 400, "Table ZONE-9 header"),
        Chunk("t/d#1", "d", 1, 400, 800, "row for zone-9"),
        # Not the anchor: it runs on into other digits or letters.
        Chunk("t/e#0", "e", 0, 0, 300, "zone-90 and xzone-9 are other zones"),
    ]
    by_id = {c.chunk_id: c for c in chunks}
    view = ChunkingView("t", chunks)
    header, row = (
        Span("d", 0, 20, "h", role="table_header"),
        Span("d", 450, 480, "r", role="table_row"),
    )
    table = instance("table_split", [row], extra=[header], anchor="zone-9")
    out = diagnose(table, view, ranking(*chunks), 3, by_id)
    assert out["table_together"] is False and out["anchor_selectivity"] == 2
    mapping, answer = Span("d", 10, 30, "m", role="mapping"), Span("e", 5, 20, "a", role="answer")
    hop = instance("multihop", [answer], extra=[mapping])
    out = diagnose(hop, view, ranking(chunks[2], chunks[1], chunks[0]), 2, by_id)
    assert out["hops"] == {"mapping": False, "answer": True}
    assert out["table_together"] is None and out["affirmative_first"] is None


def test_anchor_summary_counts_questions_and_probes_whose_anchor_sits_in_one_chunk():
    chunks = [
        Chunk("t/a#0", "a", 0, 0, 50, "Section 12-A applies here."),
        Chunk("t/b#0", "b", 0, 0, 50, "See section 12-A and team 7."),
        Chunk("t/c#0", "c", 0, 0, 50, "Store Q9 only."),
    ]
    view = ChunkingView("t", chunks)
    gold = [Span("a", 0, 5, "x")]
    questions = [
        instance("control", gold, anchor="section 12-A"),  # 2 chunks
        instance("multihop", gold, anchor="team 7"),  # 1
        instance("negation", gold, anchor="store q9"),  # 1 (case-insensitive)
        instance("paraphrase", gold),  # no anchor: not counted
    ]
    summary = anchor_summary(questions, view)
    assert summary == {
        "chunking": "t",
        "chunks": 3,
        "min": 1,
        "median": 1,
        "max": 2,
        "single_chunk": 2,
        "single_chunk_probes": ["multihop", "negation"],
        "questions": 3,
    }
    empty = anchor_summary(questions[3:], view)
    assert empty["questions"] == 0 and empty["reason"] == "no question carries an anchor"
