"""The subsection splitter: what a split produces, and each of the four exclusion rules
excluding the document built to trip it (and only that rule)."""

from __future__ import annotations

import re

from ragaudit.auditing.chunks import build_chunks
from ragaudit.auditing.dilution import dilution_report
from ragaudit.auditing.settings import DEFAULT_SUBSECTION_MARKER, AuditSettings
from ragaudit.auditing.subsections import (
    FIRST_MARKER_REPEATS,
    LEAD_IN_TOO_LONG,
    NON_CONSECUTIVE,
    TOO_SMALL,
    SplitRules,
    count_markers,
    decide,
    summarise,
)
from ragaudit.documents import Document

MARKER = re.compile(DEFAULT_SUBSECTION_MARKER, re.MULTILINE)
LEAD = "Estate Act, Article 16. The following shall not be included in the estate:"
TOPICS = [
    "Property donated to the national government or to public schools.",
    "Cultural artefacts registered with the competent authority and never transferred.",
    "Copyright and patent rights created by the decedent during his or her lifetime.",
    "Ordinary household furniture up to the amount set by the tax authority.",
    "A life insurance benefit payable to a named beneficiary on the death of the insured.",
    "Land opened by the decedent for unrestricted public passage, excluding building sites.",
]


def article(lead: str = LEAD, numbers=(1, 2, 3, 4, 5, 6), topics=TOPICS) -> str:
    body = "\n".join(f"({n}) {topic}" for n, topic in zip(numbers, topics, strict=False))
    return f"{lead}\n{body}\n"


SPLITTABLE = article()
REPEATS = (
    "Income Act, Article 14. Income falls into these categories.\nCategory one, business:\n"
    + "\n".join(f"({n}) {t}" for n, t in zip((1, 2, 3), TOPICS[:3], strict=True))
    + "\nCategory two, practice:\n"
    + "\n".join(f"({n}) {t}" for n, t in zip((1, 2, 3), TOPICS[3:], strict=True))
)
NON_CONSEC = article(numbers=(1, 2, 4, 5, 6, 7))
LONG_LEAD = article(lead="Tax Act, Article 12. " + "Where the obligation is shared " * 12)
SHORT_TWO = article(numbers=(1, 2), topics=TOPICS[:2])
SHORT_CHARS = "Stamp Act, Art 5. Duty is due on:\n(1) Receipts.\n(2) Contracts.\n(3) Deeds.\n"
RULES = SplitRules()


def test_the_fixtures_are_what_their_names_say():
    assert len(LONG_LEAD.split("\n")[0]) > 300
    assert len(SPLITTABLE) >= 500 and len(NON_CONSEC) >= 500 and len(REPEATS) >= 500
    assert len(SHORT_CHARS) < 500


def test_a_qualifying_article_splits_into_lead_in_plus_one_subsection_each():
    decision = decide("estate", SPLITTABLE, MARKER, RULES)
    assert decision.split and decision.rules_tripped == ()
    assert decision.numbers == (1, 2, 3, 4, 5, 6)
    assert decision.lead_in.strip() == LEAD
    fifth = decision.subsections[4]
    assert fifth.number == 5 and SPLITTABLE[fifth.start : fifth.end] == fifth.text
    child = decision.child_text(fifth)
    assert child == f"{LEAD}\n(5) {TOPICS[4]}"
    assert TOPICS[3] not in child and TOPICS[5] not in child
    # The parent embeds the lead-in and the headings, not the full subsections.
    parent = decision.parent_embed_text()
    assert parent.startswith(LEAD) and parent.count("\n") == 6
    assert "(5) A life insurance benefit payable to a named beneficiary on the death" in parent


def test_split_chunks_keep_the_parents_full_text_and_one_source():
    docs = [
        Document("statutes/estate", SPLITTABLE, source_type="statutes"),
        Document("other", "Plain."),
    ]
    settings = AuditSettings(splitter="document", split_subsections=True)
    chunks, decisions = build_chunks(docs, settings)
    estate = [c for c in chunks if c.doc_id == "statutes/estate"]
    assert [c.kind for c in estate] == ["parent"] + ["child"] * 6
    parent = estate[0]
    assert parent.text == SPLITTABLE and parent.embed_text != parent.text
    assert [c.chunk_id for c in estate[1:3]] == [
        "document+sub/statutes/estate#sub-1",
        "document+sub/statutes/estate#sub-2",
    ]
    assert all(c.source_type == "statutes" for c in estate)
    assert [c.kind for c in chunks if c.doc_id == "other"] == ["chunk"]
    assert summarise(decisions)["split"] == 1


