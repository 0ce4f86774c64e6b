"""What `ragaudit drift` prints for two source files: every constant side by side with
both locations, the verdict in the settings comparison's words, and closing `[fail]`
lines naming the looser side and the constants one side alone sets."""

from __future__ import annotations

from pathlib import Path

from ragaudit.drift.compare import Row
from ragaudit.drift.directions import looser_summary, verdict
from ragaudit.drift.found import Found


def side_names(production: Path, evaluation: Path) -> dict[str, str]:
    """How the report names each side: the file name, or the path when both share one."""
    prod, test = Path(production).name, Path(evaluation).name
    if prod == test:
        prod, test = str(production), str(evaluation)
    return {"production": prod, "evaluation": test}


def shown_value(value: object) -> str:
    """A constant's value as printed: `8`, `0.35`, `none` (no limit)."""
    return "none" if value is None else str(value)


EXPRESSION_WIDTH = 80
"""The most of an expression a line shows (a generated file's may be 200 KB long)."""


def _side(found: Found | None, missing_in: str) -> str:
    if found is None:
        return f"not found in {missing_in}"
    expression = " ".join((found.expression or "").split())
    if len(expression) > EXPRESSION_WIDTH:
        expression = expression[: EXPRESSION_WIDTH - 1] + "…"
    computed = f" = {expression}" if expression else ""
    return f"{shown_value(found.value)}{computed} at {found.location} ({found.name})"


def row_line(row: Row, names: dict[str, str]) -> str:
    """`  backfill_range: 12 at api/agent.ts:31 (…) | 48 = CANDIDATE_POOL at … -> …`."""
    prod = _side(row.production, names["production"])
    test = _side(row.evaluation, names["evaluation"])
    if row.one_side_only:
        outcome = "on one side only"
    elif not row.differs:
        outcome = "same"
    else:
        outcome = verdict(names.get(row.looser or ""), row.why)
    return f"  {row.constant}: {prod} | {test} -> {outcome}"


def render_rows(production: Path, evaluation: Path, rows: list[Row]) -> list[str]:
    """The drift report for constants read from code, line by line."""
    names = side_names(production, evaluation)
    prod, test = names["production"], names["evaluation"]
    both = [row for row in rows if not row.one_side_only]
    differing = [row for row in both if row.differs]
    alone = [row for row in rows if row.one_side_only]
    head = f"drift: {prod} vs {test}: {len(differing)} of {len(both)} constants set on both "
    head += f"sides differ; {len(alone)} set on one side only"
    lines = [head, *(row_line(row, names) for row in rows)]
    for side, other in (("evaluation", "production"), ("production", "evaluation")):
        count = sum(row.looser == side for row in differing)
        if count:
            lines.append(looser_summary(names[side], names[other], count))
    unordered = sum(row.looser is None for row in differing)
    if unordered:
        lines.append(
            f"[fail] {unordered} constant(s) differ with neither side looser: "
            f"{prod} and {test} do not describe the same retrieval"
        )
    if alone:
        lines.append(
            f"[fail] {len(alone)} constant(s) set on one side only: check that the other side "
            "applies it, or name it there with --map FILE"
        )
    return lines
