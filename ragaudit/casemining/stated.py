"""Whether a mined value is stated plainly enough to ask for: the one value of its
statement, not an illustration, not hedged.

Read by hand, 40 git-doc and 15 German man-page cases lost most of their validity to
values that a plain question misreads (benchmarks/cases_precision/judged/):
- a statement with a second value leaves which one the anchor owns to the phrasing
  ('restart_count is 2-byte, each restart_offset 3-byte' was asked as restart_count's
  3 bytes; '30%-50%' as 30%);
- a value of an example ('This example shows that the index contained 3552 entries') is
  no fact of the thing it shows;
- a hedged value ('usually 40 hex characters', 'typically 100 MB') has no single answer,
  nor has one end of a range ('30%-50%').
A table row is exempt from the first rule: its cells are told apart by their headers."""

from __future__ import annotations

import re

from ragaudit.values.shapes import find_values

_ILLUSTRATIVE = re.compile(
    r"(?i)(?<!\w)(?:for\s+example|for\s+instance|e\.\s?g\.|examples?|sample|zum\s+Beispiel|"
    r"z\.\s?B\.|beispielsweise|Beispiels?|par\s+exemple|exemples?|por\s+ejemplo|ejemplos?|"
    r"p\.\s?ej\.)(?!\w)"
)
_HEDGED = re.compile(
    r"(?i)(?<!\w)(?:usually|typically|typical|normally|generally|roughly|approximately|"
    r"normalerweise|üblicherweise|typischerweise|typisch\w*|ungefähr|circa|meistens|"
    r"généralement|habituellement|typiquement|environ|normalement|generalmente|normalmente|"
    r"típicamente|aproximadamente)(?!\w)"
)


_RANGE_AFTER = re.compile(r"^\s*(?:-|–|—|to|bis|à|a)\s*\d", re.I)
_RANGE_BEFORE = re.compile(r"\d\S*\s*(?:-|–|—|to|bis|à|a)\s*$", re.I)


def unplain(answer_start: int, sentence_start: int, sentence: str, kind: str) -> str | None:
    """Why the value at `answer_start` is not stated plainly in its `sentence` (which
    starts at `sentence_start` in the same text), or None when it is."""
    if _ILLUSTRATIVE.search(sentence):
        return "an example's value"
    if _HEDGED.search(sentence):
        return "a hedged value"
    own = answer_start - sentence_start
    end = own + len(_value_at(sentence, own))
    if _RANGE_AFTER.search(sentence[end : end + 8]) or _RANGE_BEFORE.search(sentence[:own][-12:]):
        return "one end of a range"
    if kind != "table_cell":
        others = [v for v in find_values(sentence) if not v.start <= own < v.end]
        if others:
            return f"a second value in its statement ({others[0].text!r})"
    return None


def _value_at(sentence: str, offset: int) -> str:
    """The value written at `offset` (find_values' own reading, else its first word)."""
    here = next((v for v in find_values(sentence) if v.start <= offset < v.end), None)
    return here.text if here else (sentence[offset:].split() or [""])[0]
