"""The Audit page on a fresh install shows the shipped example audit (a real `ragaudit
audit` of examples/audit), labelled as an example, until the user's own audit exists."""

from __future__ import annotations

import json
import shlex

import pytest
from helpers.ui_fixtures import open_app, texts

from ragaudit.ui.audit_page import EXAMPLE_AUDIT, EXAMPLE_COMMAND

EXAMPLE_ARGV = [
    "audit",
    "examples/audit/corpus",
    "examples/audit/cases.yaml",
    "--settings",
    "examples/audit/prod.yaml",
    "--dilution",
]


@pytest.fixture
def fresh_install(ragaudit_home, monkeypatch):
    monkeypatch.delenv("RAGAUDIT_AUDIT_RESULTS", raising=False)  # `ragaudit app`, no file
    return ragaudit_home


def _example() -> dict:
    return json.loads(EXAMPLE_AUDIT.read_text())


def test_the_shipped_example_is_a_real_audit_of_examples_audit():
    example = _example()
    assert example["kind"] == "audit" and example["complete"] is True
    assert example["argv"][: len(EXAMPLE_ARGV)] == EXAMPLE_ARGV  # then --out, this file
    assert shlex.split(EXAMPLE_COMMAND)[1:] == EXAMPLE_ARGV
    assert example["conditions"]["calls"]["computed"] > 0  # embedded, not replayed
    assert example["settings"]["path"] == "examples/audit/prod.yaml"
    intents = {i["intent"] for i in example["intents"]}
    assert intents == {"death-benefit-estate", "professional-tools", "filing-deadline"}


def test_a_fresh_install_shows_the_example_labelled_as_one(fresh_install):
    example = _example()
    at = open_app(None, page="pages/audit.py")
    assert not at.exception
    (label,) = [i.value for i in at.info if i.value.startswith("Example audit")]
    assert example["created_at"][:10] in label
    assert str(fresh_install / "results" / "audit-latest.json") in label  # where yours goes
    assert EXAMPLE_COMMAND in [c.value for c in at.code]
    shown = texts(at)
    assert "No audit results yet" not in shown
    summary = example["summary"]
    assert f"{summary['passed']}/{summary['cases']}" in at.metric[0].value
    grid = at.dataframe[0].value
    assert list(grid["case"]) == [c["case_id"] for c in example["cases"]]
    flagged = [i["intent"] for i in example["intents"] if i["red_flag"]]
    assert flagged and all(intent in shown for intent in flagged)  # the red-flag warning


def test_the_user_s_own_audit_replaces_the_example(fresh_install):
    own = _example()
    own["created_at"] = "2031-05-06T07:08:09+00:00"
    own["settings"]["values"]["name"] = "my-own-settings"
    target = fresh_install / "results" / "audit-latest.json"
    target.parent.mkdir(parents=True)
    target.write_text(json.dumps(own))
    at = open_app(None, page="pages/audit.py")
    assert not at.exception
    assert not [i for i in at.info if i.value.startswith("Example audit")]
    assert "my-own-settings" in texts(at) and "2031-05-06" in texts(at)


def test_a_named_audit_file_that_is_missing_is_not_replaced_by_the_example(
    fresh_install, monkeypatch
):
    missing = fresh_install / "elsewhere.json"
    monkeypatch.setenv("RAGAUDIT_AUDIT_RESULTS", str(missing))
    at = open_app(None, page="pages/audit.py")
    assert f"No audit results yet at `{missing}`" in texts(at)
    assert not [i for i in at.info if i.value.startswith("Example audit")]
