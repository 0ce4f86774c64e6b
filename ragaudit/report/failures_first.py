"""What failed, first: every cell with failures whose severity class is not `none`, ranked
by severity class and then by the lower Wilson bound of its failure rate, each with its
count over n, its attribution, a one-line why (report.why) and the section that holds it.

The report opens with it, `ragaudit report` prints it first, and the Matrix page draws it
above the heatmap. Every figure and word is read from the results file.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from ragaudit.report.render import Block, heading_anchor
from ragaudit.report.why import why_line
from ragaudit.results import view
from ragaudit.results.format import NOT_RUN, fmt_measure, fmt_ratio, percent
from ragaudit.results.palette import SEVERITY_FILLS

HEADING = "What failed"

SEVERITY_RANK = (*reversed([c for c in SEVERITY_FILLS if c != "undetermined"]), "undetermined")
"""Worst first (critical, high, medium, low), then `undetermined`: it says what could not
be established, so it follows every class that was."""

FAILURE_ATTRIBUTIONS = ("retrieval", "generation", "ceiling", "failed_call")
"""The attributions a failure can carry (`correct` is not one)."""


@dataclass(frozen=True)
class FailedCell:
    """One ranked entry of the summary."""

    probe: str
    config: str
    embedder: str
    severity: str
    branch: str
    failures: int
    n: int
    failure_wilson: tuple[float, float] | None
    """The failure rate's Wilson interval: the complement of the recorded success measure's."""
    attribution: str
    why: str
    section: str
    """The heading of the report table that holds the cell."""

    @property
    def cell(self) -> str:
        return f"{self.probe} × {self.config} × {self.embedder}"

    @property
    def failed(self) -> str:
        return fmt_ratio(self.failures, self.n, self.failure_wilson) + " failed"


def _failure_wilson(cell: dict) -> tuple[float, float] | None:
    measure = "correct" if cell.get("failure_basis") == "answer" else "gold_in_context"
    wilson = ((cell.get("measures") or {}).get(measure) or {}).get("wilson")
    return (1 - wilson[1], 1 - wilson[0]) if wilson else None


def _attribution(cell: dict) -> str:
    attribution = view.cell_attribution(cell)
    if not cell.get("generated"):
        return f"retrieval (gold not in context; generation {NOT_RUN})"
    if attribution is None:
        return "not measured in this file"
    named = [
        f"{name} {fmt_measure(attribution.get(name))}"
        for name in FAILURE_ATTRIBUTIONS
        if (attribution.get(name) or {}).get("count")
    ]
    return ", ".join(named) or "none attributed"


def _section(results: dict, cell: dict) -> str:
    mark = " (uncertified)" if view.uncertified(results, cell["embedder"]) else ""
    if cell.get("failure_basis") == "answer":
        return f"Correct answers, {cell['embedder']}{mark}"
    return f"Gold in context, {cell['embedder']}{mark}"


def failed_cells(results: dict) -> list[FailedCell]:
    """The ranked summary: severity class (worst first), then the failure rate's lower
    Wilson bound (highest first), then the failures' count; file order breaks a tie."""
    records: dict[tuple, list[dict]] = defaultdict(list)
    for record in results.get("instances") or []:
        records[(record["probe"], record["config"], record["embedder"])].append(record)
    configs = view.config_by_name(results)
    found = []
    for cell in results.get("cells") or []:
        severity = (cell.get("severity") or {}).get("class")
        if severity in (None, "none") or not cell.get("failures"):
            continue
        key = (cell["probe"], cell["config"], cell["embedder"])
        found.append(
            FailedCell(
                *key,
                severity=severity,
                branch=cell["severity"].get("branch") or "",
                failures=cell["failures"],
                n=cell["n"],
                failure_wilson=_failure_wilson(cell),
                attribution=_attribution(cell),
                why=why_line(cell, records[key], configs.get(cell["config"])),
                section=_section(results, cell),
            )
        )
    return sorted(found, key=_rank)


def _rank(entry: FailedCell) -> tuple:
    place = SEVERITY_RANK.index(entry.severity) if entry.severity in SEVERITY_RANK else 99
    lower = entry.failure_wilson[0] if entry.failure_wilson else entry.failures / entry.n
    return (place, -lower, -entry.failures)


def _intro(results: dict, entries: list[FailedCell]) -> str:
    total = len(results.get("cells") or [])
    by_class = ", ".join(
        f"{name} {sum(e.severity == name for e in entries)}"
        for name in SEVERITY_RANK
        if any(e.severity == name for e in entries)
    )
    confidence = view.wilson_confidence(results)
    interval = "Wilson interval"
    if confidence is not None:
        interval = f"{percent(confidence)}% {interval}"
    return (
        f"{len(entries)} of {total} cells have failures and a severity class other than "
        f"none ({by_class}): worst class first, then the highest lower bound of the "
        f"failure rate's {interval}. The conditions, models and every table follow."
    )


def failures_first_section(results: dict) -> list[Block]:
    """The report's opening section: one list item per failed cell, linked to its table."""
    entries = failed_cells(results)
    if not entries:
        return [("h", 2, HEADING), ("p", "No cell has failures outside severity class none.")]
    items = [
        f"**{e.severity}** {e.cell}: {e.failed}; attribution: {e.attribution}; why: {e.why}. "
        f"[{e.section}](#{heading_anchor(e.section)})"
        for e in entries
    ]
    return [("h", 2, HEADING), ("p", _intro(results, entries)), ("ul", items)]


def failures_first_text(results: dict) -> str:
    """The summary as plain lines for a terminal, worst first."""
    entries = failed_cells(results)
    lines = [f"{HEADING}: {len(entries)} cells"]
    lines += [
        f"  {e.severity:<12} {e.cell}: {e.failed}; {e.attribution}; why: {e.why}" for e in entries
    ]
    return "\n".join(lines) + "\n"
