"""remove_answer deletes the answer's fact, not the documents holding its digits (issue
38): the sentence, table row or line stating the answer of its anchor goes from every
document that states it, a page that merely mentions 'Python 3.11' keeps it, a fact
stated in over 5% of the corpus is not one fact to remove, and the loose validity
detector catches an answer left near its anchor that the strict one would miss. Every
offset below is counted by hand from the texts written here."""

from __future__ import annotations

from dataclasses import replace

from ragaudit.auditing.cases import Case
from ragaudit.documents import Document
from ragaudit.mutation.cases import MutationIntent
from ragaudit.mutation.edits import Edit, apply_edits
from ragaudit.mutation.facts import Fact, find_facts, remaining_statements
from ragaudit.mutation.operator import Context, NotApplicable, Plan, Target
from ragaudit.mutation.remove import plan, statements_left

# "Deployment notes. " is 18 characters; the fact "The server runs 3.11 in production."
# is 35 (16 before the answer), so [18, 53) with the answer at 34.
SERVER = "Deployment notes. The server runs 3.11 in production. Logs rotate daily.\n"
# "Upgrade log.\n" is 13; "Since May the server uses 3.11 for every job." is 45: [13, 58).
UPGRADE = "Upgrade log.\nSince May the server uses 3.11 for every job.\n"
RELEASE = "Release notes. Python 3.11 is out with a faster startup.\n"


def filler(count: int) -> list[Document]:
    return [Document(f"filler/{i}", f"Page {i} lists the opening hours.\n") for i in range(count)]


def intent(name: str, answer: str, anchor: str | None, doc_id: str, start: int) -> MutationIntent:
    case = Case(case_id=f"{name}/1", intent=name, question=f"What about {name}?",
                expect_all=(doc_id,), expect_any=(), line=None)  # fmt: skip
    return MutationIntent(name=name, answer=answer, anchor=anchor, cases=(case,),
                          doc_id=doc_id, answer_start=start, line=None)  # fmt: skip


def planned(documents: list[Document], wanted: MutationIntent):
    context = Context(tuple(documents), (wanted,), 0, None)
    return plan(Target(wanted, context.document(wanted.doc_id)), context)


def mutant_corpus(documents: list[Document], made: Plan):
    """The user's corpus with the plan's edits made (each changed document under a new id),
    and the originals by mutant id, as validity reads them."""
    edits = {made.doc_id: made.edits, **dict(made.elsewhere)}
    out, originals = [], {}
    for doc in documents:
        if doc.doc_id in edits:
            mutant = replace(doc, doc_id=f"{doc.doc_id}~m",
                             text=apply_edits(doc.text, edits[doc.doc_id]).text)  # fmt: skip
            out.append(mutant)
            originals[mutant.doc_id] = doc
        else:
            out.append(doc)
    return out, originals


def server_corpus(total: int) -> list[Document]:
    stated = [Document("ops/server", SERVER), Document("ops/upgrade", UPGRADE),
              Document("news/release", RELEASE)]  # fmt: skip
    return stated + filler(total - len(stated))


def test_the_anchors_fact_goes_from_each_document_and_a_page_sharing_the_digits_stays():
    documents = server_corpus(40)  # 2 stating documents of 40: exactly 5%, allowed
    made = planned(documents, intent("server-version", "3.11", "the server", "ops/server", 34))
    assert isinstance(made, Plan), made
    assert (made.kind, made.doc_id, made.removed, made.expect, made.traps) == (
        "in_place", "ops/server", (), "abstain", ("3.11",),
    )  # fmt: skip
    # the sentence with the space after it; the last sentence of its paragraph with the
    # line break before it
    assert made.edits == (Edit(18, 54, "", "removed_fact", "server-version"),)
    assert made.elsewhere == (
        ("ops/upgrade", (Edit(12, 58, "", "removed_fact", "server-version"),)),
    )
    assert made.checks["removed_facts"] == [
        {"doc_id": "ops/server", "start": 18, "end": 53, "kind": "sentence",
         "text": "The server runs 3.11 in production."},
        {"doc_id": "ops/upgrade", "start": 13, "end": 58, "kind": "sentence",
         "text": "Since May the server uses 3.11 for every job."},
    ]  # fmt: skip
    assert made.rule == "2 fact(s) stating '3.11' about 'the server' removed from 2 document(s)"
    after, originals = mutant_corpus(documents, made)
    texts = {d.doc_id: d.text for d in after}
    assert texts["ops/server~m"] == "Deployment notes. Logs rotate daily.\n"
    assert texts["ops/upgrade~m"] == "Upgrade log.\n"
    assert texts["news/release"] == RELEASE  # 'Python 3.11', not about the server
    # and the loose detector finds nothing left
    assert statements_left(made, after, originals) == []


