"""A value written in two forms side by side, `five minutes (5min)` or `1 GB (1024 MB)`:
found beside an answer, shifted in every form by one factor (each form in its own writing:
words stay words, digits keep their decimals, the unit stays as written), and re-read in a
mutant to tell whether its forms still agree. A revision stating `five minutes (3min)`
contradicts itself, and a grader could not tell which value it means."""

from __future__ import annotations

import math
import random
import re
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction

from ragaudit.mutation.text import find_whole_value, holds, sentence_around
from ragaudit.mutation.values import changed_value, shifted_number
from ragaudit.values.shapes import QUANTITY_FORM
from ragaudit.values.words import (
    BINARY,
    BYTES,
    ENGLISH_ONES,
    ENGLISH_TENS,
    PERCENT,
    SECONDS,
    WORD_UNITS,
)

TWO_FORMS = "two forms: "
"""How a reason starts when a value's second form cannot be shifted with it."""

_OPEN = re.compile(r"\s*\(\s*")
_CLOSE = re.compile(r"\s*\)")


@dataclass(frozen=True)
class Form:
    """One written quantity: its text, where its number and unit stand, and its value."""

    start: int
    end: int
    text: str
    number: str
    number_at: int
    unit: str
    unit_at: int
    gap: str
    value: Fraction
    in_words: bool
    decimals: int


@dataclass(frozen=True)
class ValueChange:
    """An answer's new text, the rule that made it, and the edits of its second forms."""

    new: str
    rule: str
    paired: tuple[tuple[int, int, str], ...] = ()
    """(start, end, new text) of each second form beside the answer, in original offsets."""


def value_change(
    answer: str, text: str, rng: random.Random, others: Sequence[str]
) -> ValueChange | str:
    """How `answer` changes in `text` (its document, which the change is planted beside),
    or why it cannot: in every form when it is written twice, else by `changed_value`."""
    places = []
    start = find_whole_value(answer, text)
    while start != -1:
        places.append((start, start + len(answer)))
        start = find_whole_value(answer, text, start + len(answer))
    pairs = {place: pair for place in places if (pair := _pair_at(text, *place))}
    if not pairs:
        new, rule = changed_value(answer, rng, others, text)
        return ValueChange(new, rule) if new else f"the answer cannot be changed: {rule}"
    return _shifted_forms(answer, text, places, pairs, rng)


def disagreeing_forms(text: str, spans: Sequence[tuple[int, int]]) -> list[str]:
    """The values at `spans` (what a mutant planted) written in two forms that state two
    different quantities, as written (`five minutes (3min)`)."""
    found = []
    for start, end in spans:
        pair = _pair_at(text, start, end)
        if pair and _compare(pair[0], pair[1])[0] == "differ":
            found.append(text[pair[0].start : pair[2]])
    return list(dict.fromkeys(found))


def _shifted_forms(
    answer: str, text: str, places: list, pairs: dict, rng: random.Random
) -> ValueChange | str:
    leads = []
    for a, b, stop in pairs.values():
        verdict, lead = _compare(a, b)
        written = text[a.start : stop]
        if verdict == "differ":
            return f"{TWO_FORMS}{written!r} states two different quantities"
        if verdict == "rounded":
            return f"{TWO_FORMS}{written!r} agrees only rounded: no shift keeps both exact"
        if lead is None:
            return f"{TWO_FORMS}{verdict} in {written!r}"
        leads.append((lead, written))
    lead, written = leads[0]
    if lead.value == 0:
        return f"{TWO_FORMS}{written!r} is zero: nothing to shift"
    forms = []
    for place in places:
        if place in pairs:
            forms += pairs[place][:2]
        else:  # the answer's own forms where it stands alone
            forms += [f for f in _forms(text, *sentence_around(text, *place)) if _over(f, *place)]
    for _ in range(20):
        shifted, step = shifted_number(float(lead.value), lead.decimals, rng)
        factor = Fraction(str(round(shifted, lead.decimals))) / lead.value
        rewrite = _rewrite(answer, places, forms, factor)
        if isinstance(rewrite, str):
            return f"{TWO_FORMS}{rewrite}"
        if rewrite is None:
            continue
        new, paired = rewrite
        if new != answer and not holds(text, new) and not holds(new, answer):
            sign = "+" if factor > 1 else "-"
            rule = f"number shifted by {sign}{step:g} in every form of {written!r}"
            return ValueChange(new, rule, paired)
    return f"{TWO_FORMS}no shift of {written!r} is written exactly in every form"


def _rewrite(
    answer: str, places: list, forms: list[Form], factor: Fraction
) -> tuple[str, tuple] | str | None:
    """(the answer's new text, the edits of its forms outside it), None when some form
    cannot state its new value exactly, or why the answer and a form cannot both change."""
    pieces: dict[tuple[int, int], str] = {}
    for form in forms:
        rewritten = _rewritten(form, form.value * factor)
        if rewritten is None:
            return None
        pieces.update(rewritten)
    news, paired = set(), []
    for start, end in places:
        inside = sorted((s, e, new) for (s, e), new in pieces.items() if start <= s and e <= end)
        new = answer
        for s, e, piece in reversed(inside):
            new = new[: s - start] + piece + new[e - start :]
        news.add(new)
    for (s, e), piece in sorted(pieces.items()):
        if any(start <= s and e <= end for start, end in places):
            continue
        if any(s < end and start < e for start, end in places):
            return f"the answer {answer!r} cuts a number of its value in two"
        paired.append((s, e, piece))
    return (news.pop(), tuple(paired)) if len(news) == 1 else None


