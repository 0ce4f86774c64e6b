"""In a real browser: the inspector's frame. No Deploy button and no developer menu (the
toolbar is minimal, from the config beside app.py, though the server is started from
another folder, as an installed wheel is), the tab's title names the page and the results
file, and a page that computes shows a spinner rather than a blank area."""

from __future__ import annotations

import pytest
from helpers.ui_fixtures import write_results
from ui_browser_helpers import serve_app, shot, wait_for_rerun

pytestmark = [pytest.mark.e2e, pytest.mark.slow(model=False)]  # a browser; no generator


@pytest.fixture(scope="module")
def app_url(tmp_path_factory):
    from ragaudit.corpus.build import build_corpus
    from ragaudit.corpus.files import write_corpus

    home = tmp_path_factory.mktemp("frame-home")
    results = write_results(home / "results" / "latest.json", n=2)
    before = write_results(home / "results" / "before.json", n=2, generate=False)
    write_corpus(build_corpus(n=1), home / "corpus")  # small: the Lab embeds it live
    elsewhere = tmp_path_factory.mktemp("elsewhere")  # no .streamlit/ here
    process, base = serve_app(
        home, results, home / "streamlit.log", corpus=home / "corpus", cwd=elsewhere
    )
    yield base, before
    process.terminate()
    process.wait(timeout=20)


def test_no_deploy_button_no_developer_menu_and_the_title_names_the_file(page, app_url):
    page.goto(app_url[0])
    wait_for_rerun(page)
    page.locator("[data-testid='stPlotlyChart'] .nsewdrag").first.wait_for(timeout=60_000)
    shot(page, "frame-01-matrix")
    assert page.title() == "Matrix · latest.json · ragaudit"
    assert page.get_by_test_id("stAppDeployButton").count() == 0
    assert page.get_by_role("button", name="Deploy").count() == 0
    assert page.get_by_test_id("stMainMenu").count() == 0  # rerun, clear cache, settings


def test_another_page_and_another_file_are_named_in_the_title(page, app_url):
    base, before = app_url
    page.goto(f"{base}/severity?results={before}")
    wait_for_rerun(page)
    shot(page, "frame-02-severity-before")
    assert page.title() == "Severity & detectability · before.json · ragaudit"
    page.get_by_test_id("stSidebarNav").get_by_text("Matrix").click()
    wait_for_rerun(page)
    # Streamlit's sidebar link drops ?results=; the session puts it back (ui.links), so
    # the Matrix reads the chosen file, and the title follows what the page reads
    page.wait_for_function("() => location.search.includes('results=')")
    assert page.title() == "Matrix · before.json · ragaudit"


def test_a_page_that_computes_shows_progress(page, app_url):
    # under e5-small its first render chunks and embeds the corpus (MiniLM's vectors of
    # these texts ship with the reference run: that one is drawn at once)
    page.goto(f"{app_url[0]}/lab?embedder=local:e5-small")
    # the frame's own spinner, above the page (the Lab's cache spinners come below it)
    frame = page.get_by_test_id("stSpinner").filter(has_text="Reading latest.json and drawing")
    frame.wait_for(timeout=30_000)
    shot(page, "frame-03-lab-progress")
    assert frame.inner_text().strip() == "Reading latest.json and drawing the page…"
    wait_for_rerun(page, timeout=180_000)
    shot(page, "frame-04-lab-done")
    assert page.get_by_test_id("stSpinner").count() == 0
