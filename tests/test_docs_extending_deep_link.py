"""In a real browser, every page of the inspector opens by its own address as a fresh
server's first request: titled, drawn, and without Streamlit's "Page not found". The shipped
pages (docs/extending.md's page recipe), and a plugin's page, which has no file in ragaudit's
pages/ (issue 42): `ragaudit app` switches Streamlit's legacy pages/ mode off, so app.py's
navigation resolves every address, a first request's too (ui/launcher/inspector.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from e2e.ui_browser_helpers import serve_app, wait_for_rerun
from helpers.ui_fixtures import write_results
from test_plugins import PLUGIN_NAMES, site  # noqa: F401 (a fixture)

from ragaudit.ui.pages import PAGES_IN_ORDER

pytestmark = [pytest.mark.e2e, pytest.mark.slow(model=False)]

# What the toy plugin's page declares (tests/data/ragaudit_toy_plugin/.../page.py), by hand.
PLUGIN_PAGE_TITLE = "Pallet checks"


def _opened(tab, address: str) -> str:
    """The text of the page at `address` once drawn (a late modal would be drawn by then)."""
    tab.goto(address)
    wait_for_rerun(tab, timeout=180_000)
    tab.wait_for_timeout(1000)
    return tab.locator("body").inner_text()


SHIPPED = [p for p in PAGES_IN_ORDER if not p.default]


@pytest.mark.parametrize("shipped", SHIPPED, ids=lambda p: p.key)
def test_a_page_opened_by_its_address_as_a_fresh_servers_first_request(shipped, browser, tmp_path):
    # pytest-playwright's browser, on the system Chromium (tests/conftest.py)
    results = write_results(tmp_path / "results" / "latest.json", n=3)
    process, base = serve_app(tmp_path, results, tmp_path / "streamlit.log")
    try:
        tab = browser.new_page()
        body = _opened(tab, f"{base}/{shipped.key}")
        assert "Page not found" not in body, shipped.key
        assert tab.title().startswith(f"{shipped.title} · "), (shipped.key, tab.title())
        assert tab.url.split("?")[0] == f"{base}/{shipped.key}"
        tab.close()
    finally:
        process.terminate()
        process.wait(timeout=20)


def test_a_plugins_page_opened_by_its_address_as_a_fresh_servers_first_request(
    site,  # noqa: F811 (the fixture imported above)
    browser,
    tmp_path,
    monkeypatch,
):
    key = PLUGIN_NAMES["page"]
    assert not (Path(__file__).parents[1] / "pages" / f"{key}.py").exists()  # no file of its own
    results = write_results(tmp_path / "results" / "latest.json", n=3)
    monkeypatch.setenv("PYTHONPATH", str(site))  # the server's process sees the plugin
    process, base = serve_app(tmp_path, results, tmp_path / "streamlit.log")
    try:
        tab = browser.new_page()
        body = _opened(tab, f"{base}/{key}")
        assert "Page not found" not in body
        assert tab.title().startswith(f"{PLUGIN_PAGE_TITLE} · "), tab.title()
        assert tab.url.split("?")[0] == f"{base}/{key}"
        # the plugin's render function drew it (the fixture has no pallet_check record)
        assert "pallet_check records: 0" in body
        # an address no page has still says so: the check above can see the box
        other = browser.new_page()
        assert "Page not found" in _opened(other, f"{base}/no_such_page")
        other.close()
        tab.close()
    finally:
        process.terminate()
        process.wait(timeout=20)
