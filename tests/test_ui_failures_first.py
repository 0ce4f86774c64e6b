"""The Matrix page opens with what failed, above the heatmap, each entry linked to its cell."""

from __future__ import annotations

import json

import pytest
from helpers.analysis_fixtures import analysed_results
from helpers.ui_fixtures import open_app

from ragaudit.report.failures_first import failed_cells


def _holds(node, text: str) -> bool:
    """Whether `text` is the value of `node` or of an element inside it."""
    if text in str(getattr(node, "value", "")):
        return True
    return any(_holds(child, text) for child in getattr(node, "children", {}).values())


@pytest.fixture
def results(ragaudit_home, monkeypatch):
    monkeypatch.delenv("RAGAUDIT_RESULTS", raising=False)
    analysed = analysed_results()
    path = ragaudit_home / "results" / "latest.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(analysed))
    return analysed


def test_the_summary_heads_the_matrix_page_above_the_heatmap(results):
    at = open_app()
    assert not at.exception
    entries = failed_cells(results)
    assert len(entries) > 5  # some wait in the expander
    tree = [type(node).__name__ for node in at.main]
    summary = next(i for i, node in enumerate(at.main) if _holds(node, "What failed"))
    assert summary < tree.index("UnknownElement")  # the heatmap (a plotly chart) below it
    markdown = [m.value for m in at.markdown]
    for entry in entries:  # every entry: its cell, count over n, attribution and why
        (text,) = [t for t in markdown if f"· {entry.cell}:" in t]
        assert entry.failed in text and f"why: {entry.why}" in text
        assert f"attribution: {entry.attribution}" in text
    links = at.get("page_link")
    assert len(links) == len(entries)
    assert {link.proto.label for link in links} == {"Open cell"}
    assert [link.proto.help for link in links] == [
        f"{e.cell} on the Instance page" for e in entries
    ]
