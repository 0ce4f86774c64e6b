"""The library's inputs (issue 43, item 1): `documents` as a folder, a JSONL file, `(id, text)`
pairs, dicts, llama-index Documents or LangChain Documents is one corpus (the same ids and
texts); `cases` as a YAML path or as `ragaudit.Case` objects built in Python is the same
resolved cases. A bad item, or a value of the wrong type, is one line naming where."""

from __future__ import annotations

import json

import pytest
from langchain_core.documents import Document as LangChainDocument
from llama_index.core import Document as LlamaDocument

import ragaudit
from ragaudit.auditing.cases import load_cases
from ragaudit.auditing.corpus_io import as_corpus

TRAVEL = "The meal allowance on domestic trips is 46 euros.\n\nBusiness class needs nine hours."
LEAVE = "Full-time employees get 27 days of paid annual leave."
NEWS = "The canteen reopens in May after its refit."
EXPECTED = [("newsletter", NEWS), ("policies/leave", LEAVE), ("policies/travel", TRAVEL)]
"""By hand: the folder form's order (sorted paths) and ids (paths without the suffix)."""

CASES_YAML = """\
intents:
  - intent: meal-allowance
    expect: [policies/travel]
    answer: 46 euros
    anchor: domestic trips
    phrasings:
      - What is the daily meal allowance on domestic trips?
      - q: How much can I claim per day for meals?
        id: per-day
  - intent: annual-leave
    expect_any: [policies/leave, newsletter]
    phrasings:
      - q: How many days of annual leave do I get?
        expect: [policies/leave]
      - What is the yearly holiday entitlement?
"""

RESOLVED = [
    # (case_id, intent, question, expect_all, expect_any, answer, anchor), by hand from above
    ("meal-allowance/1", "meal-allowance", "What is the daily meal allowance on domestic trips?",
     ("policies/travel",), (), "46 euros", "domestic trips"),
    ("meal-allowance/per-day", "meal-allowance", "How much can I claim per day for meals?",
     ("policies/travel",), (), "46 euros", "domestic trips"),
    ("annual-leave/1", "annual-leave", "How many days of annual leave do I get?",
     ("policies/leave",), ("policies/leave", "newsletter"), None, None),
    ("annual-leave/2", "annual-leave", "What is the yearly holiday entitlement?",
     (), ("policies/leave", "newsletter"), None, None),
]  # fmt: skip


def python_cases() -> list:
    return [
        ragaudit.Case(
            intent="meal-allowance", expect=["policies/travel"], answer="46 euros",
            anchor="domestic trips",
            phrasings=["What is the daily meal allowance on domestic trips?",
                       {"q": "How much can I claim per day for meals?", "id": "per-day"}],
        ),
        ragaudit.Case(
            intent="annual-leave", expect_any=["policies/leave", "newsletter"],
            phrasings=[{"q": "How many days of annual leave do I get?",
                        "expect": ["policies/leave"]},
                       "What is the yearly holiday entitlement?"],
        ),
    ]  # fmt: skip


def one_line_error(call, *args) -> str:
    with pytest.raises(ragaudit.RagauditError) as caught:
        call(*args)
    message = str(caught.value)
    assert "\n" not in message
    return message


def ids_and_texts(corpus) -> list[tuple[str, str]]:
    return sorted((doc.doc_id, doc.text) for doc in corpus.documents)


def folder(tmp_path):
    root = tmp_path / "corpus"
    (root / "policies").mkdir(parents=True)
    (root / "policies" / "travel.md").write_text(TRAVEL, encoding="utf-8")
    (root / "policies" / "leave.txt").write_text(LEAVE, encoding="utf-8")
    (root / "newsletter.md").write_text(NEWS, encoding="utf-8")
    return root


def jsonl(tmp_path):
    path = tmp_path / "corpus.jsonl"
    lines = [json.dumps({"id": doc_id, "text": text}) for doc_id, text in EXPECTED]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


FORMS = {
    "folder": folder,
    "folder as str": lambda tmp_path: str(folder(tmp_path)),
    "jsonl": jsonl,
    "pairs": lambda tmp_path: list(EXPECTED),
    "dicts": lambda tmp_path: [{"id": i, "text": t, "metadata": {"n": 1}} for i, t in EXPECTED],
    "llama-index": lambda tmp_path: [LlamaDocument(text=t, id_=i) for i, t in EXPECTED],
    "langchain": lambda tmp_path: [
        LangChainDocument(page_content=NEWS, id="newsletter"),
        LangChainDocument(page_content=LEAVE, metadata={"id": "policies/leave"}),
        LangChainDocument(page_content=TRAVEL, metadata={"source": "policies/travel"}),
    ],
    "a generator of pairs": lambda tmp_path: (pair for pair in EXPECTED),
}


@pytest.mark.parametrize("form", sorted(FORMS))
def test_every_documents_form_is_the_same_corpus(form, tmp_path) -> None:
    assert ids_and_texts(as_corpus(FORMS[form](tmp_path))) == EXPECTED


def test_documents_given_in_python_keep_their_metadata_and_have_no_path() -> None:
    corpus = as_corpus([{"id": "a", "text": "x", "metadata": {"title": "A"}, "source_type": "t"}])
    (doc,) = corpus.documents
    assert (doc.metadata, doc.source_type, doc.path) == ({"title": "A"}, "t", None)
    assert corpus.root is None


