"""Unanswerable questions have no gold span, yet retrieval ran on them: their retrieval cells
read "n/a: no gold to retrieve" on the Matrix heatmap and in the report, never "not run"
(which stays for a cell that did not run)."""

from __future__ import annotations

import pytest
from helpers.ui_fixtures import build_results, chart_specs, open_app, write_results

from ragaudit.report.document import render_markdown

NO_GOLD = "n/a: no gold to retrieve"


@pytest.fixture
def results_file(ragaudit_home, monkeypatch):
    monkeypatch.delenv("RAGAUDIT_RESULTS", raising=False)
    return write_results(ragaudit_home / "results" / "latest.json", n=3)


def _overlay(at) -> dict[tuple[str, str], tuple[str, list]]:
    (spec,) = chart_specs(at)
    overlay = spec["data"][1]
    return {
        (y, x): (text, custom)
        for x, y, text, custom in zip(
            overlay["x"], overlay["y"], overlay["text"], overlay["customdata"], strict=True
        )
    }


def test_the_matrix_heatmap_says_there_was_no_gold_to_retrieve(results_file):
    cells = _overlay(open_app(results_file))
    text, custom = cells[("unanswerable", "A")]
    assert text.replace("<br>", " ") == NO_GOLD
    assert custom[2] == "run"  # retrieval did run on it
    assert cells[("control", "A")][0].replace("<br>", " ").endswith("/3")


def test_answers_on_a_config_that_did_not_generate_still_read_not_run(results_file):
    at = open_app(results_file)
    at.selectbox(key="matrix_measure").select("correct").run()
    cells = _overlay(at)
    # A_prime is not one of the fixture's generation configs (A, B, C, M)
    assert cells[("unanswerable", "A_prime")] == (
        "not run",
        ["unanswerable", "A_prime", "not run"],
    )


def test_the_report_tables_say_it_too():
    results = build_results(n=3)
    results["analysis"] = {"wilson_confidence": 0.95}
    retrieval = render_markdown(results).split("## Retrieval")[1].split("\n## ")[0]
    row = next(line for line in retrieval.splitlines() if line.startswith("| unanswerable |"))
    labels = [cell.strip() for cell in row.strip("|").split("|")[2:]]
    assert len(labels) == 7 and set(labels) == {NO_GOLD}  # every config of the fixture
