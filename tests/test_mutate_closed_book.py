"""The closed-book control (issue 38, item 4): each phrasing asked once with no context by
the run's generator, graded against its intent's answer; the row names the phrasings known
without context and the intents known in every phrasing, failed calls apart. The grading and
the row are pure (hand-built generation entries); the asking runs against a real
OpenAI-compatible process on 127.0.0.1 (tests/helpers/hostile_openai_server.py) and, marked
slow, the real local generator."""

from __future__ import annotations

import pytest
from helpers.hostile_openai_server import CHAT_MODEL, start_hostile

from ragaudit.auditing.cases import Case
from ragaudit.backends.cache import CallCache
from ragaudit.backends.retry import RetryPolicy
from ragaudit.backends.specs import load_generator
from ragaudit.mutation.cases import MutationIntent
from ragaudit.mutation.closed_book import (
    ask_closed_book,
    closed_book_failed_calls,
    closed_book_outcome,
    closed_book_row,
)

FAST = RetryPolicy(retries=1, delay=0.01, timeout=5)
SHA = "ab" * 32


def intent(name: str, answer: str, *questions: str) -> MutationIntent:
    cases = tuple(
        Case(case_id=f"{name}/{i}", intent=name, question=q, expect_all=("doc",),
             expect_any=(), line=None)
        for i, q in enumerate(questions, 1)
    )  # fmt: skip
    return MutationIntent(
        name=name, answer=answer, anchor=None, cases=cases, doc_id="doc", answer_start=0, line=None
    )


def generation(reply: str | None, status: str = "ok", error: str | None = None) -> dict:
    """A generation entry as generate_records fills it."""
    return {"status": status, "reply": reply, "error": error, "replayed": False,
            "prompt_sha256": SHA}  # fmt: skip


def outcome(known: bool | None, status: str = "ok", error: str | None = None) -> dict:
    return {"known_without_context": known, "status": status, "error": error}


def test_a_right_reply_is_known_without_context():
    got = closed_book_outcome("Max upload?", generation("It is 37 MB."), "37 MB")
    assert got == {
        "question": "Max upload?", "reply": "It is 37 MB.", "verdict": "correct",
        "correct": True, "known_without_context": True, "status": "ok", "error": None,
        "replayed": False, "prompt_sha256": SHA,
    }  # fmt: skip


@pytest.mark.parametrize(
    ("reply", "verdict"),
    [("It is 10 MB.", "wrong"), ("NOT_IN_CONTEXT", "abstained"), ("I don't know.", "abstained"),
     ("", "empty")],
)  # fmt: skip
def test_a_wrong_reply_or_an_abstention_is_not_known(reply, verdict):
    got = closed_book_outcome("Max upload?", generation(reply), "37 MB")
    assert (got["verdict"], got["correct"], got["known_without_context"]) == (verdict, False, False)
    assert got["status"] == "ok"


def test_a_failed_call_is_failed_not_unknown():
    entry = generation(None, "failed_call", "openai:m: generation failed: HTTP 500")
    got = closed_book_outcome("Max upload?", entry, "37 MB")
    assert got["status"] == "failed" and got["known_without_context"] is None
    assert got["verdict"] == "failed_call" and got["reply"] is None
    assert got["error"] == "openai:m: generation failed: HTTP 500"


def test_the_row_names_known_phrasings_and_wholly_known_intents():
    intents = [
        intent("paris", "Paris", "Capital of France?", "France's capital?"),
        intent("upload", "37 MB", "Max upload?", "Upload limit?"),
        intent("port", "5432", "Postgres port?"),
    ]
    results = {
        "paris/1": outcome(True), "paris/2": outcome(True),
        "upload/1": outcome(True), "upload/2": outcome(False),
        "port/1": outcome(False),
    }  # fmt: skip
    row = closed_book_row(results, intents)
    # known: paris/1, paris/2, upload/1 = 3 of 5; only paris is known in every phrasing
    assert row["phrasings"] == {"known": 3, "asked": 5, "failed": 0}
    assert row["intents"] == {"wholly": 1, "decided": 3, "of": 3}
    assert row["wholly_known"] == ["paris"]
    assert row["by_intent"][1] == {
        "intent": "upload", "known": ["upload/1"], "not_known": ["upload/2"], "failed": [],
        "wholly": False,
    }  # fmt: skip
    assert row["summary"] == "known 3 of 5 phrasings; 1 of 3 intents wholly"
    assert row["failed_calls"] == []


