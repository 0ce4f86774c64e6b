"""Run conditions: progress with an ETA on a non-TTY stream and in progress.json, failed
calls printed as they are counted and grouped by reason, and contention detection from
RAGAUDIT_CONTENTION_PATTERN withholding elapsed_seconds."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ragaudit.backends.cache import CallCache
from ragaudit.errors import RagauditError
from ragaudit.runner.conditions import conditions_section, contention_pattern, contention_snapshot
from ragaudit.runner.progress import FailureNotices, Progress


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


def test_eta_after_a_resume_counts_computed_units_not_replays():
    # A resumed run replays 8 of 10 prompts at once; the ETA must wait for a computed one,
    # then project the remaining 1 at that unit's cost (at least the 0.2 s slept), not at
    # elapsed / 9 as if the replays had cost as much.
    stream = io.StringIO()
    progress = Progress(stream=stream, min_interval=0)
    progress.stage("generate local:qwen2.5-1.5b", 0)
    progress.update(8, 10, replayed=8)
    assert progress.eta_seconds() is None and stream.getvalue().splitlines()[-1].endswith(
        "ETA --:--"
    )
    time.sleep(0.2)
    progress.update(9, 10, replayed=8)
    assert progress.eta_seconds() >= 0.2
    progress.update(10, 10, replayed=8)
    assert progress.eta_seconds() == 0.0


def test_a_stage_replayed_whole_ends_with_eta_zero():
    progress = Progress(stream=None)
    progress.stage("generate local:qwen2.5-1.5b", 0)
    progress.update(5, 5, replayed=5)
    assert progress.eta_seconds() == 0.0


def test_contention_seen_before_withholds_elapsed_and_says_why(tmp_path, monkeypatch):
    marker = "ragaudit-contention-marker-7781"
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)", marker])
    cmdline = Path(f"/proc/{sleeper.pid}/cmdline")
    for _ in range(100):  # until it has exec'd: a loaded machine starts it late
        if marker.encode() in cmdline.read_bytes():
            break
        time.sleep(0.05)
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


DOWN = "ollama server at http://127.0.0.1:{port} failed /api/embed for 'm' after 4 attempt(s)"


def test_failed_calls_are_printed_as_counted_and_repeats_held_back(tmp_path):
    cache = CallCache(tmp_path / "cache.sqlite")
    stream = io.StringIO()
    progress = Progress(stream=stream, min_interval=3600, failures=cache)
    progress.stage("embed passages ollama:m", 100)
    cache.record_failure("ollama:m", "embed", DOWN.format(port=4001) + ": HTTP 500: boom", n=32)
    progress.advance(32)  # throttled as a bar, but the failure is news: printed at once
    cache.record_failure("ollama:m", "embed", DOWN.format(port=4001) + ": HTTP 500: boom", n=1)
    cache.record_failure("ollama:m", "embed", DOWN.format(port=4001) + ": HTTP 503: busy", n=2)
    progress.advance(3)
    progress.done()
    notices = [line for line in stream.getvalue().splitlines() if not line.startswith("[")]
    assert notices == [
        "embed failed (ollama:m): " + DOWN.format(port=4001) + ": HTTP 500: boom"
        " — 32 failed so far",
        # the second 500 repeats the first reason within the interval: held back
        "embed failed (ollama:m): " + DOWN.format(port=4001) + ": HTTP 503: busy"
        " — 35 failed so far",
    ]


def test_a_held_back_reason_is_counted_on_its_next_line(tmp_path):
    cache = CallCache(tmp_path / "cache.sqlite")
    notices = FailureNotices(cache, repeat_seconds=0.2)
    for n in (1, 1, 1):
        cache.record_failure("local:qwen2.5-0.5b", "generate", "ValueError: 2010 > 256", n=n)
    assert notices.new_lines() == [
        "generate failed (local:qwen2.5-0.5b): ValueError: 2010 > 256 — 1 failed so far"
    ]
    assert notices.new_lines() == []  # nothing new
    time.sleep(0.25)
    cache.record_failure("local:qwen2.5-0.5b", "generate", "ValueError: 2011 > 256")
    assert notices.new_lines() == [
        "generate failed (local:qwen2.5-0.5b): ValueError: 2011 > 256 — 4 failed so far "
        "(2 more like it not shown)"
    ]


def test_failure_reasons_group_calls_that_differ_only_in_numbers(tmp_path):
    cache = CallCache(tmp_path / "cache.sqlite")
    cache.record_failure("ollama:m", "embed", DOWN.format(port=4001) + ": HTTP 500: boom", n=32)
    cache.record_failure("ollama:m", "embed", DOWN.format(port=4002) + ": HTTP 500: boom", n=8)
    cache.record_failure("ollama:m", "embed", DOWN.format(port=4001) + ": HTTP 503: boom", n=9)
    cache.record_failure("ollama:g", "generate", "timed out", n=1)
    first_500, first_503 = (DOWN.format(port=4001) + f": HTTP {s}: boom" for s in (500, 503))
    assert conditions_section(cache, [], None, [], [], 1.0)["failure_reasons"] == [
        {"model": "ollama:m", "kind": "embed", "reason": first_500, "calls": 40},
        {"model": "ollama:m", "kind": "embed", "reason": first_503, "calls": 9},
        {"model": "ollama:g", "kind": "generate", "reason": "timed out", "calls": 1},
    ]