def _rewritten(form: Form, value: Fraction) -> dict[tuple[int, int], str] | None:
    """The form's number (and unit word, singular or plural) stating `value` as the form
    writes: None when it cannot exactly (a fraction in words, more decimals than it has)."""
    if value <= 0 or (form.in_words and (value.denominator != 1 or value >= 100)):
        return None
    scaled = value * 10**form.decimals
    if scaled.denominator != 1:
        return None
    if form.in_words:
        number = _in_words(int(value), " " if " " in form.number else "-")
        number = number.upper() if form.number.isupper() else number
        number = number[0].upper() + number[1:] if form.number[0].isupper() else number
    else:
        digits = Decimal(scaled.numerator).scaleb(-form.decimals)
        number = f"{digits:{',' if ',' in form.number else ''}.{form.decimals}f}"
    pieces = {(form.number_at, form.number_at + len(form.number)): number}
    singular = form.unit[:-1] if form.unit.lower()[:-1] in WORD_UNITS else form.unit
    if singular.lower() in WORD_UNITS and form.gap != "-":  # 'five-minute' stays singular
        unit = singular if value == 1 else singular + ("S" if singular.isupper() else "s")
        if unit != form.unit:
            pieces[(form.unit_at, form.unit_at + len(form.unit))] = unit
    return pieces


def _in_words(number: int, joiner: str) -> str:
    if number < 20:
        return ENGLISH_ONES[number]
    tens, ones = divmod(number, 10)
    return ENGLISH_TENS[tens - 2] + (joiner + ENGLISH_ONES[ones] if ones else "")


def _forms(text: str, start: int, end: int) -> list[Form]:
    out = []
    for m in QUANTITY_FORM.finditer(text, start, end):
        number = m["digits"] or m["words"]
        if m["digits"]:
            plain = number.replace(",", "")
            value, decimals = Fraction(plain), len(plain.partition(".")[2])
        else:
            value = Fraction(sum(_word_value(w) for w in re.split(r"[- ]", number.lower())))
            decimals = 0
        unit = m["unit"] or ""
        out.append(Form(m.start(), m.end(), m.group(), number, m.start(), unit,
                        m.start("unit") if unit else m.end(), m["gap"] or "", value,
                        bool(m["words"]), decimals))  # fmt: skip
    return out


def _word_value(word: str) -> int:
    return ENGLISH_ONES.index(word) if word in ENGLISH_ONES else 20 + 10 * ENGLISH_TENS.index(word)


def _over(form: Form, start: int, end: int) -> bool:
    return form.start < end and start < form.end


def _pair_at(text: str, start: int, end: int) -> tuple[Form, Form, int] | None:
    """The two forms `a (b)` of the sentence around [start, end) that the span touches,
    with the end of the closing bracket. Two forms are written differently: in two units,
    or in words and in digits ('27 days (2024)' is a value and a year, not two forms)."""
    forms = _forms(text, *sentence_around(text, start, end))
    for a, b in zip(forms, forms[1:], strict=False):
        close = _CLOSE.match(text, b.end)
        two = (a.unit and b.unit) or a.in_words != b.in_words
        if two and _OPEN.fullmatch(text, a.end, b.start) and close:
            if _over(a, start, end) or _over(b, start, end):
                return a, b, close.end()
    return None


def _unit_key(unit: str) -> str | None:
    key = unit.lower()
    for candidate in (key, key[:-1] if key.endswith("s") else None):
        if candidate in SECONDS or candidate in BYTES or candidate in BINARY:
            return candidate
    return key if key in PERCENT else None


def _factor(key: str, base: int) -> tuple[str, Fraction]:
    """(the kind of quantity, how many base units one `key` is)."""
    if key in SECONDS:
        return "time", Fraction(SECONDS[key])
    if key in BINARY:
        return "bytes", Fraction(1024) ** BINARY[key]
    if key in BYTES:
        return "bytes", Fraction(base) ** BYTES[key]
    return "percent", Fraction(1)


def _factors(a: Form, b: Form) -> list[tuple[Fraction, Fraction]] | str:
    """What one unit of each form is in a common unit, for each reading of the document's
    bytes (1000 or 1024), or why the forms cannot be compared."""
    if not a.unit or not b.unit:  # 'five (5) minutes': one form leaves the unit to the other
        return [(Fraction(1), Fraction(1))]
    ka, kb = _unit_key(a.unit), _unit_key(b.unit)
    if ka is None or kb is None:
        if a.unit.lower().rstrip("s") == b.unit.lower().rstrip("s"):
            return [(Fraction(1), Fraction(1))]  # one unit we do not know, written twice
        return f"unknown unit {(a.unit if ka is None else b.unit)!r}"
    found = []
    for base in (1024, 1000):
        (kind_a, fa), (kind_b, fb) = _factor(ka, base), _factor(kb, base)
        if kind_a != kind_b:
            return f"{a.text!r} and {b.text!r} are not the same kind of quantity"
        found.append((fa, fb))
    return list(dict.fromkeys(found))


def _compare(a: Form, b: Form) -> tuple[str, Form | None]:
    """('exact', the form in the larger unit: the one a shift steps), ('rounded', None)
    when each form rounds the other, ('differ', None), or (why they cannot be compared,
    None)."""
    factors = _factors(a, b)
    if isinstance(factors, str):
        return factors, None
    for fa, fb in factors:
        if a.value * fa == b.value * fb:
            return "exact", a if fa >= fb else b
    for fa, fb in factors:
        if _round(a.value * fa / fb, b.decimals) == b.value and (
            _round(b.value * fb / fa, a.decimals) == a.value
        ):
            return "rounded", None
    return "differ", None


def _round(value: Fraction, decimals: int) -> Fraction:
    scale = 10**decimals
    return Fraction(math.floor(value * scale + Fraction(1, 2)), scale)
