"""A pipeline's record without an `oracle:` entry on the Instance page: its attribution is
read from its contexts alone, so the page says so and says "ceiling: not measured (no
oracle entry)" (the record's `ceiling`), never that the question has no answer in the
corpus nor that it has no gold span; the Matrix page's attribution rows carry the cell's
`ceiling_reason`. The results file is the synthetic one with one record and one cell made
into a pipeline's by hand."""

from __future__ import annotations

import json

import pytest
from helpers.ui_fixtures import build_results, open_app, texts

from ragaudit.results.schema import ATTRIBUTIONS
from ragaudit.ui.attribution import attribution_rows, attribution_words, oracle_lines

CEILING = "not measured (no oracle entry)"
KEY = ("distractor", "B", "local:minilm")


def pipeline_record(gold_in_context: bool) -> dict:
    """A pipeline record as userpipeline.records writes it, graded wrong."""
    return {
        "gold_spans": [{"doc_id": "d", "start": 0, "end": 10, "text": "x", "role": "gold"}],
        "gold_in_context": gold_in_context,
        "retrieval_error": None,
        "generation": {"status": "ok", "reply": "every 40 days"},
        "grade": {"verdict": "wrong", "correct": False, "branch": "value:other"},
        "oracle": None,
        "ceiling": CEILING,
        "attribution": "generation" if gold_in_context else "retrieval",
    }


@pytest.mark.parametrize(
    ("gold_in_context", "words"),
    [
        (True, "a generation failure: the gold was in the retrieved context, yet the answer is "
         "wrong; ceiling: not measured (no oracle entry), so whether the gold alone fixes it is "
         "unknown."),
        (False, "a retrieval failure: the gold was not in the retrieved context; ceiling: not "
         "measured (no oracle entry), so whether the gold alone fixes it is unknown."),
    ],
)  # fmt: skip
def test_a_pipeline_record_without_an_oracle_entry_says_the_ceiling_was_not_measured(
    gold_in_context, words
):
    record = pipeline_record(gold_in_context)
    assert attribution_words(record) == words
    assert oracle_lines(record) == [
        "**Oracle context**: none, ceiling: not measured (no oracle entry)."
    ]


def test_an_unanswerable_pipeline_record_still_has_no_gold_span():
    record = {**pipeline_record(False), "gold_spans": [], "attribution": "generation"}
    assert oracle_lines(record) == ["**Oracle context**: none, it has no gold span."]
    assert attribution_words(record).startswith("a generation failure: the question has no")


def test_the_instance_and_matrix_pages_show_the_ceiling_reason(ragaudit_home, monkeypatch):
    monkeypatch.delenv("RAGAUDIT_RESULTS", raising=False)
    results = build_results(n=5)
    (record,) = [
        r for r in results["instances"]
        if (r["probe"], r["config"], r["embedder"]) == KEY and r["instance_id"] == "distractor-001"
    ]  # fmt: skip
    assert record["generation"] and record["gold_spans"], "the fixture generates it"
    record.update({k: v for k, v in pipeline_record(True).items() if k != "gold_spans"})
    cell = next(c for c in results["cells"] if (c["probe"], c["config"], c["embedder"]) == KEY)
    attribution = {name: {"count": 0, "n": 5, "rate": 0.0} for name in ATTRIBUTIONS}
    attribution |= {"generation": {"count": 1, "n": 5, "rate": 0.2}, "n": 5,
                    "ceiling_reason": f"ceiling: {CEILING}"}  # fmt: skip
    cell["attribution"] = attribution
    path = ragaudit_home / "results" / "latest.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(results, allow_nan=False))
    page = {"probe": "distractor", "config": "B", "embedder": "local:minilm"}
    shown = texts(open_app(path, page="pages/instance.py", instance="distractor-001", **page))
    assert "**Oracle context**: none, ceiling: not measured (no oracle entry)." in shown
    assert "the gold was in the retrieved context, yet the answer is wrong; ceiling: not " in shown
    assert "no answer in the corpus" not in shown and "none, it has no gold span" not in shown
    (row,) = [r for r in attribution_rows(results, "local:minilm") if r["probe"] == "distractor"
              and r["config"] == "B"]  # fmt: skip
    assert row["ceiling"] == "ceiling: not measured (no oracle entry)"
    assert row["generation"] == "20% 1/5"
