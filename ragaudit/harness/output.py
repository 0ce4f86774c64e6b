"""What a harness-check hands on: the terminal lines, the results file the Audit page reads
(`<results dir>/harness-check.json`) and the JUnit cases, one per finding."""

from __future__ import annotations

from pathlib import Path

from ragaudit import paths
from ragaudit.fileio import now_iso
from ragaudit.harness.findings import RULES, Finding
from ragaudit.harness.scan import HarnessCheck
from ragaudit.report.junit import TestCase
from ragaudit.results.format import fmt_ratio
from ragaudit.results.io import DocumentKind
from ragaudit.results.schema import SCHEMA_VERSION

KIND = "harness_check"
HARNESS_CHECK = DocumentKind(
    "harness-check results", SCHEMA_VERSION, ("findings",), "ragaudit harness-check PATH...",
    KIND, (1,),
)  # fmt: skip
"""The harness-check results file as a document kind (the Audit page reads it)."""


def default_check_path() -> Path:
    """`<results dir>/harness-check.json`, the file the Audit page shows."""
    return paths.results_dir() / "harness-check.json"


def check_document(check: HarnessCheck) -> dict:
    """The results file: the paths, files scanned, every finding, waivers unused."""
    return {
        "kind": KIND,
        "schema_version": SCHEMA_VERSION,
        "created_at": now_iso(),
        "paths": check.paths,
        "files": check.files,
        "rules": RULES,
        "findings": [finding.as_json() for finding in check.findings],
        "unused_waivers": [
            {"rule": w.rule, "file": w.written, "reason": w.reason} for w in check.unused_waivers
        ],
        "summary": summary(check.findings, len(check.files)),
    }


def summary(findings: list[Finding] | list[dict], files: int) -> dict:
    """Counts over findings (objects or their JSON): files, findings, waived, not waived,
    files with a finding not waived."""
    rows = [f.as_json() if isinstance(f, Finding) else f for f in findings]
    open_rows = [row for row in rows if not row["waived"]]
    return {
        "files": files,
        "findings": len(rows),
        "waived": len(rows) - len(open_rows),
        "not_waived": len(open_rows),
        "files_with_findings": len({row["file"] for row in open_rows}),
    }


def summary_line(counts: dict) -> str:
    """`harness-check: 4 findings not waived, 1 waived (5 found); files with a finding not
    waived 67% 2/3`, or the all-clear."""
    if not counts["findings"]:
        return f"harness-check: no findings in {counts['files']} files"
    return (
        f"harness-check: {counts['not_waived']} findings not waived, {counts['waived']} waived "
        f"({counts['findings']} found); files with a finding not waived "
        f"{fmt_ratio(counts['files_with_findings'], counts['files'])}"
    )


def render_lines(check: HarnessCheck) -> list[str]:
    """Each finding as `file:line: rule: message`, its snippet indented beneath (a waived
    one with its reason), then unused waivers and the summary."""
    lines = []
    for finding in check.findings:
        waived = " [waived]" if finding.waived else ""
        lines.append(f"{finding.file}:{finding.line}: {finding.rule}{waived}: {finding.message}")
        lines.extend(f"    {line}" for line in finding.snippet.splitlines())
        if finding.waived:
            lines.append(f"    waived: {finding.reason}")
    for waiver in check.unused_waivers:
        lines.append(f"unused waiver: {waiver.rule} at {waiver.written} matched no finding")
    lines.append(summary_line(summary(check.findings, len(check.files))))
    return lines


def junit_cases(check: HarnessCheck) -> list[TestCase]:
    """One test case per finding (a waived one skipped, with its reason); a single passing
    case when there is none, so the suite is never empty."""
    cases = [
        TestCase(
            name=f"{finding.rule} at {finding.file}:{finding.line}",
            classname=f"harness-check.{finding.rule}",
            failure=None if finding.waived else finding.message,
            failure_type=finding.rule,
            skipped=f"waived: {finding.reason}" if finding.waived else None,
            detail=finding.snippet,
            file=finding.file,
            line=finding.line,
        )
        for finding in check.findings
    ]
    if not cases:
        files = len(check.files)
        cases.append(TestCase(f"no findings in {files} files", "harness-check", detail=""))
    return cases
