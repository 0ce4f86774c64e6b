"""Issue 11, defect 2, in a real browser against a real server: a crafted link cannot make
the inspector open or write a file of the link's choosing.

`/runs?results=<a text file outside results>` plus a click on "Start run" leaves the file as
it was (sha256) and starts nothing; the Matrix (`/?results=<a FIFO>`) answers at once with the
refusal instead of hanging the session. No model runs: the click is refused before any
subprocess could start.
"""

from __future__ import annotations

import hashlib
import os
import time
import urllib.parse

import pytest
from helpers.ui_fixtures import write_results
from ui_browser_helpers import serve_app, shot, wait_for_rerun

pytestmark = [pytest.mark.e2e]

PROMPT_MS = 20_000
"""A refused link must answer well within this (a blocked open would never answer)."""


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """The inspector on a loopback port over a small results file under home/results."""
    home = tmp_path_factory.mktemp("url-policy")
    results = write_results(home / "results" / "latest.json", n=2, generate=False)
    process, base = serve_app(home, results, home / "streamlit.log")
    yield base, home
    process.terminate()
    process.wait(timeout=20)


def _link(base: str, page: str, value: str) -> str:
    """`page` "" is the Matrix (the default page is served at the root, not at /matrix)."""
    return f"{base}/{page}?results={urllib.parse.quote(value)}"


def _alerts(page) -> list[str]:
    return page.locator("[data-testid='stAlertContainer']").all_inner_texts()


def _alert_saying(page, text: str):
    return page.locator("[data-testid='stAlertContainer']").filter(has_text=text)


def _sha256(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _refusal(value: str, home) -> str:
    return (
        f"?results={value} refused: a link may name only a file under {home / 'results'} "
        "or the one given to ragaudit app --results"
    )


def test_start_run_on_a_crafted_link_leaves_the_file_alone(served, page):
    base, home = served
    victim = home / "notes.txt"  # outside results/
    victim.write_text("a person's notes, not a results file\n", encoding="utf-8")
    before = _sha256(victim)
    page.goto(_link(base, "runs", str(victim)))
    page.get_by_role("button", name="Start run").wait_for(timeout=PROMPT_MS)  # first run drawn
    wait_for_rerun(page)
    refusal = _refusal(str(victim), home)
    assert _alerts(page) == [f"Cannot show or start runs for this link: {refusal}"]
    page.get_by_role("button", name="Start run").click()
    _alert_saying(page, "Not started").wait_for(timeout=PROMPT_MS)
    wait_for_rerun(page)
    assert _alerts(page) == [
        f"Cannot show or start runs for this link: {refusal}",
        f"Not started: {refusal}",
    ]
    shot(page, "10-runs-crafted-link-refused")
    time.sleep(1)  # a started run would be writing by now
    assert _sha256(victim) == before
    assert not (home / "runs").exists()  # no run state, no log: no subprocess


@pytest.mark.parametrize("where", ["outside results", "inside results"])
def test_a_link_to_a_fifo_answers_promptly(served, page, where):
    base, home = served
    fifo = home / "pipe" if where == "outside results" else home / "results" / "pipe.json"
    os.mkfifo(fifo)
    try:
        started = time.monotonic()
        page.goto(_link(base, "", str(fifo)))
        _alert_saying(page, "Cannot show results").wait_for(timeout=PROMPT_MS)
        wait_for_rerun(page, timeout=PROMPT_MS)
        elapsed = time.monotonic() - started
        expected = (
            _refusal(str(fifo), home)
            if where == "outside results"
            else f"{fifo}: a FIFO, not a regular file; the inspector opens only those"
        )
        assert _alerts(page) == [f"Cannot show results: {expected}"]
        assert page.get_by_text("Page not found").count() == 0
        assert elapsed < PROMPT_MS / 1000
        shot(page, f"11-matrix-fifo-{where.split()[0]}")
    finally:
        fifo.unlink()
    page.goto(base)  # the same server still serves the results it was given
    page.locator("[data-testid='stPlotlyChart']").first.wait_for(timeout=60_000)
    wait_for_rerun(page)
    assert _alerts(page) == []
