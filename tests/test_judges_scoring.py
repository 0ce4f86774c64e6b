"""Scoring a judge metric against ragaudit's verdicts: every expected figure below is worked
out by hand from the six records in the docstring of `answer_case`."""

from __future__ import annotations

import pytest

from ragaudit.judges.metrics import METRICS
from ragaudit.judges.samples import Sample, answer_text, reference_text
from ragaudit.judges.scoring import score_metric, should_flag


def sample(key, probe, verdict, correct, gold_in_context=True) -> Sample:
    return Sample(
        key, probe, "B", "q?", "a", ("ctx",), "ref", verdict, correct, "b", gold_in_context
    )


def evaluation(key, metric, outcome, score=None, repetition=1, calls=2) -> dict:
    threshold = METRICS[metric].threshold
    return {
        "key": key,
        "metric": metric,
        "repetition": repetition,
        "outcome": outcome,
        "score": score,
        "flagged": outcome == "scored" and score < threshold,
        "calls": calls,
        "prompt_tokens": 100 * calls,
        "completion_tokens": 10 * calls,
        "tokens_unreported": 0,
        "seconds": 1.0,
    }


@pytest.fixture
def answer_case():
    """A correct 0.9 (passed), B correct 0.2 (a false positive), C wrong 0.1 (flagged),
    D wrong NaN, E wrong parse failure, F a correct abstention NaN (ragas's refusal NaN);
    A and C run twice: A 0.8 (passed again), C NaN (changed)."""
    m = "ragas:faithfulness"
    samples = [
        sample("A", "control", "correct", True),
        sample("B", "control", "correct", True),
        sample("C", "distractor", "trap_taken", False),
        sample("D", "distractor", "trap_taken", False),
        sample("E", "summarisation", "partial_list", False),
        sample("F", "unanswerable", "abstained", True),
    ]
    evaluations = [
        evaluation("A", m, "scored", 0.9),
        evaluation("B", m, "scored", 0.2),
        evaluation("C", m, "scored", 0.1),
        evaluation("D", m, "nan"),
        evaluation("E", m, "parse_failure", calls=1),
        evaluation("F", m, "nan_refusal", calls=1),
        evaluation("A", m, "scored", 0.8, repetition=2),
        evaluation("C", m, "nan", repetition=2),
    ]
    return score_metric(METRICS[m], {s.key: s for s in samples}, evaluations)


def test_recall_and_false_positives_keep_every_no_verdict_in_the_denominator(answer_case):
    overall = answer_case["overall"]
    assert overall["recall"] == {"count": 1, "n": 3}  # C flagged; D (NaN), E (parse) not
    assert overall["false_positive"] == {"count": 1, "n": 3}  # B; F's NaN is not flagged
    assert overall["missed"] == ["D", "E"]
    assert overall["no_verdict"]["should_flag"] == {
        "count": 2,
        "n": 3,
        "by_outcome": {"nan": 1, "parse_failure": 1},
    }
    assert overall["no_verdict"]["should_pass"]["by_outcome"] == {"nan_refusal": 1}


def test_auroc_scores_a_no_verdict_as_a_pass(answer_case):
    # pass scores: correct A .9, B .2, F 1.0 (no verdict); wrong C .1, D 1.0, E 1.0.
    # (A,C)=1 (B,C)=1 (F,C)=1 (F,D)=.5 (F,E)=.5, the rest 0: 4 of 9 pairs
    assert answer_case["overall"]["auroc"]["value"] == pytest.approx(4 / 9, abs=1e-4)


def test_per_probe_and_per_kind(answer_case):
    assert answer_case["by_probe"]["distractor"]["recall"] == {"count": 1, "n": 2}
    assert answer_case["by_probe"]["control"]["false_positive"] == {"count": 1, "n": 2}
    assert answer_case["by_probe"]["control"]["auroc"]["value"] is None
    assert answer_case["by_kind"]["partial_list"]["recall"] == {"count": 0, "n": 1}


def test_stability_compares_outcomes_and_scores(answer_case):
    stability = answer_case["stability"]
    assert stability["agree"] == {"count": 1, "n": 2}  # A passed twice; C flagged, then NaN
    assert stability["changed"] == ["C"]
    assert stability["mean_abs_difference"] == pytest.approx(0.1, abs=1e-4)


def test_cost_counts_every_run(answer_case):
    cost = answer_case["cost"]
    assert cost["evaluations"] == 8
    assert cost["calls_per_sample"] == pytest.approx(14 / 8)
    assert cost["prompt_tokens_per_sample"] == pytest.approx(1400 / 8)
    assert cost["calls_in_source"] == 2


def test_context_metrics_are_scored_against_gold_in_context():
    metric = METRICS["ragas:context_recall"]
    missed_gold = sample("X", "distractor", "correct", True, gold_in_context=False)
    found_gold = sample("Y", "negation", "trap_taken", False, gold_in_context=True)
    no_gold = sample("Z", "unanswerable", "wrong", False, gold_in_context=None)
    assert should_flag(metric, missed_gold) is True  # a right answer, but the gold was missed
    assert should_flag(metric, found_gold) is False  # a wrong answer, but retrieval was fine
    assert should_flag(metric, no_gold) is None
    scored = score_metric(
        metric,
        {s.key: s for s in (missed_gold, found_gold, no_gold)},
        [
            evaluation("X", metric.name, "scored", 0.0),
            evaluation("Y", metric.name, "scored", 1.0),
            evaluation("Z", metric.name, "not_applicable", calls=0),
        ],
    )
    assert scored["overall"]["recall"] == {"count": 1, "n": 1}
    assert scored["overall"]["false_positive"] == {"count": 0, "n": 1}
    assert scored["overall"]["left_out"] == 1
    assert scored["overall"]["auroc"]["value"] == 1.0


def test_answers_and_references_as_the_metrics_get_them():
    assert answer_text("41 days [c1]") == "41 days"
    assert answer_text("Every 65 weeks [c1, c3].") == "Every 65 weeks."
    assert reference_text(["knee pads", "welding screens"]) == "knee pads, welding screens"
    assert reference_text(None) is None
