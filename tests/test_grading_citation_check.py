"""The citation check: reply and retrieved chunks only; abstentions are never catches."""

from __future__ import annotations

import inspect

from ragaudit.grading.citation_check import asserted_values, check_citations

CHUNKS = {
    "r/a#0": "Section 4417-B: the Eastbrook site is inspected every 38 days.",
    "r/b#0": "exception 4: eyewash stations. exception 2: spill kits. exception 5: closers.",
}


def _check(reply, citations):
    return check_citations({"status": "ok", "reply": reply, "citations": citations}, CHUNKS)


def test_outcomes():
    assert _check("Every 38 days [c1].", ["r/a#0"])["outcome"] == "satisfied"
    caught = _check("Every 45 days [c1].", ["r/a#0"])
    assert caught["outcome"] == "caught" and caught["missing_values"] == ["45"]
    assert _check("Every 38 days.", [])["outcome"] == "no_citation"
    assert _check("", [])["detail"] == "empty reply"
    assert _check("It is inspected regularly [c1].", ["r/a#0"])["outcome"] == "no_checkable_value"
    assert _check("NOT_IN_CONTEXT", [])["outcome"] == "abstained"
    assert _check("NOT_IN_CONTEXT [c1]", ["r/a#0"])["outcome"] == "abstained"
    failed = check_citations({"status": "failed_call", "reply": None}, CHUNKS)
    assert failed["outcome"] == "not_applicable"


def test_a_value_in_an_uncited_chunk_is_still_caught():
    assert _check("Every 38 days [c2].", ["r/b#0"])["outcome"] == "caught"


def test_labels_without_content_pass_because_the_label_is_in_the_cited_chunk():
    check = _check("exception 4, exception 2, exception 5 [c2]", ["r/b#0"])
    assert check["outcome"] == "satisfied"


def test_citation_marks_are_not_values_and_the_check_never_sees_the_answer_key():
    assert asserted_values("Every 38 days [c12].") == [{"kind": "number", "value": "38"}]
    assert asserted_values('It says "annual review" [c1].') == [
        {"kind": "quoted", "value": "annual review"}
    ]
    assert list(inspect.signature(check_citations).parameters) == ["generation", "retrieved_texts"]


def test_the_check_records_whether_a_guardrail_would_flag_the_reply():
    # Flagged: a cited chunk lacks the value, or nothing is cited. Never an abstention.
    flagged = {
        "Every 45 days [c1].": ["r/a#0"],  # caught
        "Every 38 days.": [],  # no_citation
    }
    passed = {
        "Every 38 days [c1].": ["r/a#0"],  # satisfied
        "NOT_IN_CONTEXT": [],  # abstained
        "It is inspected regularly [c1].": ["r/a#0"],  # no_checkable_value
    }
    assert all(_check(reply, cited)["flagged"] is True for reply, cited in flagged.items())
    assert all(_check(reply, cited)["flagged"] is False for reply, cited in passed.items())
    assert check_citations({"status": "failed_call", "reply": None}, CHUNKS)["flagged"] is False
