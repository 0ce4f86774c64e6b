"""The Instance page's planted diff (issue 27): the pure function that builds it from a
mutation audit's results file, checked on a hand-built file whose HTML is worked out by
hand (no Streamlit, no model)."""

from __future__ import annotations

from ragaudit.ui.planted_diff import planted_view

MUTANT_DOC = "policy~supersede"
TEXT = "abc NEW def"
"""The mutant document: 'NEW' (chars 4-7) planted, the gold sentence 'NEW def' (4-11)."""


def results() -> dict:
    return {
        "chunk_offsets": {"ch": {MUTANT_DOC: [[0, 6], [6, 11]], "policy": [[0, 11]]}},
        "chunks": {},
        "mutation": {
            "mutants": [
                {"mutant": "control/x", "operator": "control", "status": "control"},
                {
                    "mutant": "supersede/x", "operator": "supersede", "status": "survived",
                    "rule": "value shifted", "mutant_doc_id": MUTANT_DOC, "mutant_text": TEXT,
                    "planted": [{"doc_id": MUTANT_DOC, "start": 4, "end": 7, "text": "NEW",
                                 "role": "value"}],
                    "diff": "--- policy\n+++ policy~supersede\n-abc OLD def\n+abc NEW def\n",
                    "validity": [{"check": "planted_where_recorded", "passed": True,
                                  "detail": "ok"}],
                    "removed": [],
                },
                {
                    "mutant": "remove_answer/x", "operator": "remove_answer",
                    "status": "survived", "rule": "1 document removed", "mutant_doc_id": None,
                    "mutant_text": None, "planted": [], "diff": "", "validity": [],
                    "removed": ["policy"],
                },
            ]
        },
    }  # fmt: skip


def record(mutant: str) -> dict:
    return {
        "meta": {"mutant": mutant},
        "chunking": "ch",
        "retrieved": [{"doc_id": MUTANT_DOC, "chunk_id": "c1", "start": 6, "end": 11, "rank": 1}],
        "gold_spans": [
            {"doc_id": MUTANT_DOC, "start": 4, "end": 11, "text": "NEW def", "role": "gold"}
        ],
        "trap_spans": [{"doc_id": "policy", "start": 4, "end": 7, "text": "OLD", "role": "trap"}],
    }


def test_planted_text_is_drawn_over_the_mutants_recorded_chunk_boundaries():
    view = planted_view(results(), record("supersede/x"))
    assert (view.operator, view.doc_id, view.text, view.rule) == (
        "supersede", MUTANT_DOC, TEXT, "value shifted")  # fmt: skip
    assert [(b.index, b.start, b.end, b.rank) for b in view.boxes] == [
        (0, 0, 6, None), (1, 6, 11, 1)]  # fmt: skip
    # the planted span first (it colours what it covers), then the record's own spans in
    # this document; the trap in the original is not drawn here
    assert [(s["role"], s["start"], s["end"]) for s in view.spans] == [
        ("planted", 4, 7), ("gold", 4, 11)]  # fmt: skip
    assert view.spans[0]["what"] == "value"
    # by hand: 'abc ' plain in chunk 0; 'NE' planted (purple); chunk 0 ends and chunk 1
    # (retrieved at rank 1) starts inside the planted 'NEW'; 'W' planted; ' def' gold
    body = view.html.split('<div class="ra-doc">', 1)[1]
    assert body == (
        '<span class="ra-edge ra-start">⟨0</span>abc '
        '<span style="background:#c58af9">NE</span>'
        '<span class="ra-edge">⟩0</span><span class="ra-edge ra-start">⟨1 r1</span>'
        '<span style="background:#c58af9">W</span>'
        '<span style="background:#f9d648"> def</span>'
        '<span class="ra-edge">⟩1</span></div>'
    )
    assert view.diff.endswith("+abc NEW def\n") and view.validity[0]["passed"]


def test_a_removal_shows_what_was_removed_and_other_records_show_nothing():
    removal = planted_view(results(), record("remove_answer/x"))
    assert removal.removed == ["policy"] and removal.doc_id is None and removal.html is None
    assert planted_view(results(), record("control/x")) is None
    assert planted_view({"instances": []}, record("supersede/x")) is None  # not a mutate file
    assert planted_view(results(), {"meta": {}}) is None
