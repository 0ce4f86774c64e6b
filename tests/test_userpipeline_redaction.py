"""A `pipeline: http:` service that echoes its key (helpers/echo_service.py, a real process
on 127.0.0.1) in any field of its reply, in an error body, or from its ingest (issue 40,
items 1 and 2): every field built from the reply is redacted before it is cached, written
or printed (an id, a citation, a context read without a mapping, the answer; a reason
quoting a score, an answer or a context that is not text, an HTTP error body), and an
ingest's exit-2 line is redacted of the endpoint's error body and the command's stderr.
The echo is the key raw, JSON-escaped, repr'd, URL-encoded and base64-encoded; a redacted
field reads `bad token ***` where the echo began."""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing

import pytest
from helpers.echo_service import ingest_command, pipeline_stack, start_echo
from helpers.key_leaks import leaks_in, leaks_in_folder, new_key

import ragaudit.runner.progress  # noqa: F401 (its default stream is bound before capture)
from ragaudit.cli.main import main
from ragaudit.probes.catalogue import shipped

PROBES = len(shipped())  # the planted corpus's probes: one record each at --n 1


@pytest.fixture(scope="module")
def echo():
    """One service for the module: each run sets its mode first, and it keeps no state."""
    service = start_echo()
    yield service
    service.stop()


@pytest.fixture
def key(ragaudit_home, monkeypatch):
    key = new_key()
    monkeypatch.setenv("SVC_KEY", key)
    monkeypatch.setenv("RAGAUDIT_RETRIES", "0")
    return key


def run(home, echo, mode: str, ingest: str = "none", mapped: bool = True) -> int:
    echo.set_mode(mode)
    stack = pipeline_stack(home.parent, echo.base_url, ingest, mapped)
    return main(["run", "--stack", str(stack), "--stack-only", "--n", "1"])


def stored_answers(home) -> list[dict]:
    with closing(sqlite3.connect(home / "cache.sqlite")) as db:
        rows = db.execute("SELECT value FROM calls WHERE kind = 'answer'").fetchall()
    return [json.loads(bytes(value)) for (value,) in rows]


def records(home, name: str = "latest.json") -> list[dict]:
    results = json.loads((home / "results" / name).read_text())
    return [r for r in results["instances"] if r["config"] == "echo"]


def assert_nothing_leaked(home, key, captured) -> None:
    assert leaks_in_folder(home, key) == []
    assert leaks_in(captured.out + captured.err, key) == []


# mode -> (the stack file maps each context's fields, where the echo lands in a record)
ANSWERED = {
    "context_id": (True, lambda r: r["pipeline"]["contexts"][0]["id"]),
    "citations": (True, lambda r: r["generation"]["citations"][0]),
    "plain_context": (False, lambda r: r["pipeline"]["contexts"][0]["text"]),
    "answer": (True, lambda r: r["generation"]["reply"]),
}


@pytest.mark.parametrize("mode", sorted(ANSWERED))
def test_every_field_of_a_reply_is_redacted_before_it_is_cached_or_written(
    mode, echo, key, ragaudit_home, capfd
):
    mapped, field = ANSWERED[mode]
    assert run(ragaudit_home, echo, mode, mapped=mapped) == 0
    captured = capfd.readouterr()
    written = [field(record) for record in records(ragaudit_home)]
    assert len(written) == PROBES and all(text.startswith("bad token ***") for text in written)
    stored = json.dumps(stored_answers(ragaudit_home))
    assert stored.count("bad token ***") == PROBES  # one stored answer per question, masked
    assert_nothing_leaked(ragaudit_home, key, captured)


# mode -> the stack file maps each context's fields, and words the reason holds
FAILED = {
    "context_score": (True, "a context's score is 'bad token ***"),
    "answer_object": (True, "the answer at $.answer is dict {'text': 'bad token ***"),
    "context_not_text": (True, "a context's text at text is list ['bad token ***"),
    "citations_object": (True, "citations is dict {'cited': 'bad token ***"),
    "plain_not_text": (False, "a context is dict {'content': 'bad token ***"),
    "error500": (True, 'HTTP 500: {"error": "bad token ***'),
    "error401": (True, 'HTTP 401: {"error": "bad token ***'),
}


@pytest.mark.parametrize("mode", sorted(FAILED))
def test_a_reason_built_from_a_reply_is_redacted_before_it_is_printed_or_written(
    mode, echo, key, ragaudit_home, capfd
):
    mapped, words = FAILED[mode]
    assert run(ragaudit_home, echo, mode, mapped=mapped) == 1
    captured = capfd.readouterr()
    reasons = [r["retrieval_error"] for r in records(ragaudit_home, "latest.failed.json")]
    assert len(reasons) == PROBES and all(words in reason for reason in reasons), reasons[0]
    assert "Traceback" not in captured.err
    assert_nothing_leaked(ragaudit_home, key, captured)


@pytest.mark.parametrize(
    ("mode", "words"),
    [
        ("ingest500", 'HTTP 500: \'{"error": "bad token ***'),
        ("ingest401", 'HTTP 401: \'{"error": "bad token ***'),
        # the command echoes the bare key: the space before it is a run of `Bearer <key>`
        ("command_exit1", "exited 1: last line: bad token***"),
        ("command_exit3", "exited 3: last line: bad token***"),
    ],
)
def test_an_ingest_refusal_is_one_redacted_line(mode, words, echo, key, ragaudit_home, capfd):
    if mode.startswith("command"):
        ingest, mode = ingest_command(int(mode[-1])), "normal"
    else:
        ingest = f"{{url: '{echo.base_url}/ingest', batch: 100}}"
    assert run(ragaudit_home, echo, mode, ingest) == 2
    captured = capfd.readouterr()
    line = captured.err.strip()
    assert "\n" not in line and "field pipeline.ingest" in line and words in line, line
    assert not (ragaudit_home / "results").exists()
    assert_nothing_leaked(ragaudit_home, key, captured)
