"""A `pipeline: http:` service and its ingest endpoint that are slow on purpose
(helpers/slow_service.py, a real process on 127.0.0.1), issue 40 items 5 and 7:
- a reply trickled a byte a second is cut off at the entry's `timeout` (a deadline for the
  whole request, not for each read), with the failed call's line on stderr;
- an ingest endpoint trickling its reply is cut off at the ingest's `timeout`: exit 2;
- a hung service, or one asking for a wait of 99999 s each time, opens the breaker after
  RAGAUDIT_BREAKER_TIMEOUTS requests in a row: no request is sent after that, every
  question left fails at once, and the run says when the breaker opened.
The trickling runs are subprocesses under a time limit, so a run that is never cut off
fails the test instead of hanging it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers.slow_service import start_slow

import ragaudit.runner.progress  # noqa: F401 (its default stream is bound before capture)
from ragaudit.cli.main import main
from ragaudit.probes.catalogue import shipped

QUESTIONS = len(shipped())  # the planted corpus's questions at n=1: one per probe
STACK = """name: slow
pipeline:
  http:
    url: URL/ask
    body: {query: "{{question}}"}
    answer: $.answer
    contexts: $.contexts
    context_text: text
    timeout: TIMEOUT
  ingest: INGEST
"""


@pytest.fixture
def slow():
    started = []

    def start(mode: str):
        started.append(start_slow(mode))
        return started[-1]

    yield start
    for service in started:
        service.stop()


def stack_file(folder: Path, url: str, timeout: float, ingest: str = "none") -> Path:
    stack = folder / "slow.yaml"
    text = STACK.replace("URL", url).replace("TIMEOUT", str(timeout))
    stack.write_text(text.replace("INGEST", ingest))
    return stack


def run_limited(stack: Path, home: Path, env: dict, limit: float) -> tuple[int, str, float]:
    """`ragaudit run` on `stack` as a subprocess, killed past `limit` seconds (a failure)."""
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "ragaudit", "run", "--stack", str(stack), "--stack-only",
         "--n", "1"],
        env={**os.environ, "RAGAUDIT_HOME": str(home), **env},
        capture_output=True, text=True, timeout=limit, check=False,
    )  # fmt: skip
    return done.returncode, done.stderr, time.monotonic() - started


def failed_reasons(home: Path) -> list[str]:
    results = json.loads((home / "results" / "latest.failed.json").read_text())
    return [r["retrieval_error"] for r in results["instances"] if r["config"] == "slow"]


def test_a_trickled_reply_is_cut_off_at_the_timeout_with_a_failure_line(slow, tmp_path):
    service = slow("trickle")  # the honest reply, one byte a second: about 80 s
    home = tmp_path / "home"
    env = {"RAGAUDIT_RETRIES": "0", "RAGAUDIT_BREAKER_TIMEOUTS": "1"}
    status, err, seconds = run_limited(stack_file(tmp_path, service.base_url, 5), home, env, 40)
    assert status == 1, err[-2000:]
    assert 5 <= seconds < 15  # one question cut at 5 s; the breaker spares the other ten
    assert service.seen() == {"/ask": 1}
    reasons = failed_reasons(home)
    assert len(reasons) == QUESTIONS
    assert sum("no complete reply within the 5 s deadline" in r for r in reasons) == 1
    assert "no complete reply within the 5 s deadline" in err  # the failed call's line
    assert "Traceback" not in err


def test_an_ingest_endpoint_trickling_its_reply_is_cut_off_at_its_timeout(slow, tmp_path):
    service = slow("trickle")
    ingest = f"{{url: '{service.base_url}/ingest', batch: 1000, timeout: 3}}"
    stack = stack_file(tmp_path, service.base_url, 5, ingest)
    status, err, seconds = run_limited(stack, tmp_path / "home", {}, 40)
    assert status == 2, err[-2000:]
    assert 3 <= seconds < 12
    [line] = err.strip().splitlines()
    assert "field pipeline.ingest: documents 1-" in line
    assert line.endswith("no complete reply within the 3 s deadline (its timeout)")
    assert service.seen() == {"/ingest": 1}
    assert not (tmp_path / "home" / "results").exists()


def breaker_run(home, tmp_path, service, monkeypatch, capfd, **env) -> tuple[int, str, float]:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    started = time.monotonic()
    status = main(["run", "--stack", str(stack_file(tmp_path, service.base_url, 1)),
                   "--stack-only", "--n", "1"])  # fmt: skip
    return status, capfd.readouterr().err, time.monotonic() - started


def test_a_hung_service_opens_the_breaker_and_the_run_says_so(
    slow, tmp_path, ragaudit_home, monkeypatch, capfd
):
    service = slow("hang")
    status, err, seconds = breaker_run(
        ragaudit_home, tmp_path, service, monkeypatch, capfd,
        RAGAUDIT_RETRIES="1", RAGAUDIT_RETRY_DELAY="0", RAGAUDIT_BREAKER_TIMEOUTS="2",
    )  # fmt: skip
    assert status == 1, err[-2000:]
    # by hand: the first question's two attempts time out (1 s each) and open the breaker;
    # the other ten questions are not sent
    assert service.seen() == {"/ask": 2}
    assert seconds < 10
    origin = service.base_url
    opened = [line for line in err.splitlines() if "this run stops asking it" in line]
    assert len(opened) == 1
    assert opened[0].endswith(
        f"field pipeline.http: {origin} timed out 2 times in a row: this run stops asking "
        "it, and every call still to make fails at once (RAGAUDIT_BREAKER_TIMEOUTS=2)"
    )
    reasons = failed_reasons(ragaudit_home)
    assert "2 attempt(s), last: no complete reply within the 1 s deadline" in reasons[0]
    not_asked = f"not asked: {origin} timed out 2 times in a row, so this run stopped asking it"
    assert sum(not_asked in reason for reason in reasons) == QUESTIONS - 1


def test_a_wait_of_99999_s_asked_each_time_opens_the_breaker(
    slow, tmp_path, ragaudit_home, monkeypatch, capfd
):
    service = slow("throttle")  # 429, Retry-After: 99999 (capped at 0.2 s here)
    status, err, seconds = breaker_run(
        ragaudit_home, tmp_path, service, monkeypatch, capfd,
        RAGAUDIT_RETRIES="3", RAGAUDIT_RETRY_AFTER_MAX="0.2",
    )  # fmt: skip
    assert status == 1, err[-2000:]
    # the default breaker, 3: the first question's first three attempts open it
    assert service.seen() == {"/ask": 3}
    assert seconds < 10
    streak = f"{service.base_url} asked for a wait past RAGAUDIT_RETRY_AFTER_MAX 3 times in a row"
    assert f"{streak}: this run stops asking it" in err
    reasons = failed_reasons(ragaudit_home)
    assert "3 attempt(s), last: HTTP 429" in reasons[0]
    assert sum(f"not asked: {streak}" in reason for reason in reasons) == QUESTIONS - 1
