"""THE value shapes, shared by case mining and mutate: where a text states a value a
question can ask for, and what kind of value it is.

`find_values(text)` finds, in English, German, French and Spanish:
- `quantity` a number with its unit ('10 MB', 'fünf Zeilen', '1 024 octets'),
- `money` ('$5', '12,50 €'), `percent` ('2,5 %', 'fünf Prozent'),
- `date` (dates.py), `duration` ('30 seconds', 'trois jours', 'cinco minutos'),
- `version` ('2.39.5', 'version 3.11'),
- `setting`, `name`, `table_cell`: a value known by a label beside it (labelled.py).
Numbers may group thousands with a no-break or thin space ('1 024') and write decimals
with a comma ('2,5'). A bare number is no value here: only a unit, a currency, a version's
dots or a label (a setting's name, a column's header) says what it is.

Mutate's own shapes live here too: `QUANTITY_FORM` (a quantity as mutation.value_forms
rewrites it) and `numbers` (the numbers mutation.values shifts)."""

from __future__ import annotations

import bisect
import re

from ragaudit.values.heads import find_heads
from ragaudit.values.labelled import labelled_values
from ragaudit.values.plain import ValueMatch, plain_values
from ragaudit.values.words import ENGLISH_ONES, ENGLISH_TENS

__all__ = ["KINDS", "NUMBER", "QUANTITY_FORM", "ValueMatch", "find_values", "numbers"]

KINDS = ("quantity", "money", "percent", "date", "duration", "version", "setting", "name",
         "table_cell")  # fmt: skip
"""Every kind `find_values` reports."""

_PRIORITY = {kind: rank for rank, kind in enumerate(
    ("table_cell", "setting", "name", "date", "money", "percent", "duration", "quantity",
     "version"))}  # fmt: skip
"""Which of two overlapping values is kept: the one whose label says more about it."""


ENGLISH_IN_WORDS = (
    rf"(?:{'|'.join(ENGLISH_TENS)})(?:[- ](?:{'|'.join(ENGLISH_ONES[1:10])}))?"
    rf"|{'|'.join(reversed(ENGLISH_ONES))}"
)
"""An English number 0..99 in words, as mutate writes and reads one."""
QUANTITY_FORM = re.compile(
    rf"(?<![\w.,])(?:(?P<digits>\d{{1,3}}(?:,\d{{3}})+(?:\.\d+)?|\d+(?:\.\d+)?)"
    rf"|(?P<words>(?i:{ENGLISH_IN_WORDS}))\b)"
    r"(?:(?P<gap>[ \u00a0-]?)(?P<unit>%|(?i:per cent)|[A-Za-z]+)(?!\w))?"
)
"""A quantity as mutate's two-form values read one (mutation.value_forms): digits with
English thousands commas or an English number in words, and any word after it as its unit
('five minutes (5min)')."""
NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
"""A number in digits, its separators kept ('1,024', '3.11')."""


def numbers(value: str) -> list[re.Match]:
    """The numbers written in `value`, in order."""
    return list(NUMBER.finditer(value))


def find_values(text: str) -> list[ValueMatch]:
    """Every value of `text` (see the module docstring), in text order, none overlapping:
    of two overlapping values the labelled one is kept ('The default is 30 seconds' is a
    `setting`), then the longer."""
    heads = find_heads(text)
    found = plain_values(text, heads)
    found += labelled_values(text, found, heads)
    return _without_overlaps(found)


def _without_overlaps(found: list[ValueMatch]) -> list[ValueMatch]:
    kept: list[ValueMatch] = []  # in text order
    for value in sorted(found, key=lambda v: (_PRIORITY[v.kind], v.start - v.end, v.start)):
        at = bisect.bisect_left(kept, value.start, key=lambda k: k.start)
        before_ok = at == 0 or kept[at - 1].end <= value.start
        after_ok = at == len(kept) or value.end <= kept[at].start
        if before_ok and after_ok:
            kept.insert(at, value)
    return kept
