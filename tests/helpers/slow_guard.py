"""A pytest plugin: fail a test that loads the generator without the `slow` mark, or marked
`slow(model=False)` (which runs beside the other slow tests, helpers.slow_one_at_a_time)."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

from ragaudit.backends.qwen import ENGINE_LOG_ENV

# The slow-mark guard: every llama.cpp engine started, here or in a subprocess a test runs,
# appends a line to this file (backends.qwen.note_engine_started). A test phase during
# which it grew, or a test asking for a llama.cpp server fixture, must be marked slow, so
# `pytest -m "not slow"` never loads the generator; and must not say `model=False`, so
# no two generators run at once under xdist.
ENGINE_LOG = Path(tempfile.mkdtemp(prefix="ragaudit-engines-")) / "started.log"
os.environ[ENGINE_LOG_ENV] = str(ENGINE_LOG)
GENERATOR_FIXTURES = {"openai_chat_server", "openai_embedding_server"}
_engine_lines_seen = [0]


def _engine_lines() -> int:
    try:
        return ENGINE_LOG.read_text(encoding="utf-8").count("\n")
    except FileNotFoundError:
        return 0


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    lines = _engine_lines()
    started, _engine_lines_seen[0] = lines - _engine_lines_seen[0], lines
    slow = item.get_closest_marker("slow")
    if report.failed or (slow is not None and slow.kwargs.get("model") is not False):
        return
    asks = sorted(GENERATOR_FIXTURES & set(getattr(item, "fixturenames", ())))
    if started > 0 or (asks and call.when == "setup"):
        why = f"started {started} llama.cpp engine(s)" if started else f"asks for {asks[0]}"
        report.outcome = "failed"
        report.longrepr = f"{item.nodeid} {why} during {call.when} " + (
            "without @pytest.mark.slow: mark it slow, so the fast loop "
            "(pytest -m 'not slow and not e2e') loads no generator"
            if slow is None
            else "marked slow(model=False): drop model=False, so it runs one at a time "
            "with the other generator tests (helpers.slow_one_at_a_time)"
        )
