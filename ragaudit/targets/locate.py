"""Where a user's splitter's chunks sit in their document: exact spans, never a first match.

A library hands back chunk texts (and sometimes offsets it found itself with ``str.find``
from a cursor, which lands on the wrong copy of text that repeats). Locating them is an
alignment of the whole sequence, not one chunk at a time:

* a chunk's candidate places are where its text occurs verbatim (``exact``) after the
  previous chunk's start: every place overlapping the previous chunk and the first one
  past its end. A chunk whose text occurs nowhere gets the places where it occurs once case
  and runs of whitespace are ignored (``approximate``);
* of all such sequences the one chosen leaves the least of the document's non-whitespace
  text uncovered (what a splitter that rewrites nothing does), then agrees most with the
  library's own offsets, then starts earliest. A chunk found only before the previous one
  (a hierarchical parser's next level) starts again from its first place, at a cost;
* a chunk with no candidate at all (a splitter that rewrote it) is aligned with difflib
  (over words) between its located neighbours and marked approximate.

``locate_chunks`` returns one ``Placement`` per chunk; ``exact`` means
``text[start:end] == chunk`` and was checked.
"""

from __future__ import annotations

import difflib
import re
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass, replace
from itertools import accumulate

MAX_STATES = 128
"""Places kept open per chunk while aligning. Only a document that repeats one chunk's text
hundreds of times needs more; there, whichever copy is chosen is still the chunk's text."""
_TOKEN = re.compile(r"\w+|[^\w\s]")
"""A word or one punctuation mark: what a rewritten chunk is aligned on."""
_MIN_TOKENS = 2
_MIN_CHARACTERS = 3
"""Shortest difflib matching blocks taken as evidence of where a rewritten chunk sits."""


@dataclass(frozen=True)
class Placement:
    """One chunk's span in its document and whether ``text[start:end]`` is the chunk."""

    start: int
    end: int
    exact: bool


Cost = tuple[int, int, int, int]
"""(steps back, uncovered non-whitespace characters, disagreements with the library's
offsets, sum of starts): compared as tuples, each part added step by step."""


def locate_chunks(
    text: str, chunks: Sequence[str], offsets: Sequence[int | None] | None = None
) -> list[Placement]:
    """The span of every chunk of ``text``, in chunk order. ``offsets`` are the library's own
    start offsets (None where it gave none); they are used only where they verify."""
    offsets = list(offsets) if offsets is not None else [None] * len(chunks)
    normal: list[_Normalised] = []  # built only if some chunk is not found verbatim
    places = [
        _Occurrences(text, chunk, offset, normal)
        for chunk, offset in zip(chunks, offsets, strict=True)
    ]
    placements: list[Placement | None] = list(_align(text, places))
    for index, chunk in enumerate(chunks):
        if placements[index] is None:
            placements[index] = _rewritten(text, chunk, placements, index)
    # An exact span is checked, not assumed: text[start:end] must be the chunk.
    return [
        replace(p, exact=p.exact and text[p.start : p.end] == chunk)
        for chunk, p in zip(chunks, placements, strict=True)
        if p is not None
    ]


class _Occurrences:
    """Where one chunk's text occurs in the document: verbatim (exact), else once case and
    whitespace are ignored (approximate); ``found`` is False when it occurs nowhere."""

    def __init__(
        self, text: str, chunk: str, offset: int | None, normal: list[_Normalised]
    ) -> None:
        self.text, self.chunk = text, chunk
        self.first = text.find(chunk) if chunk else -1
        self.exact = self.first >= 0
        self.spans: dict[int, int] = {}
        if not self.exact:
            if not normal:
                normal.append(_Normalised(text))
            self.spans = dict(normal[0].spans_of(chunk))
            self.first = min(self.spans, default=-1)
        self.starts = sorted(self.spans)
        verified = self.exact and offset is not None and text.startswith(chunk, offset)
        self.offset = offset if verified else None
        self.found = self.first >= 0

    def end(self, start: int) -> int:
        """Where the occurrence starting at ``start`` ends."""
        return start + len(self.chunk) if self.exact else self.spans[start]

    def after(self, start: int, bound: int) -> list[int]:
        """Starts after ``start``, up to and including the first at or past ``bound``: every
        place overlapping the previous chunk, and the first one beyond it."""
        found: list[int] = []
        if self.exact:
            position = self.text.find(self.chunk, start + 1)
            while position >= 0 and (not found or found[-1] < bound):
                found.append(position)
                position = self.text.find(self.chunk, position + 1)
            return found
        for position in self.starts[bisect_right(self.starts, start) :]:
            found.append(position)
            if position >= bound:
                break
        return found


class _Normalised:
    """The document lower-cased with every run of whitespace as one space, and for each of
    its characters the original offset, so a match maps back to an original span."""

    def __init__(self, text: str) -> None:
        chars: list[str] = []
        origin: list[int] = []
        for index, char in enumerate(text):
            if char.isspace():
                if chars and chars[-1] == " ":
                    continue
                char = " "
            for lowered in char.lower():
                chars.append(lowered)
                origin.append(index)
        self.text = "".join(chars)
        self.origin = origin

    def spans_of(self, chunk: str) -> list[tuple[int, int]]:
        """Original (start, end) of every place ``chunk`` matches once normalised."""
        needle = " ".join(chunk.lower().split())
        spans = []
        found = self.text.find(needle) if needle else -1
        while found >= 0:
            spans.append((self.origin[found], self.origin[found + len(needle) - 1] + 1))
            found = self.text.find(needle, found + 1)
        return spans


