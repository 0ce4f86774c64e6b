"""JUnit for CI: one test case per gated cell, its failure message the cell's reasoning and
its body the lost instances (report.junit writes the file)."""

from __future__ import annotations

from pathlib import Path

from ragaudit.gate.summary import fmt_detectable, fmt_reasoning
from ragaudit.gate.verdict import GateVerdict
from ragaudit.report.junit import TestCase, write_junit


def gate_cases(verdict: GateVerdict) -> list[TestCase]:
    """A case per cell: `classname` the probe, `name` the cell."""
    cases = []
    for cv in verdict.cells:
        reasoning = fmt_reasoning(cv, verdict.alpha, verdict.max_drop)
        lost = [f"lost {x.instance_id} ({x.probe}, {x.config}): {x.change}" for x in cv.lost]
        detail = "\n".join([reasoning, fmt_detectable(cv.detectable), *lost])
        cases.append(
            TestCase(
                name=cv.cell.name,
                classname=f"ragaudit.gate.{cv.cell.probe}",
                failure=reasoning if cv.failed else None,
                failure_type=", ".join(cv.reasons) or None,
                detail=detail,
            )
        )
    return cases


def write_gate_junit(path: str | Path, verdict: GateVerdict) -> None:
    """Write the gate's JUnit file to `path`."""
    write_junit(path, "ragaudit gate", gate_cases(verdict))
