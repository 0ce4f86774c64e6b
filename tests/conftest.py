"""Shared fixtures. User state (results, cache, vector stores) goes to a temp dir per test."""

from __future__ import annotations

import pytest

# real llama.cpp servers; the guard that keeps them in slow tests; the guard's own test
pytest_plugins = [
    "helpers.openai_server",
    "helpers.slow_guard",
    "helpers.slow_one_at_a_time",
    "pytester",
]


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
