"""Where a user's splitter's chunks sit in their document: exact spans, never a first match.

A library hands back chunk texts (and sometimes offsets it found itself with ``str.find``
from a cursor, which lands on the wrong copy of text that repeats). Locating them is an
alignment of the whole sequence, not one chunk at a time:

* each chunk's candidates are every place its text occurs verbatim (``exact``); a chunk
  whose text occurs nowhere gets the places where it occurs once case and runs of whitespace
  are ignored (``approximate``);
* the chosen places, in chunk order, go forward (each start after the previous one) and
  leave as little of the document's non-whitespace text uncovered as possible: what a
  splitter that rewrites nothing does. Ties go to the library's own offset, then to the
  earlier place;
* a chunk with no candidate at all (a splitter that rewrote it) is aligned with difflib
  (over words) between its located neighbours and marked approximate.

``locate_chunks`` returns one ``Placement`` per chunk; ``exact`` means
``text[start:end] == chunk`` and was checked.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from itertools import accumulate

MAX_CANDIDATES = 256
"""Occurrences considered per chunk: a chunk repeated more often than this is pathological
(the alignment is quadratic in it), and any of its copies is still its exact text."""
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


@dataclass(frozen=True)
class _Candidate:
    start: int
    end: int
    exact: bool
    agrees: bool
    """Whether this is the offset the library itself reported."""


def locate_chunks(
    text: str, chunks: Sequence[str], offsets: Sequence[int | None] | None = None
) -> list[Placement]:
    """The span of every chunk of ``text``, in chunk order. ``offsets`` are the library's own
    start offsets (None where it gave none); they are used only where they verify."""
    offsets = list(offsets) if offsets is not None else [None] * len(chunks)
    normal: list[_Normalised] = []  # built only if some chunk is not found verbatim
    candidates = [
        _candidates(text, normal, chunk, offset)
        for chunk, offset in zip(chunks, offsets, strict=True)
    ]
    chosen = _align(text, candidates)
    placements: list[Placement | None] = [
        Placement(pick.start, pick.end, pick.exact) if pick is not None else None for pick in chosen
    ]
    for index, chunk in enumerate(chunks):
        if placements[index] is None:
            placements[index] = _rewritten(text, chunk, placements, index)
    # An exact span is checked, not assumed: text[start:end] must be the chunk.
    return [
        replace(p, exact=p.exact and text[p.start : p.end] == chunk)
        for chunk, p in zip(chunks, placements, strict=True)
        if p is not None
    ]


def _candidates(
    text: str, normal: list[_Normalised], chunk: str, offset: int | None
) -> list[_Candidate]:
    starts = _occurrences(text, chunk)
    if starts:
        return [_Candidate(s, s + len(chunk), True, s == offset) for s in starts]
    if not normal:
        normal.append(_Normalised(text))
    return [_Candidate(s, e, False, False) for s, e in normal[0].spans_of(chunk)]


def _occurrences(haystack: str, needle: str) -> list[int]:
    """Every start of ``needle`` in ``haystack`` (overlapping ones too), at most MAX_CANDIDATES."""
    starts: list[int] = []
    found = haystack.find(needle) if needle else -1
    while found >= 0 and len(starts) < MAX_CANDIDATES:
        starts.append(found)
        found = haystack.find(needle, found + 1)
    return starts


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
        return [
            (self.origin[s], self.origin[s + len(needle) - 1] + 1)
            for s in _occurrences(self.text, needle)
        ]


def _align(text: str, candidates: list[list[_Candidate]]) -> list[_Candidate | None]:
    """The forward sequence of candidates (one per chunk that has any) leaving the least
    non-whitespace text uncovered; chunks without candidates get None."""
    solid = list(accumulate((0 if c.isspace() else 1 for c in text), initial=0))
    located = [index for index, options in enumerate(candidates) if options]
    chosen: list[_Candidate | None] = [None] * len(candidates)
    if not located:
        return chosen
    # Costs compare as tuples: (backward steps, uncovered characters, disagreements with
    # the library's offsets, sum of starts); each step adds its share to every part.
    first = located[0]
    costs = [
        (0, solid[c.start] if first == 0 else 0, int(not c.agrees), c.start)
        for c in candidates[first]
    ]
    back: list[list[int]] = [[-1] * len(costs)]
    for previous, current in zip(located, located[1:], strict=False):
        adjacent = current == previous + 1
        step_costs, step_back = [], []
        for option in candidates[current]:
            best, best_from = None, -1
            for origin, (cost, before) in enumerate(zip(costs, candidates[previous], strict=True)):
                total = _add(cost, _step(solid, before, option, adjacent))
                if best is None or total < best:
                    best, best_from = total, origin
            step_costs.append(best)
            step_back.append(best_from)
        costs, back = step_costs, [*back, step_back]
    if located[-1] == len(candidates) - 1:
        costs = [
            _add(cost, (0, solid[-1] - solid[c.end], 0, 0))
            for cost, c in zip(costs, candidates[located[-1]], strict=True)
        ]
    pick = min(range(len(costs)), key=costs.__getitem__)
    for depth in range(len(located) - 1, -1, -1):
        chosen[located[depth]] = candidates[located[depth]][pick]
        pick = back[depth][pick]
    return chosen


def _step(
    solid: list[int], before: _Candidate, option: _Candidate, adjacent: bool
) -> tuple[int, int, int, int]:
    """The cost of placing ``option`` right after ``before``: a step back (a parser that
    emits levels, like a hierarchical one, restarts) or the text skipped between them."""
    miss = int(not option.agrees)
    if option.start <= before.start:
        return (1, 0, miss, option.start)
    # Between chunks that are not neighbours sits a rewritten one: its text is not a gap.
    skipped = (
        solid[option.start] - solid[before.end] if adjacent and option.start > before.end else 0
    )
    return (0, skipped, miss, option.start)


def _add(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, int, int, int]:
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
