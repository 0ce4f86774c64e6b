"""`ragaudit demo`'s background run: reaped when it ends, and stopped with the demo, so no
process outlives the demo's Ctrl-C. Real processes throughout, read from /proc."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from ragaudit import paths
from ragaudit.ui import runs


def _state(pid: int) -> str | None:
    """The process's state letter from /proc (`Z` for a zombie), None when it is gone."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[-1].split()[0]
    except OSError:
        return None


def _descendants(root: int) -> set[int]:
    """Every process under `root`, by the parent pids /proc records."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                parents[int(entry.name)] = int(
                    (entry / "stat").read_text().rsplit(")", 1)[-1].split()[1]
                )
            except (OSError, ValueError, IndexError):
                continue
    found, frontier = set(), {root}
    while frontier:
        frontier = {pid for pid, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


def _wait_for(condition, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.2)
    raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")


def test_a_finished_run_is_reaped_and_its_exit_status_recorded(ragaudit_home):
    # `ragaudit run --no-such-flag` exits 2 at once: a run that ends while its starter lives on
    pid = runs.start_run(["--no-such-flag"], paths.default_results_path())
    waiter = runs.reap_when_done(pid)
    waiter.join(60)
    assert not waiter.is_alive()
    assert _state(pid) is None  # gone, not a zombie
    assert runs.run_status().returncode == 2


def test_without_the_reaper_the_finished_run_stays_a_zombie(ragaudit_home):
    # the check above can fail: a started run nobody waits for is left as a zombie
    pid = runs.start_run(["--no-such-flag"], paths.default_results_path())
    try:
        _wait_for(lambda: _state(pid) == "Z", 60, "the run to end")
    finally:
        runs.end_started_run(pid)
    assert _state(pid) is None


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _healthy(port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2) as r:
            return r.read() == b"ok"
    except OSError:
        return False


def test_no_process_outlives_the_demos_ctrl_c(tmp_path):
    home = tmp_path / "home"
    port = _free_port()
    env = dict(os.environ, RAGAUDIT_HOME=str(home), PYTHONUNBUFFERED="1")
    log = (tmp_path / "demo.log").open("wb")
    demo = subprocess.Popen(
        [sys.executable, "-m", "ragaudit", "demo", "--port", str(port)],
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,  # its own group, as a terminal's foreground job is
    )
    try:
        state = home / "runs" / "current.json"
        _wait_for(state.is_file, 60, "the background run to start")
        _wait_for(lambda: _healthy(port), 90, "the inspector to answer")
        started = _descendants(demo.pid)
        run_pid = int(json.loads(state.read_text())["pid"])
        assert run_pid in started and len(started) >= 2  # the run and streamlit at least
        os.killpg(demo.pid, signal.SIGINT)  # Ctrl-C: the terminal signals the foreground group
        assert demo.wait(60) == 0
    finally:
        if demo.poll() is None:
            os.killpg(demo.pid, signal.SIGKILL)
            demo.wait()
        log.close()
    survivors = {pid: _state(pid) for pid in started if _state(pid) is not None}
    assert survivors == {}, (tmp_path / "demo.log").read_text()
    assert "stopped the background quick run" in (tmp_path / "demo.log").read_text()
