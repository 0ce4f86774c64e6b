"""How few whole sentences of padding, inserted before a sentence, make the user's splitter
cut that sentence. The document is padded with the first n sentences of a supply and cut by
that splitter; n doubles until the splitter puts a chunk boundary into the stretch the
padding grew, then is bisected, so a search costs O(log n) splitter calls (never one per
sentence or word: a document repeating its answer a thousand times stays fast). Where the
boundaries land beside the sentence rather than in it, a padding is aimed: the first k
sentences and one more of the length that moves the sentence onto a boundary already seen,
since a character or word splitter's boundaries stay where they are as text is inserted
before them (a sentence-aware one's move to the next sentence end, and it is never cut)."""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property

from ragaudit.documents import Document
from ragaudit.mutation.operator import Splitter

TUNE_BASES = 4
"""How many paddings (the longest that leaves room first) a tuning sentence may follow."""
TUNE_BOUNDARIES = 3
"""How many boundaries (the nearest after the padding's start first) one tuning trial may
try to aim at: the nearest may be too close to reach with a whole sentence."""
TUNE_ROUNDS = 2
"""Tuning trials per aim, at most: the second aims at the boundaries the first drew."""


_WORD = re.compile(r"\w")


def words_of(text: str, start: int, end: int) -> tuple[int, int]:
    """(first word character, last word character + 1) of text[start:end]: a boundary
    strictly between them leaves words on both sides; one beside the sentence's final
    period (a splitter keeping ". " with the next chunk) cuts nothing."""
    first = _WORD.search(text, start, end)
    if first is None:
        return start, start
    stop = end
    while not _WORD.match(text, stop - 1):  # back over the closing punctuation
        stop -= 1
    return first.start(), stop


def cuts_sentence(text: str, chunks: Sequence[tuple[int, int]], start: int, end: int) -> bool:
    """The chunks cut text[start:end]: a boundary inside it, words on both sides."""
    return _any_inside(sorted({b for chunk in chunks for b in chunk}), *words_of(text, start, end))


def _any_inside(boundaries: Sequence[int], start: int, end: int) -> bool:
    """One of the sorted `boundaries` strictly inside (start, end)."""
    found = bisect_right(boundaries, start)
    return found < len(boundaries) and boundaries[found] < end


@dataclass
class Trial:
    """One padding tried: its sentences, the padded text and the splitter's chunks of it."""

    sentences: tuple[str, ...]
    padding: str
    text: str
    at: int
    """Where the padding starts (the answer's sentence's start in the original)."""
    end: int
    """Where the answer's sentence ends in the padded text."""
    chunks: tuple[tuple[int, int], ...]

    @property
    def sentence(self) -> tuple[int, int]:
        """The answer's sentence in the padded text."""
        return self.at + len(self.padding), self.end

    @cached_property
    def boundaries(self) -> list[int]:
        return sorted({b for chunk in self.chunks for b in chunk})

    def _any_inside(self, start: int, end: int) -> bool:
        """A boundary strictly inside (start, end)."""
        return _any_inside(self.boundaries, start, end)

    @property
    def cut(self) -> bool:
        """A chunk boundary inside the answer's sentence, words on both sides of it."""
        return _any_inside(self.boundaries, *words_of(self.text, *self.sentence))

    @property
    def reached(self) -> bool:
        """A chunk boundary in the padding or the sentence: the splitter had to cut the
        stretch the padding grew."""
        return self._any_inside(self.at, self.sentence[1])

    @cached_property
    def splits_padding(self) -> bool:
        """A chunk boundary strictly inside one of the padding's sentences: the splitter
        cuts sentences, it only missed the answer's."""
        offset = self.at
        for sentence in self.sentences:
            if _any_inside(self.boundaries, *words_of(self.text, offset, offset + len(sentence))):
                return True
            offset += len(sentence) + 1
        return False

    def holding(self) -> list[tuple[int, int]]:
        """The chunks holding the answer's sentence whole."""
        start, end = self.sentence
        return [(a, b) for a, b in self.chunks if a <= start and end <= b]