def test_rule_first_marker_repeats():
    decision = decide("income", REPEATS, MARKER, RULES)
    assert not decision.split
    assert decision.excluded_by == FIRST_MARKER_REPEATS
    assert decision.numbers == (1, 2, 3, 1, 2, 3)


def test_rule_non_consecutive_numbering():
    decision = decide("gift", NON_CONSEC, MARKER, RULES)
    assert decision.rules_tripped == (NON_CONSECUTIVE,)


def test_rule_lead_in_over_300_characters():
    decision = decide("collection", LONG_LEAD, MARKER, RULES)
    assert decision.rules_tripped == (LEAD_IN_TOO_LONG,)
    # the threshold is the study's 300, and it is a setting
    assert decide("collection", LONG_LEAD, MARKER, SplitRules(max_lead_in=2000)).split


def test_rule_fewer_than_three_subsections_or_under_500_characters():
    assert decide("two", SHORT_TWO, MARKER, RULES).rules_tripped == (TOO_SMALL,)
    assert decide("short", SHORT_CHARS, MARKER, RULES).rules_tripped == (TOO_SMALL,)


def test_counts_per_rule_and_documents_without_markers():
    documents = {
        "estate": SPLITTABLE,
        "income": REPEATS,
        "gift": NON_CONSEC,
        "collection": LONG_LEAD,
        "two": SHORT_TWO,
        "short": SHORT_CHARS,
        "ruling": "A ruling with no numbered subsections at all. " * 20,
    }
    decisions = [decide(doc_id, text, MARKER, RULES) for doc_id, text in documents.items()]
    summary = summarise(decisions)
    assert summary["split"] == 1 and summary["children"] == 6
    assert summary["excluded_by_rule"] == {
        FIRST_MARKER_REPEATS: 1,
        NON_CONSECUTIVE: 1,
        LEAD_IN_TOO_LONG: 1,
        TOO_SMALL: 2,
    }
    assert summary["excluded"] == 5 and summary["candidates"] == 6 and summary["no_markers"] == 1


def test_dilution_lists_longest_chunks_with_marker_counts():
    docs = [
        Document("income", REPEATS),
        Document("estate", SPLITTABLE),
        Document("stamp", SHORT_CHARS),
        Document("ruling", "No markers here, only prose. " * 5),
    ]
    report = dilution_report(docs, AuditSettings(splitter="document"), longest=3)
    longest = report["longest_chunks"]
    assert [c["source"] for c in longest] == ["income", "estate", "ruling"]
    assert [c["markers"] for c in longest] == [6, 6, 0]
    assert longest[0]["excluded_by"] == FIRST_MARKER_REPEATS and longest[1]["would_split"]
    assert report["splitter"]["applied"] is False  # reported even when the stack does not split
    assert (
        report["per_source_cap"] is None
        and "may fill every slot" in (report["per_source_cap_reason"])
    )
    assert count_markers(SHORT_CHARS, MARKER) == 3


def test_dilution_only_run_embeds_nothing(tmp_path, ragaudit_home, capsys):
    from ragaudit.cli.main import main

    corpus = tmp_path / "corpus"
    (corpus / "statutes").mkdir(parents=True)
    for name, text in {"estate": SPLITTABLE, "income": REPEATS, "stamp": SHORT_CHARS}.items():
        (corpus / "statutes" / f"{name}.md").write_text(text, encoding="utf-8")
    out = tmp_path / "dilution.json"
    assert main(["audit", str(corpus), "--dilution", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    results = __import__("json").loads(out.read_text(encoding="utf-8"))
    assert results["cases"] == [] and results["models"] == [] and results["index"] is None
    assert results["conditions"]["calls"] == {"replayed": 0, "computed": 0, "failed": 0}
    longest = results["dilution"]["longest_chunks"]
    assert len(REPEATS) > len(SPLITTABLE) > len(SHORT_CHARS)  # longest first
    assert [(c["source"], c["markers"]) for c in longest] == [
        ("statutes/income", 6),
        ("statutes/estate", 6),
        ("statutes/stamp", 3),
    ]
    assert "excluded by first_marker_repeats: 1" in printed
    assert "excluded by too_few_subsections_or_too_short: 1" in printed
    # without --dilution a case file is required
    assert main(["audit", str(corpus)]) == 2
    assert "give a case file, or --dilution" in capsys.readouterr().err
