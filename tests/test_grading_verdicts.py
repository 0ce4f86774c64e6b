"""Graders: every verdict with its branch, and regressions for the study's grading errors."""

from __future__ import annotations

import pytest

from ragaudit.errors import RagauditError
from ragaudit.grading.citation_check import check_citations
from ragaudit.grading.grade import grade, grade_records, grading_patterns

NOT_PERMITTED = {
    "kind": "polarity",
    "expected": "not permitted",
    "subject": "widgets",
    "store": "Eastbrook",
}
SUPERSEDED = {"kind": "value", "accept": ["38 days"], "trap_values": ["28 days"]}
ITEMS = [
    "respirator cartridges",
    "emergency lighting circuits",
    "eyewash stations",
    "fire door closers",
    "spill kits",
]
SUMMARY = {"kind": "list", "items": ITEMS, "labels": [f"exception {i}" for i in range(1, 6)]}


@pytest.mark.parametrize(
    "reply",
    [
        "Widgets are not, at the Eastbrook store, permitted [c1].",
        "No. The item is not, at the Eastbrook store, permitted.",
        "Widgets are not permitted at the Eastbrook store.",
        "At the Eastbrook store widgets are not permitted.",
        "Widgets aren't permitted at Eastbrook.",
        "Widgets are prohibited at the Eastbrook store.",
        "Widgets are permitted at store Westfield, but not permitted at the Eastbrook store.",
    ],
)
def test_a_denial_split_by_the_store_name_reads_as_a_denial(reply):
    verdict = grade(reply, NOT_PERMITTED)
    assert verdict["verdict"] == "correct", verdict
    assert verdict["branch"].endswith(":negative")


def test_the_corpus_own_split_phrasing_is_graded_as_a_denial():
    spec = {
        "kind": "polarity",
        "expected": "not permitted",
        "subject": "aerosol cans",
        "store": "Q7XK",
    }
    for reply in (
        "Aerosol cans are, in store Q7XK, not permitted [c1].",
        "No, aerosol cans are not permitted in store Q7XK.",
        "In store Q7XK aerosol cans are not, per policy, permitted.",
    ):
        assert grade(reply, spec)["verdict"] == "correct", reply
    assert grade("Aerosol cans are permitted in store Q7XK.", spec)["verdict"] == "trap_taken"


@pytest.mark.parametrize(
    "reply",
    [
        "Widgets are permitted at the Eastbrook store [c2].",
        "Yes, at the Eastbrook store widgets are permitted.",
        "Widgets are not permitted at Westfield, but at the Eastbrook store they are permitted.",
    ],
)
def test_the_wrong_polarity_is_the_trap(reply):
    verdict = grade(reply, NOT_PERMITTED)
    assert verdict["verdict"] == "trap_taken", verdict
    assert verdict["branch"].endswith(":affirmative")


def test_a_superseded_value_cited_from_the_old_document_is_a_trap_the_check_passes():
    reply = "Every 28 days. [c1]"
    verdict = grade(reply, SUPERSEDED)
    assert verdict == {
        "verdict": "trap_taken",
        "correct": False,
        "branch": "trap_match:phrase:28 days",
    }
    check = check_citations(
        {"status": "ok", "reply": reply, "citations": ["recursive-1000-0/sup-018-old#0"]},
        {
            "recursive-1000-0/sup-018-old#0": "Policy (superseded): inspect every 28 days.",
            "recursive-1000-0/sup-018#0": "Current policy: inspect every 38 days.",
        },
    )
    assert check["outcome"] == "satisfied"


@pytest.mark.parametrize(
    ("reply", "verdict", "branch"),
    [
        ("The interval is 38 days [c1].", "correct", "value_match:phrase:38 days"),
        ("The interval is 38 [c1].", "correct", "value_match:number:38 days"),
        ("Every 38-day period [c1].", "correct", "value_match:phrase:38 days"),
        ("It is 380 days.", "wrong", "no_accepted_value"),
        ("[38]", "correct", "value_match:number:38 days"),  # a bracketed value is no citation
        (
            "The old policy said 28 days; the current one says 38 days.",
            "trap_taken",
            "value_match:trap_before_accept:28 days",
        ),
        (
            "The current policy says 38 days, replacing 28 days.",
            "correct",
            "value_match:accept_before_trap:38 days",
        ),
        ("NOT_IN_CONTEXT", "abstained", "abstention_pattern"),
        ("The context does not contain the interval.", "abstained", "abstention_pattern"),
        (
            "Pump P-7 is not listed in the tables. The value for P-9 is 17 days.",
            "denied_record",
            "denial_of_record_then_value",
        ),
        ("", "empty", "empty_reply"),
        ("   \n", "empty", "empty_reply"),
    ],
)
def test_value_verdicts_and_their_branches(reply, verdict, branch):
    result = grade(reply, SUPERSEDED)
    assert (result["verdict"], result["branch"]) == (verdict, branch)
    assert result["correct"] is (verdict == "correct")


