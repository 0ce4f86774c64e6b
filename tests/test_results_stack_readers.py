"""The remaining readers of `configs[]` with the user's stack in the file: the Severity page
and the attribution table put the stack's column beside the configs with its own cells
(under its own embedder), and the matrix benchmark skips the stack entry. Results built by
hand (tests/helpers/stack_results.py); every expected value is counted from that file."""

from __future__ import annotations

import json

import pytest
from helpers.stack_results import PRIMARY, STACK_EMBEDDER, stack_results
from helpers.ui_fixtures import open_app, texts

from benchmarks.matrix import naive_pairs
from ragaudit.ui.attribution import attribution_rows

STACK_LABEL = f"mine ({STACK_EMBEDDER})"
PERMUTATION = {"p_value": 0.03125, "mean_fail": 0.4, "mean_pass": 0.7, "reshuffles": 32}


def _with_attribution_and_permutation() -> dict:
    """The fixture, its two generated cells (boundary under B and under the stack) given
    an attribution by hand, the stack's cell a permutation test."""
    results = stack_results()
    cells = {(c["probe"], c["config"]): c for c in results["cells"]}
    cells[("boundary", "B")]["attribution"] = {
        "retrieval": {"count": 3, "n": 5},
        "generation": {"count": 1, "n": 5},
        "ceiling": {"count": 0, "n": 5},
        "correct": {"count": 1, "n": 5},
        "failed_call": {"count": 0, "n": 5},
    }
    cells[("boundary", "mine")]["attribution"] = {
        "retrieval": {"count": 1, "n": 5},
        "generation": {"count": 1, "n": 5},
        "ceiling": {"count": 0, "n": 5},
        "correct": {"count": 3, "n": 5},
        "failed_call": {"count": 0, "n": 5},
    }
    cells[("boundary", "mine")]["detectability"]["permutation"] = {**PERMUTATION, "seed": 7}
    return results


@pytest.fixture
def results_file(ragaudit_home, monkeypatch):
    monkeypatch.delenv("RAGAUDIT_RESULTS", raising=False)
    path = ragaudit_home / "results" / "latest.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(_with_attribution_and_permutation()))
    return path


def test_the_severity_table_shows_the_stack_column_with_its_own_cells(results_file):
    at = open_app(results_file, page="pages/severity.py", embedder=PRIMARY)
    assert not at.exception
    table = at.dataframe[0].value
    assert list(table.columns) == ["probe", "B", "C", STACK_LABEL]
    rows = {row["probe"]: row for row in table.to_dict("records")}
    assert [rows["boundary"][c] for c in ("B", "C", STACK_LABEL)] == [
        "medium · x",
        "undetermined · x",
        "medium · x",  # the stack's generated cell, under its own embedder
    ]
    assert rows["control"][STACK_LABEL] == "not run"  # the stack runs only boundary


def test_the_severity_page_opens_the_stack_cell_and_lists_its_permutation(results_file):
    at = open_app(
        results_file, page="pages/severity.py", embedder=PRIMARY, probe="boundary", config="mine"
    )
    assert not at.exception
    page = texts(at)
    assert "**boundary × mine**: severity `medium` via branch `x`" in page
    assert "was not run under" not in page
    permutations = at.dataframe[1].value.to_dict("records")
    assert [(r["probe"], r["config"], r["p_value"]) for r in permutations] == [
        ("boundary", STACK_LABEL, "0.0313")  # 0.03125 to four decimals, halves up
    ]


def test_the_attribution_table_has_the_stack_row_under_the_primary():
    rows = attribution_rows(_with_attribution_and_permutation(), PRIMARY)
    assert rows == [
        {
            "probe": "boundary",
            "config": "B",
            "retrieval": "60% 3/5",
            "generation": "20% 1/5",
            "ceiling": "0% 0/5",
            "correct": "20% 1/5",
            "failed_call": "0% 0/5",
        },
        {
            "probe": "boundary",
            "config": STACK_LABEL,
            "retrieval": "20% 1/5",
            "generation": "20% 1/5",
            "ceiling": "0% 0/5",
            "correct": "60% 3/5",
            "failed_call": "0% 0/5",
        },
    ]


def test_the_matrix_page_attribution_table_lists_the_stack_cell(results_file):
    at = open_app(results_file, embedder=PRIMARY)
    assert not at.exception
    tables = [d.value for d in at.dataframe if "retrieval" in d.value.columns]
    assert [list(t["config"]) for t in tables] == [["B", STACK_LABEL]]


def test_the_matrix_bench_skips_the_stack_entry():
    results = stack_results()
    # B: its chunking's 10 chunks + 1 question under local:minilm; C: the same 10 chunks,
    # no question recorded; the stack (12 chunks, under its own embedder) is not counted
    assert naive_pairs(results) == {PRIMARY: 21}
    from benchmarks.matrix import matrix_configs  # the configs the baseline times

    assert [c.name for c in matrix_configs(results)] == ["B", "C"]


def test_the_reports_attribution_already_lists_the_stack_cell_under_its_embedder():
    # report/attribution.py reads every generated cell with its embedder: no config list
    from ragaudit.report.attribution import attribution_section

    table = next(
        b for b in attribution_section(_with_attribution_and_permutation()) if b[0] == "table"
    )
    assert [row[:3] for row in table[2]] == [
        ["boundary", "B", PRIMARY],
        ["boundary", "mine", STACK_EMBEDDER],
    ]
