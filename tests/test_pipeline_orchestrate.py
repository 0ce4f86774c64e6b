"""`ragaudit run` through the orchestrator on a tiny slice, with the Ollama path against a
local fake server (fast, no model weights): the partial file beside the target while in
progress, generation only where asked, the two summary lines, and a rerun that replays
every call."""

from __future__ import annotations

import contextlib
import io
import json
import re

import pytest
from helpers.ollama_fake import start_fake_ollama
from helpers.run_fixtures import FLAGS

from ragaudit.cli.main import main
from ragaudit.probes.catalogue import shipped
from ragaudit.runner import orchestrate

PROBES, CONFIGS = len(shipped()), 7  # the committed corpus's probes; the matrix A…M
WIDE = 1  # T4000, beside the matrix, runs table_split only: one instance at n=1


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    home = tmp_path_factory.mktemp("ragaudit-home")
    out = home / "results" / "latest.json"
    server = start_fake_ollama()
    patch = pytest.MonkeyPatch()
    patch.setenv("RAGAUDIT_HOME", str(home))
    patch.setenv("OLLAMA_HOST", server.url)
    patch.delenv("RAGAUDIT_CONTENTION_PATTERN", raising=False)
    on_disk: list[dict] = []  # each file written, as a reader sees it after the write
    real_write, real_publish = orchestrate.write_results, orchestrate.publish_results

    def write_and_read_back(path, results, *, complete=True):
        real_write(path, results, complete=complete)
        on_disk.append({**json.loads(path.read_text()), "written_to": path.name})

    def publish_and_read_back(path, results, **flags):
        published = real_publish(path, results, **flags)
        on_disk.append({**json.loads(published.written.read_text()), "written_to": path.name})
        return published

    patch.setattr(orchestrate, "write_results", write_and_read_back)
    patch.setattr(orchestrate, "publish_results", publish_and_read_back)
    try:
        first = _run(out, on_disk)
        second = _run(out, on_disk)
    finally:
        patch.undo()
        server.stop()
    return {"out": out, "first": first, "second": second}


def _run(out, on_disk: list[dict]) -> dict:
    err = io.StringIO()
    start = len(on_disk)
    with contextlib.redirect_stderr(err):
        status = main(["run", *FLAGS, "--out", str(out)])
    return {"status": status, "stderr": err.getvalue(), "writes": on_disk[start:]}


def test_the_file_is_partial_until_the_run_ends(runs):
    writes = runs["first"]["writes"]
    assert [w["complete"] for w in writes] == [False, False, True]
    # In progress beside the target; the target itself only ever holds a finished run.
    assert [w["written_to"] for w in writes] == [
        "latest.partial.json",
        "latest.partial.json",
        "latest.json",
    ]
    assert not (runs["out"].parent / "latest.partial.json").exists()
    after_retrieval = writes[0]
    # The heatmap exists before generation starts: one cell per probe × config.
    assert len(after_retrieval["cells"]) == PROBES * CONFIGS + WIDE
    assert not any(r["generation"] for r in after_retrieval["instances"])
    generated = [r for r in writes[1]["instances"] if r["generation"]]
    assert [(r["probe"], r["config"]) for r in generated] == [("control", "A")]


def test_generation_only_where_asked_and_recorded_as_asked(runs):
    results = runs["first"]["writes"][-1]
    assert runs["first"]["status"] == 0
    assert results["run"]["preset"] == "custom" and results["corpus"]["n"] == 1
    assert results["run"]["gen_configs"] == ["A"] and results["run"]["gen_probes"] == ["control"]
    assert results["run"]["generation_params"] == {"max_tokens": 160}  # the full preset's cap
    assert results["generator"] == {"spec": "ollama:qwen2.5:7b"}
    assert [m["kind"] for m in results["models"]] == ["embedder", "generator"]
    (record,) = [r for r in results["instances"] if r["generation"]]
    assert record["generation"]["reply"].startswith("fake reply to: Context:")
    assert record["grade"]["verdict"] and record["citation_check"]["outcome"]
    assert results["cells"] and results["severity_rules"]


def test_stderr_ends_with_the_two_summary_lines(runs):
    out = runs["out"]
    wrote, calls = runs["first"]["stderr"].splitlines()[-2:]
    assert wrote == (
        f"wrote {out}: {PROBES * CONFIGS + WIDE} instance records (0 with a failed "
        f"retrieval), {CONFIGS + 1} configs"
    )
    assert re.fullmatch(r"model calls: 0 replayed, \d+ computed, 0 failed; elapsed [\d.]+ s", calls)


def test_a_rerun_replays_every_call_and_withholds_the_time(runs):
    computed = runs["first"]["writes"][-1]["conditions"]["calls"]["computed"]
    assert computed > 0
    second = runs["second"]["writes"][-1]
    assert second["conditions"]["calls"] == {"replayed": computed, "computed": 0, "failed": 0}
    calls = runs["second"]["stderr"].splitlines()[-1]
    assert calls == (
        f"model calls: {computed} replayed, 0 computed, 0 failed; elapsed withheld "
        f"({computed} of {computed} model calls were replayed from cache)"
    )
    assert all(index["added"] == 0 for index in second["run"]["indexes"])
