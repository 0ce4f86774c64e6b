"""The inspector's frame: the browser tab's title names the page and the results file it
reads; the toolbar is minimal (no Deploy button, no developer menu) from the config file
beside app.py (a wheel ships it: tests/test_paths_install_layout.py). tests/e2e/test_frame.py
checks both in a browser."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
import streamlit
from helpers.ui_fixtures import APP, open_app, write_results
from streamlit import file_util

CONFIG = APP.parent / ".streamlit" / "config.toml"


@pytest.fixture
def titles(monkeypatch) -> list[str]:
    """Every page title the app sets, in order (AppTest keeps no page config of its own)."""
    seen: list[str] = []
    original = streamlit.set_page_config

    def recording(*args, **kwargs):
        seen.append(kwargs.get("page_title"))
        return original(*args, **kwargs)

    monkeypatch.setattr(streamlit, "set_page_config", recording)
    return seen


@pytest.fixture
def results_dir(ragaudit_home, monkeypatch) -> Path:
    monkeypatch.delenv("RAGAUDIT_RESULTS", raising=False)
    write_results(ragaudit_home / "results" / "latest.json", n=2, generate=False)
    return ragaudit_home / "results"


def test_the_title_names_the_default_results_file(results_dir, titles):
    at = open_app()
    assert not at.exception
    assert titles[-1] == "Matrix · latest.json · ragaudit"


def test_the_title_names_the_file_a_link_opens(results_dir, titles):
    # (AppTest runs a switched-to page without app.py: the browser test checks other pages)
    other = write_results(results_dir / "before-chunking-change.json", n=2, generate=False)
    open_app(other)
    assert titles[-1] == "Matrix · before-chunking-change.json · ragaudit"


def test_the_title_names_the_file_given_to_ragaudit_app(ragaudit_home, monkeypatch, titles):
    given = write_results(ragaudit_home / "elsewhere" / "mine.json", n=2, generate=False)
    monkeypatch.setenv("RAGAUDIT_RESULTS", str(given))
    open_app()
    assert titles[-1] == "Matrix · mine.json · ragaudit"


def test_a_refused_link_names_no_file(results_dir, titles):
    at = open_app(Path("/etc/passwd"))
    assert at.error  # the page says why it will not open it
    assert titles[-1] == "Matrix · ragaudit"


def test_the_toolbar_is_minimal_from_the_config_beside_the_app():
    # Streamlit reads <folder of the script>/.streamlit/config.toml as the script's own
    # config, wherever it is started from (a checkout, or a wheel's ragaudit/_shipped/).
    expected = file_util.get_main_script_streamlit_file_path(str(APP), "config.toml")
    assert Path(expected) == CONFIG
    settings = tomllib.loads(CONFIG.read_text())
    assert settings["client"]["toolbarMode"] == "minimal"
