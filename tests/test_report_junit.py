"""The JUnit files CI systems read, parsed with a real XML parser: the common Jenkins/Ant
schema's elements and attributes only, and the counts each command's cases imply."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest

from ragaudit.cli.main import main
from ragaudit.paths import REPO_ROOT
from ragaudit.report.junit import TestCase, write_junit

# From the Jenkins junit-4.xsd (jenkinsci dtkit; the schema GitHub and GitLab reporters read):
# each element's attributes, the required ones, and the order of a test case's children.
ALLOWED = {
    "testsuites": {"name", "time", "tests", "failures", "disabled", "errors"},
    "testsuite": {
        "name", "tests", "failures", "errors", "time", "disabled", "skipped", "timestamp",
        "hostname", "id", "package",
    },
    "testcase": {"name", "assertions", "time", "classname", "status"},
    "failure": {"type", "message"},
    "error": {"type", "message"},
    "skipped": set(),
    "system-out": set(),
    "system-err": set(),
}  # fmt: skip
REQUIRED = {"testsuite": {"name", "tests"}, "testcase": {"name"}}
CASE_CHILDREN = ["skipped", "error", "failure", "system-out", "system-err"]


def check_schema(path) -> ET.Element:
    """Parse `path` and check it against the schema's elements and attributes; the suite."""
    root = ET.parse(path).getroot()
    assert root.tag == "testsuites"
    for element in root.iter():
        assert element.tag in ALLOWED, element.tag
        assert set(element.attrib) <= ALLOWED[element.tag], (element.tag, element.attrib)
        assert REQUIRED.get(element.tag, set()) <= set(element.attrib), element.tag
    suites = list(root)
    assert [s.tag for s in suites] == ["testsuite"]
    suite = suites[0]
    for case in suite:
        assert case.tag == "testcase"
        order = [CASE_CHILDREN.index(child.tag) for child in case]
        assert order == sorted(order) and len(order) == len(set(order))
    return suite


def counts(suite: ET.Element) -> tuple[str, str, str, str]:
    return tuple(suite.get(name) for name in ("tests", "failures", "errors", "skipped"))


def test_write_junit_counts_and_schema(tmp_path):
    path = tmp_path / "out.xml"
    cases = [
        TestCase("ok", "suite.a"),
        TestCase("bad", "suite.a", failure="rank 21", failure_type="fail", file="c.yaml", line=9),
        TestCase("waived", "suite.b", skipped="accepted: a scratch file"),
        TestCase("control \x01 character", "suite.b", failure="x\x08y", detail="line\x00"),
    ]
    write_junit(path, "ragaudit test", cases)
    suite = check_schema(path)
    assert counts(suite) == ("4", "2", "0", "1")
    assert path.read_text().startswith('<?xml version="1.0" encoding="UTF-8"?>')
    bad = suite.find("testcase[@name='bad']/failure")
    assert (bad.get("message"), bad.get("type")) == ("rank 21", "fail")
    assert bad.text.splitlines()[0] == "c.yaml:9"  # the schema has no file/line attributes
    assert suite.find("testcase[@name='waived']/skipped").text == "accepted: a scratch file"


def test_harness_check_junit_one_case_per_finding(tmp_path, ragaudit_home):
    script = tmp_path / "bench.py"
    script.write_text(
        "def a(q):\n    try:\n        return q()\n    except Exception:\n        return []\n\n\n"
        "def b(q):\n    try:\n        q()\n    except Exception:\n        pass\n"
    )
    waivers = tmp_path / "waivers.yaml"
    waivers.write_text("waivers:\n  - {rule: empty-catch, file: bench.py:11, reason: accepted}\n")
    junit = tmp_path / "harness.xml"
    status = main(["harness-check", str(script), "--waivers", str(waivers), "--junit", str(junit)])
    assert status == 1
    suite = check_schema(junit)
    assert counts(suite) == ("2", "1", "0", "1")
    names = [case.get("name") for case in suite]
    assert names == [f"silent-fallback at {script}:4", f"empty-catch at {script}:11"]
    failure = suite.find("testcase/failure")
    assert failure.get("type") == "silent-fallback"
    assert failure.text.splitlines()[0] == f"{script}:4"

    clean = tmp_path / "clean.py"
    clean.write_text("x = 1\n")
    assert main(["harness-check", str(clean), "--junit", str(junit)]) == 0
    assert counts(check_schema(junit)) == ("1", "0", "0", "0")  # never an empty suite


