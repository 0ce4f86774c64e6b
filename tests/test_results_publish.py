"""A good results file is never lost (issue 25, item 10). Real `ragaudit run` processes
against a real local process speaking Ollama's API: a good run, then two runs in which
every embedding call fails (HTTP 500), then two that fail with --allow-failed-calls.

- a run in which records lost calls writes `latest.failed.json` and leaves `latest.json`
  byte for byte as the good run wrote it (exit 1); the summary says where each file is;
- with --allow-failed-calls the failed run replaces `latest.json`, and `latest.prev.json`
  keeps the good run, however many failed runs follow;
- the inspector opens the good `latest.json`, not the failed file.
"""

from __future__ import annotations

import hashlib
import json
import shutil

import pytest
from helpers.ollama_fake import start_fake_ollama
from helpers.run_fixtures import EMBEDDER, RECORDS, TINY, ragaudit_run

pytestmark = pytest.mark.slow(model=False)  # a real run, then a failing one (no generator)


def sha256(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _fresh_calls(home) -> None:
    """Drop the call cache and the indexes, so the next run asks its server again."""
    for name in ("cache.sqlite", "cache.sqlite-wal", "cache.sqlite-shm"):
        (home / name).unlink(missing_ok=True)
    shutil.rmtree(home / "chroma", ignore_errors=True)


def _what_the_inspector_opens(home) -> dict:
    """The file the inspector's pages load with no ?results= (ui.data, as every page)."""
    from ragaudit.ui.data import load_from_url

    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("RAGAUDIT_HOME", str(home))
        patch.delenv("RAGAUDIT_RESULTS", raising=False)
        loaded = load_from_url(None)
    calls = (loaded.results or {}).get("conditions", {}).get("calls", {})
    return {"path": loaded.path, "problem": loaded.problem, "failed_calls": calls.get("failed")}


@pytest.fixture(scope="module")
def story(tmp_path_factory):
    home = tmp_path_factory.mktemp("ragaudit-home")
    results = home / "results"
    good_server = start_fake_ollama()
    failing = start_fake_ollama("embed500", failures=-1)
    seen = {"home": home}
    try:
        seen["good"] = ragaudit_run(home, good_server.url, *TINY, "--embedders", EMBEDDER)
        seen["good_sha"] = sha256(results / "latest.json")
        for run in ("failed_1", "failed_2"):
            _fresh_calls(home)
            seen[run] = ragaudit_run(home, failing.url, *TINY, "--embedders", EMBEDDER)
            seen[f"{run}_files"] = sorted(p.name for p in results.glob("latest*.json"))
            seen[f"{run}_latest_sha"] = sha256(results / "latest.json")
        seen["inspector_after_failed"] = _what_the_inspector_opens(home)
        for run in ("allowed_1", "allowed_2"):
            _fresh_calls(home)
            seen[run] = ragaudit_run(
                home, failing.url, *TINY, "--embedders", EMBEDDER, "--allow-failed-calls"
            )
            seen[f"{run}_prev_sha"] = sha256(results / "latest.prev.json")
            seen[f"{run}_latest"] = json.loads((results / "latest.json").read_text())
    finally:
        good_server.stop()
        failing.stop()
    return seen


def test_a_failed_run_writes_its_own_file_and_leaves_the_good_one(story):
    results = story["home"] / "results"
    assert story["good"].returncode == 0, story["good"].stderr[-2000:]
    for run in ("failed_1", "failed_2"):
        done = story[run]
        assert done.returncode == 1, done.stderr[-2000:]
        assert story[f"{run}_latest_sha"] == story["good_sha"]  # as the good run wrote it
        assert story[f"{run}_files"] == ["latest.failed.json", "latest.json"]
        lines = done.stderr.splitlines()
        assert (
            f"{results / 'latest.json'} left as it was: instance records lost model calls, so "
            f"this run's results are in {results / 'latest.failed.json'} "
            f"(--allow-failed-calls writes {results / 'latest.json'})"
        ) in lines
        assert f"the last good run stays in {results / 'latest.json'}" in lines
        assert any(
            line.startswith(f"wrote {results / 'latest.failed.json'}: {RECORDS} instance records")
            for line in lines
        ), done.stderr
    failed = json.loads((results / "latest.failed.json").read_text())
    assert failed["complete"] is True and failed["conditions"]["calls"]["failed"] > 0


def test_with_allow_failed_calls_the_prev_file_keeps_the_last_good_run(story):
    results = story["home"] / "results"
    first, second = story["allowed_1"], story["allowed_2"]
    assert first.returncode == 0 and second.returncode == 0, second.stderr[-2000:]
    # the first moves the good run aside; the second keeps it there, untouched
    assert f"kept the previous results as {results / 'latest.prev.json'}" in first.stderr
    assert "kept the previous results" not in second.stderr
    assert story["allowed_1_prev_sha"] == story["allowed_2_prev_sha"] == story["good_sha"]
    assert f"the last good run stays in {results / 'latest.prev.json'}" in second.stderr
    assert story["allowed_2_latest"]["conditions"]["calls"]["failed"] > 0


def test_the_inspector_opens_the_good_file_after_failed_runs(story):
    """After the two failed runs the inspector's default file is the good run's."""
    shown = story["inspector_after_failed"]
    assert shown["path"] == story["home"] / "results" / "latest.json"
    assert shown["failed_calls"] == 0 and shown["problem"] is None
