"""Shared fixtures. User state (results, cache, vector stores) goes to a temp dir per test."""

from __future__ import annotations

import pytest


@pytest.fixture
def ragaudit_home(tmp_path, monkeypatch):
    """Point RAGAUDIT_HOME at a fresh temp dir; return it. Model weights stay shared."""
    home = tmp_path / "ragaudit-home"
    home.mkdir()
    monkeypatch.setenv("RAGAUDIT_HOME", str(home))
    return home
