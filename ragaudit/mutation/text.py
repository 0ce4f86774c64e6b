"""Text facts operators rely on: the sentence around an answer, word shingles (compared by
`corpus.stats.jaccard`), and the shape of a value (a date, or its tokens' classes)."""

from __future__ import annotations

import re
from functools import lru_cache

from ragaudit.values.dates import is_date

SHINGLE_WORDS = 3
"""Word shingles of this many words: what a near-duplicate's similarity is counted over."""
_WORD = re.compile(r"\w+")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n")


def sentence_around(text: str, start: int, end: int) -> tuple[int, int]:
    """The sentence (or line) holding text[start:end]: back to the previous sentence end
    or line break, forward to the next, trailing spaces left out."""
    begin = 0
    for match in _SENTENCE_END.finditer(text, 0, start):
        begin = match.end()
    following = _SENTENCE_END.search(text, end)
    stop = following.start() if following else len(text)
    while stop > end and text[stop - 1].isspace():
        stop -= 1
    return begin, max(stop, end)


@lru_cache(maxsize=8192)
def shingles(text: str, size: int = SHINGLE_WORDS) -> frozenset[tuple[str, ...]]:
    """The text's lower-cased word shingles (the words themselves for a shorter text).
    Cached: each near-duplicate is compared with every document of its corpus."""
    words = [w.lower() for w in _WORD.findall(text)]
    if len(words) < size:
        return frozenset({tuple(words)} if words else ())
    return frozenset(tuple(words[i : i + size]) for i in range(len(words) - size + 1))


NUMBER_WORDS = frozenset(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy "
    "eighty ninety hundred thousand million half dozen".split()
)
"""Words read as a number in a value's shape ('nine hours' is shaped like '72 hours')."""


def token_class(token: str) -> str:
    """`number` (digits or a number word), `Name` (capitalised), `word` (lower case) or
    `other` (anything else: punctuation, mixed case)."""
    if any(ch.isdigit() for ch in token) or token.lower() in NUMBER_WORDS:
        return "number"
    if token.isalpha() and token[0].isupper() and (len(token) == 1 or token[1:].islower()):
        return "Name"
    if token.isalpha() and token.islower():
        return "word"
    return "other"


def shape(value: str) -> str:
    """`date`, or the value's tokens as classes (`token_class`), a word right after a
    number kept as written since it is the unit: 'nine hours' and '72 hours' are both
    `number hours`, 'Helen Marsh' is `Name Name`. A replacement of the same shape is a
    duration for a duration and a name for a name, never a name for a duration."""
    if is_date(value):
        return "date"
    classes: list[str] = []
    for token in value.split():
        kind = token_class(token)
        unit = kind == "word" and classes and classes[-1] == "number"
        classes.append(token.lower() if unit else kind)
    return " ".join(classes)


@lru_cache(maxsize=4096)
def _value_pattern(value: str) -> re.Pattern[str]:
    # the value first, its left edge checked behind it: the scan looks for the value's
    # first character, not for every non-word boundary of the text
    escaped = re.escape(value)
    return re.compile(escaped + r"(?<!\w" + escaped + r")(?!\w)")


def find_whole_value(value: str, text: str, start: int = 0) -> int:
    """Where `value` first appears in `text` from `start` as a value of its own (not inside
    a longer word or number: '7 days' is not in '27 days'); -1 when it does not."""
    if text.find(value, start) == -1:  # the plain search first: most texts lack it
        return -1
    match = _value_pattern(value).search(text, start)
    return match.start() if match else -1


def holds(text: str, value: str) -> bool:
    """`text` states `value` as a value of its own (see `find_whole_value`)."""
    return find_whole_value(value, text) != -1
