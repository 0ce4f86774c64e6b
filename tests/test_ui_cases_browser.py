"""The Cases page in a real browser (Debian Chromium via Playwright, the inspector served on
127.0.0.1 as `ragaudit app` serves it): a person accepts one mined case, edits another's
phrasing and accepts it, rejects the third, saves, and the reviewed file in the data
folder's results/ holds what they chose. The fixture is tests/data/cases/mined_cases.yaml,
its corpus tests/data/cases/corpus/ (a path relative to the checkout, the server's
working folder)."""

from __future__ import annotations

import shutil

import pytest
import yaml
from e2e.ui_browser_helpers import serve_app, shot, wait_for_rerun

from ragaudit.paths import REPO_ROOT

pytestmark = [pytest.mark.e2e, pytest.mark.slow(model=False)]

CASES = REPO_ROOT / "tests" / "data" / "cases" / "mined_cases.yaml"
EDITED = "how short can an abbreviated name be with core.abbrev"


@pytest.fixture
def served(tmp_path):
    """The inspector on a loopback port, its data folder's results/ holding the cases file."""
    results = tmp_path / "results"
    results.mkdir()
    shutil.copy(CASES, results / CASES.name)
    process, base = serve_app(tmp_path, results / "latest.json", tmp_path / "streamlit.log")
    yield base, results
    process.terminate()
    process.wait(timeout=20)


def _decide(tab, intent: str, decision: str) -> None:
    group = tab.get_by_role("radiogroup", name=f"Decision on {intent}")
    group.scroll_into_view_if_needed()
    group.get_by_text(decision, exact=True).click()
    wait_for_rerun(tab)


def _edit_phrasing(tab, intent: str, number: int, text: str) -> None:
    editor = tab.get_by_test_id("stExpander").filter(has_text=f"Edit {intent}:")
    editor.get_by_text(f"Edit {intent}:").click()  # open it
    field = editor.get_by_label(f"Phrasing {number}")
    field.fill(text)
    field.press("Enter")  # a text input sends its value on Enter
    wait_for_rerun(tab)


def test_accept_one_edit_another_and_save(served, page):
    # pytest-playwright's page, on the system Chromium (tests/conftest.py)
    base, results = served
    tab = page
    tab.goto(f"{base}/cases")
    wait_for_rerun(tab, timeout=180_000)
    shot(tab, "cases-opened")
    # the fact is drawn in its document: the answer's span marked inside its sentence
    answer = tab.locator(".ra-doc span", has_text="5432")
    assert answer.first.inner_text() == "5432"
    _decide(tab, "postgres-port", "accept")
    _edit_phrasing(tab, "git-config-core-abbrev", 2, EDITED)
    assert tab.get_by_text("Edited: phrasings.").count() == 1
    _decide(tab, "git-config-core-abbrev", "accept")
    _decide(tab, "release-2-3-1-date", "reject")
    tab.get_by_role("button", name="Save reviewed cases").click()
    wait_for_rerun(tab)
    success = tab.get_by_test_id("stAlert").filter(has_text="Saved 2 accepted intents")
    assert success.count() == 1
    shot(tab, "cases-saved")
    written = yaml.safe_load((results / "mined_cases.reviewed.yaml").read_text(encoding="utf-8"))
    assert written["counts"]["reviewed"] == {"accepted": 2, "rejected": 1, "edited": 1}
    assert [i["intent"] for i in written["intents"]] == ["postgres-port", "git-config-core-abbrev"]
    port, abbrev = written["intents"]
    assert port["phrasings"] == [
        "Which TCP port does the server listen on by default?",
        "what port does postgres use",
    ]
    assert "review" not in port["provenance"]
    assert abbrev["phrasings"] == [
        "What is the minimum length of an abbreviated object name set by core.abbrev?",
        EDITED,
    ]
    assert (abbrev["answer"], abbrev["anchor"]) == ("4", "core.abbrev")
    assert abbrev["provenance"]["review"]["edited"] == ["phrasings"]
    assert (results / "mined_cases.yaml").read_bytes() == CASES.read_bytes()  # input untouched
