"""In a real browser: the Matrix page's download button gives the chosen cell's records as a
CSV, one row per record of the cell (its n in the results file)."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from helpers.ui_fixtures import build_results
from ui_browser_helpers import choose, serve_app, shot, wait_for_rerun

from ragaudit.analysis import analyse
from ragaudit.results.io import write_results

pytestmark = [pytest.mark.e2e, pytest.mark.slow(model=False)]  # a browser; no generator

PROBE, CONFIG, EMBEDDER = "boundary", "C", "local:minilm"


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    home = tmp_path_factory.mktemp("export-home")
    results = build_results(n=4)
    analyse(results)  # the cells as a run records them, each with its n
    path = home / "results" / "latest.json"
    write_results(path, results)
    process, base = serve_app(home, path, home / "streamlit.log")
    yield base, json.loads(path.read_text())
    process.terminate()
    process.wait(timeout=20)


def test_the_matrix_download_gives_the_cells_records_as_csv(page, served):
    base, results = served
    page.goto(base)
    wait_for_rerun(page)
    choose(page, "Probe", PROBE, exact=True)
    choose(page, "Config", CONFIG, exact=True)
    line = page.get_by_text(f"Download the records of {PROBE} × {CONFIG} ({EMBEDDER})")
    line.wait_for()
    button = page.get_by_test_id("stDownloadButton").filter(has_text="CSV").first
    button.scroll_into_view_if_needed()
    shot(page, "11-matrix-download")
    with page.expect_download(timeout=60_000) as download_info:
        button.click()
    download = download_info.value
    assert download.suggested_filename == f"ragaudit-{PROBE}-{CONFIG}-local-minilm.csv"
    frame = pd.read_csv(download.path())

    (cell,) = [
        c
        for c in results["cells"]
        if (c["probe"], c["config"], c["embedder"]) == (PROBE, CONFIG, EMBEDDER)
    ]
    assert len(frame) == cell["n"]
    keys = {
        r["key"]
        for r in results["instances"]
        if (r["probe"], r["config"], r["embedder"]) == (PROBE, CONFIG, EMBEDDER)
    }
    assert set(frame.key) == keys
    gold = cell["measures"]["gold_in_context"]
    assert int((frame.gold_in_context == True).sum()) == gold["count"]  # noqa: E712


def test_the_instance_download_gives_the_instance_under_every_config(page, served):
    base, results = served
    instance = "boundary-002"
    page.goto(
        f"{base}/instance?probe={PROBE}&config={CONFIG}&embedder={EMBEDDER}&instance={instance}"
    )
    wait_for_rerun(page)
    page.get_by_text("Download records (CSV or Parquet)").click()
    line = page.get_by_text(f"Download {instance} under every config and embedder")
    line.wait_for()
    shot(page, "12-instance-download")
    button = page.get_by_test_id("stDownloadButton").filter(has_text="CSV").first
    with page.expect_download(timeout=60_000) as download_info:
        button.click()
    frame = pd.read_csv(download_info.value.path())
    records = [
        r for r in results["instances"] if (r["probe"], r["instance_id"]) == (PROBE, instance)
    ]
    # 7 configs under local:minilm; boundary does not run under the second embedder
    assert len(frame) == len(records) == 7
    assert set(frame.config) == {r["config"] for r in records}
