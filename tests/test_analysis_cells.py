"""analyse() on hand-made records: measures with denominators, detectability, severity
branches, control certification, the citation rollup and McNemar on comparisons."""

from __future__ import annotations

import json

import pytest
from helpers.analysis_fixtures import SECOND_EMBEDDER, analysed_results, make_results

from ragaudit.analysis import analyse
from ragaudit.analysis.severity import RULES, SeverityFacts, classify, severity_rules
from ragaudit.grading.grade import grade_records

STUDY_ORDER = [
    ("none", "no_failures"),
    ("undetermined", "generation_not_run"),
    ("undetermined", "controls_not_certified"),
    ("low", "loud_failures"),
    ("medium", "separable_in_sample"),
    ("high", "cheap_check_flagged"),
    ("undetermined", "small_classes"),
    ("critical", "quiet_uncaught"),
]


@pytest.fixture(scope="module")
def results():
    return analysed_results()


def _cell(results, probe, config, embedder="local:minilm"):
    return next(
        c
        for c in results["cells"]
        if (c["probe"], c["config"], c["embedder"]) == (probe, config, embedder)
    )


def test_rules_keep_the_studys_order_and_are_emitted_as_text(results):
    assert [(r["class"], r["branch"]) for r in results["severity_rules"]] == STUDY_ORDER
    assert results["severity_rules"] == severity_rules()
    assert all(len(r["text"]) > 40 for r in results["severity_rules"])


def _facts(**overrides):
    base = dict(
        failures=8,
        successes=8,
        generated=True,
        embedder_certified=True,
        loud_failures=0,
        separable=False,
        check_flagged=0,
        check_eligible=8,
    )
    return SeverityFacts(**{**base, **overrides})


@pytest.mark.parametrize(
    ("overrides", "branch"),
    [
        ({"failures": 0}, "no_failures"),
        ({"generated": False}, "generation_not_run"),
        ({"embedder_certified": False, "generated": True}, "controls_not_certified"),
        ({"loud_failures": 7}, "loud_failures"),  # 7 of 8 >= 80%
        ({"loud_failures": 6, "separable": True}, "separable_in_sample"),  # 6 of 8 < 80%
        ({"check_flagged": 5}, "cheap_check_flagged"),
        ({"check_flagged": 4, "successes": 4}, "small_classes"),  # 4 of 8 is not most
        ({}, "quiet_uncaught"),
    ],
)
def test_each_branch_is_reached_by_the_first_rule_that_applies(overrides, branch):
    assert classify(_facts(**overrides))["branch"] == branch
    assert len(RULES) == len(STUDY_ORDER)


def test_measures_carry_count_n_rate_and_wilson(results):
    cell = _cell(results, "superseded", "C")
    correct = cell["measures"]["correct"]
    assert (correct["count"], correct["n"], correct["rate"]) == (5, 10, 0.5)
    assert correct["wilson"][0] < 0.5 < correct["wilson"][1]
    assert cell["measures"]["trap_taken"]["count"] == 5
    not_generated = _cell(results, "superseded", "A")
    assert not_generated["generated"] is False
    assert not_generated["measures"]["correct"] is None
    assert not_generated["measures"]["correct_reason"] == "generation did not run on this cell"
    unanswerable = _cell(results, "unanswerable", "A")
    assert unanswerable["measures"]["gold_in_context"] is None
    assert unanswerable["measures"]["gold_in_context_reason"]


def test_failed_calls_stay_in_the_denominator(results):
    cell = _cell(results, "boundary", "B")
    m = cell["measures"]
    assert m["failed_call"]["count"] == 1 and m["failed_call"]["n"] == 10
    assert m["correct"]["n"] == 10
    assert m["empty"]["count"] == 1 and m["abstained"]["count"] == 5


def test_detectability_needs_five_of_each_and_labels_the_sweep(results):
    separable = _cell(results, "superseded", "C")["detectability"]
    assert separable["measurable"] is True and separable["score"] == "top1_cosine"
    assert separable["threshold"]["label"] == "in-sample diagnostic"
    assert separable["threshold"]["catches"] == 5 and separable["threshold"]["false_positives"] == 0
    assert (
        separable["permutation"]["reshuffles"] == 20000 and separable["permutation"]["seed"] == 17
    )
    assert separable["permutation"]["p_value"] < 0.05
    small = _cell(results, "boundary", "B")["detectability"]
    assert small["measurable"] is False
    assert small["reason"] == "7 failures and 3 successes: needs at least 5 of each"
    assert small["threshold"] is None and small["permutation"] is None


