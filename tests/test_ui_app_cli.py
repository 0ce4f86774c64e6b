"""`ragaudit app`: loopback only, no usage statistics, headless, a chosen port."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from ragaudit.cli import app as app_cli
from ragaudit.errors import RagauditError


def _args(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    app_cli.add_arguments(parser)
    return parser.parse_args(list(argv))


def test_command_serves_on_loopback_without_usage_stats():
    command = app_cli.streamlit_command(8765)
    flags = dict(zip(command[5::2], command[6::2], strict=True))
    assert command[2:4] == ["streamlit", "run"]
    assert command[4] == str(Path(__file__).resolve().parent.parent / "app.py")  # the checkout's
    assert flags == {
        "--server.address": "127.0.0.1",
        "--server.port": "8765",
        "--browser.gatherUsageStats": "false",
        "--server.headless": "true",
    }


def test_bad_port_is_one_clear_error():
    with pytest.raises(RagauditError, match="--port 70000"):
        app_cli.run(_args("--port", "70000"))


def test_launch_serves_the_given_results_file_from_the_checkout(monkeypatch, tmp_path):
    """`ragaudit app --results` and `ragaudit demo` both come here: the inspector is told the
    file's absolute path, and serves from the checkout (so relative ?results= links work)."""
    seen = {}

    def fake_call(command, env, cwd):
        seen.update(command=command, results=env["RAGAUDIT_RESULTS"], cwd=cwd)
        return 0

    monkeypatch.setattr(app_cli.subprocess, "call", fake_call)
    monkeypatch.chdir(tmp_path)
    assert app_cli.launch(Path("runs/latest.json"), 8766) == 0
    assert seen["results"] == str(tmp_path.resolve() / "runs" / "latest.json")
    assert seen["cwd"] == Path(__file__).resolve().parent.parent
    assert seen["command"][seen["command"].index("--server.port") + 1] == "8766"
    assert app_cli.run(_args("--results", "other.json", "--port", "8767")) == 0
    assert seen["results"] == str(tmp_path.resolve() / "other.json")
