"""Word lists as regexes that scan a corpus fast: a trie of literals, each case spelled
out. Python's engine skips ahead to a pattern's possible first character only when the
pattern starts with literals (not a lookbehind, not case folding)."""

from __future__ import annotations

import re
from collections.abc import Iterable


def alternation(words: Iterable[str]) -> str:
    """A regex matching any of `words`, as a trie ('sec(?:ond(?:s)?)?'): one character
    test per position instead of one per word, which a long list of units needs."""
    trie: dict = {}
    for word in words:
        node = trie
        for ch in word:
            node = node.setdefault(ch, {})
        node[""] = {}

    def build(node: dict) -> str:
        branches = [re.escape(ch) + build(child) for ch, child in sorted(node.items()) if ch]
        if not branches:
            return ""
        body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
        return f"(?:{body})?" if "" in node else body

    return build(trie)


def cased(words: Iterable[str]) -> set[str]:
    """Each word as written, in lower case, Capitalised and in upper case: a scan over a
    whole corpus runs fastest with literal first letters, not case folding."""
    out = set()
    for word in words:
        out |= {word, word.lower(), word[:1].upper() + word[1:], word.upper()}
    return out