@pytest.mark.parametrize(
    ("documents", "expected"),
    [
        ([("a", "x"), 5], "documents[1]: expected an (id, text) pair, a dict with id and text, "
                          "or a llama-index or LangChain Document, got int"),
        ([("a", "x"), ("b", "y", "z")], "documents[1]: expected an (id, text) pair"),
        ([{"text": "x"}], "documents[0]: no id (give each document a string id)"),
        ([("a", "x"), (7, "y")], "documents[1]: no id"),
        ([("a", "x"), ("b", "  ")], "documents[1] (b): no text"),
        ([("a", "x"), ("b", "y"), ("a", "z")], "documents[2]: id 'a' is also documents[0]'s"),
        ([LangChainDocument(page_content="no id here")], "documents[0]: no id"),
        ([], "documents: empty, no document given"),
    ],
)  # fmt: skip
def test_a_bad_document_is_one_line_naming_its_index(documents, expected) -> None:
    assert one_line_error(as_corpus, documents).startswith(expected)


@pytest.mark.parametrize(
    "documents",
    [5, None, {"a": "text"}, LlamaDocument(text="alone", id_="a"),
     LangChainDocument(page_content="alone", id="a")],
    ids=["int", "None", "dict", "one llama-index Document", "one LangChain Document"],
)  # fmt: skip
def test_documents_of_the_wrong_type_are_one_line_naming_it(documents) -> None:
    message = one_line_error(as_corpus, documents)
    assert message == (
        "documents: expected a folder or JSONL path, a Corpus or a list of documents, "
        f"got {type(documents).__name__}"
    )


def resolved(cases) -> list[tuple]:
    return [(c.case_id, c.intent, c.question, c.expect_all, c.expect_any, c.answer, c.anchor)
            for c in cases]  # fmt: skip


def test_cases_as_a_yaml_path_and_as_python_objects_resolve_the_same(tmp_path) -> None:
    path = tmp_path / "cases.yaml"
    path.write_text(CASES_YAML, encoding="utf-8")
    from_file, from_python = load_cases(path), load_cases(python_cases())
    assert resolved(from_file) == resolved(from_python) == RESOLVED
    assert [c.line for c in from_file] == [7, 8, 13, 15]  # the file's lines; Python has none
    assert [c.line for c in from_python] == [None] * 4
    assert resolved(load_cases(str(path))) == RESOLVED
    assert resolved(load_cases(tuple(python_cases()))) == RESOLVED


WRONG_CASES = {
    "int": (lambda: 5, "cases: expected a case file's path or a list of ragaudit.Case, got int"),
    "None": (lambda: None, "cases: expected a case file's path or a list of ragaudit.Case, got "
                           "NoneType"),
    "dict": (lambda: {"intents": []}, "cases: expected a case file's path or a list of "
                                      "ragaudit.Case, got dict"),
    "one Case": (lambda: python_cases()[0], "cases: expected a case file's path or a list of "
                                            "ragaudit.Case, got IntentSpec"),
    "a dict item": (lambda: [python_cases()[0], {"intent": "x"}],
                    "cases[1]: expected a ragaudit.Case, got dict"),
    "a str item": (lambda: [python_cases()[0], "What is it?"],
                   "cases[1]: expected a ragaudit.Case, got str"),
}  # fmt: skip


@pytest.mark.parametrize("wrong", sorted(WRONG_CASES))
def test_a_wrong_type_in_cases_is_one_line(wrong) -> None:
    cases, expected = WRONG_CASES[wrong]
    assert one_line_error(load_cases, cases()) == expected


def test_cases_given_in_python_are_validated_as_the_file_is() -> None:
    twice = [python_cases()[0], python_cases()[0]]
    message = one_line_error(load_cases, twice)
    assert "<cases given in Python>" in message
    assert "intent 'meal-allowance' appears twice" in message
    assert "<cases given in Python>" in one_line_error(load_cases, [])


def test_the_audit_takes_either_form_and_gives_the_same_cases(tmp_path) -> None:
    """Through the verb: a YAML path with a folder, and Case objects with pairs, ranked by
    one callable retriever (no model), give the same cases, ranks and verdicts."""
    from llama_index.core.node_parser import SentenceSplitter

    path = tmp_path / "cases.yaml"
    path.write_text(CASES_YAML, encoding="utf-8")
    texts = dict(EXPECTED)

    def retriever(question):  # travel first, then leave, then the newsletter
        return [(texts["policies/travel"], 0.9), (texts["policies/leave"], 0.5), (NEWS, 0.1)]

    splitter = SentenceSplitter(chunk_size=512)
    target = ragaudit.Components(splitter=splitter, retriever=retriever, k=2)
    runs = [
        ragaudit.audit(corpus, cases, target, data_dir=tmp_path / "home", progress=False)
        for corpus, cases in ((folder(tmp_path), path), (list(EXPECTED), python_cases()))
    ]
    seen = [
        [(c["case_id"], c["status"], [s["rank"] for s in c["sources"]]) for c in cases]
        for cases in (run.document["cases"] for run in runs)
    ]
    # by hand: travel is rank 1 and leave rank 2 (in the top 2), the newsletter rank 3
    assert seen[0] == seen[1] == [
        ("meal-allowance/1", "pass", [1]), ("meal-allowance/per-day", "pass", [1]),
        ("annual-leave/1", "pass", [2, 3]), ("annual-leave/2", "pass", [2, 3]),
    ]  # fmt: skip
    assert runs[1].document["cases_file"] != runs[0].document["cases_file"]
