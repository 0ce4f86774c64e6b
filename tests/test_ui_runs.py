"""The Runs page: start a run as a subprocess, follow its progress, show the run's conditions."""

from __future__ import annotations

import json
import time

import pytest
from helpers.ui_fixtures import build_results, open_app, stand_in_run, texts, write_results

from ragaudit.ui import runs
from ragaudit.ui.runs_page import run_args


@pytest.fixture
def results_file(ragaudit_home, monkeypatch):
    monkeypatch.delenv("RAGAUDIT_RESULTS", raising=False)
    return write_results(ragaudit_home / "results" / "latest.json", n=3)


def test_conditions_show_replayed_computed_failed_and_digests(results_file):
    conditions = build_results(n=3)["conditions"]
    at = open_app(results_file, page="pages/runs.py")
    assert not at.exception
    calls = conditions["calls"]
    page = texts(at)
    assert (
        f"Model calls: {calls['replayed']} replayed from cache, {calls['computed']} computed, "
        f"{calls['failed']} failed. File complete: True." in page
    )
    assert conditions["elapsed_seconds_reason"] in page
    models = at.dataframe[-1].value
    assert "unavailable" in list(models["digest"])
    assert "a" * 64 in list(models["digest"])


def test_conditions_show_a_resumed_runs_summed_time_and_its_generation_tokens(ragaudit_home):
    results = build_results(n=3)
    results["conditions"] |= {"elapsed_seconds": 5400.0, "elapsed_seconds_reason": None}
    session = {"seconds": 2700.0, "computed": 10, "replayed": 0, "contention_seen": 0}
    results["conditions"]["sessions"] = [session, session]
    counts = {"records": 9, "prompts": 8, "tokens": {"prompts_measured": 8}}
    counts["tokens"] |= {"prompt_tokens": 16000, "prompt_tokens_evaluated": 8000}
    counts["tokens"] |= {"generated_tokens": 400, "warm_up_tokens_evaluated": 0}
    results["run"]["generation_counts"] = counts
    results["conditions"] |= {"contention_detection_configured": False}
    results["conditions"]["contention_seen"] = {"before": [], "after": ["ollama"]}
    path = ragaudit_home / "results" / "latest.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(results))
    page = texts(open_app(path, page="pages/runs.py"))
    assert "Elapsed: 5400.0 seconds (the wall time of 2 computing sessions, summed)." in page
    # the last session's counts, then 10 + 10 computed over the two sessions, by hand
    assert "Over its 2 computing sessions: 20 computed (10 + 10)." in page
    # 8000/16000 = 50%, by hand
    assert (
        "Generation: 8 distinct prompts; 16,000 prompt tokens, 8,000 of them evaluated "
        "(50% 8000/16000; the rest reused from the previous prompt's prefix); 400 generated "
        "(measured for 8 of 8 prompts)." in page
    )
    # in words, as the report says it, not as Python's repr of False and []
    assert "configured: no (pattern from " in page
    assert "; seen before: nothing; after: ollama." in page


def test_form_choices_become_run_arguments():
    assert run_args("quick", 5, ["local:minilm"], "local:qwen2.5-0.5b", ["A"], False) == [
        "--quick",
        "--embedders",
        "local:minilm",
        "--no-generate",
    ]
    assert run_args("custom", 7, [], "local:qwen2.5-0.5b", ["B", "M"], True) == [
        "--n",
        "7",
        "--generator",
        "local:qwen2.5-0.5b",
        "--gen-configs",
        "B",
        "M",
    ]


def test_progress_is_read_from_the_runs_progress_file(ragaudit_home):
    log = ragaudit_home / "x.log"
    log.write_text("[index local:minilm] ####---- 40/400 10% 00:01 elapsed ETA 00:09\n")
    assert (
        runs.read_progress(log)["done"] == 40
        and runs.read_progress(log)["stage"] == "index local:minilm"
    )
    runs.progress_path().parent.mkdir(parents=True, exist_ok=True)
    runs.progress_path().write_text(
        json.dumps({"stage": "retrieve", "done": 3, "total": 12, "eta_seconds": 9.0})
    )
    progress = runs.read_progress(log)
    assert (progress["done"], progress["total"], progress["stage"], progress["eta_seconds"]) == (
        3,
        12,
        "retrieve",
        9.0,
    )


def _wait_until_ended(deadline_seconds: float = 10) -> runs.RunStatus:
    deadline = time.time() + deadline_seconds
    while runs.run_status().alive and time.time() < deadline:
        time.sleep(0.1)
    return runs.run_status()


def test_the_form_starts_ragaudit_run_and_the_page_follows_it(results_file, ragaudit_home):
    at = open_app(results_file, page="pages/runs.py")
    assert "No run started" in texts(at)
    at.radio(key="runs_preset").set_value("custom")
    at.number_input(key="runs_n").set_value(2)
    at.button[0].click()  # the form's submit button
    at.run()
    status = runs.run_status()
    try:
        assert status is not None
        assert status.argv[3:] == [
            "run",
            "--n",
            "2",
            "--embedders",
            "local:minilm",
            "--no-generate",
            "--out",
            str(results_file),
        ]
        at.run()
        (panel,) = at.status
        assert panel.label in {"Run in progress", "Run finished"} or panel.label.startswith(
            "Run ended"
        )
    finally:
        runs.stop_run()
    status = _wait_until_ended()
    assert not status.alive
    at.run()
    (panel,) = at.status
    assert panel.label != "Run in progress"


def test_one_run_at_a_time_and_stop_ends_it(ragaudit_home, tmp_path):
    # A long-lived process of our own stands in as the current run (stop_run ends its group).
    sleeper = stand_in_run(tmp_path / "r.json", tmp_path / "r.log", argv=("run",))
    assert runs.run_status().alive
    with pytest.raises(RuntimeError, match="already going"):
        runs.start_run(["--quick"], ragaudit_home / "results" / "r.json")
    assert runs.stop_run()
    assert sleeper.wait(timeout=10) != 0
    assert not runs.run_status().alive


def test_a_running_run_shows_progress_and_eta_from_its_progress_file(results_file, tmp_path):
    progress = {"stage": "retrieve local:minilm", "done": 30, "total": 120, "eta_seconds": 95}
    sleeper = stand_in_run(results_file, tmp_path / "r.log", progress=progress)
    try:
        at = open_app(results_file, page="pages/runs.py")
        (panel,) = at.status
        assert panel.label == "Run in progress"
        (bar,) = at.get("progress")
        assert bar.proto.value == 25
        assert "retrieve local:minilm: 30/120 · ETA 1 min 35 s" in bar.proto.text
    finally:
        runs.stop_run()
        sleeper.wait(timeout=10)


def test_a_run_never_writes_outside_the_results_folder(ragaudit_home, tmp_path, monkeypatch):
    monkeypatch.delenv("RAGAUDIT_RESULTS", raising=False)
    victim = tmp_path / "notes.txt"
    victim.write_text("keep me\n")
    with pytest.raises(RuntimeError, match=r"refused: a link may name only a file under"):
        runs.start_run(["--quick"], victim)
    assert victim.read_text() == "keep me\n"
    assert runs.run_status() is None  # nothing was started
