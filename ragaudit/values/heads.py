"""The words a value is found from, all found in one scan of a text: number words ('fünf'),
month names, version words, the words of a default ('default', 'Standardwert', 'par
défaut') and of a role phrase ('written', 'Autor').

One scan, not one per list: each scan of a corpus costs as much as the next, and these
lists share it. A head is a whole word: it starts after a space, a line break or an
opening bracket or quote, and no letter or digit follows it."""

from __future__ import annotations

import re
from functools import cache

from ragaudit.values.alternation import alternation, cased
from ragaudit.values.dates import month_names
from ragaudit.values.words import (
    DEFAULT_AFTER_WORDS,
    DEFAULT_WORDS,
    DEFAULT_WORDS_OTHER,
    ROLE_WORDS,
    VERSION_WORDS,
    number_words,
)

Heads = dict[str, list[tuple[int, int]]]
"""Kind of head -> the (start, end) of each, in text order."""

_OPENING = "([»«„“\"'`/¿¡"
"""What may stand right before a head, besides a space or line break."""


@cache
def _kinds_by_word() -> dict[str, tuple[str, ...]]:
    """Each head as it may be written -> its kinds ('par défaut' is both a default with
    its value after and one with its value before)."""
    lists = {
        "number": cased(w for table in number_words().values() for w in table),
        "month": month_names(),
        "version": cased(VERSION_WORDS),
        "default": cased(DEFAULT_WORDS),
        "default_other": cased(DEFAULT_WORDS_OTHER),
        "standard": cased(["standard"]),
        "default_after": cased(DEFAULT_AFTER_WORDS),
        "role": cased(ROLE_WORDS),
    }
    kinds: dict[str, tuple[str, ...]] = {}
    for kind, words in lists.items():
        for word in words:
            kinds[word] = (*kinds.get(word, ()), kind)
    return kinds


@cache
def _pattern() -> re.Pattern[str]:
    return re.compile(rf"[\s{re.escape(_OPENING)}](?P<head>{alternation(_kinds_by_word())})(?!\w)")


def find_heads(text: str) -> Heads:
    """Where each kind of head stands in `text`."""
    kinds = _kinds_by_word()
    found: Heads = {}
    for m in _pattern().finditer("\n" + text):  # a line break first: a head may open the text
        start, end = m.start("head") - 1, m.end("head") - 1
        for kind in kinds[m["head"]]:
            found.setdefault(kind, []).append((start, end))
    return found
