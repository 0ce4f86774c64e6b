"""Shared fixtures. User state (results, cache, vector stores) goes to a temp dir per test."""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

import pytest

# real llama.cpp servers; the guard that keeps them in slow tests; the guard's own test
pytest_plugins = [
    "helpers.openai_server",
    "helpers.slow_guard",
    "helpers.slow_one_at_a_time",
    "pytester",
]

# Where this session's bytecode goes: the test modules pytest rewrites, and every module a
# `python -m ragaudit` a test starts imports. With PYTHONDONTWRITEBYTECODE set (as in some
# sandboxes) each of the two workers rewrote all ~250 test modules on every run (about 5 s
# each) and every subprocess compiled ragaudit from source; kept outside the checkout, so
# the intent of that setting (no __pycache__ beside the sources) still holds.
BYTECODE = Path(tempfile.gettempdir()) / "ragaudit-tests-pycache"


def pytest_configure(config):
    if os.environ.get("PYTHONDONTWRITEBYTECODE") and not sys.pycache_prefix:
        del os.environ["PYTHONDONTWRITEBYTECODE"]
        sys.dont_write_bytecode = False
        sys.pycache_prefix = str(BYTECODE)
        os.environ["PYTHONPYCACHEPREFIX"] = str(BYTECODE)


@pytest.fixture
def ragaudit_home(tmp_path, monkeypatch):
    """Point RAGAUDIT_HOME at a fresh temp dir; return it. Model weights stay shared."""
    home = tmp_path / "ragaudit-home"
    home.mkdir()
    monkeypatch.setenv("RAGAUDIT_HOME", str(home))
    return home


@pytest.fixture
def fake_ollama():
    """Start local processes speaking Ollama's HTTP API (tests/helpers/ollama_fake.py):
    `fake_ollama(mode="normal", failures=0)`; every one started is stopped at teardown."""
    from helpers.ollama_fake import start_fake_ollama

    started = []

    def start(mode: str = "normal", failures: int = 0):
        server = start_fake_ollama(mode, failures)
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()


# pytest-playwright's browser on the system Chromium, for every browser test in the tree
# (tests/e2e/ and the top-level ones): one Playwright per worker session, since a second
# sync_playwright() in a worker that already holds one fails with "Sync API inside the
# asyncio loop". Never `playwright install` (it downloads a browser).
@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    from e2e.ui_browser_helpers import CHROMIUM, CHROMIUM_ARGS

    return {**browser_type_launch_args, "executable_path": CHROMIUM, "args": CHROMIUM_ARGS}


@pytest.fixture(scope="session")
def browser_context_args(browser_context_args):
    return {**browser_context_args, "viewport": {"width": 1400, "height": 1000}}
