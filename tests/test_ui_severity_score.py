"""The Severity page names the score each cell's sweep used: a hybrid cell plots the top-1
dense cosine (saying the fused rank score is not a similarity) and its BM25 score apart; a
dense cell plots the top-1 cosine; an older file's score is worded as what it was."""

from __future__ import annotations

import json

from helpers.ui_fixtures import build_results, chart_specs, open_app, texts

from ragaudit.ui.charts import sweep_figure

HYBRID_LABEL = "top-1 dense cosine (hybrid cell: the fused rank score is not a similarity)"


def _measurable(results: dict, config: str) -> dict:
    return next(
        c
        for c in results["cells"]
        if c["embedder"] == "local:minilm"
        and c["config"] == config
        and c["detectability"]["measurable"]
    )


def _open(ragaudit_home, monkeypatch, results: dict, cell: dict):
    monkeypatch.delenv("RAGAUDIT_RESULTS", raising=False)
    path = ragaudit_home / "results" / "latest.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(results))
    at = open_app(path, page="pages/severity.py", probe=cell["probe"], config=cell["config"])
    assert not at.exception
    return at


def _axis_titles(at) -> list[str]:
    return [s["layout"].get("xaxis", {}).get("title", {}).get("text", "") for s in chart_specs(at)]


def test_a_hybrid_cell_names_the_dense_cosine_and_plots_bm25_apart(ragaudit_home, monkeypatch):
    results = build_results(n=5)
    cell = _measurable(results, "M")
    at = _open(ragaudit_home, monkeypatch, results, cell)
    page = texts(at)
    assert f"Score swept: `top1_dense_cosine`, {HYBRID_LABEL}" in page
    assert "reported apart** (no severity class reads it)" in page
    titles = _axis_titles(at)
    assert f"recorded retrieval score: {HYBRID_LABEL}" in titles
    (bm25_dots,) = [
        s
        for s in chart_specs(at)
        if "top-1 BM25 score" in s["layout"]["xaxis"]["title"]["text"]
        and "recorded retrieval score" in s["layout"]["xaxis"]["title"]["text"]
    ]
    points = cell["detectability"]["by_instance"].values()
    failing = [p["bm25"] for p in points if p["failed"]]
    assert {t["name"]: t["x"] for t in bm25_dots["data"]}[f"failing ({len(failing)})"] == failing


def test_a_dense_cell_names_the_top1_cosine_and_has_no_bm25_block(ragaudit_home, monkeypatch):
    results = build_results(n=5)
    cell = _measurable(results, "C")
    at = _open(ragaudit_home, monkeypatch, results, cell)
    page = texts(at)
    assert "Score swept: `top1_cosine`, top-1 cosine" in page
    assert "BM25" not in page
    assert "recorded retrieval score: top-1 cosine" in _axis_titles(at)


def test_an_older_file_says_what_its_score_was_or_that_it_was_not_measured(
    ragaudit_home, monkeypatch
):
    results = build_results(n=5)
    cell = _measurable(results, "M")
    cell["detectability"]["score"] = "top1_score"
    del cell["detectability"]["bm25"]
    at = _open(ragaudit_home, monkeypatch, results, cell)
    assert "on a hybrid cell this is the fused rank score" in texts(at)
    del cell["detectability"]["score"]
    at = _open(ragaudit_home, monkeypatch, results, cell)
    assert "Score swept: `not measured in this file`" in texts(at)


def test_the_sweep_plot_names_the_score_it_cuts():
    sweep = [{"cut": 0.6, "catches": 5, "false_positives": 0}]
    assert sweep_figure(sweep, HYBRID_LABEL).layout.xaxis.title.text == (
        f"threshold on the {HYBRID_LABEL}"
    )