def _align(text: str, places: list[_Occurrences]) -> list[Placement | None]:
    """The forward placement (one per chunk found somewhere) leaving the least non-whitespace
    text uncovered; chunks found nowhere get None. A dynamic programme whose states are the
    last located chunk's possible starts, each with its best cost and where it came from."""
    solid = list(accumulate((0 if c.isspace() else 1 for c in text), initial=0))
    # A virtual chunk ending where the text begins, so uncovered head text is counted.
    states: dict[int, tuple[Cost, int, int]] = {-1: ((0, 0, 0, 0), 0, -1)}
    history: list[dict[int, tuple[Cost, int, int]] | None] = []
    skipped = 0  # characters of chunks found nowhere since the last located one
    for place in places:
        if not place.found:
            history.append(None)
            skipped += len(place.chunk)
            continue
        states = _advance(solid, states, place, skipped)
        history.append(states)
        skipped = 0
    if skipped == 0:
        states = {
            start: (_add(cost, (0, solid[-1] - solid[end], 0, 0)), end, before)
            for start, (cost, end, before) in states.items()
        }
    start = min(states, key=lambda key: states[key][0])
    chosen: list[Placement | None] = [None] * len(places)
    for index in range(len(places) - 1, -1, -1):
        step = history[index]
        if step is not None:
            chosen[index] = Placement(start, places[index].end(start), places[index].exact)
            start = step[start][2]
    return chosen


def _advance(
    solid: list[int], states: dict[int, tuple[Cost, int, int]], place: _Occurrences, skipped: int
) -> dict[int, tuple[Cost, int, int]]:
    """Every place the next chunk can go from every state, with its best cost."""
    step: dict[int, tuple[Cost, int, int]] = {}

    def relax(start: int, cost: Cost, before: int) -> None:
        if start not in step or cost < step[start][0]:
            step[start] = (cost, place.end(start), before)

    for before, (cost, end, _) in states.items():
        options = place.after(before, end + skipped)
        if place.offset is not None and place.offset > before:
            options.append(place.offset)
        for start in options:
            # Text between two neighbours is skipped text; a chunk found nowhere sits in it.
            gap = solid[start] - solid[end] if skipped == 0 and start > end else 0
            relax(start, _add(cost, (0, gap, int(start != place.offset), start)), before)
        if place.first <= before:
            # A step back: a parser that emits levels (hierarchical) starts again.
            first = place.first
            relax(first, _add(cost, (1, 0, int(first != place.offset), first)), before)
    return _prune(step)


def _prune(step: dict[int, tuple[Cost, int, int]]) -> dict[int, tuple[Cost, int, int]]:
    """At most MAX_STATES states. Only text that repeats chunk after chunk gets here; there
    the best so far are kept both among the earliest starts (chunks that overlap) and among
    the latest (chunks that tile), since which one covers the text shows only at its end."""
    if len(step) <= MAX_STATES:
        return step
    half = MAX_STATES // 2
    earliest = sorted(step, key=lambda start: step[start][0])[:half]
    latest = sorted(step, key=lambda start: (*step[start][0][:3], -start))[:half]
    return {start: step[start] for start in (*earliest, *latest)}


def _add(a: Cost, b: Cost) -> Cost:
    return (a[0] + b[0], a[1] + b[1], a[2] + b[2], a[3] + b[3])


def _rewritten(text: str, chunk: str, placements: list[Placement | None], index: int) -> Placement:
    """A rewritten chunk's best alignment: from the first to the last stretch it shares with
    the document (difflib, over words and punctuation, ignoring case; over characters when
    no word matches), searched after the previous chunk's start and before the next located
    chunk's end."""
    low = placements[index - 1].start + 1 if index > 0 and placements[index - 1] else 0
    later = [p for p in placements[index + 1 :] if p is not None]
    high = later[0].end if later else len(text)
    # Bound the search so one rewritten chunk in a long document stays cheap.
    high = max(low, min(high, low + 4 * len(chunk) + 1000))
    span = _token_alignment(text, chunk, low, high) or _character_alignment(text, chunk, low, high)
    return Placement(*(span or (low, low)), False)


def _token_alignment(text: str, chunk: str, low: int, high: int) -> tuple[int, int] | None:
    # Words, not characters: a thousand-character chunk is a few hundred tokens, and a
    # word match is evidence where a shared space or "e" is not.
    spans = [match.span() for match in _TOKEN.finditer(text, low, high)]
    words = [text[start:end].lower() for start, end in spans]
    chunk_words = [word.lower() for word in _TOKEN.findall(chunk)]
    shortest = min(_MIN_TOKENS, len(chunk_words))
    matcher = difflib.SequenceMatcher(None, words, chunk_words, autojunk=False)
    blocks = [b for b in matcher.get_matching_blocks() if b.size >= max(shortest, 1)]
    if not blocks:
        return None
    return spans[blocks[0].a][0], spans[blocks[-1].a + blocks[-1].size - 1][1]


def _character_alignment(text: str, chunk: str, low: int, high: int) -> tuple[int, int] | None:
    matcher = difflib.SequenceMatcher(None, text[low:high], chunk, autojunk=False)
    blocks = [b for b in matcher.get_matching_blocks() if b.size >= _MIN_CHARACTERS]
    if not blocks:
        return None
    return low + blocks[0].a, low + blocks[-1].a + blocks[-1].size
