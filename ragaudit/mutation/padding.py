"""Finding how much padding the user's own splitter needs: candidate paddings of growing
length are inserted and the document is cut by that splitter each time, until the cut the
operator wants appears. The amount is measured, never assumed from a chunk size."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

from ragaudit.documents import Document
from ragaudit.mutation.operator import Splitter

MAX_PADDING_WORDS = 1500
"""The longest padding tried, in words (a chunk of several thousand characters)."""


def cuts(chunks: Sequence[tuple[int, int]], start: int, end: int) -> bool:
    """Some chunk boundary falls strictly inside [start, end): the splitter cuts it."""
    return any(start < b < end for chunk in chunks for b in chunk)


def together(chunks: Sequence[tuple[int, int]], spans: Sequence[tuple[int, int]]) -> bool:
    """One chunk holds every span whole."""
    return any(all(s >= a and e <= b for s, e in spans) for a, b in chunks)


def search(
    doc: Document,
    at: int,
    pieces: Sequence[str],
    wanted: Callable[[list[tuple[int, int]], int], bool],
    splitter: Splitter,
    joiner: str = " ",
) -> tuple[str, list[tuple[int, int]]] | None:
    """The shortest padding made of the first n `pieces` (joined, then `joiner`) that,
    inserted at `at`, makes `wanted(chunks, len(padding))` true for the splitter's chunks
    of the padded document; None when none up to MAX_PADDING_WORDS does."""
    words = 0
    for n in range(1, len(pieces) + 1):
        words += len(pieces[n - 1].split())
        if words > MAX_PADDING_WORDS:
            return None
        padding = joiner.join(pieces[:n]) + joiner
        text = doc.text[:at] + padding + doc.text[at:]
        chunks = splitter(replace(doc, text=text))
        if wanted(chunks, len(padding)):
            return padding, chunks
    return None
