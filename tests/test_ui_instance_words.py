"""The Instance page's tables say `not retrieved`, `—`, `yes` and `no` (results.format's
one formatter of diagnostics), never Python's None, null, True or False."""

from __future__ import annotations

import pytest
from helpers.ui_fixtures import open_app, write_results

from ragaudit.results.format import fmt_diagnostic
from ragaudit.results.io import load_results


def test_the_formatter_says_each_value_in_words():
    assert fmt_diagnostic("gold_rank", None) == "not retrieved"
    assert fmt_diagnostic("margin", None) == "—"
    assert fmt_diagnostic("span_preserved", True) == "yes"
    assert fmt_diagnostic("table_together", False) == "no"
    assert fmt_diagnostic("gold_score", 0.81081) == "0.811"
    assert fmt_diagnostic("gold_rank", 12) == "12"
    assert fmt_diagnostic("hops", {"mapping": False, "answer": None}) == "mapping: no, answer: —"


@pytest.fixture
def unretrieved(ragaudit_home, monkeypatch):
    monkeypatch.delenv("RAGAUDIT_RESULTS", raising=False)
    path = write_results(ragaudit_home / "results" / "latest.json", n=5)
    records = load_results(path)["instances"]
    record = next(r for r in records if r.get("gold_rank") is None and r.get("gold_spans"))
    return record


def test_no_python_word_reaches_the_instance_pages_tables(unretrieved):
    at = open_app(
        page="pages/instance.py",
        probe=unretrieved["probe"],
        config=unretrieved["config"],
        embedder=unretrieved["embedder"],
        instance=unretrieved["instance_id"],
    )
    assert not at.exception
    shown = [str(v) for frame in at.dataframe for v in frame.value.to_numpy().ravel()]
    for python_word in ("None", "null", "True", "False", "nan"):
        assert python_word not in shown
    (cell_table, diagnostics) = at.dataframe[0].value, at.dataframe[1].value
    row = cell_table[cell_table["instance"] == unretrieved["instance_id"]].iloc[0]
    assert row["gold rank"] == "not retrieved"
    assert row["margin"] == "—"
    values = dict(zip(diagnostics["measure"], diagnostics["value"], strict=True))
    assert values["gold_rank"] == "not retrieved"
    assert values["gold_in_context"] == ("yes" if unretrieved["gold_in_context"] else "no")
