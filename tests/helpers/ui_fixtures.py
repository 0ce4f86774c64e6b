"""The inspector's tests' fixtures, in one import.

The synthetic results file (docs/results-schema.md, built not recorded) lives in
helpers.fixture, because the UI benchmark (benchmarks/ui.py) reads it too; the AppTest helpers
live in ui_apptest.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

from helpers.fixture.build import build_results, write_results  # noqa: F401 - re-exported
from helpers.ui_apptest import APP, chart_specs, click_chart, open_app, texts  # noqa: F401 - re-exported


def stand_in_run(
    out: Path, log: Path, *, argv: tuple = ("run", "--quick"), progress: dict | None = None
) -> subprocess.Popen:
    """A long-lived process of our own recorded as the inspector's current run, with
    `progress` as its progress file: what the Runs page and the reference banner read of a
    run in progress. The caller ends it with ragaudit.ui.runs.stop_run (its group)."""
    from ragaudit.ui import runs

    sleeper = subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(60)"], start_new_session=True
    )
    runs._write_state(
        {"pid": sleeper.pid, "argv": ["python", "-m", "ragaudit", *argv], "out": str(out),
         "log": str(log), "started_at": time.time(), "returncode": None}
    )  # fmt: skip
    if progress is not None:
        runs.progress_path().parent.mkdir(parents=True, exist_ok=True)
        runs.progress_path().write_text(json.dumps(progress))
    return sleeper