def test_without_an_anchor_the_sentence_and_its_verbatim_copies_go_and_nothing_else():
    # "The meal allowance is " is 22 characters; the sentence [0, 39) with its space [0, 40)
    travel = "The meal allowance is 46 euros per day. A taxi costs 46 euros at most.\n"
    # "Travel summary:\n\n" is 17; the copy is its own paragraph, [17, 56), and goes with
    # its line break and the blank line after it: [17, 58)
    summary = "Travel summary:\n\nThe meal allowance is 46 euros per day.\n\nParking is 46 euros.\n"
    faq = "Expenses FAQ. Meals cost 46 euros per day on average.\n"
    documents = [Document("travel", travel), Document("summary", summary),
                 Document("faq", faq)] + filler(37)  # fmt: skip
    made = planned(documents, intent("meals", "46 euros", None, "travel", 22))
    assert isinstance(made, Plan), made
    assert made.edits == (Edit(0, 40, "", "removed_fact", "meals"),)
    assert made.elsewhere == (("summary", (Edit(17, 58, "", "removed_fact", "meals"),)),)
    sentence = "The meal allowance is 46 euros per day."
    assert made.checks["removed_facts"] == [
        {"doc_id": "travel", "start": 0, "end": 39, "text": sentence, "kind": "sentence"},
        {"doc_id": "summary", "start": 17, "end": 56, "text": sentence, "kind": "sentence"},
    ]
    assert made.rule == "2 fact(s) stating '46 euros' removed from 2 document(s)"
    after, _ = mutant_corpus(documents, made)
    texts = {d.doc_id: d.text for d in after}
    assert texts["travel~m"] == "A taxi costs 46 euros at most.\n"
    assert texts["summary~m"] == "Travel summary:\n\nParking is 46 euros.\n"
    assert texts["faq"] == faq


def test_a_fact_stated_in_over_5_percent_of_the_documents_is_not_applicable():
    # 2 stating documents of 39 is 5.1%
    made = planned(server_corpus(39), intent("server-version", "3.11", "the server",
                                             "ops/server", 34))  # fmt: skip
    assert made == NotApplicable(
        "remove_answer", "server-version", "the fact is stated in 2 of 39 documents (over 5%)"
    )
    # one document is always allowed, however small the corpus
    alone = planned([Document("ops/server", SERVER), *filler(2)],
                    intent("server-version", "3.11", "the server", "ops/server", 34))  # fmt: skip
    assert isinstance(alone, Plan) and alone.elsewhere == ()


def test_no_fact_at_the_answers_offset_is_not_applicable():
    made = planned(server_corpus(40), intent("server-version", "3.11", "the server",
                                             "ops/server", 20))  # fmt: skip
    assert made == NotApplicable(
        "remove_answer", "server-version",
        "no sentence, row or line of ops/server states '3.11' at offset 20",
    )  # fmt: skip


