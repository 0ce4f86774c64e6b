"""Issue 40, item 22: SIGTERM or SIGHUP sent to `ragaudit app` or `ragaudit demo` (a service
manager's stop, a closed terminal) stops the Streamlit server too, as Ctrl-C does: the
command forwards the signal to the server's process group and waits for it, so when the
command has exited nothing serves the port and none of its processes is left. Real
processes on a free port, read from /proc; the signal goes to the command's pid alone."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from helpers.ui_fixtures import write_results


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _serving(port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2) as r:
            return r.read() == b"ok"
    except OSError:
        return False


def _listening(port: int) -> bool:
    with socket.socket() as probe:
        probe.settimeout(2)
        return probe.connect_ex(("127.0.0.1", port)) == 0


def _alive(pid: int) -> bool:
    """True while the process exists and is not a zombie."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[-1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _descendants(root: int) -> set[int]:
    """Every process under `root`, by the parent pids /proc records."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text().rsplit(")", 1)[-1].split()
                parents[int(entry.name)] = int(stat[1])
            except (OSError, ValueError, IndexError):
                continue
    found, frontier = set(), {root}
    while frontier:
        frontier = {pid for pid, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


def _until(condition, seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.2)
    raise AssertionError(f"timed out after {seconds:.0f} s waiting for {what}")


def _stopped_by(signum: int, argv: list[str], port: int, env: dict, cwd: Path) -> None:
    """Start `ragaudit ARGV`, wait until the inspector answers on `port`, send `signum` to
    the command's pid, and check it exits 0 leaving no process and a free port."""
    command = subprocess.Popen(
        [sys.executable, "-m", "ragaudit", *argv, "--port", str(port)],
        env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        start_new_session=True,  # as a terminal's job: its own group, not the test's
    )  # fmt: skip
    started: set[int] = set()
    try:
        _until(lambda: _serving(port), 120, "the inspector to answer")
        started = _descendants(command.pid)
        assert started, "the command started no server"
        os.kill(command.pid, signum)
        assert command.wait(60) == 0
        left = sorted(pid for pid in started if _alive(pid))
        assert left == [], f"still running after {signal.Signals(signum).name}: {left}"
        assert not _listening(port)
    finally:
        for pid in [command.pid, *started]:  # the processes this test started, by id
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)
        command.wait()


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT])
def test_app_stops_its_server_on(signum, tmp_path):
    env = dict(os.environ, RAGAUDIT_HOME=str(tmp_path / "home"))
    _stopped_by(signum, ["app"], _free_port(), env, tmp_path)


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_demo_stops_its_server_on(signum, tmp_path):
    """`ragaudit demo --results F` on a complete results file: no matrix run, the inspector
    at once (the path every demo ends on)."""
    results = write_results(tmp_path / "latest.json", n=1, generate=False)
    env = dict(os.environ, RAGAUDIT_HOME=str(tmp_path / "home"))
    _stopped_by(signum, ["demo", "--results", str(results)], _free_port(), env, tmp_path)
