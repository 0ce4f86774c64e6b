"""Replies a `pipeline:` must not take, and the words it fails them in (issue 40, items 9
and 10), from an `http:` service (helpers/slow_service.py, a real process on 127.0.0.1) and
from a factory:
- a 3xx is never an answer: with an empty body or a JSON one, it is a failed call naming
  its Location, and it is not followed; an ingest endpoint's 3xx is exit 2 naming it;
- a reply nested 100,000 levels deep fails saying so, not with a bare RecursionError;
- a score of 10**400 fails saying it is too large to be a number, not that the pipeline
  raised OverflowError (ragaudit's own conversion raised it);
- a factory's answer nested 100,000 levels deep is "not text", not a RecursionError.
Each reason is one line naming the stack file's field."""

from __future__ import annotations

import json
import sqlite3
import uuid
from contextlib import closing
from pathlib import Path

import pytest
from helpers.slow_service import LOCATION, start_slow

import ragaudit.runner.progress  # noqa: F401 (its default stream is bound before capture)
from ragaudit.cli.main import main
from ragaudit.probes.catalogue import shipped

QUESTIONS = len(shipped())  # the planted corpus's questions at n=1: one per probe
HTTP = """name: odd
pipeline:
  http:
    url: URL/ask
    body: {query: "{{question}}"}
    answer: $.answer
    contexts: $.contexts
    context_text: text
    context_score: score
    timeout: 20
  ingest: INGEST
"""
FACTORY = """name: odd
pipeline:
  factory: MODULE:make
  args: {reply: REPLY}
"""
REPLIES = """
def make(documents, reply):
    deep = []
    for _ in range(100_000):
        deep = [deep]
    replies = {
        "huge_score": {"answer": "a", "contexts": [{"text": "a passage", "score": 10**400}]},
        "deep_answer": {"answer": deep, "contexts": []},
    }
    return lambda question: replies[reply]
"""
TOO_LARGE = (
    "a context's score is an integer of about 401 digits, too large to be a number (a float "
    "holds up to about 1.8e308)"
)
REDIRECT = (
    f"HTTP 302 redirect to '{LOCATION}': a redirect is not an answer and ragaudit does not "
    "follow it; give the URL it names in the stack file"
)
TOO_DEEP = (
    "the reply body is JSON nested more than 100 levels deep (objects and lists in one "
    "another), deeper than ragaudit reads"
)


def reasons(home: Path) -> list[str]:
    results = json.loads((home / "results" / "latest.failed.json").read_text())
    return [r["retrieval_error"] for r in results["instances"] if r["config"] == "odd"]


def stored_answers(home: Path) -> int:
    with closing(sqlite3.connect(home / "cache.sqlite")) as db:
        return db.execute("SELECT count(*) FROM calls WHERE kind = 'answer'").fetchone()[0]


@pytest.fixture
def service(ragaudit_home, monkeypatch):
    monkeypatch.setenv("RAGAUDIT_RETRIES", "0")
    started = []

    def start(mode: str, ingest: str = "none"):
        started.append(start_slow(mode))
        url = started[-1].base_url
        stack = ragaudit_home.parent / "odd.yaml"
        stack.write_text(HTTP.replace("URL", url).replace("INGEST", ingest.replace("URL", url)))
        return started[-1], stack

    yield start
    for each in started:
        each.stop()


def run(stack: Path) -> int:
    return main(["run", "--stack", str(stack), "--stack-only", "--n", "1"])


@pytest.mark.parametrize(
    ("mode", "reason"),
    [("redirect", REDIRECT), ("redirect_json", REDIRECT), ("deep", TOO_DEEP),
     ("huge_score", TOO_LARGE)],
)  # fmt: skip
def test_an_http_reply_is_failed_in_one_line_naming_what_was_wrong(
    mode, reason, service, ragaudit_home, capfd
):
    slow, stack = service(mode)
    assert run(stack) == 1
    err = capfd.readouterr().err
    found = reasons(ragaudit_home)
    assert len(found) == QUESTIONS
    assert all(r.endswith(f"field pipeline.http: {reason}") for r in found), found[0]
    assert stored_answers(ragaudit_home) == 0  # a redirect's JSON body is never an answer
    assert slow.seen() == {"/ask": QUESTIONS}  # the Location was not followed
    for word in ("RecursionError", "OverflowError", "not JSON", "Traceback"):
        assert word not in err


def test_an_ingest_redirect_is_refused_naming_its_location(service, ragaudit_home, capfd):
    _, stack = service("redirect", "{url: 'URL/ingest', batch: 1000}")
    assert run(stack) == 2
    [line] = capfd.readouterr().err.strip().splitlines()
    assert "field pipeline.ingest: documents 1-" in line
    assert line.endswith(
        f"HTTP 302 redirect to '{LOCATION}': not followed; give the URL it names in the stack file"
    )
    assert not (ragaudit_home / "results").exists()


@pytest.mark.parametrize(
    ("reply", "reason"),
    [("huge_score", TOO_LARGE), ("deep_answer", "the answer is list [[[[...]]]], not text")],
)
def test_a_factory_reply_is_failed_naming_what_was_wrong(reply, reason, ragaudit_home, capfd):
    module = f"odd_{uuid.uuid4().hex[:8]}"
    (ragaudit_home.parent / f"{module}.py").write_text(REPLIES)
    stack = ragaudit_home.parent / "odd.yaml"
    stack.write_text(FACTORY.replace("MODULE", module).replace("REPLY", reply))
    assert run(stack) == 1
    err = capfd.readouterr().err
    found = reasons(ragaudit_home)
    assert len(found) == QUESTIONS
    assert all(r.endswith(f"field pipeline.factory: {reason}") for r in found), found[0]
    assert "pipeline raised" not in err and "Traceback" not in err