def test_a_failed_call_is_outside_every_denominator():
    intents = [
        intent("paris", "Paris", "Capital of France?", "France's capital?"),
        intent("upload", "37 MB", "Max upload?", "Upload limit?"),
        intent("port", "5432", "Postgres port?"),
    ]
    results = {
        "paris/1": outcome(True), "paris/2": outcome(None, "failed", "HTTP 500"),
        "upload/1": outcome(False), "upload/2": outcome(None, "failed", "HTTP 500"),
        "port/1": outcome(True),
    }  # fmt: skip
    row = closed_book_row(results, intents)
    # asked and answered: paris/1, upload/1, port/1; paris is undetermined (its known
    # phrasing's sibling failed), upload is decided by its phrasing not known
    assert row["phrasings"] == {"known": 2, "asked": 3, "failed": 2}
    assert [entry["wholly"] for entry in row["by_intent"]] == [None, False, True]
    assert row["intents"] == {"wholly": 1, "decided": 2, "of": 3}
    assert row["wholly_known"] == ["port"]
    assert row["failed_calls"] == [
        {"case_id": "paris/2", "intent": "paris", "error": "HTTP 500"},
        {"case_id": "upload/2", "intent": "upload", "error": "HTTP 500"},
    ]
    assert row["summary"] == (
        "known 2 of 3 phrasings; 1 of 2 intents wholly (2 failed call(s) left out)"
    )


def test_failed_calls_are_counted_as_records_are_once_per_phrasing():
    results = {
        "a/1": outcome(None, "failed", "HTTP 500"),
        "a/2": outcome(True),
        "b/1": outcome(None, "failed", "HTTP 500"),
        "c/1": outcome(None, "failed", "timed out"),
    }
    assert closed_book_failed_calls(results, "openai:m") == [
        {"model": "openai:m", "kind": "generate_closed_book", "error": "HTTP 500",
         "instance_keys": ["a/1", "b/1"]},
        {"model": "openai:m", "kind": "generate_closed_book", "error": "timed out",
         "instance_keys": ["c/1"]},
    ]  # fmt: skip


def test_a_phrasing_with_no_outcome_is_named():
    with pytest.raises(ValueError, match="no outcome for phrasing 'port/1'"):
        closed_book_row({}, [intent("port", "5432", "Postgres port?")])


@pytest.fixture
def server(ragaudit_home, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-closed-book")
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    running = start_hostile("normal")
    yield running
    running.stop()


def test_each_phrasing_is_asked_once_with_no_context_through_the_cache(server):
    # The server replies "hostile reply to: " + the user message's first 40 characters,
    # so a question that opens with its answer is "known", one that does not is not.
    intents = [
        intent("port", "5432", "5432 or 5433: which is the port?", "Which port is it?"),
        intent("twin", "5432", "5432 or 5433: which is the port?"),
    ]
    options = {"base_url": server.base_url}
    generator = load_generator(f"openai:{CHAT_MODEL}", CallCache(), retry=FAST, options=options)
    results = ask_closed_book(intents, generator, workers=4)
    assert {case: r["known_without_context"] for case, r in results.items()} == {
        "port/1": True, "port/2": False, "twin/1": True}  # fmt: skip
    reply = "hostile reply to: Question: 5432 or 5433: which is the por"  # 40 characters
    assert results["port/1"]["reply"] == reply
    assert results["port/2"]["verdict"] == "wrong"
    assert results["port/1"]["prompt_sha256"] == results["twin/1"]["prompt_sha256"]
    chats = server.seen()["chats"]
    assert len(chats) == 2  # two distinct prompts: the twin phrasing is asked once
    assert sorted(chats, key=str)[0] == [
        {"role": "system", "content": "Answer the question. Give the exact value or items."},
        {"role": "user", "content": "Question: 5432 or 5433: which is the port?"},
    ]
    again = ask_closed_book(intents, generator, workers=4)
    assert all(r["replayed"] for r in again.values()) and len(server.seen()["chats"]) == 2
    assert {case: r["reply"] for case, r in again.items()} == {
        case: r["reply"] for case, r in results.items()}  # fmt: skip

    server.set_mode("error500")
    broken = [intent("upload", "37 MB", "37 MB: the upload limit?")]
    failed = ask_closed_book(broken, generator, workers=4)["upload/1"]
    assert failed["status"] == "failed" and failed["known_without_context"] is None
    assert "500" in failed["error"]
    entries = closed_book_failed_calls({"upload/1": failed}, generator.spec)
    assert [(e["kind"], e["instance_keys"]) for e in entries] == [
        ("generate_closed_book", ["upload/1"])]  # fmt: skip
    assert closed_book_row({"upload/1": failed}, broken)["phrasings"] == {
        "known": 0, "asked": 0, "failed": 1}  # fmt: skip


@pytest.mark.slow
def test_the_local_generator_knows_a_public_answer_and_not_a_private_one(ragaudit_home):
    intents = [
        intent("capital", "Paris", "What is the capital of France?"),
        intent("upload", "37 MB", "What is the maximum upload size on the Hollowbrook intranet?"),
    ]
    cache = CallCache()
    generator = load_generator("local:qwen2.5-0.5b", cache)
    results = ask_closed_book(intents, generator, workers=1)
    assert results["capital/1"]["known_without_context"] is True, results["capital/1"]
    assert results["upload/1"]["known_without_context"] is False, results["upload/1"]
    assert not any(r["replayed"] for r in results.values())
    again = ask_closed_book(intents, generator, workers=1)
    assert all(r["replayed"] for r in again.values())
    assert {c: r["reply"] for c, r in again.items()} == {c: r["reply"] for c, r in results.items()}
    assert cache.stats()["computed"] == 2
