"""One retrieval constant found in a source file, and the small arithmetic every reader
shares: a value is a number, null (no limit: `None`, `null`, `Infinity`), or unresolved
(an expression that needs the running program), and unresolved values are not reported."""

from __future__ import annotations

import math
from dataclasses import dataclass

from ragaudit.codescan.sources import Location


class Unresolved:
    """A value only the running program knows (a parameter, a function's result)."""

    def __repr__(self) -> str:
        return "UNRESOLVED"


UNRESOLVED = Unresolved()
Value = int | float | None


@dataclass(frozen=True)
class Found:
    """A retrieval constant as one file sets it."""

    constant: str
    """The canonical constant (`k`, `backfill_range`, …) or a truncation (`candidates[:N]`)."""
    name: str
    """The name as written: `TOP_K`, `topK`, `retrieve(k=)`, `candidates.slice(0, N)`."""
    value: Value
    location: Location
    expression: str | None = None
    """The source text the value was computed from, when it is not a plain literal."""


def number(text: str) -> Value | Unresolved:
    """A literal's value: `8`, `0.35`, `1_000`, `"12"` (an .env or YAML string), `inf`."""
    cleaned = text.strip().strip("'\"").replace("_", "")
    if cleaned.lower() in ("none", "null", "undefined", "infinity", "inf", "+inf"):
        return None
    try:
        return int(cleaned, 0) if cleaned.lstrip("+-").isdigit() else _finite(float(cleaned))
    except ValueError:
        return UNRESOLVED


def _finite(value: float) -> Value:
    # Infinity as a limit is no limit; JSON (allow_nan=False) has no way to say it anyway
    return None if math.isinf(value) else value


def arithmetic(operator: str, left: object, right: object) -> Value | Unresolved:
    """`left operator right` for the operators a constant is derived with (a pool as
    `TOP_K * CANDIDATE_MULTIPLIER`); anything else, or a null operand, is unresolved."""
    numeric = all(isinstance(v, int | float) and not isinstance(v, bool) for v in (left, right))
    if not numeric:
        return UNRESOLVED
    try:
        if operator == "+":
            return left + right
        if operator == "-":
            return left - right
        if operator == "*":
            return left * right
        if operator == "/":
            quotient = left / right
            return int(quotient) if quotient == int(quotient) else quotient
        if operator == "//":
            return left // right
    except ZeroDivisionError:
        return UNRESOLVED
    return UNRESOLVED


def extreme(function: str, values: list[object]) -> Value | Unresolved:
    """`min(...)` / `max(...)` / `Math.min(...)` over resolved numbers."""
    if not values or not all(isinstance(v, int | float) for v in values):
        return UNRESOLVED
    return min(values) if function.endswith("min") else max(values)
