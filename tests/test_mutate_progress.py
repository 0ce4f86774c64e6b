"""`ragaudit mutate` and `ragaudit audit` show each stage's progress with an ETA on stderr
(issue 38: on a 316-page manual nothing was printed for 16 to 21 minutes), the first line
within 10 s of the start, and none before the inputs are read (bad input stays one line)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

EXAMPLE = Path(__file__).parent.parent / "examples" / "mutate"
BAR = re.compile(r"^\[(?P<stage>[^\]]+)\] [#-]+ (?P<done>\d+)/(?P<total>\d+) .* ETA ")


def _first_line_and_stages(argv: list[str], home: Path) -> tuple[float, list[str], int]:
    started = time.monotonic()
    process = subprocess.Popen(
        [sys.executable, "-m", "ragaudit", *argv], stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL, text=True, env={**os.environ, "RAGAUDIT_HOME": str(home)},
    )  # fmt: skip
    first = None
    stages = []
    for line in process.stderr:
        match = BAR.match(line)
        if match:
            first = first if first is not None else time.monotonic() - started
            if match["stage"] not in stages:
                stages.append(match["stage"])
    return first, stages, process.wait()


def test_mutate_shows_every_stage_and_its_first_line_within_10_s(tmp_path):
    argv = ["mutate", str(EXAMPLE / "corpus"), str(EXAMPLE / "cases.yaml"), "--no-generate",
            "--operators", "supersede", "--out", str(tmp_path / "out.json")]  # fmt: skip
    first, stages, status = _first_line_and_stages(argv, tmp_path / "home")
    assert status in (0, 1)
    assert first is not None and first < 10
    assert stages == ["building mutants", "embedding the corpus", "ranking mutants"]


def test_audit_shows_its_stages(tmp_path):
    audit = Path(__file__).parent.parent / "examples" / "audit"
    argv = ["audit", str(audit / "corpus"), str(audit / "cases.yaml"), "--settings",
            str(audit / "prod.yaml"), "--out", str(tmp_path / "audit.json")]  # fmt: skip
    first, stages, status = _first_line_and_stages(argv, tmp_path / "home")
    assert status in (0, 1) and first is not None and first < 10
    assert stages == ["cutting the corpus", "embedding the corpus", "ranking cases"]
