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
  nor has one end of a range ('30%-50%'), one of alternatives ('either a 20-byte name or an
  offset'), a value under a condition ('or 80 columns if not connected to a terminal') or
  a bound ('smaller than 100%').
A table row is exempt from the first rule: its cells are told apart by their headers."""

from __future__ import annotations

import re

from ragaudit.casemining.candidates import MinedValue
from ragaudit.values.shapes import find_values

_ILLUSTRATIVE = re.compile(
    r"(?i)(?<!\w)(?:for\s+example|for\s+instance|e\.\s?g\.|examples?|sample|zum\s+Beispiel|"
    r"z\.\s?B\.|beispielsweise|Beispiels?|par\s+exemple|exemples?|por\s+ejemplo|ejemplos?|"
    r"p\.\s?ej\.)(?!\w)"
)
_HEDGED = re.compile(
    r"(?i)(?<!\w)(?:usually|typically|typical|normally|generally|roughly|approximately|"
    r"commonly|often|normalerweise|üblicherweise|typischerweise|typisch\w*|ungefähr|circa|"
    r"meistens|häufig|oft|généralement|habituellement|typiquement|environ|normalement|"
    r"souvent|couramment|generalmente|normalmente|típicamente|aproximadamente|"
    r"frecuentemente|a\s+menudo)(?!\w)"
)
_ALTERNATIVES = re.compile(r"(?i)(?<!\w)(?:either|entweder|soit|o\s+bien)(?!\w)")
_ALTERNATIVE_BEFORE = re.compile(r"(?i)(?<!\w)(?:or|oder|ou|o)\s+(?:\w+\s+)?$")
_ALTERNATIVE_AFTER = re.compile(r"(?i)^[`'\"»“]*\s*(?:,\s*)?(?:or|oder|ou|o)\s")
_NAME_AFTER = re.compile(r"^\s*`?([A-Za-z_][\w.]*_[\w.]+|[a-z]+\.[a-z][\w.]*)`?")
"""A name written right after a size ('3-byte `restart_offset` values'): the value is that
name's, not the anchor's."""
_CUT_AFTER = re.compile(r"^[;:=,/][^\s]")
"""A value running on without a space ('ms=01' of 'ms=01;31:mc=01;31'): a cut fragment."""
_SMALL_COUNT = re.compile(
    r"(?i)^(?:(?:zero|one|two|no|null|eins?|zwei|un|une|deux|cero|uno|una|dos)\b"
    r"|[012][\s-]+(?:lines?|files?|commits?|columns?|entr\w+|characters?|times?|items?|"
    r"arguments?|parents?|objects?|paths?|refs?|words?|Zeilen?|Dateien|Datei|lignes?|"
    r"fichiers?|líneas?|archivos?)\b)"
)
"""'one line', 'two files', 'zero bytes', '1 column' (a small count in words, or of
things rather than a measure: '1 MiB' is a fact): how a text counts in passing, a fact only
by accident (10 of 25 invalid git-doc cases read by hand were such counts)."""
_CONDITION_AFTER = re.compile(
    r"(?i)^\S*\s+(?:if|when|unless|wenn|falls|sofern|si|lorsque|quand|cuando)(?!\w)"
)
_BOUND_BEFORE = re.compile(
    r"(?i:\b(?:at\s+least|at\s+most|more\s+than|less\s+than|fewer\s+than|up\s+to|about|"
    r"around|approximately|roughly|usually|over|under|mindestens|höchstens|mehr\s+als|"
    r"weniger\s+als|bis\s+zu|etwa|ungefähr|au\s+moins|au\s+plus|plus\s+de|moins\s+de|"
    r"jusqu'à|environ|al\s+menos|más\s+de|menos\s+de|hasta|aproximadamente)\s*[`'\"]?\s*$)"
)
"""A bound written right before the value ('at least 2GiB'), read by `bounded` on the text."""
_COMPARISON_BEFORE = re.compile(
    r"(?i)(?<!\w)(?:smaller|larger|greater|less|fewer|more|higher|lower|kleiner|größer|"
    r"weniger|mehr|höher|niedriger|inférieur|supérieur|plus\s+petit|plus\s+grand|menor|"
    r"mayor)\s+(?:than|als|que|à)\s+\S*\s*$"
)
"""A comparison before the value in its statement ('smaller than 100%'), read by `unplain`."""
_OR_AFTER = re.compile(r"(?i:^\s*[`'\"]?\s*(?:or|oder|ou|o)\s+\S*\d)")
_OR_BEFORE = re.compile(r"(?i:\d[\w.,]*(?:\s*[^\W\d]+)?\s+(?:or|oder|ou|o)\s*[`'\"]?\s*$)")


_RANGE_AFTER = re.compile(r"^\s*(?:-|–|—|to|bis|à|a)\s*\d", re.I)
_RANGE_BEFORE = re.compile(r"\d\S*\s*(?:-|–|—|to|bis|à|a)\s*$", re.I)


def bounded(text: str, value: MinedValue) -> bool:
    """A value the text states as a bound or one of numbers ('at least 2GiB', 'more than
    one second', '1 ns or 1 s'): a question for the bare value asks something the text does
    not say. Read on the text around the value, before its statement is found (mine.py)."""
    before = text[max(0, value.start - 30) : value.start]
    after = text[value.end : value.end + 20]
    return bool(
        _BOUND_BEFORE.search(before) or _OR_AFTER.search(after) or _OR_BEFORE.search(before)
    )


def unplain(
    answer_start: int, sentence_start: int, sentence: str, kind: str, answer: str, anchor: str
) -> str | None:
    """Why `answer`, at `answer_start`, is not stated plainly of `anchor` in its `sentence`
    (which starts at `sentence_start` in the same text), or None when it is."""
    if kind == "quantity" and _SMALL_COUNT.match(answer):
        return "a count in passing"
    if _ILLUSTRATIVE.search(sentence):
        return "an example's value"
    if _HEDGED.search(sentence):
        return "a hedged value"
    own = answer_start - sentence_start
    end = own + len(answer)
    before, after = sentence[max(0, own - 40) : own], sentence[end : end + 40]
    if (_ALTERNATIVES.search(sentence) or _ALTERNATIVE_BEFORE.search(before)
            or _ALTERNATIVE_AFTER.search(after)):  # fmt: skip
        return "one of alternatives"
    if _CUT_AFTER.match(after):
        return "a fragment of a longer value"
    named = _NAME_AFTER.match(after)
    if named and named.group(1) != anchor.strip("`$-"):
        return f"a value of another name ({named.group(1)!r})"
    if _CONDITION_AFTER.search(after):
        return "a value under a condition"
    if _COMPARISON_BEFORE.search(before):
        return "a bound"
    if _RANGE_AFTER.search(sentence[end : end + 8]) or _RANGE_BEFORE.search(sentence[:own][-12:]):
        return "one end of a range"
    if kind != "table_cell":
        others = [v for v in find_values(sentence) if not v.start <= own < v.end]
        if others:
            return f"a second value in its statement ({others[0].text!r})"
    return None


def defined_again(text: str, anchor: str) -> bool:
    """The anchor opens a definition line more than once in its document ('Mode=' in five
    sections of systemd.netdev, '-mabi=' per target in as, 'iocharset=' per filesystem in
    mount): which one a question means needs its section, which neither phrasing names (4
    of 15 invalid cases in the English and German hand readings)."""
    name = anchor.strip().lstrip("-").rstrip("=:")
    if len(name) < 2:
        return False  # dashes aside ('-mabi' is anchored as 'mabi' too)
    opens = re.compile(rf"(?m)^[ \t]*-{{0,2}}{re.escape(name)}(?=[=:\s\[<,]|$)")
    return len(opens.findall(text)) > 1
