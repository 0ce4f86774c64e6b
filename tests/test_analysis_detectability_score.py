"""Detectability sweeps a similarity, named per cell: the top-1 cosine on a dense cell, the
top-ranked chunk's dense cosine on a hybrid cell (never its fused rank score), and on a
hybrid cell its BM25 score apart, which severity never reads."""

from __future__ import annotations

import pytest
from helpers.detectability_fixtures import (
    FAIL_BM25,
    FAIL_COSINES,
    FAILED,
    PASS_BM25,
    PASS_COSINES,
    hit,
    hybrid_records,
    hybrid_results,
    record,
)

from ragaudit.analysis import analyse
from ragaudit.analysis.detectability import detectability


def test_a_hybrid_cell_sweeps_the_dense_cosine_where_the_fused_score_is_constant():
    detect = detectability(hybrid_records(), FAILED, config_hybrid=True)
    assert detect["score"] == "top1_dense_cosine"
    assert detect["measurable"] is True and detect["unscored"] == 0
    threshold = detect["threshold"]
    assert threshold["separable"] is True
    assert (threshold["catches"], threshold["failures"]) == (5, 5)
    assert (threshold["false_positives"], threshold["successes"]) == (0, 5)
    # The one cut between the highest failing cosine (0.49) and the lowest passing (0.71).
    assert threshold["cut"] == pytest.approx(0.60)
    assert detect["permutation"]["mean_fail"] == pytest.approx(0.45)
    assert detect["permutation"]["mean_pass"] == pytest.approx(0.75)
    points = list(detect["by_instance"].values())
    assert [p["score"] for p in points] == pytest.approx(FAIL_COSINES + PASS_COSINES)


def test_a_hybrid_cell_reports_its_bm25_sweep_apart():
    detect = detectability(hybrid_records(), FAILED, config_hybrid=True)
    bm25 = detect["bm25"]
    assert bm25["score"] == "top1_bm25" and bm25["measurable"] is True
    assert bm25["permutation"]["mean_fail"] == pytest.approx(9.0)
    assert bm25["permutation"]["mean_pass"] == pytest.approx(10.0)
    assert bm25["threshold"]["separable"] is False
    points = list(detect["by_instance"].values())
    assert [p["bm25"] for p in points] == FAIL_BM25 + PASS_BM25


def test_hybrid_is_known_from_the_hits_when_the_config_does_not_say():
    detect = detectability(hybrid_records(), FAILED, config_hybrid=None)
    assert detect["score"] == "top1_dense_cosine" and detect["bm25"]["score"] == "top1_bm25"


def test_a_dense_cell_still_sweeps_the_top1_cosine_and_has_no_bm25_block():
    cosines = FAIL_COSINES + PASS_COSINES
    records = [record(i, hit(1, c, c, None), config="C") for i, c in enumerate(cosines)]
    detect = detectability(records, FAILED, config_hybrid=False)
    assert detect["score"] == "top1_cosine" and detect["bm25"] is None
    assert detect["threshold"]["cut"] == pytest.approx(0.60)
    assert "bm25" not in next(iter(detect["by_instance"].values()))


def test_a_hybrid_top_hit_without_a_dense_cosine_is_unscored_not_swept_on_the_fused_score():
    # Fused scores that WOULD separate (low for failures, high for successes), no cosine:
    # falling back to `score` would make the cell measurable and separable.
    fused = [0.020 + 0.001 * i for i in range(5)] + [0.030 + 0.001 * i for i in range(5)]
    records = [record(i, hit(1, s, None, 3.0)) for i, s in enumerate(fused)]
    detect = detectability(records, FAILED, config_hybrid=True)
    assert detect["score"] == "top1_dense_cosine"
    assert detect["unscored"] == 10 and detect["measurable"] is False
    assert detect["threshold"] is None
    assert "10/10 have a top-ranked hit that records no dense cosine" in detect["unscored_reason"]
    assert all(p["score"] is None for p in detect["by_instance"].values())


def test_a_config_marked_hybrid_never_reads_score_even_without_bm25_fields():
    fused = [0.020 + 0.001 * i for i in range(5)] + [0.030 + 0.001 * i for i in range(5)]
    records = [record(i, hit(1, s, None, None)) for i, s in enumerate(fused)]
    detect = detectability(records, FAILED, config_hybrid=True)
    assert detect["unscored"] == 10 and detect["measurable"] is False


def test_severity_reads_the_dense_sweep_never_the_bm25_one():
    # BM25 separates, dense cosines interleave: not "separable" for severity.
    interleaved = [0.41, 0.43, 0.45, 0.47, 0.49, 0.42, 0.44, 0.46, 0.48, 0.50]
    separating_bm25 = [1.0, 2.0, 3.0, 4.0, 5.0, 11.0, 12.0, 13.0, 14.0, 15.0]
    results = hybrid_results(interleaved, separating_bm25)
    analyse(results)
    (cell,) = [c for c in results["cells"] if c["probe"] == "superseded"]
    assert cell["detectability"]["bm25"]["threshold"]["separable"] is True
    assert cell["detectability"]["threshold"]["separable"] is False
    assert cell["severity"]["branch"] == "quiet_uncaught"
    summary = results["analysis"]["detectability"]
    assert summary["scores"] == {"top1_dense_cosine": 2}
    assert summary["separable"] == 0 and summary["bm25"]["separable"] == 1


def test_severity_is_separable_when_the_dense_cosines_separate():
    results = hybrid_results(FAIL_COSINES + PASS_COSINES, FAIL_BM25 + PASS_BM25)
    analyse(results)
    (cell,) = [c for c in results["cells"] if c["probe"] == "superseded"]
    assert cell["severity"]["branch"] == "separable_in_sample"