def test_the_loose_detector_flags_the_answer_left_near_its_anchor_in_another_sentence():
    # "The server was upgraded last week. " is 35 characters and "It now runs " 12: the
    # answer at 47, 37 characters after the anchor's end (10). No sentence holds both,
    # so the strict detector finds no fact in this document.
    nearby = "The server was upgraded last week. It now runs 3.11 everywhere.\n"
    documents = [Document("ops/server", SERVER), Document("ops/nearby", nearby), *filler(38)]
    found = find_facts(documents, "3.11", "the server", "ops/server", 34)
    assert [f.doc_id for f in found] == ["ops/server"]
    made = planned(documents, intent("server-version", "3.11", "the server", "ops/server", 34))
    after, originals = mutant_corpus(documents, made)
    assert statements_left(made, after, originals) == [
        "ops/nearby: '3.11' 37 characters from 'the server'"
    ]
    # and with that document gone, nothing is left
    rest = [d for d in after if d.doc_id != "ops/nearby"]
    assert statements_left(made, rest, originals) == []


def test_the_loose_detector_reads_sections():
    far = "x " * 120  # 240 characters: out of reach of the 200-character window
    same = Document("same", f"## The server\n\n{far}\n\nVersion 3.11 is installed.\n")
    other = Document("other", f"## The server\n\n{far}\n\n## The client\n\nVersion 3.11.\n")
    underlined = Document(
        "rst", f"The server\n==========\n\n{far}\n\nClient\n------\n\nIt is 3.11.\n"
    )
    man = Document("man", f"SERVER\n       the server\n       {far}\nCLIENT\n       uses 3.11\n")
    assert remaining_statements([same, other, underlined, man], "3.11", "the server") == [
        "same: '3.11' in the same section as 'the server'"
    ]


def test_without_an_anchor_the_loose_detector_looks_where_the_sentence_was_and_for_copies():
    left = "A taxi costs 46 euros at most.\n"
    copy = "Summary. The meal allowance is 46 euros per day.\n"
    documents = [Document("travel~m", left), Document("summary", copy), *filler(2)]
    assert remaining_statements(
        documents, "46 euros", None, near=[("travel~m", 0)],
        sentences=["The meal allowance is 46 euros per day."],
    ) == [
        "travel~m: '46 euros' 13 characters from where the removed sentence was",
        "summary: the removed sentence 'The meal allowance is 46 euros per day.'",
    ]  # fmt: skip
    far = "## Meals\n\nNo answer here.\n\n## Taxis\n\n" + "y " * 110 + "\nA taxi costs 46 euros.\n"
    assert remaining_statements([Document("travel~m", far)], "46 euros", None,
                                near=[("travel~m", 10)], sentences=["Gone."]) == []  # fmt: skip


def test_a_table_row_holding_anchor_and_answer_goes_as_a_row():
    # "Hosts and versions.\n\n" is 21, the header line 19 and the rule line 14: the row
    # "| the server | 3.11 |" (21 characters) at [54, 75), the answer 15 into it, at 69
    table = ("Hosts and versions.\n\n| Host | Version |\n| --- | --- |\n"
             "| the server | 3.11 |\n| the client | 3.10 |\n")  # fmt: skip
    documents = [Document("hosts", table), *filler(19)]
    made = planned(documents, intent("server-version", "3.11", "the server", "hosts", 69))
    assert isinstance(made, Plan), made
    assert made.checks["removed_facts"] == [
        {"doc_id": "hosts", "start": 54, "end": 75, "text": "| the server | 3.11 |",
         "kind": "table_row"}
    ]  # fmt: skip
    assert made.edits == (Edit(54, 76, "", "removed_fact", "server-version"),)
    after, _ = mutant_corpus(documents, made)
    assert after[0].text == (
        "Hosts and versions.\n\n| Host | Version |\n| --- | --- |\n| the client | 3.10 |\n"
    )


def test_a_fact_is_a_frozen_record_of_where_it_stands():
    (fact,) = find_facts([Document("ops/server", SERVER)], "3.11", "the server",
                         "ops/server", 34)  # fmt: skip
    assert fact == Fact("ops/server", 18, 53, "The server runs 3.11 in production.", "sentence")
