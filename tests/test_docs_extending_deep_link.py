"""In a real browser, every page of the inspector opens by its own address as a fresh
server's first request: titled, drawn, and without Streamlit's "Page not found". That is the
case the page recipe's thin pages/<key>.py file is required for (docs/extending.md): until
app.py has run once, Streamlit reaches a page by its file in pages/."""

from __future__ import annotations

from pathlib import Path

import pytest
from e2e.ui_browser_helpers import CHROMIUM, CHROMIUM_ARGS, serve_app, wait_for_rerun
from helpers.ui_fixtures import write_results

from ragaudit.ui.pages import PAGES_IN_ORDER

pytestmark = [pytest.mark.e2e, pytest.mark.slow(model=False)]


@pytest.mark.parametrize("page", [p for p in PAGES_IN_ORDER if not p.default], ids=lambda p: p.key)
def test_a_page_opened_by_its_address_as_a_fresh_servers_first_request(page, tmp_path):
    playwright = pytest.importorskip("playwright.sync_api")
    if not Path(CHROMIUM).exists():
        pytest.skip(f"no Chromium at {CHROMIUM}")
    results = write_results(tmp_path / "results" / "latest.json", n=3)
    process, base = serve_app(tmp_path, results, tmp_path / "streamlit.log")
    try:
        with playwright.sync_playwright() as driver:
            browser = driver.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            tab = browser.new_page()
            tab.goto(f"{base}/{page.key}")
            wait_for_rerun(tab, timeout=180_000)
            tab.wait_for_timeout(1000)  # a late modal would be drawn by now
            body = tab.locator("body").inner_text()
            assert "Page not found" not in body, page.key
            assert tab.title().startswith(f"{page.title} · "), (page.key, tab.title())
            assert tab.url.split("?")[0] == f"{base}/{page.key}"
            browser.close()
    finally:
        process.terminate()
        process.wait(timeout=20)
