"""JUnit for CI: one test case per gated cell, its failure message the cell's reasoning and
its body the lost instances (report.junit builds the tree). A cell's flaky instances, left
out of it, are its `<system-out>` (after the failure on a failing cell: junit-4.xsd allows
it), so a CI page shows which instances the cell could not count; a cell every paired
instance of which is flaky is a skipped case naming them."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

from ragaudit.fileio import write_text_atomic
from ragaudit.gating.cells import PairedCell
from ragaudit.gating.summary import fmt_detectable, fmt_reasoning
from ragaudit.gating.verdict import GateVerdict
from ragaudit.report.junit import TestCase, junit_tree, xml_safe

SUITE = "ragaudit gate"


def flaky_text(cell: PairedCell) -> str:
    """`flaky, left out: negation-010 (negation, B)`, one line per flaky instance."""
    return "\n".join(f"flaky, left out: {i} ({cell.probe}, {cell.pair.label})" for i in cell.flaky)


def gate_cases(verdict: GateVerdict) -> list[TestCase]:
    """A case per cell: `classname` the probe, `name` the cell; then a skipped case per
    cell left untested because all of it is flaky."""
    cases = []
    for cv in verdict.cells:
        reasoning = fmt_reasoning(cv, verdict.alpha, verdict.max_drop)
        lost = [f"lost {x.instance_id} ({x.probe}, {x.config}): {x.change}" for x in cv.lost]
        detail = "\n".join([reasoning, fmt_detectable(cv.detectable), *lost])
        cases.append(
            TestCase(
                name=cv.cell.name,
                classname=f"ragaudit.gating.{cv.cell.probe}",
                failure=reasoning if cv.failed else None,
                failure_type=", ".join(cv.reasons) or None,
                detail=detail,
            )
        )
    for cell in verdict.all_flaky:
        cases.append(
            TestCase(
                name=cell.name,
                classname=f"ragaudit.gating.{cell.probe}",
                skipped=f"not gated: all {len(cell.flaky)} paired instance(s) are flaky",
            )
        )
    return cases


def _add_flaky(element: ET.Element, cell: PairedCell) -> None:
    if not cell.flaky:
        return
    out = element.find("system-out")
    if out is None:
        out = ET.SubElement(element, "system-out")
    out.text = xml_safe("\n".join(part for part in (out.text, flaky_text(cell)) if part))


def write_gate_junit(path: str | Path, verdict: GateVerdict) -> None:
    """Write the gate's JUnit file to `path` (atomically)."""
    root = junit_tree(SUITE, gate_cases(verdict))
    cells = [cv.cell for cv in verdict.cells] + list(verdict.all_flaky)
    for element, cell in zip(root.iter("testcase"), cells, strict=True):
        _add_flaky(element, cell)
    ET.indent(root)
    text = ET.tostring(root, encoding="unicode", xml_declaration=False)
    write_text_atomic(path, '<?xml version="1.0" encoding="UTF-8"?>\n' + text + "\n")
