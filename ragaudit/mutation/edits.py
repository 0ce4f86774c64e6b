"""Edits of a document's text and where things land after them: every mutant is its
original text with some stretches replaced (an insertion replaces nothing), so the planted
text's spans, the answer's new offsets and the diff a person reads all follow from one list."""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Edit:
    """Replace `text[start:end]` of the original by `new` (start == end: an insertion)."""

    start: int
    end: int
    new: str
    role: str
    """What the planted text is: padding, revision, value, anchor, section, qualifier."""
    intent: str
    """The intent whose mutant planted it."""


@dataclass(frozen=True)
class Edited:
    """A document's text after its edits, and the spans of what was planted."""

    text: str
    planted: tuple[tuple[Edit, int, int], ...]
    """Each edit with the [start, end) of its new text in `text`."""
    _shifts: tuple[tuple[int, int, int], ...]
    """(original end of an edit, its original length, its new length), in text order."""

    def moved(self, offset: int) -> int:
        """Where an original offset outside every edited stretch lands in `text`."""
        delta = 0
        for end, old, new in self._shifts:
            if end <= offset:
                delta += new - old
        return offset + delta

    def moved_span(self, start: int, end: int) -> tuple[int, int]:
        """Where an original span lands: an insertion at its end stays after it."""
        delta = sum(new - old for stop, old, new in self._shifts if stop < end or stop <= start)
        return self.moved(start), end + delta


def overlapping(edits: Sequence[Edit]) -> tuple[Edit, Edit] | None:
    """The first two edits whose stretches overlap (two insertions at one offset do)."""
    ordered = sorted(edits, key=lambda e: (e.start, e.end))
    for first, second in zip(ordered, ordered[1:], strict=False):
        if second.start < first.end or (second.start == first.start == first.end):
            return first, second
    return None


def apply_edits(text: str, edits: Sequence[Edit]) -> Edited:
    """`text` with every edit applied (they must not overlap: see `overlapping`)."""
    ordered = sorted(edits, key=lambda e: (e.start, e.end))
    parts, planted, shifts, cursor, length = [], [], [], 0, 0
    for edit in ordered:
        parts.append(text[cursor : edit.start])
        length += edit.start - cursor
        planted.append((edit, length, length + len(edit.new)))
        parts.append(edit.new)
        length += len(edit.new)
        shifts.append((edit.end, edit.end - edit.start, len(edit.new)))
        cursor = edit.end
    parts.append(text[cursor:])
    return Edited("".join(parts), tuple(planted), tuple(shifts))


def unified_diff(doc_id: str, before: str, after: str, mutant_id: str) -> str:
    """The mutant against its original, line by line, as `diff -u` prints it."""
    lines = difflib.unified_diff(
        before.splitlines(keepends=True),
        after.splitlines(keepends=True),
        fromfile=doc_id,
        tofile=mutant_id,
        n=1,
    )
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines)
