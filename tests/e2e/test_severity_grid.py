"""In a real browser: a click on a Severity grid cell opens that cell's detectability (and
its instances); a click on a Matrix attribution bar opens that cell's instances."""

from __future__ import annotations

import json
import re

import pytest
from helpers.grid_fixtures import hand_results
from ui_browser_helpers import serve_app, shot, wait_for_rerun

pytestmark = [pytest.mark.e2e, pytest.mark.slow(model=False)]  # a browser; no generator

# The fixture's rows and columns, in the order the pages draw them (docs: probes by layer).
PROBES = [
    "control",
    "boundary",
    "distractor",
    "multihop",
    "table_split",
    "unanswerable",
    "paraphrase",
    "negation",
]
CONFIGS = ["A", "A_prime", "B", "C", "C_prime", "D", "M"]


@pytest.fixture(scope="module")
def app_url(tmp_path_factory):
    home = tmp_path_factory.mktemp("e2e-grid-home")
    results = home / "results" / "latest.json"
    results.parent.mkdir(parents=True)
    results.write_text(json.dumps(hand_results()))
    process, base = serve_app(home, results, home / "streamlit.log")
    yield base
    process.terminate()
    process.wait(timeout=20)


def _plot_area(page, index: int):
    chart = page.locator("[data-testid='stPlotlyChart']").nth(index)
    chart.scroll_into_view_if_needed()
    drag = chart.locator(".nsewdrag").first
    drag.wait_for(timeout=60_000)
    return drag.bounding_box()


def _click(page, x: float, y: float) -> None:
    page.mouse.move(x, y)
    page.wait_for_timeout(300)  # plotly picks the point on hover, then the click selects it
    page.mouse.click(x, y)


def test_clicking_a_grid_cell_opens_its_detectability(page, app_url):
    page.goto(f"{app_url}/severity")
    wait_for_rerun(page)
    page.get_by_text("Class per cell, ordered none").wait_for()
    box = _plot_area(page, 0)
    # Before: the first cell (control × A) is the one shown.
    page.get_by_text("control × A: severity").wait_for()
    shot(page, "grid-01-severity")
    col, row = CONFIGS.index("C"), PROBES.index("boundary")
    _click(
        page,
        box["x"] + (col + 0.5) * box["width"] / len(CONFIGS),
        box["y"] + (row + 0.5) * box["height"] / len(PROBES),
    )
    page.wait_for_url(re.compile(r"probe=boundary.*config=C|config=C.*probe=boundary"))
    wait_for_rerun(page)
    header = page.get_by_text("boundary × C: severity low via branch loud_failures")
    header.wait_for()
    header.scroll_into_view_if_needed()
    shot(page, "grid-02-clicked-boundary-C")
    page.get_by_text("Open the instances of boundary × C").click()
    page.wait_for_url(re.compile(r"/instance\?.*probe=boundary"), timeout=60_000)
    wait_for_rerun(page)
    page.get_by_text("boundary × C", exact=False).first.wait_for()
    assert "config=C" in page.url


def test_clicking_an_attribution_bar_opens_that_cells_instances(page, app_url):
    page.goto(app_url)
    wait_for_rerun(page)
    page.get_by_text("Failure attribution (count/n). Click a bar").wait_for()
    box = _plot_area(page, 1)  # the heatmap is chart 0; the bars' first panel (B) is chart 1
    shot(page, "grid-03-matrix-bars")
    # B's panel is the left half (two panels: B, C); boundary's retrieval segment (2/5)
    # spans the first 40% of its bar.
    _click(
        page,
        box["x"] + 0.2 * box["width"],
        box["y"] + (PROBES.index("boundary") + 0.5) * box["height"] / len(PROBES),
    )
    page.wait_for_url(re.compile(r"/instance\?.*probe=boundary"), timeout=60_000)
    wait_for_rerun(page)
    assert "config=B" in page.url
    page.get_by_text("boundary × B", exact=False).first.wait_for()
    shot(page, "grid-04-bar-opened-boundary-B")