def test_severity_branches_on_real_cells(results):
    branch = {
        (c["probe"], c["config"], c["embedder"]): c["severity"]["branch"] for c in results["cells"]
    }
    assert branch[("control", "B", "local:minilm")] == "no_failures"
    assert branch[("boundary", "A", "local:minilm")] == "generation_not_run"
    assert branch[("negation", "B", SECOND_EMBEDDER)] == "controls_not_certified"
    assert branch[("boundary", "B", "local:minilm")] == "loud_failures"
    assert branch[("superseded", "C", "local:minilm")] == "separable_in_sample"
    assert branch[("negation", "B", "local:minilm")] == "cheap_check_flagged"
    assert branch[("summarisation", "B", "local:minilm")] == "small_classes"
    cert = results["control_certification"]
    assert cert["local:minilm"]["certified"] is True
    assert cert[SECOND_EMBEDDER] == {
        "certified": False,
        "reason": "controls were never run under this embedder",
        "pass_rate": 0.9,
        "failing_cells": [],
    }


def test_failed_controls_uncertify_an_embedder():
    from helpers.analysis_fixtures import make_results

    from ragaudit.analysis import analyse
    from ragaudit.grading.grade import grade_records

    results = make_results()
    for record in results["instances"]:
        if record["probe"] == "control" and record["config"] == "B":
            record["generation"]["reply"] = "NOT_IN_CONTEXT"
    grade_records(results["instances"], chunks_by_id=results["chunks"])
    analyse(results)
    cert = results["control_certification"]["local:minilm"]
    assert cert["certified"] is False and cert["failing_cells"] == ["control/B"]
    assert _cell(results, "summarisation", "B")["severity"]["branch"] == "controls_not_certified"


def test_citation_rollup_counts_failures_and_never_credits_abstentions(results):
    rollup = results["citation_rollup"]
    assert list(rollup) == ["B", "C"]
    for counts in rollup.values():
        outcomes = sum(v for k, v in counts.items() if k != "failures")
        assert outcomes == counts["failures"]
    abstained_failures = [
        r
        for r in results["instances"]
        if r.get("grade") and r["grade"]["verdict"] == "abstained" and not r["grade"]["correct"]
    ]
    assert abstained_failures
    assert all(r["citation_check"]["outcome"] == "abstained" for r in abstained_failures)


def test_comparisons_get_mcnemar_and_wilson_and_the_file_is_strict_json(results):
    first = results["comparisons"][0]
    assert first["mcnemar_p"] == pytest.approx(2 / 1024)
    assert first["to_wilson"][1] == 1.0
    json.dumps(results, allow_nan=False)
    summary = results["analysis"]
    assert (
        summary["detectability"]["measurable"] + summary["detectability"]["not_measurable"]
        == summary["cells"]
    )
    assert sum(summary["severity_counts"].values()) == summary["cells"]


def test_the_rollup_and_severity_count_the_outcome_grading_recorded():
    # Analysis reads each reply's recorded check; it never runs the check again. Record
    # every B failure as caught, and the rollup and the severity facts must say so.
    results = make_results()
    grade_records(results["instances"], chunks_by_id=results["chunks"])
    failures = [
        r
        for r in results["instances"]
        if r["config"] == "B" and r["grade"] and not r["grade"]["correct"]
    ]
    for record in failures:
        record["citation_check"] = {"outcome": "caught", "detail": "hand-set", "flagged": True}
    analyse(results)
    assert results["citation_rollup"]["B"]["caught"] == len(failures)
    assert results["citation_rollup"]["B"]["failures"] == len(failures)
    assert all(r["citation_check"]["detail"] == "hand-set" for r in failures)
    # summarisation/B: 8 quiet failures, 2 successes; all flagged now, so "high"
    assert _cell(results, "summarisation", "B")["severity"]["branch"] == "cheap_check_flagged"


def test_detectability_records_each_instance_failure_flag_and_swept_score(results):
    # superseded/C is built with failures (i < 5) at top-1 score 0.40 + 0.01 i and
    # successes at 0.80 + 0.01 i: the recorded points are those, keyed by instance.
    by_instance = _cell(results, "superseded", "C")["detectability"]["by_instance"]
    assert list(by_instance) == [f"superseded-{i:03d}" for i in range(10)]
    assert [p["failed"] for p in by_instance.values()] == [True] * 5 + [False] * 5
    expected = [0.40, 0.41, 0.42, 0.43, 0.44, 0.85, 0.86, 0.87, 0.88, 0.89]
    assert [p["score"] for p in by_instance.values()] == pytest.approx(expected)
    # nothing defines failure on unanswerable/A (no gold span, no generation): no points
    assert _cell(results, "unanswerable", "A")["detectability"]["by_instance"] is None
