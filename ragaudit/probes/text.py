"""Composing documents whose planted spans are known by construction, and exact-length text."""

from __future__ import annotations

import random
from collections.abc import Sequence

from ragaudit.documents import Document
from ragaudit.errors import RagauditError
from ragaudit.probes.base import Span


class Planted:
    """A sentence to plant in a paragraph and record as a span with `role`."""

    def __init__(self, text: str, role: str) -> None:
        self.text = text
        self.role = role


class DocWriter:
    """Builds one document paragraph by paragraph, recording planted spans' offsets.

    Paragraphs are joined by a blank line; sentences inside a paragraph by one space.
    Offsets come from the writer's own bookkeeping, never from searching the text.
    """

    def __init__(self, doc_id: str) -> None:
        self.doc_id = doc_id
        self._parts: list[str] = []
        self._length = 0
        self.spans: list[Span] = []

    def _append(self, text: str) -> int:
        start = self._length
        self._parts.append(text)
        self._length += len(text)
        return start

    @property
    def length(self) -> int:
        """Characters written so far."""
        return self._length

    def paragraph(self, sentences: Sequence[str | Planted]) -> list[Span]:
        """Add a paragraph; return the spans of its planted sentences, in order."""
        return self._block(sentences, joiner=" ")

    def lines(self, rows: Sequence[str | Planted]) -> list[Span]:
        """Add a block of lines (a table): one newline between rows, planted rows recorded."""
        return self._block(rows, joiner="\n")

    def _block(self, pieces: Sequence[str | Planted], joiner: str) -> list[Span]:
        """A block after a blank line, its pieces joined by `joiner`; planted ones recorded."""
        if self._parts:
            self._append("\n\n")
        planted = []
        for i, piece in enumerate(pieces):
            if i:
                self._append(joiner)
            text = piece.text if isinstance(piece, Planted) else piece
            start = self._append(text)
            if isinstance(piece, Planted):
                span = Span(self.doc_id, start, start + len(text), text, piece.role)
                self.spans.append(span)
                planted.append(span)
        return planted

    def build(self, metadata: dict) -> Document:
        """The finished document; every recorded span is checked against the text."""
        text = "".join(self._parts)
        for span in self.spans:
            if text[span.start : span.end] != span.text:
                raise AssertionError(f"span {span.role} of {self.doc_id} is misplaced")
        return Document(self.doc_id, text, dict(metadata))


TAILS: tuple[str, ...] = (
    "now",
    "here",
    "daily",
    "fully",
    "safely",
    "weekly",
    "at once",
    "as usual",
    "in full",
    "each time",
    "on request",
    "as agreed",
    "without delay",
    "in good order",
    "where practical",
    "at the same time",
    "for the record",
    "by the shift lead",
    "under supervision",
    "as planned",
    "with care",
    "on site",
    "in writing",
    "by hand",
    "on the day",
    "at all times",
    "if needed",
    "for safety",
    "on each visit",
    "in daylight",
    "with a witness",
)
"""Short closing phrases used to land a sentence on an exact length."""


def fit_sentence(
    rng: random.Random,
    core: str,
    clauses: Sequence[str],
    target: int,
    end: str = ".",
    tries: int = 200,
) -> str:
    """`core` extended with clauses and closing phrases to exactly `target` characters.

    The result is ``core + ", clause" ... + " tail" ... + end``; nothing added contains a
    sentence terminator, so the sentence stays one sentence. Deterministic given `rng`.
    """
    for _ in range(tries):
        text = core
        pool = list(clauses)
        rng.shuffle(pool)
        for clause in pool:
            left = target - len(end) - len(text) - 2 - len(clause)
            # Leave either nothing or room for at least one closing phrase.
            if left == 0 or left >= 8:
                text += ", " + clause
        gap = target - len(end) - len(text)
        closing = _exact_tails(rng, gap)
        if closing is not None:
            return text + closing + end
    raise RagauditError(f"cannot fit a sentence of {target} characters around {core!r}")


def _exact_tails(rng: random.Random, gap: int) -> str | None:
    """Up to three different ' tail' phrases totalling exactly `gap` characters, or None."""
    if gap == 0:
        return ""
    options: list[tuple[str, ...]] = [(a,) for a in TAILS if len(a) + 1 == gap]
    if not options:
        options = [(a, b) for a in TAILS for b in TAILS if a < b and len(a) + len(b) + 2 == gap]
    if not options:
        options = [
            (a, b, c)
            for a in TAILS
            for b in TAILS
            for c in TAILS
            if a < b < c and len(a) + len(b) + len(c) + 3 == gap
        ]
    if not options:
        return None
    chosen = list(rng.choice(options))
    rng.shuffle(chosen)
    return "".join(" " + tail for tail in chosen)
