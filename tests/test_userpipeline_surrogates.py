"""A lone surrogate in a pipeline's reply (issue 40, item 8): JSON's `"\\ud800"` (half an
emoji, as a JavaScript service cut it) from a `pipeline: http:` service (helpers/
echo_service.py, a real process on 127.0.0.1) or the same string from a factory is stored
with U+FFFD in its place, so the run writes its results; a healthy rerun replays it; a
row stored with the surrogate as it is (as ragaudit stored it before) is not replayed but
asked again, said in one line."""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing

import pytest
from helpers.echo_service import pipeline_stack, start_echo
from helpers.key_leaks import new_key

import ragaudit.runner.progress  # noqa: F401 (its default stream is bound before capture)
from ragaudit.cli.main import main
from ragaudit.probes.catalogue import shipped

QUESTIONS = len(shipped())  # the planted corpus's questions at n=1: one per probe
FACTORY = """
def make(documents):
    return lambda question: {"answer": "half \\ud800 an emoji",
                             "contexts": [{"text": "cut \\udc00", "id": "x\\ud83d"}]}
"""


@pytest.fixture
def echo(ragaudit_home, monkeypatch):
    monkeypatch.setenv("SVC_KEY", new_key())
    monkeypatch.setenv("RAGAUDIT_RETRIES", "0")
    service = start_echo()
    yield service
    service.stop()


def run(home, echo, mode: str) -> tuple[int, dict]:
    echo.set_mode(mode)
    stack = pipeline_stack(home.parent, echo.base_url)
    status = main(["run", "--stack", str(stack), "--stack-only", "--n", "1"])
    return status, json.loads((home / "results" / "latest.json").read_text())


def replies(results: dict) -> list[str]:
    return [r["generation"]["reply"] for r in results["instances"] if r["config"] == "echo"]


def stored_values(home) -> list[bytes]:
    with closing(sqlite3.connect(home / "cache.sqlite")) as db:
        rows = db.execute("SELECT value FROM calls WHERE kind = 'answer'").fetchall()
    return [bytes(value) for (value,) in rows]


def test_a_lone_surrogate_is_stored_replaced_and_a_healthy_rerun_completes(
    echo, ragaudit_home, capfd
):
    status, results = run(ragaudit_home, echo, "surrogate")
    assert status == 0, capfd.readouterr().err[-2000:]
    assert all(reply.startswith("half an emoji \ufffd bad token") for reply in replies(results))
    values = stored_values(ragaudit_home)
    assert len(values) == QUESTIONS and not any(b"\\ud800" in value for value in values)
    status, results = run(ragaudit_home, echo, "normal")  # healthy: the answers replay
    assert status == 0 and "Traceback" not in capfd.readouterr().err
    assert results["conditions"]["calls"] == {"replayed": QUESTIONS, "computed": 0, "failed": 0}


def test_a_stored_answer_holding_a_lone_surrogate_is_asked_again_in_one_line(
    echo, ragaudit_home, capfd
):
    run(ragaudit_home, echo, "surrogate")
    with closing(sqlite3.connect(ragaudit_home / "cache.sqlite")) as db:  # as stored before
        rows = db.execute("SELECT key, value FROM calls WHERE kind = 'answer'").fetchall()
        for key, value in rows:
            poisoned = bytes(value).replace(b"\\ufffd", b"\\ud800")
            db.execute("UPDATE calls SET value = ? WHERE key = ?", (poisoned, key))
        db.commit()
    capfd.readouterr()
    status, results = run(ragaudit_home, echo, "normal")
    err = capfd.readouterr().err
    assert status == 0 and "Traceback" not in err
    said = [line for line in err.splitlines() if "lone surrogate" in line]
    assert said == [
        f"pipeline:echo: {QUESTIONS} stored answer(s) hold a lone surrogate (stored before "
        "replies were checked): not replayed, asked again"
    ]
    assert results["conditions"]["calls"] == {"replayed": 0, "computed": QUESTIONS, "failed": 0}
    assert set(replies(results)) == {"an answer [1]"}


def test_a_factory_returning_a_lone_surrogate_is_stored_replaced(ragaudit_home, tmp_path, capfd):
    (tmp_path / "surrogate_pipeline.py").write_text(FACTORY)
    stack = tmp_path / "own.yaml"
    stack.write_text("name: own\npipeline: {factory: surrogate_pipeline:make}\n")
    status = main(["run", "--stack", str(stack), "--stack-only", "--n", "1"])
    assert status == 0, capfd.readouterr().err[-2000:]
    results = json.loads((ragaudit_home / "results" / "latest.json").read_text())
    own = [r for r in results["instances"] if r["config"] == "own"]
    assert len(own) == QUESTIONS
    assert {r["generation"]["reply"] for r in own} == {"half \ufffd an emoji"}
    assert {r["pipeline"]["contexts"][0]["text"] for r in own} == {"cut \ufffd"}
    assert {r["pipeline"]["contexts"][0]["id"] for r in own} == {"x\ufffd"}