def test_an_empty_reply_is_neither_abstention_nor_wrong_even_where_abstaining_is_right():
    assert grade("", {"kind": "abstain"})["verdict"] == "empty"
    assert grade("NOT_IN_CONTEXT", {"kind": "abstain"}) == {
        "verdict": "abstained",
        "correct": True,
        "branch": "abstain_expected:abstained",
    }
    assert grade("The limit is 12 units.", {"kind": "abstain"})["verdict"] == "wrong"


def test_list_answers_labels_only_partial_and_complete():
    labels = grade("exception 4, exception 2, exception 5", SUMMARY)
    assert labels["verdict"] == "labels_only"
    assert labels["labels_named"] == ["exception 2", "exception 4", "exception 5"]
    partial = grade("respirator cartridges, emergency lighting circuits, eyewash stations", SUMMARY)
    assert partial["verdict"] == "partial_list"
    assert partial["branch"] == "list:partial:3_of_5"
    complete = grade(
        "- Respirator cartridge\n- emergency lighting circuits\n- eyewash station\n"
        "- fire-door closers\n- spill kits",
        SUMMARY,
    )
    assert complete["verdict"] == "correct"
    # "exception 40" is not "exception 4"
    assert grade("exception 40 and exception 41", SUMMARY)["verdict"] == "wrong"


def test_failed_calls_have_their_own_verdict():
    assert grade(None, SUPERSEDED, status="failed_call") == {
        "verdict": "failed_call",
        "correct": False,
        "branch": "failed_call",
    }


def test_a_spec_falls_back_to_the_gold_answer_and_an_unknown_kind_is_one_clear_error():
    assert grade("38 days", {}, gold_answer="38 days")["verdict"] == "correct"
    assert grade("NOT_IN_CONTEXT", {}, gold_answer=None)["correct"] is True
    with pytest.raises(RagauditError, match="unknown kind 'numeric'"):
        grade("38", {"kind": "numeric"})
    record = {
        "key": "x/1/B/e",
        "grading": {"kind": "numeric"},
        "retrieved": [],
        "generation": {"status": "ok", "reply": "38", "citations": []},
    }
    with pytest.raises(RagauditError, match="instance x/1/B/e"):
        grade_records([record], chunks_by_id={})


def test_grade_records_fills_grade_and_citation_check_only_where_generation_ran():
    chunks = {"a#0": {"text": "Inspect every 38 days."}}
    ran = {
        "key": "k1",
        "grading": SUPERSEDED,
        "retrieved": [{"chunk_id": "a#0", "rank": 1}],
        "generation": {"status": "ok", "reply": "38 days [c1]", "citations": ["a#0"]},
    }
    skipped = {"key": "k2", "grading": SUPERSEDED, "retrieved": [], "generation": None}
    grade_records([ran, skipped], chunks_by_id=chunks)
    assert ran["grade"]["verdict"] == "correct"
    assert ran["citation_check"]["outcome"] == "satisfied"
    assert skipped["grade"] is None and skipped["citation_check"] is None


def test_grading_refuses_a_retrieved_chunk_it_cannot_read_rather_than_skip_the_check():
    # The recorded citation check is final (analysis never redoes it), so grading must
    # have every retrieved chunk's text; a missing one names the instance and the chunk.
    record = {
        "key": "superseded/s-1/B/e",
        "grading": SUPERSEDED,
        "retrieved": [{"chunk_id": "a#0", "rank": 1}],
        "generation": {"status": "ok", "reply": "38 days [c1]", "citations": ["a#0"]},
    }
    with pytest.raises(RagauditError) as caught:
        grade_records([record], chunks_by_id={})
    assert str(caught.value) == (
        "instance superseded/s-1/B/e: retrieved chunk a#0 has no text to check against"
    )


def test_the_patterns_are_exported_for_the_results_file():
    patterns = grading_patterns()
    assert any("not" in p and "context" in p for p in patterns["abstention"])
    assert patterns["denial_of_record"]
