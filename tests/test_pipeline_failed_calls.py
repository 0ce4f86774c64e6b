"""`ragaudit run` whose model calls fail says so: refused before any work when the Ollama
server is unreachable or a model is not pulled (exit 2, one line naming host and model);
a run whose every embedding call fails prints the failures as they happen, ends with
"N of M calls failed" and exits 1 (0 with --allow-failed-calls), the file still written.

Every run here is a real `ragaudit run` process against a real local process speaking
Ollama's API (tests/helpers/ollama_fake.py)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from helpers.corpus_counts import distinct_passages, distinct_questions, question_records
from helpers.ollama_fake import start_fake_ollama, unused_port
from helpers.run_fixtures import CONFIGS, EMBEDDER, TINY, ragaudit_run

from ragaudit.runner.plan import build_plan
from ragaudit.runner.preflight import remote_specs
from ragaudit.stack import presets
from ragaudit.stack.configs import MATRIX_CHUNKINGS, TABLE_SPLIT_WIDE

# TINY's run (--n 1), read from the shipped corpus: one record per question per matrix
# config, plus T4000's on table_split's; the texts embedded are the distinct chunk texts
# its chunkings cut (the matrix's and T4000's, over the whole n=1 share) and the distinct
# questions, each asked once, each failed call counted once by its final outcome.
QUESTIONS = question_records()
RECORDS = len(QUESTIONS) * CONFIGS + sum(r["probe"] == "table_split" for r in QUESTIONS)
PASSAGES = len(distinct_passages((*MATRIX_CHUNKINGS, TABLE_SPLIT_WIDE)))
TEXTS = PASSAGES + len(distinct_questions())


def written(home) -> list[str]:
    """Every file under the data folder (a refused run writes none)."""
    return sorted(str(p.relative_to(home)) for p in home.rglob("*") if p.is_file())


def test_unreachable_server_is_refused_before_any_work(tmp_path):
    url = f"http://127.0.0.1:{unused_port()}"
    done = ragaudit_run(tmp_path, url, *TINY, "--embedders", EMBEDDER)
    assert done.returncode == 2
    assert done.stderr == (
        f"ragaudit run: ollama server at {url} is unreachable (the model list (/api/tags) "
        "for 'mxbai-embed-large', 1 attempt(s): connection refused); is `ollama serve` "
        "running there, or does OLLAMA_HOST point elsewhere?\n"
    )
    assert written(tmp_path) == []


def test_a_model_not_pulled_is_refused_naming_it(tmp_path, fake_ollama):
    server = fake_ollama()
    done = ragaudit_run(tmp_path, server.url, *TINY, "--embedders", "ollama:nomic-embed-text")
    assert done.returncode == 2
    assert done.stderr == (
        "ragaudit run: ollama:nomic-embed-text: model 'nomic-embed-text' is not on the "
        f"ollama server at {server.url} (it has: mxbai-embed-large:latest, qwen2.5:7b); "
        "run `ollama pull nomic-embed-text` there, or name another model\n"
    )
    assert written(tmp_path) == []
    assert server.requests() == {"/api/tags": 1}  # asked once, nothing embedded


def test_a_generator_not_pulled_is_refused_before_retrieval(tmp_path, fake_ollama):
    server = fake_ollama()
    flags = ["--n", "1", "--embedders", EMBEDDER, "--generator", "ollama:llama3"]
    done = ragaudit_run(tmp_path, server.url, *flags)
    assert done.returncode == 2
    assert done.stderr.startswith("ragaudit run: ollama:llama3: model 'llama3' is not on ")
    assert "run `ollama pull llama3` there" in done.stderr and done.stderr.count("\n") == 1
    assert written(tmp_path) == [] and "/api/embed" not in server.requests()


def test_only_remote_specs_the_run_uses_are_checked(tmp_path):
    plan = build_plan(
        presets.QUICK,
        n=1,
        embedders=["local:minilm", EMBEDDER],
        generator="ollama:llama3",
        out=tmp_path / "r.json",
    )
    assert remote_specs(plan) == [EMBEDDER, "ollama:llama3"]
    quiet = build_plan(
        presets.QUICK, n=1, embedders=["local:minilm"], generator="ollama:llama3",
        generate=False, out=tmp_path / "r.json",
    )  # fmt: skip
    assert remote_specs(quiet) == []  # local only, and the generator is not used


def test_an_ollama_host_naming_no_host_is_one_line(tmp_path):
    done = ragaudit_run(tmp_path, "http://", *TINY, "--embedders", EMBEDDER)
    assert done.returncode == 2
    assert done.stderr == (
        "ragaudit run: OLLAMA_HOST='http://' names no host (e.g. http://127.0.0.1:11434)\n"
    )
    assert written(tmp_path) == []


@pytest.fixture(scope="module")
def embed_500(tmp_path_factory):
    """Two runs against a server that lists its models but answers 500 to every embedding:
    the default (exit 1) and with --allow-failed-calls (exit 0)."""
    server = start_fake_ollama("embed500", failures=-1)
    home = tmp_path_factory.mktemp("ragaudit-home")
    try:
        strict = ragaudit_run(home, server.url, *TINY, "--embedders", EMBEDDER)
        # a run whose records lost calls writes its own file (issue 25, item 10)
        results = json.loads((home / "results" / "latest.failed.json").read_text())
        allowed = ragaudit_run(
            home, server.url, *TINY, "--embedders", EMBEDDER, "--allow-failed-calls"
        )
    finally:
        server.stop()
    return {"url": server.url, "strict": strict, "results": results, "allowed": allowed}


def reason(url: str) -> str:
    return (
        f"ollama server at {url} failed /api/embed for 'mxbai-embed-large' after 1 attempt(s): "
        "HTTP 500: fake server error"
    )


@pytest.mark.slow(model=False)  # a whole run against a fake Ollama
def test_every_call_failing_exits_1_and_names_the_cause(embed_500):
    done, url = embed_500["strict"], embed_500["url"]
    assert done.returncode == 1 and "Traceback" not in done.stderr
    lines = done.stderr.splitlines()
    assert f"[embed passages {EMBEDDER}] ------------------------ 0/{PASSAGES}" in done.stderr
    # Each text is counted once, by its final outcome (issue 25, item 22): the passages
    # and questions failed, whether in their batch or again alone (68 + 11 at 11 probes).
    failed = f"{TEXTS} of {TEXTS} calls failed: {TEXTS} × embed {EMBEDDER}: {reason(url)}"
    assert failed in lines, done.stderr
    assert f"{RECORDS} of {RECORDS} instance records lost a model call; " in done.stderr
    assert lines[-1] == (
        "ragaudit run: exit 1 because model calls failed (--allow-failed-calls exits 0)"
    )


def test_failures_are_printed_as_they_happen_without_flooding(embed_500):
    done, url = embed_500["strict"], embed_500["url"]
    notices = [line for line in done.stderr.splitlines() if line.startswith("embed failed")]
    # The first failed batch: 64 passages (the backend's request of 16 failed, 48 behind it
    # unasked).
    assert notices[0] == f"embed failed ({EMBEDDER}): {reason(url)} — 64 failed so far"
    # All the failures, of one reason, print as a handful of lines.
    assert 1 <= len(notices) <= 4
    stage = done.stderr.index(f"[index {EMBEDDER}]")
    assert done.stderr.index(notices[0]) < stage  # printed while the run went on


def test_the_file_is_written_with_the_failures_in_it(embed_500):
    results = embed_500["results"]
    conditions = results["conditions"]
    assert results["complete"] is True
    assert conditions["calls"] == {"replayed": 0, "computed": 0, "failed": TEXTS}
    assert conditions["failure_reasons"] == [
        {"model": EMBEDDER, "kind": "embed", "reason": reason(embed_500["url"]), "calls": TEXTS}
    ]
    assert len(results["instances"]) == RECORDS
    assert all(r["retrieval_error"] for r in results["instances"])
    # One record per cell, lost and still counted: n 1, one failure, one failed call.
    cells = results["cells"]
    assert len(cells) == RECORDS  # one record per cell
    assert all(c["n"] == 1 and c["failures"] == 1 for c in cells)
    assert all(c["measures"]["retrieval_failed_call"]["count"] == 1 for c in cells)


def test_allow_failed_calls_exits_0_and_still_reports(embed_500):
    done = embed_500["allowed"]
    assert done.returncode == 0, done.stderr
    assert f"{TEXTS} of {TEXTS} calls failed: {TEXTS} × embed {EMBEDDER}: " in done.stderr
    assert "exit 1" not in done.stderr


def test_help_names_the_exit_status_and_the_flag():
    done = subprocess.run(
        [sys.executable, "-m", "ragaudit.cli.main", "run", "--help"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    text = " ".join(done.stdout.split())
    assert "--allow-failed-calls" in text
    assert "1 when model calls failed and records lost them" in text
    assert "the results go to <out stem>.failed.json" in text


@pytest.mark.slow(model=False)  # a whole run against a fake Ollama
def test_calls_that_fail_once_and_then_succeed_cost_no_record_and_exit_0(tmp_path, fake_ollama):
    server = fake_ollama("embed500", failures=1)  # only the first /api/embed answers 500
    done = ragaudit_run(tmp_path, server.url, *TINY, "--embedders", EMBEDDER)
    assert done.returncode == 0, done.stderr
    # The first batch of passages fails (16 asked, 48 behind it), then each of the 64 is
    # asked alone and embedded, then the rest of the passages and the questions: each text
    # is counted once by its final outcome (issue 25, item 22), all computed, none failed.
    lines = done.stderr.splitlines()
    assert f"model calls: 0 replayed, {TEXTS} computed, 0 failed" in " ".join(lines)
    assert "calls failed" not in done.stderr
    assert "exit 1" not in done.stderr
