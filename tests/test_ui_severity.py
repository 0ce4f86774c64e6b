"""The Severity & detectability page: classes with branches, rules, detectability, citations."""

from __future__ import annotations

import json

import pytest
from helpers.ui_fixtures import build_results, chart_specs, open_app, texts, write_results


@pytest.fixture
def results_file(ragaudit_home, monkeypatch):
    monkeypatch.delenv("RAGAUDIT_RESULTS", raising=False)
    return write_results(ragaudit_home / "results" / "latest.json", n=5)


def _cell(probe: str, config: str) -> dict:
    (cell,) = [
        c
        for c in build_results(n=5)["cells"]
        if (c["probe"], c["config"], c["embedder"]) == (probe, config, "local:minilm")
    ]
    return cell


def test_severity_table_shows_class_and_branch_of_every_cell(results_file):
    at = open_app(results_file, page="pages/severity.py")
    assert not at.exception
    table = at.dataframe[0].value
    row = table[table["probe"] == "boundary"].iloc[0]
    for config in ["A", "B", "C", "D"]:
        severity = _cell("boundary", config)["severity"]
        assert row[config] == f"{severity['class']} · {severity['branch']}"


def test_rules_are_listed_in_order_from_the_file(results_file):
    rules = build_results(n=5)["severity_rules"]
    at = open_app(results_file, page="pages/severity.py")
    page = texts(at)
    positions = [page.index(rule["text"]) for rule in rules]
    assert positions == sorted(positions)


def test_detectability_of_a_chosen_cell_with_its_recorded_cut(results_file):
    measurable = next(
        c
        for c in build_results(n=5)["cells"]
        if c["embedder"] == "local:minilm" and c["detectability"]["measurable"]
    )
    at = open_app(
        results_file,
        page="pages/severity.py",
        probe=measurable["probe"],
        config=measurable["config"],
    )
    page = texts(at)
    cut = measurable["detectability"]["threshold"]["cut"]
    assert f"Recorded threshold {cut}" in page
    assert f"p = {measurable['detectability']['permutation']['p_value']}" in page
    scores = [
        s
        for s in chart_specs(at)
        if "recorded retrieval score"
        in s["layout"].get("xaxis", {}).get("title", {}).get("text", "")
    ]
    assert scores and {t["name"].split(" ")[0] for t in scores[0]["data"]} == {"passing", "failing"}


def test_the_dots_are_the_points_analysis_recorded_not_recomputed(ragaudit_home, monkeypatch):
    # Points set by hand in the file, unlike anything the instance records would give:
    # the page plots exactly these.
    monkeypatch.delenv("RAGAUDIT_RESULTS", raising=False)
    results = build_results(n=5)
    cell = next(
        c
        for c in results["cells"]
        if c["embedder"] == "local:minilm" and c["detectability"]["measurable"]
    )
    ids = list(cell["detectability"]["by_instance"])
    cell["detectability"]["by_instance"] = {
        ids[0]: {"failed": True, "score": 0.123},
        ids[1]: {"failed": True, "score": 0.234},
        ids[2]: {"failed": False, "score": 0.987},
        ids[3]: {"failed": False, "score": None},  # unscored: not plotted
    }
    path = ragaudit_home / "results" / "latest.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(results))
    at = open_app(path, page="pages/severity.py", probe=cell["probe"], config=cell["config"])
    assert not at.exception
    (scores,) = [
        s
        for s in chart_specs(at)
        if "recorded retrieval score"
        in s["layout"].get("xaxis", {}).get("title", {}).get("text", "")
    ]
    traces = {t["name"]: t["x"] for t in scores["data"]}
    assert traces == {"passing (1)": [0.987], "failing (2)": [0.123, 0.234]}
    assert "failure judged on answer" in texts(at)


def test_citation_rollup_per_config(results_file):
    rollup = build_results(n=5)["citation_rollup"]
    at = open_app(results_file, page="pages/severity.py")
    table = at.dataframe[-1].value
    assert list(table["config"]) == list(rollup)
    assert list(table["satisfied"]) == [rollup[c]["satisfied"] for c in rollup]


def test_no_generation_means_no_citation_checks(ragaudit_home, monkeypatch):
    monkeypatch.delenv("RAGAUDIT_RESULTS", raising=False)
    path = write_results(ragaudit_home / "results" / "latest.json", n=3, generate=False)
    at = open_app(path, page="pages/severity.py")
    assert "No citation checks" in texts(at)
    assert "not_generated" in at.dataframe[0].value.to_string()
