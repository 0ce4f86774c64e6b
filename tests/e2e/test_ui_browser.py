"""In a real browser: heatmap click -> that cell's instances -> one instance -> Lab k toggle."""

from __future__ import annotations

import re

import pytest
from helpers.ui_fixtures import write_results
from ui_browser_helpers import choose, serve_app, shot, wait_for_rerun

pytestmark = [pytest.mark.e2e, pytest.mark.slow(model=False)]  # a browser; no generator


@pytest.fixture(scope="session")
def app_url(tmp_path_factory):
    from ragaudit.corpus.build import build_corpus
    from ragaudit.corpus.files import write_corpus

    home = tmp_path_factory.mktemp("e2e-home")
    results = write_results(home / "results" / "latest.json", n=5)
    corpus = write_corpus(build_corpus(n=2), home / "corpus")  # small: the Lab embeds it live
    process, base = serve_app(home, results, home / "streamlit.log", corpus=home / "corpus")
    assert corpus
    yield base
    process.terminate()
    process.wait(timeout=20)


def _click_cell(page, probes: list[str], configs: list[str], probe: str, config: str) -> None:
    chart = page.locator("[data-testid='stPlotlyChart']").first
    chart.locator(".nsewdrag").first.wait_for(timeout=60_000)
    box = chart.locator(".nsewdrag").first.bounding_box()
    col, row = configs.index(config), probes.index(probe)
    x = box["x"] + (col + 0.5) * box["width"] / len(configs)
    y = box["y"] + (row + 0.5) * box["height"] / len(probes)
    page.mouse.move(x, y)
    page.wait_for_timeout(300)
    page.mouse.click(x, y)


def test_heatmap_click_to_instance(page, app_url):
    page.goto(app_url)
    wait_for_rerun(page)
    page.get_by_text("Click a cell to open its instances").wait_for()
    page.locator("[data-testid='stPlotlyChart'] .nsewdrag").first.wait_for(timeout=60_000)
    shot(page, "01-matrix")
    probes = [
        "control",
        "boundary",
        "distractor",
        "multihop",
        "table_split",
        "unanswerable",
        "paraphrase",
        "negation",
    ]
    configs = ["A", "A_prime", "B", "C", "C_prime", "D", "M"]
    _click_cell(page, probes, configs, "boundary", "A")
    page.wait_for_url(re.compile(r"/instance\?.*probe=boundary"), timeout=60_000)
    wait_for_rerun(page)
    page.get_by_text("boundary × A", exact=False).first.wait_for()
    assert "config=A" in page.url
    shot(page, "02-cell-instances")

    choose(page, "Instance", "boundary-002")
    page.get_by_role("heading", name="boundary-002 under A").wait_for()
    page.get_by_text("the gold span is cut by a chunk boundary").wait_for()
    assert "instance=boundary-002" in page.url
    shot(page, "03-instance")
    timeline = page.locator("[data-testid='stPlotlyChart']").first
    timeline.scroll_into_view_if_needed()
    timeline.locator(".nsewdrag").first.wait_for()
    timeline.screenshot(path=str(shot(page, "03-instance").with_name("04-chunk-timeline.png")))
    text = page.locator(".ra-doc").first
    text.scroll_into_view_if_needed()
    text.screenshot(path=str(shot(page, "03-instance").with_name("05-document-text.png")))


def _retrieved_ids(page) -> list[str]:
    block = (
        page.locator("[data-testid='stMarkdownContainer']").filter(has_text="Retrieved chunks").last
    )
    return re.findall(r"(\S+/\S+#\d+)", block.inner_text())


def test_lab_k_toggle_changes_the_retrieved_chunks(page, app_url):
    page.goto(f"{app_url}/lab?probe=boundary&instance=boundary-001")
    wait_for_rerun(page, timeout=180_000)
    page.get_by_text("Retrieved chunks").first.wait_for(timeout=180_000)
    before = _retrieved_ids(page)
    assert len(before) == 3
    shot(page, "06-lab-k3")
    slider = page.get_by_role("slider").first
    slider.focus()
    slider.press("ArrowRight")
    slider.press("ArrowRight")
    page.wait_for_function(
        "() => [...document.querySelectorAll('[data-testid=stMarkdownContainer]')]"
        ".some(e => e.innerText.includes('Retrieved chunks')"
        " && e.querySelectorAll('li').length == 5)",
        timeout=60_000,
    )
    wait_for_rerun(page)
    after = _retrieved_ids(page)
    assert len(after) == 5 and after[:3] == before and after != before
    summary = page.locator("[data-testid='stMarkdownContainer']").filter(has_text="Gold in context")
    assert "k=5" in summary.first.inner_text()
    shot(page, "07-lab-k5")


def test_a_deep_link_as_a_servers_first_request_gets_the_app(page, tmp_path):
    # Streamlit runs a pages/ file directly (no app.py) until app.py has run once; the
    # page files hand over to app.py's navigation so a shared link works on a fresh server.
    results = write_results(tmp_path / "results" / "latest.json", n=5)
    process, base = serve_app(tmp_path, results, tmp_path / "streamlit.log")
    try:
        page.goto(f"{base}/instance?probe=boundary&config=A&instance=boundary-003")
        wait_for_rerun(page)
        page.get_by_role("heading", name="boundary-003 under A").wait_for()
        nav = page.get_by_test_id("stSidebarNav").inner_text()
        assert "Severity & detectability" in nav and "severity" not in nav
        assert "instance=boundary-003" in page.url
        shot(page, "08-deep-link-first")
    finally:
        process.terminate()
        process.wait(timeout=20)
