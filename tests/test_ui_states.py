"""No results, a corrupt or older-schema file, partial results: a message, never a traceback."""

from __future__ import annotations

import json
import time

import pytest
from helpers.ui_fixtures import build_results, chart_specs, open_app, texts, write_results

from ragaudit.cli.main import main as cli_main
from ragaudit.ui import runs

PAGES = ["pages/matrix.py", "pages/instance.py", "pages/severity.py"]
# A heatmap cell without a figure: not run, or run with the measure null (no gold span).
ABSENT_LABELS = ("not run", "n/a", "n/a: no<br>gold to<br>retrieve")  # wrapped to 11 characters


@pytest.fixture(autouse=True)
def _no_env(monkeypatch):
    monkeypatch.delenv("RAGAUDIT_RESULTS", raising=False)


@pytest.mark.parametrize("page", PAGES)
def test_no_results_says_so_in_one_line_with_a_start_button(ragaudit_home, page):
    at = open_app(page=page)
    assert not at.exception
    assert "No results yet" in texts(at)
    assert str(ragaudit_home / "results" / "latest.json") in texts(at)
    assert (
        at.button(key=f"{page.split('/')[1][:-3]}_start_default").label
        == "Start the default quick run"
    )


def test_start_button_starts_the_quick_run_and_opens_runs(ragaudit_home):
    at = open_app()
    at.button(key="matrix_start_default").click().run()
    try:
        status = runs.run_status()
        assert status is not None
        assert status.argv[3:5] == ["run", "--quick"]
        assert status.out == ragaudit_home / "results" / "latest.json"
        assert at.title[0].value == "Runs"
    finally:
        runs.stop_run()
        deadline = time.time() + 10
        while runs.run_status().alive and time.time() < deadline:
            time.sleep(0.1)
    assert not runs.run_status().alive


def test_corrupt_file_names_the_file_and_the_problem(ragaudit_home):
    path = ragaudit_home / "results" / "latest.json"
    path.parent.mkdir(parents=True)
    path.write_text('{"schema_version": 1, "created_at": ')
    for page in PAGES:
        at = open_app(page=page)
        assert not at.exception
        (error,) = at.error
        assert str(path) in error.value and "JSON" in error.value


def test_inspector_and_report_word_a_bad_file_alike(ragaudit_home, capsys):
    path = ragaudit_home / "results" / "latest.json"
    path.parent.mkdir(parents=True)
    path.write_text('{"schema_version": 1, "created_at": ')
    wording = f"{path}: not valid JSON (Expecting value at line 1)"
    (error,) = open_app().error
    assert error.value == f"Cannot show results: {wording}"
    assert cli_main(["report", "--results", str(path)]) == 2
    assert capsys.readouterr().err.strip() == f"ragaudit report: {wording}"


def test_older_schema_is_refused_naming_the_version(ragaudit_home):
    path = ragaudit_home / "results" / "latest.json"
    path.parent.mkdir(parents=True)
    old = build_results(n=2)
    old["schema_version"] = 0
    path.write_text(json.dumps(old))
    at = open_app()
    assert not at.exception
    (error,) = at.error
    assert str(path) in error.value and "schema_version" in error.value


def test_partial_results_are_shown_with_a_notice_and_refresh_when_rewritten(ragaudit_home):
    path = write_results(
        ragaudit_home / "results" / "latest.json", n=2, complete=False, generate=False
    )
    at = open_app()
    assert "Partial results" in texts(at)
    time.sleep(0.01)
    write_results(path, n=3, complete=True, generate=False)
    at.run()
    assert "Partial results" not in texts(at)
    labels = chart_specs(at)[0]["data"][1]["text"]
    assert labels and all(label.endswith("/3") for label in labels if label not in ABSENT_LABELS)


def test_results_query_param_overrides_env_and_default(ragaudit_home, monkeypatch, tmp_path):
    # a link may name another file in the results folder (tests/test_ui_url_policy.py)
    elsewhere = write_results(ragaudit_home / "results" / "elsewhere.json", n=3, generate=False)
    monkeypatch.setenv("RAGAUDIT_RESULTS", str(tmp_path / "missing.json"))
    at = open_app()
    assert "missing.json" in texts(at)
    at = open_app(elsewhere)
    assert "No results" not in texts(at)
    assert all(
        t.endswith("/3") for t in chart_specs(at)[0]["data"][1]["text"] if t not in ABSENT_LABELS
    )


def test_a_partial_file_before_analysis_still_opens_its_records(ragaudit_home):
    # ragaudit run writes instance records first and adds cells at the end of the run.
    partial = build_results(n=2, complete=False)
    partial["cells"], partial["citation_rollup"] = [], {}
    path = ragaudit_home / "results" / "latest.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(partial))
    at = open_app()
    assert not at.exception and not at.get("plotly_chart")
    assert f"No cells in this file yet: {len(partial['instances'])} instance records" in texts(at)
    at.button(key="matrix_open_cell").click().run()
    assert at.title[0].value == "Instance" and not at.exception
    assert partial["instances"][0]["question"] in texts(at)
    at.switch_page("pages/severity.py").run()
    assert not at.exception and "No cells in this file yet" in texts(at)
