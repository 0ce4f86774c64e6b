"""`--dry-run` contacts no service and asks nothing: an `http:` pipeline's ingest endpoint
gets no request and its ingest command does not run (a local recording server on
127.0.0.1 and a command that would leave a file); a factory is built (so a bad one is
refused) but never asked; the same stack without --dry-run does all of it (so the
recording can fail)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from helpers.recording_server import recording_server, requests

from ragaudit.cli.main import main

PROBES = 11  # the planted corpus's probes: one question each at --n 1
HTTP = """name: svc
pipeline:
  http:
    url: URL/ask
    body: {query: "{{question}}"}
    answer: answer
    contexts: sources
    context_text: text
    timeout: 10
  ingest: INGEST
"""
FACTORY = """
from pathlib import Path


def make(documents):
    Path(MARKER + ".built").write_text(str(len(documents)))

    def ask(question):
        Path(MARKER + ".asked").write_text(question)
        return {"answer": "x", "contexts": []}

    return ask
"""


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGAUDIT_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("RAGAUDIT_RETRIES", "0")
    return tmp_path / "home"


def run(stack: Path, *flags: str) -> int:
    return main(["run", "--stack", str(stack), "--stack-only", "--n", "1", *flags])


def test_dry_run_sends_no_request_to_the_ingest_endpoint(home, tmp_path, capsys):
    log = tmp_path / "requests.jsonl"
    with recording_server(log) as url:
        stack = tmp_path / "svc.yaml"
        stack.write_text(HTTP.replace("URL", url).replace("INGEST", f"{{url: '{url}/ingest'}}"))
        assert run(stack, "--dry-run") == 0
        out = capsys.readouterr().out
        assert requests(log) == []
        assert f"pipeline:svc: {PROBES} calls, 0 cached, {PROBES} to compute" in out
        assert not home.exists()
        # the same stack run for real: the corpus posted once (one batch of 64 or fewer
        # documents per request), then one question per probe
        assert run(stack, "--out", str(tmp_path / "out.json")) == 0
    seen = requests(log)
    assert seen[-PROBES:] == ["POST /ask"] * PROBES
    assert seen[:-PROBES] and set(seen[:-PROBES]) == {"POST /ingest"}


def test_dry_run_runs_no_ingest_command(home, tmp_path, capsys):
    marker = tmp_path / "ingested"
    command = [sys.executable, "-c", f"open({str(marker)!r}, 'w').write('ran')"]
    log = tmp_path / "requests.jsonl"
    with recording_server(log) as url:
        stack = tmp_path / "svc.yaml"
        stack.write_text(HTTP.replace("URL", url).replace("INGEST", f"{{command: {command}}}"))
        assert run(stack, "--dry-run") == 0
        assert not marker.exists() and requests(log) == []
        assert run(stack, "--out", str(tmp_path / "out.json")) == 0
    assert marker.read_text() == "ran"


def test_dry_run_builds_a_factory_but_asks_it_nothing(home, tmp_path, monkeypatch, capsys):
    marker = tmp_path / "marker"
    (tmp_path / "marking_rag.py").write_text(FACTORY.replace("MARKER", repr(str(marker))))
    monkeypatch.syspath_prepend(str(tmp_path))
    stack = tmp_path / "pipe.yaml"
    stack.write_text("name: marks\npipeline:\n  factory: marking_rag:make\n")
    assert run(stack, "--dry-run") == 0
    assert f"pipeline:marks: {PROBES} calls, 0 cached" in capsys.readouterr().out
    built, asked = tmp_path / "marker.built", tmp_path / "marker.asked"
    assert built.exists() and not asked.exists()
    assert run(stack, "--out", str(tmp_path / "out.json")) == 0
    assert asked.exists()
