"""What a drift comparison hands on besides its printed lines: the results file the Audit
page reads (`<results dir>/drift.json`) and the JUnit cases, one per constant. Both modes
(two source files, two ragaudit settings files) write the same shape; a settings constant
left to its default has no line (`line: null`, `default: true`)."""

from __future__ import annotations

from pathlib import Path

from ragaudit import paths
from ragaudit.auditing.settings import load_settings
from ragaudit.drift.compare import SIDES, Row
from ragaudit.drift.directions import verdict
from ragaudit.drift.found import Found
from ragaudit.drift.report import shown_value, side_names
from ragaudit.drift.settings import compare, constants
from ragaudit.fileio import now_iso
from ragaudit.fileio.lines import load_with_lines
from ragaudit.report.junit import TestCase
from ragaudit.results.schema import SCHEMA_VERSION

KIND = "drift"


def default_drift_path() -> Path:
    """`<results dir>/drift.json`, the file the Audit page shows."""
    return paths.results_dir() / "drift.json"


def _side(found: Found | None) -> dict | None:
    if found is None:
        return None
    return {
        "value": found.value,
        "file": found.location.file,
        "line": found.location.line,
        "name": found.name,
        "expression": found.expression,
        "default": False,
    }


def _document(production: Path, evaluation: Path, mode: str, entries: list[dict]) -> dict:
    both = [e for e in entries if e["production"] is not None and e["evaluation"] is not None]
    return {
        "kind": KIND,
        "schema_version": SCHEMA_VERSION,
        "created_at": now_iso(),
        "mode": mode,
        "production": str(production),
        "evaluation": str(evaluation),
        "constants": entries,
        "summary": {
            "constants": len(entries),
            "on_both_sides": len(both),
            "differ": sum(e["differs"] for e in both),
            "one_side_only": len(entries) - len(both),
        },
    }


def code_document(production: Path, evaluation: Path, rows: list[Row]) -> dict:
    """The results file of two source files compared."""
    entries = [
        {
            "constant": row.constant,
            "production": _side(row.production),
            "evaluation": _side(row.evaluation),
            "differs": row.differs,
            "looser": row.looser,
            "why": ("set on one side only" if row.one_side_only else row.why),
        }
        for row in rows
    ]
    return _document(production, evaluation, "source", entries)


def _settings_side(path: Path, value: object, lines: dict, constant: str) -> dict:
    line = lines.get(tuple(constant.split(".")))
    return {
        "value": value,
        "file": str(path),
        "line": line,
        "name": constant,
        "expression": None,
        "default": line is None,
    }


def settings_document(production: Path, evaluation: Path) -> dict:
    """The results file of two settings files compared (defaults resolved, as printed)."""
    _, differences = compare(production, evaluation)
    differing = {diff.constant: diff for diff in differences}
    prod_values = constants(load_settings(production))
    test_values = constants(load_settings(evaluation))
    prod_lines = load_with_lines(production, "settings file")[1]
    test_lines = load_with_lines(evaluation, "settings file")[1]
    entries = []
    for constant, value in prod_values.items():
        diff = differing.get(constant)
        entries.append(
            {
                "constant": constant,
                "production": _settings_side(production, value, prod_lines, constant),
                "evaluation": _settings_side(
                    evaluation, test_values[constant], test_lines, constant
                ),
                "differs": diff is not None,
                "looser": SIDES.get(diff.looser or "") if diff else None,
                "why": diff.why if diff else "",
            }
        )
    return _document(production, evaluation, "settings", entries)


def _case_text(entry: dict, names: dict[str, str]) -> str:
    parts = []
    for side in ("production", "evaluation"):
        found = entry[side]
        if found is None:
            parts.append(f"{side}: not found in {names[side]}")
            continue
        where = f"{found['file']}:{found['line']}" if found["line"] else f"{found['file']}"
        default = " (default)" if found["default"] else ""
        parts.append(f"{side}: {shown_value(found['value'])}{default} at {where}")
    return "\n".join(parts)


def junit_cases(document: dict) -> list[TestCase]:
    """One JUnit case per constant; a difference (or one side only) fails, naming the
    looser side, with the evaluation side's location (production's when it has none)."""
    names = side_names(Path(document["production"]), Path(document["evaluation"]))
    cases = []
    for entry in document["constants"]:
        place = entry["evaluation"] or entry["production"]
        failure = failure_type = None
        if entry["differs"] and None in (entry["production"], entry["evaluation"]):
            alone = "production" if entry["production"] else "evaluation"
            other = "evaluation" if alone == "production" else "production"
            failure = f"set in {names[alone]} only, not found in {names[other]}"
            failure_type = "one_side_only"
        elif entry["differs"]:
            failure = verdict(names.get(entry["looser"] or ""), entry["why"])
            failure_type = f"looser_{entry['looser']}" if entry["looser"] else "differs"
        cases.append(
            TestCase(
                name=entry["constant"],
                classname="ragaudit.drift",
                failure=failure,
                failure_type=failure_type,
                detail=_case_text(entry, names),
                file=place["file"],
                line=place["line"],
            )
        )
    return cases
