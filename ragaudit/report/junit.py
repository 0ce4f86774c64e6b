"""JUnit XML for CI systems: `--junit FILE` on `audit`, `drift` and `harness-check`.

The file keeps to the common Jenkins/Ant JUnit schema (junit-4.xsd) that GitHub, GitLab and
Jenkins read: one `<testsuites>` holding one `<testsuite name tests failures errors skipped
time timestamp>`, each `<testcase name classname time>` holding at most one `<skipped>`, one
`<failure message type>` and one `<system-out>`, in that order. That schema has no `file` or
`line` attribute on a test case, so a case's location is written as `file:line` at the head
of its failure text (or its system-out when it passes), where a reader of the CI log sees it.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

from ragaudit.fileio import now_iso, write_text_atomic

# Characters XML 1.0 cannot hold at all (control characters, lone surrogates): a snippet of
# a user's source may carry one, and one such byte makes the whole file unreadable.
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def xml_safe(text: str) -> str:
    """`text` with every character XML 1.0 forbids replaced by U+FFFD."""
    return _NOT_XML.sub("\ufffd", text)


@dataclass(frozen=True)
class TestCase:
    """One JUnit test case: a phrasing, a constant or a finding."""

    __test__ = False  # a record, not a pytest test class

    name: str
    classname: str
    failure: str | None = None
    """The failure's one-line message; None when the case passed (or was skipped)."""
    failure_type: str | None = None
    """What kind of failure: a rule name, `drift`, `fail`, `failed_call`."""
    skipped: str | None = None
    """Why the case was skipped (a waived finding); None when it was not."""
    detail: str = ""
    """Free text: the failure's body, or the case's system-out when it passed."""
    file: str | None = None
    line: int | None = None


def location(case: TestCase) -> str | None:
    """`file:line` (or `file`) of a case that names one; None when it names none."""
    if case.file is None:
        return None
    return f"{case.file}:{case.line}" if case.line is not None else case.file


def junit_tree(suite_name: str, cases: list[TestCase]) -> ET.Element:
    """The `<testsuites>` element for `cases`, counts computed from them."""
    failures = sum(1 for case in cases if case.failure is not None)
    skipped = sum(1 for case in cases if case.skipped is not None and case.failure is None)
    root = ET.Element(
        "testsuites",
        {"name": xml_safe(suite_name), "tests": str(len(cases)), "failures": str(failures)},
    )
    root.set("errors", "0")
    root.set("time", "0")
    suite = ET.SubElement(
        root,
        "testsuite",
        {
            "name": xml_safe(suite_name),
            "tests": str(len(cases)),
            "failures": str(failures),
            "errors": "0",
            "skipped": str(skipped),
            "time": "0",
            "timestamp": now_iso(),
        },
    )
    for case in cases:
        _add_case(suite, case)
    return root


def _add_case(suite: ET.Element, case: TestCase) -> None:
    element = ET.SubElement(
        suite,
        "testcase",
        {"name": xml_safe(case.name), "classname": xml_safe(case.classname), "time": "0"},
    )
    where = location(case)
    body = "\n".join(part for part in (where, case.detail) if part)
    if case.failure is not None:
        failure = ET.SubElement(
            element,
            "failure",
            {"message": xml_safe(case.failure), "type": case.failure_type or "failure"},
        )
        failure.text = xml_safe(body) or None
        return
    if case.skipped is not None:
        ET.SubElement(element, "skipped").text = xml_safe(case.skipped)
    if body:
        ET.SubElement(element, "system-out").text = xml_safe(body)


def write_junit(path: str | Path, suite_name: str, cases: list[TestCase]) -> None:
    """Write `cases` as one JUnit suite to `path`, atomically (fileio.write_text_atomic)."""
    root = junit_tree(suite_name, cases)
    ET.indent(root)
    text = ET.tostring(root, encoding="unicode", xml_declaration=False)
    write_text_atomic(path, '<?xml version="1.0" encoding="UTF-8"?>\n' + text + "\n")
