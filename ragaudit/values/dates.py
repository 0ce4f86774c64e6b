"""Dates as documents write them: ISO ('2024-03-05'), English long and US forms ('5 March
2024', 'March 5, 2024'), German ('5. März 2024', '05.03.2024'), French ('5 mars 2024',
'1er mars 2024'), Spanish ('5 de marzo de 2024'), and a month with its year ('März 2024').

`date_parts` reads the three forms mutate shifts (mutation.values); `find_dates` finds all
of them in a text (shapes.find_values)."""

from __future__ import annotations

import re
from functools import cache

from ragaudit.values.alternation import alternation
from ragaudit.values.words import MONTH_NAMES, MONTHS

__all__ = ["MONTHS", "date_parts", "find_dates", "is_date"]

ISO_DATE = re.compile(r"^(\d{4})-(\d{2})-(\d{2})$")
LONG_DATE = re.compile(r"^(\d{1,2}) (" + "|".join(MONTHS) + r") (\d{4})$")
US_DATE = re.compile(r"^(" + "|".join(MONTHS) + r") (\d{1,2}), (\d{4})$")


def date_parts(value: str) -> tuple[int, int, int, str] | None:
    """(year, month, day, form) of an ISO, English long or US date ('iso', 'long', 'us'),
    else None."""
    if m := ISO_DATE.match(value):
        return int(m[1]), int(m[2]), int(m[3]), "iso"
    if m := LONG_DATE.match(value):
        return int(m[3]), MONTHS.index(m[2]) + 1, int(m[1]), "long"
    if m := US_DATE.match(value):
        return int(m[3]), MONTHS.index(m[1]) + 1, int(m[2]), "us"
    return None


def is_date(value: str) -> bool:
    """`value` is a whole ISO, English long or US date (what mutation.text.shape calls
    `date`)."""
    return bool(ISO_DATE.match(value) or LONG_DATE.match(value) or US_DATE.match(value))


_DATE_END = r"(?![\w\-/]|[.,]\d)"
_MONTH_TAIL = re.compile(rf"(?:[ \u00a0]\d\d?,?|[ \u00a0]de)?[ \u00a0]\d{{4}}{_DATE_END}")
"""After a month's name: 'March 5, 2024', 'März 2024', 'enero de 2024'."""


@cache
def _digit_first() -> re.Pattern[str]:
    """The forms starting with a day or a year. The pattern starts with a plain digit, not
    a lookbehind, so a scan skips ahead to the next digit; ranges are checked after."""
    month = alternation(month_names())
    return re.compile(
        r"\d(?<![\w.\-/]\d)(?:"
        r"(?P<iso>\d{3}-\d\d-\d\d)"  # 2024-03-05
        r"|\d?\.\d\d?\.\d{4}"  # 05.03.2024
        rf"|\d?(?:\.|er)?[ \u00a0](?:{month})(?:[ \u00a0]|,[ \u00a0]?)\d{{4}}"  # 5. März 2024
        rf"|\d?[ \u00a0]de[ \u00a0](?:{month})[ \u00a0]del?[ \u00a0]\d{{4}}"  # 5 de marzo de 2024
        rf"){_DATE_END}"
    )


def month_names() -> set[str]:
    """Every month name as a date may write it: as listed, and capitalised."""
    names = {n for ns in MONTH_NAMES.values() for n in ns}
    return names | {n[0].upper() + n[1:] for n in names}


def find_dates(text: str, months: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The (start, end) of every date of the module docstring in `text`, each a value of
    its own (not inside a longer number, word or path); `months` are where a month's name
    stands as a word (heads.find_heads), where the dates written month first start."""
    found = []
    for m in _digit_first().finditer(text):
        if _valid(m.group(), iso=m["iso"] is not None):
            found.append(m.span())
    for start, end in months:
        tail = _MONTH_TAIL.match(text, end)
        if tail and _valid(text[start : tail.end()], iso=False):
            found.append((start, tail.end()))
    return found


def _valid(written: str, *, iso: bool) -> bool:
    """A year from 1500 to 2999, and a day and month in range where the date has them."""
    numbers = [int(n) for n in re.findall(r"\d+", written)]
    year = numbers[0] if iso else numbers[-1]
    days_months = numbers[1:][::-1] if iso else numbers[:-1]
    if not 1500 <= year <= 2999:
        return False
    if len(days_months) == 2 and not 1 <= days_months[1] <= 12:
        return False
    return all(1 <= n <= 31 for n in days_months[:1])
