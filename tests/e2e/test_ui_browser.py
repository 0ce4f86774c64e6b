"""In a real browser: heatmap click -> that cell's instances -> one instance -> Lab k toggle."""

from __future__ import annotations

import re

import pytest
from conftest import serve_app, shot, wait_for_rerun
from ui_fixtures import write_results

pytestmark = [pytest.mark.e2e, pytest.mark.slow]


@pytest.fixture(scope="session")
def app_url(tmp_path_factory):
    home = tmp_path_factory.mktemp("e2e-home")
    results = write_results(home / "results" / "latest.json", n=5)
    process, base = serve_app(home, results, home / "streamlit.log")
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


def _choose(page, label: str, option_text: str) -> None:
    box = page.get_by_test_id("stSelectbox").filter(has_text=label).first
    box.click()
    page.get_by_role("option").filter(has_text=option_text).first.click()
    wait_for_rerun(page)


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

    _choose(page, "Instance", "boundary-002")
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
