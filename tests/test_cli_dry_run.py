"""`--dry-run` contacts no service and runs none of the user's code that could call a
model: an `http:` pipeline's ingest endpoint gets no request and its ingest command does
not run (a local recording server on 127.0.0.1 and a command that would leave a file); a
factory (the pipeline's and the oracle's) is imported and checked to be callable, never
called; the same stack without --dry-run does all of it (so the recording can fail), and
refuses a factory that raises while building before any question (exit 2, no file)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from helpers.recording_server import recording_server, requests

from ragaudit.cli.main import main
from ragaudit.probes.catalogue import shipped

PROBES = len(shipped())  # the planted corpus's probes: one question each at --n 1
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


def oracle():
    Path(MARKER + ".oracle").write_text("built")
    return lambda question, contexts: "x"
"""
BROKEN = """
def make(documents):
    raise RuntimeError("no index")
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


def test_dry_run_imports_a_factory_but_never_calls_it(home, tmp_path, monkeypatch, capsys):
    marker = tmp_path / "marker"
    (tmp_path / "marking_rag.py").write_text(FACTORY.replace("MARKER", repr(str(marker))))
    monkeypatch.syspath_prepend(str(tmp_path))
    stack = tmp_path / "pipe.yaml"
    stack.write_text("name: marks\npipeline:\n  factory: marking_rag:make\n"
                     "oracle:\n  factory: marking_rag:oracle\n")  # fmt: skip
    assert run(stack, "--dry-run") == 0
    assert f"pipeline:marks: {PROBES} calls, 0 cached" in capsys.readouterr().out
    built, asked = tmp_path / "marker.built", tmp_path / "marker.asked"
    oracle = tmp_path / "marker.oracle"
    assert not built.exists() and not asked.exists() and not oracle.exists()
    assert not home.exists()
    assert run(stack, "--out", str(tmp_path / "out.json")) == 0
    assert built.exists() and asked.exists() and oracle.exists()


def test_a_factory_that_is_not_callable_is_refused_by_the_dry_run(home, tmp_path, capsys):
    stack = tmp_path / "pipe.yaml"
    stack.write_text("name: marks\npipeline:\n  factory: math:pi\n")
    assert run(stack, "--dry-run") == 2
    assert capsys.readouterr().err.strip().endswith("math:pi is float, not a callable factory")


def test_a_factory_raising_while_building_passes_the_dry_run_and_fails_the_real_run(
    home, tmp_path, monkeypatch, capsys
):
    (tmp_path / "broken_rag.py").write_text(BROKEN)
    monkeypatch.syspath_prepend(str(tmp_path))
    stack = tmp_path / "pipe.yaml"
    stack.write_text("name: broken\npipeline:\n  factory: broken_rag:make\n")
    assert run(stack, "--dry-run") == 0  # not called: its error is not seen
    capsys.readouterr()
    out = tmp_path / "out.json"
    assert run(stack, "--out", str(out)) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "broken_rag:make raised RuntimeError: no index" in err
    assert not out.exists() and not home.exists()


CONTROL = "How often are lightning conductors in section 8961-W inspected?"
BOUNDARY = "How long are key issue logs in section 1977-B kept?"


def test_the_matrix_and_a_stack_tell_their_cached_embeddings_without_a_model(
    home, tmp_path, capsys
):
    from helpers.run_fixtures import MINILM, store_questions

    from ragaudit.backends.cache import CallCache

    cache = CallCache()
    store_questions(cache, "sha256:d1", [CONTROL, BOUNDARY])  # the questions at --n 1
    cache.remember_digest("local", MINILM["model"], "sha256:d1")
    cache.close()
    argv = ["run", "--n", "1", "--embedders", "local:minilm", "--generator",
            "local:qwen2.5-0.5b", "--gen-configs", "B", "--dry-run"]  # fmt: skip
    assert main(argv) == 0
    lines = capsys.readouterr().out.splitlines()
    embed = next(line for line in lines if line.startswith("matrix: embed local:minilm"))
    calls = int(embed.split(": ")[2].split()[0])
    assert (
        f"{calls} calls, 2 cached, {calls - 2} to compute (keyed by the digest recorded for "
        "local:minilm, sha256:d1); time ~" in embed
    )
    generate = next(line for line in lines if "generate local:qwen2.5-0.5b" in line)
    assert "cached: not known before retrieval (each prompt holds the chunks it retrieves)" in (
        generate
    )
    stack = tmp_path / "s.yaml"
    stack.write_text(
        "name: s\nsplitter:\n  class: langchain_text_splitters.RecursiveCharacterTextSplitter\n"
        "  args: {chunk_size: 500, chunk_overlap: 0}\nembedder: local:minilm\nk: 2\n"
        "probes: [control]\n"
    )
    assert main(["run", "--stack", str(stack), "--stack-only", "--n", "1", "--no-generate",
                 "--dry-run"]) == 0  # fmt: skip
    (line,) = [x for x in capsys.readouterr().out.splitlines() if x.startswith("stack s: embed")]
    calls = int(line.split(": ")[2].split()[0])
    assert f"{calls} calls, 1 cached, {calls - 1} to compute (keyed by the digest" in line