@pytest.fixture(scope="module")
def audit_run(tmp_path_factory):
    """The example audit, with the death-benefit intent required to land the Insurance Act
    article: the casual phrasing pushes it out of the top-6 (examples/audit/README.md)."""
    root = tmp_path_factory.mktemp("audit-junit")
    cases = root / "cases.yaml"
    cases.write_text(
        "intents:\n"
        "  - intent: death-benefit-estate\n"
        "    expect: [statutes/insurance-act-112]\n"
        "    phrasings:\n"
        "      - id: formal\n"
        "        q: Is a life insurance benefit payable to a named beneficiary included in the "
        "taxable estate?\n"
        "      - id: casual\n"
        "        q: After the client dies, does the death benefit the beneficiary receives get "
        "taxed as estate?\n"
    )
    example = REPO_ROOT / "examples" / "audit"
    out, junit = root / "audit.json", root / "audit.xml"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("RAGAUDIT_HOME", str(root / "home"))
        status = main(
            ["audit", str(example / "corpus"), str(cases), "--settings",
             str(example / "prod.yaml"), "--out", str(out), "--junit", str(junit)]
        )  # fmt: skip
    return status, json.loads(out.read_text()), junit


def test_audit_junit_one_case_per_phrasing(audit_run):
    status, results, junit = audit_run
    assert status == 1
    suite = check_schema(junit)
    assert counts(suite) == ("2", "1", "0", "0")
    assert [case.get("name") for case in suite] == [
        "death-benefit-estate/formal",
        "death-benefit-estate/casual",
    ]
    casual = next(c for c in results["cases"] if c["case_id"] == "death-benefit-estate/casual")
    rank = casual["sources"][0]["rank"]
    failure = suite.find("testcase[@name='death-benefit-estate/casual']/failure")
    assert failure.get("type") == "fail"
    assert failure.get("message") == (
        f"statutes/insurance-act-112 at rank {rank}, not in the top-6; RED FLAG: "
        "statutes/insurance-act-112 is in the top-6 for 50% 1/2 phrasings of "
        "death-benefit-estate (a phrasing pushes it out)"
    )
    assert failure.text.splitlines()[0] == f"{results['cases_file']}:{casual['line']}"
    formal = suite.find("testcase[@name='death-benefit-estate/formal']")
    assert formal.find("failure") is None


def test_the_ci_example_audits_examples_audit_and_publishes_its_junit_file():
    import yaml

    workflow = yaml.safe_load((REPO_ROOT / "examples" / "ci" / "github-actions.yml").read_text())
    env, steps = workflow["env"], workflow["jobs"]["audit"]["steps"]
    assert (env["CORPUS"], env["CASES"], env["SETTINGS"]) == (
        "examples/audit/corpus", "examples/audit/cases.yaml", "examples/audit/prod.yaml"
    )  # fmt: skip
    for name in ("CORPUS", "CASES", "SETTINGS"):
        assert (REPO_ROOT / env[name]).exists()
    audit = next(s["run"] for s in steps if "ragaudit audit" in s.get("run", ""))
    assert "--junit reports/audit-junit.xml" in audit
    publish = next(s for s in steps if s.get("uses", "").startswith("mikepenz/action-junit-report"))
    assert publish["if"] == "always()"  # published when the audit fails, above all
    assert publish["with"]["report_paths"] == "reports/*-junit.xml"
