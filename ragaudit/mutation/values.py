"""The changed value a superseding revision or a near-duplicate states, by a stated rule:
numbers and dates shifted by a seeded amount, other strings replaced by another intent's
answer of the same shape (text.shape: a duration by a duration, a name by a name). A value
no rule can change is reported, never guessed."""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import Sequence

from ragaudit.mutation.text import holds, shape
from ragaudit.values.dates import MONTHS, date_parts
from ragaudit.values.shapes import numbers


def changed_value(
    value: str, rng: random.Random, others: Sequence[str], forbidden: str
) -> tuple[str | None, str]:
    """(the new value, the rule that made it), or (None, why no rule applies). The new
    value never appears in `forbidden` (the document it is planted beside), so a grader
    telling the two apart cannot mistake one for the other."""
    kind = shape(value)
    if kind != "date" and not numbers(value):  # no digit to shift: another answer's value
        same = sorted({o for o in others if shape(o) == kind and o != value})
        usable = [o for o in same if not holds(forbidden, o) and value not in o]
        if not same:
            return None, f"no other intent's answer has the same shape ({kind})"
        if not usable:
            return None, "every other answer of the same shape already appears in the document"
        return rng.choice(usable), f"another intent's answer of the same shape ({kind})"
    for _ in range(20):
        new, rule = _shifted_date(value, rng) if kind == "date" else _shifted_number(value, rng)
        if new != value and not holds(forbidden, new) and not holds(new, value):
            return new, rule
    return None, "no shifted value absent from the document was found"


def _shifted_number(value: str, rng: random.Random) -> tuple[str, str]:
    """The last number of `value` shifted by a seeded step (up or down, never below 1),
    written with the same decimals."""
    match = numbers(value)[-1]
    raw = match.group()
    if raw.count(".") > 1:
        # a version ('1.6.6'): its last part is the number shifted, the rest kept as written
        head, _, last = raw.rpartition(".")
        shifted = int(last) + 1 + rng.randrange(3)
        new = value[: match.start()] + f"{head}.{shifted}" + value[match.end() :]
        return new, f"version's last part shifted by +{shifted - int(last)}"
    decimals = len(raw.rsplit(".", 1)[1]) if "." in raw else 0
    number = float(raw.replace(",", ""))
    shifted, step = shifted_number(number, decimals, rng)
    text = f"{shifted:,.{decimals}f}" if "," in raw else f"{shifted:.{decimals}f}"
    new = value[: match.start()] + text + value[match.end() :]
    return new, f"number shifted by {'+' if shifted > number else '-'}{step:g}"


def shifted_number(number: float, decimals: int, rng: random.Random) -> tuple[float, float]:
    """(the number moved by a seeded 15-40% step, up or down but never below 1, the step),
    the step a whole number, or of `decimals` decimals when the number is written so."""
    step = max(1.0, round(abs(number) * rng.uniform(0.15, 0.4)))
    if decimals:
        step = round(abs(number) * rng.uniform(0.15, 0.4), decimals) or 10**-decimals
    shifted = number + step if number - step < 1 or rng.random() < 0.5 else number - step
    return shifted, step


def _shifted_date(value: str, rng: random.Random) -> tuple[str, str]:
    """The date moved by a seeded 20 to 200 days, written in the same form."""
    year, month, day, form = date_parts(value)
    days = rng.randint(20, 200)
    new = dt.date(year, month, day) + dt.timedelta(days=days)
    if form == "iso":
        text = new.isoformat()
    elif form == "long":
        text = f"{new.day} {MONTHS[new.month - 1]} {new.year}"
    else:
        text = f"{MONTHS[new.month - 1]} {new.day}, {new.year}"
    return text, f"date shifted by +{days} days"
