"""The values a text states with no label needed: a number with its unit (a quantity, a
duration, a percent, money), a date, a version. `shapes.find_values` adds the labelled
ones (labelled.py) and picks among overlapping ones."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from ragaudit.values.alternation import alternation
from ragaudit.values.dates import find_dates
from ragaudit.values.heads import Heads, find_heads
from ragaudit.values.words import ATTACHED_UNITS, UNITS


@dataclass(frozen=True)
class ValueMatch:
    """One value in a text: `text` is text[start:end], as written."""

    start: int
    end: int
    text: str
    kind: str
    """One of KINDS."""
    label: str | None = None
    """What the value is of, as the text writes it beside the value: a setting's name
    (`max_connections`, the key of `port: 5432`), a column's header, a role phrase
    ('written by'); None when nothing beside the value names it."""
    label_start: int = -1
    """Where `label` stands in the text (-1 when there is none)."""


def _folded(unit: str) -> bool:
    """A unit matched in any case ('Seconds', 'MINUTES'): a lower-case word of 3+ letters."""
    return unit.islower() and unit.replace(" ", "").isalpha() and len(unit) >= 3


@cache
def _unit_kinds() -> tuple[dict[str, str], dict[str, str]]:
    """(unit as written -> kind, folded unit -> kind)."""
    exact, folded = {}, {}
    for kind, units in UNITS.items():
        for unit in units:
            (folded if _folded(unit) else exact)[unit.lower() if _folded(unit) else unit] = kind
    return exact, folded


def unit_kind(unit: str) -> str | None:
    """The kind a unit makes of its number (`duration`, `percent`, `money`, `quantity`),
    None for a word that is no unit. A unit matched in another case than it is listed
    ('SEKUNDEN', 'fünf sekunden') is read as the listed one."""
    exact, folded = _unit_kinds()
    return exact.get(unit) or folded.get(unit.lower()) or _any_case().get(unit.lower())


@cache
def _any_case() -> dict[str, str]:
    return {unit.lower(): kind for kind, units in UNITS.items() for unit in reversed(units)}


def free_before(text: str, at: int, also: str = "") -> bool:
    """text[at] starts a value of its own: no letter, digit, underscore or `also` before it."""
    if at == 0:
        return True
    before = text[at - 1]
    return not (before.isalnum() or before == "_" or before in also)


_FIRST_DIGIT = r"\d(?<![\w.,/\-+%]\d)"
"""A number's first digit, nothing of a word, number or path before it. Patterns start
with it (not with a lookbehind), so the engine skips ahead to the next digit."""
_NUMBER_REST = (
    r"(?:\d{0,2}(?:[\u00a0\u202f\u2009]\d{3})+(?:[.,]\d+)?|\d*(?:[.,]\d{3})*(?:[.,]\d+)?)"
)
"""The rest of a number: thousands grouped by a no-break or thin space ('1 024'), or
digits with thousands separators and a decimal one ('1,024', '1.000.000', '2,5', '3.5');
never a run of dotted numbers ('1.2.3.4' is a version or an address)."""
_NOT_VERSION = re.compile(r"\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}|\d{1,2}\.\d{1,2}\.\d{4}")
"""Dotted numbers that are no version: an address ('127.0.0.1'), a date ('45.03.2024',
read as a date where its day and month can be one)."""
_GAP = r"[ \u00a0\u202f\u2009]"
_VERSION_END = r"(?:[-+~][0-9A-Za-z]+(?:\.[0-9A-Za-z]+)*)?(?![\w\-/]|\.\w)"


@cache
def _patterns() -> dict[str, re.Pattern[str]]:
    exact, folded = _unit_kinds()
    spaced = [u for u in exact if u not in ATTACHED_UNITS]
    unit = f"(?:(?i:{alternation(folded)})|{alternation(spaced)})"
    word_folded = [u for u in folded if len(u) >= 3]
    word_exact = [u for u in spaced if u.isalpha() and len(u) >= 3]
    return {
        "digits": re.compile(
            rf"{_FIRST_DIGIT}(?P<number>\d{{0,2}}(?: \d{{3}})+(?= ?{unit}(?!\w))|{_NUMBER_REST})"
            rf"(?:(?P<gap>{_GAP}|-)?(?P<unit>{unit})|(?P<attached>{alternation(ATTACHED_UNITS)}))"
            r"(?!\w)"
        ),
        "word_unit": re.compile(  # after a number word
            rf"(?:{_GAP}|-)(?P<unit>(?i:{alternation(word_folded)})|{alternation(word_exact)}|%)"
            r"(?!\w)"
        ),
        "money": re.compile(rf"[$€£¥]\d{_NUMBER_REST}(?!\w|[.,]\d)"),
        "currency": re.compile(
            rf"{alternation(['USD', 'EUR', 'GBP', 'CHF', 'JPY'])}{_GAP}?\d{_NUMBER_REST}"
            r"(?!\w|[.,]\d)"
        ),
        "version": re.compile(rf"{_FIRST_DIGIT}\d*\.\d+\.\d+(?:\.\d+)*{_VERSION_END}"),
        "v_version": re.compile(rf"v(?<![\w.\-/]v)\d+\.\d+(?:\.\d+)*{_VERSION_END}"),
        "named_version": re.compile(  # after a version word
            rf"[ \u00a0]+(?P<number>v?\d+\.\d+(?:\.\d+)*){_VERSION_END}"
        ),
    }


def plain_values(text: str, heads: Heads | None = None) -> list[ValueMatch]:
    """The values of `text` that need no label: quantities, durations, percents, money,
    dates and versions, overlapping ones included (`find_values` picks among them).
    `heads`: the text's heads (heads.find_heads), when the caller has them already."""
    heads = find_heads(text) if heads is None else heads
    found = []
    patterns = _patterns()
    for m in patterns["digits"].finditer(text):
        if m["unit"] == "B" and not m["gap"]:
            continue  # '6B' is a hex number; a byte count writes '512 B'
        kind = "quantity" if m["unit"] is None else unit_kind(m["unit"]) or "quantity"
        found.append(ValueMatch(m.start(), m.end(), m.group(), kind))
    for start, end in heads.get("number", ()):
        m = patterns["word_unit"].match(text, end)
        if m and not (start >= 2 and text[start - 2].isdigit()):  # not '50 thousand objects'
            kind = "percent" if m["unit"] == "%" else unit_kind(m["unit"]) or "quantity"
            found.append(ValueMatch(start, m.end(), text[start : m.end()], kind))
    for name in ("money", "currency"):
        for m in patterns[name].finditer(text):
            if free_before(text, m.start(), ".,"):
                found.append(ValueMatch(m.start(), m.end(), m.group(), "money"))
    for name in ("version", "v_version"):
        for m in patterns[name].finditer(text):
            if not _NOT_VERSION.fullmatch(m.group()):  # an address or a date
                found.append(ValueMatch(m.start(), m.end(), m.group(), "version"))
    for _, end in heads.get("version", ()):
        m = patterns["named_version"].match(text, end)
        if m:
            found.append(ValueMatch(m.start("number"), m.end(), m["number"], "version"))
    for start, end in find_dates(text, heads.get("month", [])):
        found.append(ValueMatch(start, end, text[start:end], "date"))
    return found
