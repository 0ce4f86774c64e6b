"""A pipeline's reply held to the stack file's `limits` (issue 40, item 6): the contexts per
question (`max_contexts`, default 1,000), the characters of one context
(`max_context_chars`, 100,000) and of an answer (`max_answer_chars`, 100,000), for an
`http:` service (helpers/slow_service.py, a real process on 127.0.0.1) and for a factory,
whose reply has no byte cap of its own. An oversized reply is a counted failed call with a
one-line reason naming the limit; nothing of it is cached or written."""

from __future__ import annotations

import json
import sqlite3
import uuid
from contextlib import closing
from pathlib import Path

import pytest
from helpers.slow_service import BIG, MANY, start_slow

import ragaudit.runner.progress  # noqa: F401 (its default stream is bound before capture)
from ragaudit.cli.main import main
from ragaudit.probes.catalogue import shipped

QUESTIONS = len(shipped())  # the planted corpus's questions at n=1: one per probe
HTTP = """name: capped
pipeline:
  http:
    url: URL/ask
    body: {query: "{{question}}"}
    answer: $.answer
    contexts: $.contexts
    context_text: text
    context_id: id
    timeout: 20
  ingest: none
"""
FACTORY = """name: capped
pipeline:
  factory: MODULE:make
  args: {reply: REPLY}
LIMITS"""
# Each factory returns, for any question, the reply named; the stack file's limits below
# it are small, so the replies are too.
REPLIES = """
def make(documents, reply):
    context = {"text": "a passage", "id": "c1"}
    replies = {
        "three_contexts": {"answer": "a", "contexts": [context] * 3},
        "long_context": {"answer": "a", "contexts": [{"text": "x" * 21, "id": "c1"}]},
        "long_id": {"answer": "a", "contexts": [{"text": "a passage", "id": "i" * 21}]},
        "long_answer": {"answer": "y" * 31, "contexts": [context]},
        "three_citations": {"answer": "a", "contexts": [context], "citations": [1, 1, 1]},
        "fits": {"answer": "y" * 30, "contexts": [{"text": "x" * 20, "id": "c1"}] * 2},
        "huge_answer": {"answer": "y" * 100_001, "contexts": [context]},
    }
    return lambda question: replies[reply]
"""
SMALL = "limits: {max_contexts: 2, max_context_chars: 20, max_answer_chars: 30}\n"


def run(home: Path, stack: Path) -> int:
    return main(["run", "--stack", str(stack), "--stack-only", "--n", "1"])


def reasons(home: Path) -> list[str]:
    results = json.loads((home / "results" / "latest.failed.json").read_text())
    return [r["retrieval_error"] for r in results["instances"] if r["config"] == "capped"]


def stored_answers(home: Path) -> int:
    with closing(sqlite3.connect(home / "cache.sqlite")) as db:
        return db.execute("SELECT count(*) FROM calls WHERE kind = 'answer'").fetchone()[0]


@pytest.fixture
def service(ragaudit_home, monkeypatch):
    monkeypatch.setenv("RAGAUDIT_RETRIES", "0")
    started = []

    def start(mode: str) -> Path:
        started.append(start_slow(mode))
        stack = ragaudit_home.parent / "capped.yaml"
        stack.write_text(HTTP.replace("URL", started[-1].base_url))
        return stack

    yield start
    for each in started:
        each.stop()


@pytest.mark.parametrize(
    ("mode", "reason"),
    [
        ("many_contexts", f"the reply has {MANY:,} contexts, more than limits.max_contexts "
                          "(1,000)"),
        ("big_context", f"context 1's text is {BIG:,} characters, more than "
                        "limits.max_context_chars (100,000)"),
        ("big_answer", f"the answer is {BIG:,} characters, more than limits.max_answer_chars "
                       "(100,000)"),
    ],
)  # fmt: skip
def test_an_http_reply_past_a_default_cap_is_a_counted_failed_call(
    mode, reason, service, ragaudit_home, capfd
):
    assert run(ragaudit_home, service(mode)) == 1
    err = capfd.readouterr().err
    found = reasons(ragaudit_home)
    assert len(found) == QUESTIONS
    assert all(r.endswith(f"field pipeline.http: {reason}") for r in found), found[0]
    assert f"{QUESTIONS} of {QUESTIONS} calls failed" in err
    assert stored_answers(ragaudit_home) == 0


def factory_stack(folder: Path, reply: str, limits: str) -> Path:
    module = f"sized_{uuid.uuid4().hex[:8]}"
    (folder / f"{module}.py").write_text(REPLIES)
    stack = folder / "capped.yaml"
    text = FACTORY.replace("MODULE", module).replace("REPLY", reply)
    stack.write_text(text.replace("LIMITS", limits))
    return stack


@pytest.mark.parametrize(
    ("reply", "limits", "reason"),
    [
        ("three_contexts", SMALL, "the reply has 3 contexts, more than limits.max_contexts (2)"),
        ("three_citations", SMALL, "the reply has 3 citations, more than limits.max_contexts (2)"),
        ("long_context", SMALL, "context 1's text is 21 characters, more than "
                                "limits.max_context_chars (20)"),
        ("long_id", SMALL, "context 1's id is 21 characters, more than "
                           "limits.max_context_chars (20)"),
        ("long_answer", SMALL, "the answer is 31 characters, more than limits.max_answer_chars "
                               "(30)"),
        ("huge_answer", "", "the answer is 100,001 characters, more than "
                            "limits.max_answer_chars (100,000)"),
    ],
)  # fmt: skip
def test_a_factory_reply_past_a_cap_is_a_counted_failed_call(
    reply, limits, reason, ragaudit_home, capfd
):
    assert run(ragaudit_home, factory_stack(ragaudit_home.parent, reply, limits)) == 1
    found = reasons(ragaudit_home)
    assert len(found) == QUESTIONS
    assert all(r.endswith(f"field pipeline.factory: {reason}") for r in found), found[0]
    assert stored_answers(ragaudit_home) == 0
    assert "Traceback" not in capfd.readouterr().err


def test_a_factory_reply_at_the_caps_is_answered(ragaudit_home, capfd):
    assert run(ragaudit_home, factory_stack(ragaudit_home.parent, "fits", SMALL)) == 0
    assert stored_answers(ragaudit_home) == QUESTIONS


@pytest.mark.parametrize("field", ["max_contexts", "max_context_chars", "max_answer_chars"])
def test_a_cap_below_one_is_refused(field, ragaudit_home, capfd):
    stack = factory_stack(ragaudit_home.parent, "fits", f"limits: {{{field}: 0}}\n")
    assert run(ragaudit_home, stack) == 2
    err = capfd.readouterr().err
    assert f"limits.{field}" in err and "greater than or equal to 1" in err
    assert not (ragaudit_home / "results").exists()
