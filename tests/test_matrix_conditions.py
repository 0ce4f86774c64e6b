"""Run conditions: progress with an ETA on a non-TTY stream and in progress.json, and
contention detection from RAGAUDIT_CONTENTION_PATTERN withholding elapsed_seconds."""

from __future__ import annotations

import io
import json
import subprocess
import sys

import pytest

from ragaudit.backends.cache import CallCache
from ragaudit.errors import RagauditError
from ragaudit.pipeline.conditions import conditions_section, contention_pattern, contention_snapshot
from ragaudit.pipeline.progress import Progress


def test_progress_prints_plain_lines_with_eta_and_writes_json(tmp_path):
    stream = io.StringIO()  # not a TTY: whole lines, no carriage returns
    seen: list[dict] = []
    progress = Progress(
        stream=stream, json_path=tmp_path / "progress.json", callback=seen.append, min_interval=0
    )
    progress.stage("embed passages local:minilm", 4)
    for _ in range(4):
        progress.advance(1)
    snapshot = json.loads((tmp_path / "progress.json").read_text())
    assert (snapshot["stage"], snapshot["done"], snapshot["total"]) == (
        "embed passages local:minilm",
        4,
        4,
    )
    assert snapshot["eta_seconds"] == 0.0 and snapshot["finished"] is False
    progress.done()
    assert json.loads((tmp_path / "progress.json").read_text())["finished"] is True
    lines = stream.getvalue().splitlines()
    assert "\r" not in stream.getvalue()
    assert lines[0].startswith("[embed passages local:minilm]") and "ETA --:--" in lines[0]
    assert "4/4 100%" in lines[-1] and "ETA 00:00" in lines[-1]
    assert [s["done"] for s in seen][:2] == [0, 1]


def test_contention_seen_before_withholds_elapsed_and_says_why(tmp_path, monkeypatch):
    marker = "ragaudit-contention-marker-7781"
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)", marker])
    try:
        monkeypatch.setenv("RAGAUDIT_CONTENTION_PATTERN", marker)
        pattern = contention_pattern()
        seen = contention_snapshot(pattern)
    finally:
        sleeper.kill()
        sleeper.wait()
    assert [entry["pid"] for entry in seen] == [sleeper.pid]
    cache = CallCache(tmp_path / "cache.sqlite")
    cache.count("local:minilm", "computed", 10)
    conditions = conditions_section(cache, [], pattern, seen, [], 12.5)
    assert conditions["contention_detection_configured"] is True
    assert conditions["elapsed_seconds"] is None
    assert "contention seen (1 processes before" in conditions["elapsed_seconds_reason"]


def test_unset_pattern_is_recorded_as_unconfigured_and_replays_withhold_timing(
    tmp_path, monkeypatch
):
    monkeypatch.delenv("RAGAUDIT_CONTENTION_PATTERN", raising=False)
    assert contention_pattern() is None and contention_snapshot(None) == []
    cache = CallCache(tmp_path / "cache.sqlite")
    cache.count("local:minilm", "computed", 3)
    clean = conditions_section(cache, [], None, [], [], 3.21)
    assert clean["elapsed_seconds"] == 3.2 and clean["elapsed_seconds_reason"] is None
    assert clean["contention_detection_configured"] is False
    cache.count("local:minilm", "replayed", 2)
    replay = conditions_section(cache, [], None, [], [], 3.21)
    assert replay["elapsed_seconds"] is None
    assert replay["elapsed_seconds_reason"] == "2 of 5 model calls were replayed from cache"


def test_a_bad_contention_pattern_is_one_clear_error(monkeypatch):
    monkeypatch.setenv("RAGAUDIT_CONTENTION_PATTERN", "([unclosed")
    with pytest.raises(RagauditError, match="RAGAUDIT_CONTENTION_PATTERN"):
        contention_pattern()
