"""How the Cases page writes what the miner recorded: each check of an intent as one row
(its outcome, then what it found), and the rejected and unverified candidates as flat
rows (a cell holds text, not the nested checks the file keeps).

The check shapes are ragaudit.casemining.verify's: `passed` (None when the check was
skipped, as --no-generate skips the oracle), or `known` for the closed-book check; graded
replies under `answers`, each `{correct, verdict, reply}`.
"""

from __future__ import annotations

from collections.abc import Mapping

REPLY_CHARS = 120
"""The most of one reply or recorded value a cell shows."""


def outcome(result: Mapping) -> str:
    """A check's outcome in words."""
    if "passed" in result:
        return {True: "passed", False: "failed", None: "skipped"}.get(result["passed"], "?")
    if "known" in result:
        return "known without context" if result["known"] else "not known"
    return "recorded"


def _cut(value: object) -> str:
    text = " / ".join(str(value).split("\n"))
    return text if len(text) <= REPLY_CHARS else f"{text[: REPLY_CHARS - 1]}…"


def _answer(graded: object) -> str:
    if not isinstance(graded, Mapping):
        return _cut(graded)
    mark = "✓" if graded.get("correct") else f"✗ ({graded.get('verdict', 'wrong')})"
    return f"{mark} {_cut(graded.get('reply'))}"


def detail(result: Mapping) -> str:
    """What a check recorded beside its outcome: graded replies marked ✓ or ✗."""
    parts = []
    for field, value in result.items():
        if field in ("passed", "known"):
            continue
        if field == "answers" and isinstance(value, list):
            parts.append(" | ".join(_answer(graded) for graded in value))
        elif isinstance(value, list):
            parts.append(f"{field}: {' | '.join(map(_cut, value)) or 'none'}")
        else:
            parts.append(f"{field}: {_cut(value)}")
    return "; ".join(parts)


def check_rows(checks: Mapping) -> list[dict[str, str]]:
    """One row per check, in the file's order: check, result, detail."""
    rows = []
    for check, result in checks.items():
        result = result if isinstance(result, Mapping) else {"value": result}
        rows.append({"check": str(check), "result": outcome(result), "detail": detail(result)})
    return rows


def dropped_rows(entries: list) -> list[dict[str, str]]:
    """The rejected or unverified candidates as rows of text: lists joined, checks as
    `name outcome` pairs."""
    rows = []
    for entry in entries:
        if not isinstance(entry, Mapping):
            continue
        row = {}
        for field, value in entry.items():
            if isinstance(value, Mapping):
                checks = check_rows(value)
                row[field] = "; ".join(f"{c['check']} {c['result']}" for c in checks)
            elif isinstance(value, list):
                row[field] = " | ".join(map(_cut, value))
            else:
                row[field] = "" if value is None else _cut(value)
        rows.append(row)
    return rows
