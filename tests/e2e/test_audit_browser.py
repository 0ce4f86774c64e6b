"""The Audit page in a real browser (Debian Chromium via Playwright, app on 127.0.0.1):
reached from the inspector's navigation, it shows the results file's rank grid, red flag
and dilution list, and a phrasing chosen in the page lands in the URL."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from ui_browser_helpers import choose

from ragaudit.cli.main import main
from ragaudit.paths import REPO_ROOT

pytestmark = [pytest.mark.e2e, pytest.mark.slow(model=False)]  # a browser; no generator
EXAMPLE = REPO_ROOT / "examples" / "audit"
ARTIFACTS = Path(__file__).parent / "artifacts"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """A real audit of the example, and the inspector serving it on a loopback port."""
    home = tmp_path_factory.mktemp("audit-browser")
    results = home / "audit.json"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("RAGAUDIT_HOME", str(home))
        status = main(
            ["audit", str(EXAMPLE / "corpus"), str(EXAMPLE / "cases.yaml"), "--settings",
             str(EXAMPLE / "prod.yaml"), "--dilution", "--out", str(results)]
        )  # fmt: skip
    assert status in (0, 1)
    port = _free_port()
    env = dict(os.environ, RAGAUDIT_HOME=str(home), RAGAUDIT_AUDIT_RESULTS=str(results))
    log = (home / "streamlit.log").open("wb")
    process = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", str(REPO_ROOT / "app.py"),
         "--server.headless", "true", "--server.address", "127.0.0.1",
         "--server.port", str(port), "--browser.gatherUsageStats", "false",
         "--server.fileWatcherType", "none"],
        cwd=REPO_ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
    )  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    deadline = time.time() + 60
    while True:
        try:
            with urllib.request.urlopen(f"{base}/_stcore/health", timeout=2) as reply:
                if reply.read().decode().strip() == "ok":
                    break
        except OSError:
            if time.time() > deadline or process.poll() is not None:
                process.terminate()
                pytest.fail(f"streamlit did not start; see {home / 'streamlit.log'}")
            time.sleep(0.3)
    yield base, json.loads(results.read_text(encoding="utf-8")), home
    process.terminate()
    process.wait(timeout=20)


def _settled(page) -> None:
    page.wait_for_timeout(250)
    page.wait_for_selector("[data-testid='stApp'][data-test-script-state='notRunning']")
    page.wait_for_selector("[data-testid='stSkeleton']", state="detached")


def test_audit_page_from_the_navigation(served, page):
    # pytest-playwright's page: one Playwright per session (a second sync_playwright()
    # inside the same session fails with 'Sync API inside the asyncio loop').
    base, results, home = served
    flagged = next(
        (intent, row)
        for intent in results["intents"]
        for row in intent["sources"]
        if row["red_flag"]
    )
    out_case = next(case for case, inside in flagged[1]["in_top_k"].items() if not inside)
    page.set_default_timeout(60_000)
    page.goto(base)
    _settled(page)
    page.get_by_test_id("stSidebarNav").get_by_text("Audit", exact=True).click()
    _settled(page)
    page.get_by_text("Audit: your own retrieval").wait_for()
    grid = page.get_by_test_id("stDataFrame").first
    grid.wait_for()
    summary = results["summary"]
    assert page.get_by_text(f"{summary['passed']}/{summary['cases']}").count() >= 1
    assert page.get_by_text(f"for {flagged[0]['intent']}.").count() == 1
    # choose the phrasing that pushes the source out: the URL carries it
    choose(page, "Phrasing", out_case)
    _settled(page)
    assert f"audit_case={out_case.replace('/', '%2F')}" in page.url
    question = next(c["question"] for c in results["cases"] if c["case_id"] == out_case)
    assert page.get_by_text(question).count() >= 1
    page.get_by_text("Long-document dilution").scroll_into_view_if_needed()
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "09-audit-page.png"), full_page=True)
