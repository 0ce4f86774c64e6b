"""The Audit page's drift and harness-check panels, on results files written by the real
commands over the examples: every constant and finding at its file:line."""

from __future__ import annotations

import json

from helpers.ui_fixtures import open_app, texts

from ragaudit.cli.main import main
from ragaudit.paths import REPO_ROOT

HARNESS = REPO_ROOT / "examples" / "harness"


def test_harness_findings_are_listed_at_file_line(ragaudit_home, monkeypatch):
    # no audit of the user's own (a named file not written yet, so not the shipped example)
    monkeypatch.setenv("RAGAUDIT_AUDIT_RESULTS", str(ragaudit_home / "no-audit.json"))
    main(["harness-check", str(HARNESS), "--waivers", str(HARNESS / "waivers.yaml")])
    document = json.loads((ragaudit_home / "results" / "harness-check.json").read_text())
    at = open_app(None, page="pages/audit.py")
    assert not at.exception
    grid = at.dataframe[0].value
    assert list(grid["at"]) == [f"{f['file']}:{f['line']}" for f in document["findings"]]
    assert list(grid["rule"]) == [f["rule"] for f in document["findings"]]
    waived = [w for w in grid["waived"] if w]
    assert waived == [f"waived: {HARNESS_REASON}"]
    assert at.expander[0].label == (
        "harness-check: 5 findings not waived, 1 waived (6 found); files with a finding not "
        "waived 100% 2/2"
    )
    assert "No audit results yet" in texts(at)  # the audit's own panel still says so


HARNESS_REASON = (
    "removing a scratch file that may already be gone; no measurement passes through it"
)


def test_drift_constants_side_by_side_with_locations(ragaudit_home, monkeypatch):
    # no audit of the user's own (a named file not written yet, so not the shipped example)
    monkeypatch.setenv("RAGAUDIT_AUDIT_RESULTS", str(ragaudit_home / "no-audit.json"))
    example = REPO_ROOT / "examples" / "audit"
    status = main(["drift", str(example / "prod.yaml"), str(example / "eval.yaml")])
    assert status == 1
    document = json.loads((ragaudit_home / "results" / "drift.json").read_text())
    at = open_app(None, page="pages/audit.py")
    assert not at.exception
    grid = at.dataframe[0].value
    rows = {row["constant"]: row for _, row in grid.iterrows()}
    # examples/audit: eval.yaml backfills from 48 (its line 12), production from 12 (line 11)
    backfill = rows["backfill_range"]
    assert (backfill["production"], backfill["evaluation"]) == ("12", "48")
    assert backfill["production at"] == f"{example / 'prod.yaml'}:11"
    assert backfill["evaluation at"] == f"{example / 'eval.yaml'}:12"
    assert backfill["verdict"] == "differs; looser: evaluation"
    assert len(rows) == len(document["constants"])


def test_a_broken_results_file_is_one_line_and_the_page_still_draws(ragaudit_home, monkeypatch):
    monkeypatch.setenv("RAGAUDIT_AUDIT_RESULTS", "")
    (ragaudit_home / "results").mkdir()
    (ragaudit_home / "results" / "harness-check.json").write_text('{"kind": "drift"}')
    at = open_app(None, page="pages/audit.py")
    assert not at.exception
    errors = [e.value for e in at.error]
    assert errors == [
        f"Cannot show the harness-check results: {ragaudit_home / 'results' / 'harness-check.json'}"
        ': not a harness-check results file (its "kind" is "drift")'
    ]
