"""The Judges page on a scorecard built by hand: the summary, the metric x probe recall grid,
and the wrong records a metric passed, with the metric's reason beside ragaudit's verdict
and branch."""

from __future__ import annotations

import pytest

from ragaudit.fileio import write_json_atomic
from ragaudit.judges.metrics import METRICS
from ragaudit.judges.samples import Sample
from ragaudit.judges.scorecard import build
from ragaudit.ui.judges_page import missed_records, recall_grid


def _sample(key, probe, verdict, correct) -> Sample:
    return Sample(key, probe, "B", f"question {key}?", f"answer {key}", ("ctx",), "ref",
                  verdict, correct, f"branch-{key}", True)  # fmt: skip


def _evaluation(key, metric, score, reason) -> dict:
    return {
        "key": key, "metric": metric, "repetition": 1, "outcome": "scored", "score": score,
        "flagged": score < 0.5, "reason": reason, "judge_replies": [f"reply for {key}"],
        "calls": 4, "replayed": 0, "computed": 4, "failed": 0, "prompt_tokens": 400,
        "completion_tokens": 40, "tokens_unreported": 0, "seconds": 2.0,
    }  # fmt: skip


@pytest.fixture
def scorecard_path(tmp_path, monkeypatch):
    metric = METRICS["deepeval:faithfulness"]
    samples = [
        _sample("s/negation-1/B/m", "negation", "trap_taken", False),
        _sample("s/negation-2/B/m", "negation", "trap_taken", False),
        _sample("s/control-1/B/m", "control", "correct", True),
    ]
    evaluations = [
        _evaluation("s/negation-1/B/m", metric.name, 1.0, "The score is 1.00: all claims agree."),
        _evaluation("s/negation-2/B/m", metric.name, 0.0, "A claim contradicts the context."),
        _evaluation("s/control-1/B/m", metric.name, 1.0, "Faithful."),
    ]
    document = build(
        source={"results": "r.json", "sha256": "x", "created_at": "2026-01-01",
                "records_available": 3},
        judge={"spec": "openai:scripted", "model": "scripted", "base_url": None,
               "digest": "d" * 64, "digest_reason": None, "settings": {"server": "a test"}},
        metrics=[metric], versions={"deepeval": "4.3.1"},
        plan={"per_group": 3, "seed": 0, "stability": 0, "max_records": None},
        samples=samples, evaluations=evaluations,
        conditions={"calls": {"replayed": 0, "computed": 12, "failed": 0}, "workers": 1,
                    "computing_seconds": 75.0},
        complete=True,
    )  # fmt: skip
    path = tmp_path / "judges.json"
    write_json_atomic(path, document)
    monkeypatch.setenv("RAGAUDIT_JUDGES", str(path))
    return path, document


def test_the_grid_is_recall_per_metric_and_probe(scorecard_path):
    _, document = scorecard_path
    metrics, probes, cells = recall_grid(document)
    assert metrics == ["deepeval:faithfulness"] and probes == ["control", "negation"]
    assert cells == [[None, {"count": 1, "n": 2}]]  # control: nothing to flag
    (missed,) = missed_records(document, "deepeval:faithfulness", "negation")
    assert missed["sample"]["key"] == "s/negation-1/B/m"


def _page():
    from ragaudit.ui.judges_page import render

    render()


def test_the_page_opens_a_cell_with_the_metrics_reason(scorecard_path):
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_function(_page, default_timeout=30)
    at.query_params["metric"] = "deepeval:faithfulness"
    at.query_params["probe"] = "negation"
    at.run()
    assert not at.exception
    shown = " ".join(str(m.value) for m in at.markdown)
    assert "passed" in " ".join(str(s.value) for s in at.subheader)
    assert (
        "s/negation-1/B/m" in shown and "trap_taken" in shown and "branch-s/negation-1/B/m" in shown
    )
    assert "The score is 1.00: all claims agree." in shown
    assert "s/negation-2/B/m" not in shown  # flagged: not a miss
    table = at.dataframe[0].value
    assert list(table["Recall (flagged / should be)"]) == ["50% 1/2"]
    assert "1 min 15 s" in " ".join(str(c.value) for c in at.caption)


def test_no_scorecard_says_how_to_make_one(tmp_path, monkeypatch):
    from streamlit.testing.v1 import AppTest

    monkeypatch.setenv("RAGAUDIT_JUDGES", str(tmp_path / "none.json"))
    at = AppTest.from_function(_page, default_timeout=30)
    at.run()
    assert not at.exception
    assert "ragaudit judges --results" in " ".join(str(m.value) for m in at.markdown)


def test_with_no_local_scorecard_the_page_opens_the_shipped_one(tmp_path, monkeypatch):
    from streamlit.testing.v1 import AppTest

    from ragaudit.judges.scorecard import SHIPPED, scorecard_to_show

    monkeypatch.delenv("RAGAUDIT_JUDGES", raising=False)
    monkeypatch.setenv("RAGAUDIT_HOME", str(tmp_path))  # an empty data folder
    assert scorecard_to_show() == SHIPPED and SHIPPED.is_file()
    at = AppTest.from_function(_page, default_timeout=30)
    at.run()
    assert not at.exception
    assert "Recorded reference scorecard, shipped with ragaudit" in at.info[0].value
