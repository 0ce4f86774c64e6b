"""The README's screenshot: the inspector's Matrix page as `ragaudit demo` first opens it,
on the recorded reference run the package ships (no model, no run), in the suite's
1400 x 1000 Chromium viewport, scrolled to its probe x config heatmap.

Every run saves it as tests/e2e/artifacts/matrix.png; with RAGAUDIT_UPDATE_DOCS_IMG=1 it
also replaces docs/img/matrix.png, the committed copy the README shows (a plain run leaves
the checkout as it is). Either way the committed copy must be a PNG of the size this test
takes, so a change of viewport or page that would make it stale fails here."""

from __future__ import annotations

import os
import shutil
import struct

import pytest
from ui_browser_helpers import REPO, serve_app, shot, wait_for_rerun

from ragaudit.results.reference import REFERENCE_FILE

pytestmark = [pytest.mark.e2e, pytest.mark.slow(model=False)]
DOCS_IMG = REPO / "docs" / "img" / "matrix.png"
UPDATE = "RAGAUDIT_UPDATE_DOCS_IMG"


@pytest.fixture(scope="module")
def app_url(tmp_path_factory):
    home = tmp_path_factory.mktemp("matrix-screenshot-home")  # no local run: the recorded one
    process, base = serve_app(home, REFERENCE_FILE, home / "streamlit.log")
    yield base
    process.terminate()
    process.wait(timeout=20)


def _png_size(data: bytes) -> tuple[int, int]:
    """Width and height from a PNG's IHDR chunk (the PNG spec: bytes 16 to 24)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    return struct.unpack(">II", data[16:24])


def test_the_matrix_page_on_the_reference_run_is_the_readme_screenshot(page, app_url):
    page.goto(app_url)
    wait_for_rerun(page)
    page.get_by_text("Click a cell to open its instances").wait_for()
    page.locator("[data-testid='stPlotlyChart'] .nsewdrag").first.wait_for(timeout=60_000)
    page.wait_for_timeout(1500)  # plotly's resize after the first paint
    assert page.title() == f"Matrix · {REFERENCE_FILE.name} · ragaudit"
    assert page.get_by_test_id("stException").count() == 0
    shot(page, "matrix-top")  # the page as it opens: the banner and what failed
    # the README shows the heatmap: scrolled to the middle of Streamlit's own scroll area
    heatmap = page.get_by_test_id("stPlotlyChart").first
    heatmap.evaluate("chart => chart.scrollIntoView({block: 'center'})")
    page.wait_for_timeout(500)
    taken = shot(page, "matrix")  # the viewport (Streamlit scrolls inside it)
    if os.environ.get(UPDATE) == "1":
        shutil.copyfile(taken, DOCS_IMG)
    assert _png_size(taken.read_bytes()) == (1400, 1000)
    assert _png_size(DOCS_IMG.read_bytes()) == _png_size(taken.read_bytes())
