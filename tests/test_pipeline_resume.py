"""`ragaudit run --no-generate --n 2` with both embedded embedders, killed mid-run and
rerun: finished work is replayed, never recomputed; a third run computes nothing. The
finished results then certify both embedders on the controls.

n=2 rather than --quick's 5: the resume is the same at any size, and 2 instances a probe
are 288 model calls where 5 are 782 (the secondary embedder's passages most of the time)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time

import pytest

from ragaudit import paths
from ragaudit.backends.cache import CallCache

EMBEDDERS = ["local:minilm", "local:e5-small"]
N = 2
# minilm's 154 calls (passages in batches of 32, then queries), then e5-small's passages in
# batches of 64 (218, 282), then its queries (288): the kill lands inside e5-small's
# passages, so the rerun replays one embedder's whole work and part of the other's.
KILL_AFTER_STORED = 200


def command(out) -> list[str]:
    return [
        sys.executable,
        "-m",
        "ragaudit",
        "run",
        "--no-generate",
        "--n",
        str(N),
        "--embedders",
        *EMBEDDERS,
        "--out",
        str(out),
    ]


def finish(out, env) -> dict:
    done = subprocess.run(command(out), env=env, capture_output=True, text=True, timeout=1200)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "ETA" in done.stderr  # the progress bar, plain text when not a TTY
    return json.loads(out.read_text())


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    home = tmp_path_factory.mktemp("ragaudit-home")
    # A private copy of the committed corpus: the three runs must see identical inputs.
    corpus = home / "corpus"
    shutil.copytree(paths.corpus_dir(), corpus)
    env = {**os.environ, "RAGAUDIT_HOME": str(home), "RAGAUDIT_CORPUS": str(corpus)}
    env.pop("RAGAUDIT_CONTENTION_PATTERN", None)
    out = home / "results" / "latest.json"
    cache_file = home / "cache.sqlite"
    killed = subprocess.Popen(command(out), env=env, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 600
    stored = 0
    while time.monotonic() < deadline and killed.poll() is None:
        if cache_file.exists():
            try:
                reader = CallCache(cache_file, readonly=True)
                stored = reader.stored_calls()
                reader.close()
            except Exception:  # the file may be mid-creation
                stored = 0
            if stored >= KILL_AFTER_STORED:
                break
        time.sleep(0.2)
    assert killed.poll() is None, "the run finished before it could be killed"
    killed.send_signal(signal.SIGKILL)
    killed.wait(timeout=30)
    reader = CallCache(cache_file, readonly=True)
    stored_at_kill = reader.stored_calls()
    reader.close()
    second = finish(out, env)
    reader = CallCache(cache_file, readonly=True)
    stored_after = reader.stored_calls()
    reader.close()
    third = finish(out, env)
    return {
        "stored_at_kill": stored_at_kill,
        "stored_after": stored_after,
        "second": second,
        "third": third,
    }


@pytest.mark.slow(model=False)  # whole retrieval-only runs; no generator
def test_a_killed_run_resumes_without_recomputing_finished_work(runs):
    second = runs["second"]
    assert second["complete"] is True
    assert runs["stored_at_kill"] >= KILL_AFTER_STORED
    # Everything computed on the rerun is new: stored before the kill was only replayed.
    assert (
        second["conditions"]["calls"]["computed"] == runs["stored_after"] - runs["stored_at_kill"]
    )
    assert second["conditions"]["calls"]["replayed"] >= runs["stored_at_kill"]
    # It replayed only what the killed session computed, so the two sessions' wall time is
    # recorded, summed (pipeline.sessions), the killed one's up to its last stored call.
    sessions = second["conditions"]["sessions"]
    assert len(sessions) == 2 and sessions[0]["computed"] == runs["stored_at_kill"]
    summed = sum(session["seconds"] for session in sessions)
    assert second["conditions"]["elapsed_seconds"] == pytest.approx(summed, abs=0.2)


@pytest.mark.slow(model=False)  # whole retrieval-only runs; no generator
def test_a_warm_rerun_computes_nothing_and_adds_nothing_to_chroma(runs):
    third = runs["third"]
    assert third["conditions"]["calls"] == {
        "replayed": third["conditions"]["calls"]["replayed"],
        "computed": 0,
        "failed": 0,
    }
    assert all(index["added"] == 0 for index in third["run"]["indexes"])
    # Same inputs, same outputs: the records agree field for field.
    strip = lambda r: {k: v for k, v in r.items() if k != "generation"}  # noqa: E731
    assert [strip(r) for r in third["instances"]] == [strip(r) for r in runs["second"]["instances"]]


@pytest.mark.slow(model=False)  # whole retrieval-only runs; no generator
def test_controls_have_gold_in_context_at_every_config_for_every_embedder(runs):
    results = runs["third"]
    assert {e["spec"] for e in results["embedders"]} == set(EMBEDDERS)
    assert {e["role"] for e in results["embedders"]} == {"primary", "secondary"}
    # T4000 runs table_split alone (its config's `probes`), so it holds no control
    configs = [c["name"] for c in results["configs"] if c.get("probes") is None]
    assert "T4000" in {c["name"] for c in results["configs"]} and "T4000" not in configs
    for spec in EMBEDDERS:
        for config in configs:
            controls = [
                r
                for r in results["instances"]
                if r["probe"] == "control" and r["embedder"] == spec and r["config"] == config
            ]
            assert len(controls) == N
            assert [r["gold_in_context"] for r in controls] == [True] * N, (spec, config)


@pytest.mark.slow(model=False)  # whole retrieval-only runs; no generator
def test_secondary_runs_its_probes_and_equal_k_configs_agree(runs):
    results = runs["third"]
    secondary = {r["probe"] for r in results["instances"] if r["embedder"] == "local:e5-small"}
    assert secondary == {"control", "paraphrase", "negation"}
    by_key = {r["key"]: r for r in results["instances"]}
    for record in results["instances"]:
        if record["config"] == "C":  # B and C share chunking and ranking: B is C's top 3
            b = by_key[record["key"].replace("/C/", "/B/")]
            assert b["retrieved"] == record["retrieved"][:3]
