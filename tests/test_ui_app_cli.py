"""`ragaudit app`: loopback only, no usage statistics, headless, a chosen port."""

from __future__ import annotations

import argparse

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
    assert command[2:4] == ["streamlit", "run"] and command[4].endswith("app.py")
    assert flags == {
        "--server.address": "127.0.0.1",
        "--server.port": "8765",
        "--browser.gatherUsageStats": "false",
        "--server.headless": "true",
    }


def test_bad_port_is_one_clear_error():
    with pytest.raises(RagauditError, match="--port 70000"):
        app_cli.run(_args("--port", "70000"))
