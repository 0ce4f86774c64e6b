"""The locator's search for the documents holding a context's text (one search of the
documents joined by a NUL, userpipeline.contexts): the same places, in the documents'
order, as asking each document; a text that would only match across the end of one
document and the start of the next matches none. Offsets are counted by hand."""

from __future__ import annotations

from dataclasses import dataclass

from ragaudit.targets.pipeline.answer import Context
from ragaudit.targets.pipeline.contexts import ContextLocator


@dataclass(frozen=True)
class Doc:
    doc_id: str
    text: str


DOCS = [
    Doc("a", "the tide table: high water at six"),
    Doc("b", "notes. the tide table: high water at six"),
    Doc("c", "high water at six; the tide table: high water at six"),
]


def place(chunk) -> tuple:
    return (chunk.doc_id, chunk.start, chunk.end, chunk.span_exact)


def test_a_text_in_three_documents_is_placed_in_each_in_turn():
    locator = ContextLocator(DOCS, "p")
    text = "the tide table: high water at six"
    placed = locator.locate_all([Context(text)] * 4)
    # a 0-33; b 7-40; c 19-52 (its first "the tide table" is at 19); then a again
    assert [place(c) for c in placed] == [
        ("a", 0, 33, False), ("b", 7, 40, False), ("c", 19, 52, False), ("a", 0, 33, False),
    ]  # fmt: skip


def test_a_text_held_once_is_exact_and_one_across_documents_matches_none():
    locator = ContextLocator(DOCS, "p")
    assert place(locator.locate(Context("notes. the tide"))) == ("b", 0, 15, True)
    assert place(locator.locate(Context("six; the tide"))) == ("c", 14, 27, True)
    # "at six" ends a and "notes." starts b: joined they would read "at sixnotes."
    assert locator.locate(Context("at sixnotes.")) is None
    assert locator.locate(Context("at six\x00notes.")) is None
