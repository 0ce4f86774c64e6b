"""A file chosen by `?results=` stays chosen on every page a session opens next, as the
navigation's sidebar links (which carry no query params) reach them."""

from __future__ import annotations

import pytest
from helpers.ui_fixtures import open_app, texts, write_results

from ragaudit.ui.pages import PAGES_IN_ORDER


@pytest.fixture
def two_files(ragaudit_home, monkeypatch):
    monkeypatch.delenv("RAGAUDIT_RESULTS", raising=False)
    default = write_results(ragaudit_home / "results" / "latest.json", n=5)
    other = write_results(ragaudit_home / "results" / "other.json", n=3)
    return default, other


def test_the_chosen_file_is_carried_to_every_page(two_files):
    _, other = two_files
    at = open_app(other)
    for page in PAGES_IN_ORDER[1:]:
        at.query_params.clear()  # a sidebar link: the page's path, no query
        at.switch_page(page.file).run()
        assert at.query_params.get("results") in (str(other), [str(other)]), page.key
    at.query_params.clear()
    at.switch_page("pages/matrix.py").run()
    assert "n=3" in texts(at)  # the matrix header reads the chosen file, not latest.json
