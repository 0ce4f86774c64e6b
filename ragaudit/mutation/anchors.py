"""An anchor swapped for another in the words around it, as a person would write it: one
determiner only ('The client module' with 'client' swapped for 'The server' is 'The server
module', never 'The The server module'), 'a'/'an' agreeing with the next word, a capital at
a sentence start, and inside a sentence the capital only of a name ('Helen Marsh', 'Zone C'),
never of a determiner or of a phrase capitalised because it opened a sentence."""

from __future__ import annotations

import re
from collections.abc import Sequence

from ragaudit.documents import Document

_LEADING = re.compile(r"(?i)(the|an|a)\s+(?=\S)")
_BEFORE = re.compile(
    r"(?i)(?<!\w)(the|an?|this|that|these|those|its|our|your|their|his|her|my|each|every)"
    r"\s+$"
)
_SENTENCE_START = re.compile(r"(?:(?:^|\n)[ \t]*(?:#+|[-*+>]|\d+[.)])?|[.!?|])\s*$")
"""What stands before a sentence's first word: a sentence end, a line start, a list item's
or a heading's mark, a table cell's bar."""


def anchor_pattern(anchor: str) -> re.Pattern[str]:
    """Where an anchor stands as words of its own ('server' is not in 'observer'), its
    first letter in either case ('The server' at a sentence start, 'the server' inside
    one), with a plural ending ('servers') in the match."""
    first = re.escape(anchor[0])
    if anchor[0].isalpha():
        first = f"[{anchor[0].lower()}{anchor[0].upper()}]"
    return re.compile(rf"(?<!\w){first}{re.escape(anchor[1:])}(?P<plural>(?:e?s)?)(?!\w)")


def starts_sentence(text: str, at: int) -> bool:
    """Whether text[at:] is a sentence's (a line's, a list item's, a heading's) first word."""
    return _SENTENCE_START.search(text, max(0, at - 40), at) is not None


def capital_is_its_own(anchor: str, documents: Sequence[Document]) -> bool:
    """Whether a capitalised anchor is a name ('Helen Marsh', 'Zone C', 'Eastfield'): written
    so inside a sentence somewhere. One seen only opening sentences ('Hidden damage is
    reported ...') owes its capital to them."""
    if not anchor[:1].isupper():
        return False
    pattern = re.compile(rf"(?<!\w){re.escape(anchor)}(?!\w)")
    return any(
        not starts_sentence(doc.text, m.start())
        for doc in documents
        if anchor in doc.text  # the plain search first: most documents lack it
        for m in pattern.finditer(doc.text)
    )


def anchor_swap(text: str, match: re.Match[str], other: str, name: bool) -> tuple[int, int, str]:
    """(start, end, new text) of the edit putting `other` where `match` (of
    `anchor_pattern`) stands in `text`; `name`: `other` keeps its capital inside a
    sentence (`capital_is_its_own`)."""
    start, end = match.start(), match.end()
    own = _LEADING.match(text, start, end)
    theirs = _LEADING.match(other)
    rest = other[theirs.end() :] if theirs else other
    if match["plural"] and not rest.endswith("s"):
        rest += "s"
    before = _BEFORE.search(text, max(0, start - 12), start)
    determiner = None
    if before:  # the text's own determiner stays; an 'a' before a vowel becomes 'an'
        if _fitted(before[1], rest) != before[1]:
            start, determiner = before.start(1), before[1]
    elif theirs:
        determiner = theirs[1]
    elif own and _plain_word(rest):  # 'The server' -> 'The client', not 'client'
        determiner = own[1]
    new = f"{_fitted(determiner, rest)} {rest}" if determiner else rest
    first = new.split(" ", 1)[0]
    if starts_sentence(text, start):
        if _plain_word(new):
            new = new[0].upper() + new[1:]
    elif first in ("The", "A", "An") or (not name and first.istitle() and first.isalpha()):
        new = new[0].lower() + new[1:]
    return start, end, new


def _fitted(determiner: str, noun: str) -> str:
    """'a' or 'an' as the next word's first letter wants it (in the determiner's case);
    any other determiner as it is."""
    if determiner.lower() not in ("a", "an"):
        return determiner
    return determiner[0] + ("n" if noun[:1].lower() in "aeiou" else "")


def _plain_word(phrase: str) -> bool:
    """Its first word is a lower-case word of letters (not 'lru_cache', not 'Helen')."""
    first = phrase.split(" ", 1)[0]
    return first.isalpha() and first.islower()
