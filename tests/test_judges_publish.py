"""A judges run whose calls failed writes its own file and keeps the good scorecard, as the
matrix does (issue 40, item 11): `judges.failed.json` holds the run, `judges.json` is left
byte for byte, and a good run that replaces it keeps the one it held as `judges.prev.json`,
which a later failed run leaves alone. The judges are the scripted judge
(tests/helpers/judge_stand_in.py, a real OpenAI-compatible server on 127.0.0.1) answering
500 to every call, then answering by its rule; the earlier scorecard is the shipped one."""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers.judge_stand_in import start_judge_server

pytestmark = pytest.mark.slow(model=False)  # each run starts ragas afresh (a scripted judge)

ASSETS = Path(__file__).resolve().parent.parent / "ragaudit" / "assets" / "reference"


def judges(home: Path, mode: str) -> subprocess.CompletedProcess:
    server = start_judge_server(mode)
    env = {**os.environ, "RAGAUDIT_HOME": str(home), "RAGAUDIT_RETRIES": "0"}
    command = [sys.executable, "-m", "ragaudit", "judges", "--results",
               str(ASSETS / "reference.json.gz"), "--judge", "openai:scripted-judge",
               "--base-url", server.base_url, "--metric", "ragas:faithfulness",
               "--per-group", "1", "--max-records", "1"]  # fmt: skip
    try:
        return subprocess.run(
            command, capture_output=True, text=True, env=env, timeout=300, cwd=home
        )
    finally:
        server.stop()


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_failed_judges_run_keeps_the_good_scorecard_and_the_prev_file(tmp_path):
    results = tmp_path / "results"
    results.mkdir()
    card, prev = results / "judges.json", results / "judges.prev.json"
    failed = results / "judges.failed.json"
    card.write_bytes(gzip.decompress((ASSETS / "judges.json.gz").read_bytes()))
    shipped = sha(card)

    down = judges(tmp_path, "http500")
    assert down.returncode == 1, down.stderr[-2000:]
    assert sha(card) == shipped and not prev.exists()
    assert not (results / "judges.partial.json").exists()
    lost = json.loads(failed.read_text(encoding="utf-8"))
    assert [e["outcome"] for e in lost["evaluations"]] == ["judge_failed"]
    lines = down.stderr.splitlines()
    assert f"{card} left as it was: judge calls failed, so this run's results are in {failed}" in (
        lines
    )
    assert f"the last good run stays in {card}" in lines

    good = judges(tmp_path, "good")
    assert good.returncode == 0, good.stderr[-2000:]
    assert sha(prev) == shipped
    judged = sha(card)
    assert f"kept the previous results as {prev}" in good.stderr.splitlines()

    assert judges(tmp_path, "http500").returncode == 1
    assert (sha(card), sha(prev)) == (judged, shipped)