@dataclass
class Search:
    """The search for one sentence [start, end) of `doc`, padded from `supply`."""

    doc: Document
    start: int
    end: int
    supply: Sequence[str]
    splitter: Splitter
    ending: str = " "
    """After the padding's last sentence: a space, or a line break before a list item."""
    first: dict[int, Trial] = field(default_factory=dict)
    """The trial of the supply's first n sentences, by n."""
    tuned: list[Trial] = field(default_factory=list)
    aimed: set[int] = field(default_factory=set)
    """The boundaries a tuning trial has aimed at."""

    @property
    def trials(self) -> list[Trial]:
        return [*self.first.values(), *self.tuned]

    def padding(self, sentences: Sequence[str]) -> str:
        return " ".join(sentences) + self.ending

    def trial(self, sentences: Sequence[str]) -> Trial:
        """Pad with `sentences` and cut the padded document (one splitter call)."""
        padding = self.padding(sentences)
        text = self.doc.text[: self.start] + padding + self.doc.text[self.start :]
        chunks = tuple(tuple(c) for c in self.splitter(replace(self.doc, text=text)))
        end = self.end + len(padding)
        return Trial(tuple(sentences), padding, text, self.start, end, chunks)

    def of_first(self, n: int) -> Trial:
        if n not in self.first:
            self.first[n] = self.trial(self.supply[:n])
        return self.first[n]

    def run(self) -> Trial | None:
        """The trial of the fewest sentences found that cut the sentence, or None. The
        padding doubles until the splitter puts a boundary into it and is bisected to where
        it first does; failing a cut there, it is aimed at a boundary; failing that, it
        doubles on to the whole supply and is aimed once more."""
        last, n = len(self.supply), 1
        while not self.of_first(n).reached and n < last:
            n = min(2 * n, last)
        if self.of_first(n).reached and not self._cutting():
            below = [m for m, t in self.first.items() if m < n and not t.reached]
            _bisect(max(below, default=0), n, lambda m: self.of_first(m).reached)
            if not self._cutting() and (tuned := self._tune()) is not None:
                return tuned
        while not self._cutting() and n < last:
            n = min(2 * n, last)
            self.of_first(n)
        if not self._cutting():
            return self._tune()
        return self._fewest_cut()

    def _cutting(self) -> list[int]:
        return [m for m, t in self.first.items() if t.cut]

    def _fewest_cut(self) -> Trial:
        high = min(self._cutting())
        low = max((m for m in self.first if m < high), default=0)
        return self.of_first(_bisect(low, high, lambda m: self.of_first(m).cut))

    def _tune(self) -> Trial | None:
        """Sentences aimed to put a boundary the splitter drew in some trial inside the
        answer's sentence, as if it stayed put (a character or word splitter's do); a
        second aim when the first misses."""
        for _ in range(TUNE_ROUNDS):
            chosen = self._aimed()
            if chosen is None:
                return None
            trial = self.trial(chosen)
            self.tuned.append(trial)
            if trial.cut:
                return trial
        return None

    def _aimed(self) -> list[str] | None:
        """The supply's first k sentences and one more, padding by q so that a boundary b
        seen in a trial (not aimed at before) falls inside the sentence, [start + q,
        end + q), its middle nearest b. Boundaries a trial drew after its sentence come
        first (padding more to reach one keeps the stretch as long as that trial's, so a
        splitter that cuts long stretches only still cuts it), those drawn in most trials
        (where the splitter's boundaries stay put) and the nearest first; then the others
        after the padding's start."""
        seen: Counter[int] = Counter()
        after = set()
        for t in self.trials:
            inner = [b for b in t.boundaries if self.start < b < len(t.text)]
            after.update(b for b in inner if b >= t.sentence[1])
            seen.update(inner)
        order = [*sorted(after, key=lambda b: (-seen[b], b)), *sorted(set(seen) - after)]
        fresh = [b for b in order if b not in self.aimed]
        tried = {t.sentences for t in self.trials}
        length = self.end - self.start
        for boundary in fresh[:TUNE_BOUNDARIES]:
            self.aimed.add(boundary)
            low, high = boundary - self.end, boundary - self.start
            chosen = self._closest(low, high, high - length // 2)
            if chosen is not None and tuple(chosen) not in tried:
                return chosen
        return None

    def _closest(self, low: int, high: int, aim: int) -> list[str] | None:
        """The first k sentences (the most that leave room, then fewer) and one more,
        padding by q with low < q < high, q nearest aim; None when none fits."""
        # padded by the first k sentences and one more of n characters, q = fixed[k] + n
        fixed = [len(self.ending)]
        for sentence in self.supply:
            fixed.append(fixed[-1] + len(sentence) + 1)
        most = bisect_left(fixed, high) - 1
        for k in range(most, max(most - TUNE_BASES, -1), -1):
            used = set(self.supply[:k])  # a supply repeated for a small corpus: none twice
            fits = [
                (abs(fixed[k] + len(sentence) - aim), i)
                for i, sentence in enumerate(self.supply[k:], start=k)
                if low < fixed[k] + len(sentence) < high and sentence not in used
            ]
            if fits:
                return [*self.supply[:k], self.supply[min(fits)[1]]]
        return None


def _bisect(low: int, high: int, holds: Callable[[int], bool]) -> int:
    """An n in (low, high] where `holds(n)` and not `holds(n - 1)`, given `holds(high)` and
    not `holds(low)` (low is never asked: 0 is the unpadded document)."""
    while high - low > 1:
        middle = (low + high) // 2
        if holds(middle):
            high = middle
        else:
            low = middle
    return high
