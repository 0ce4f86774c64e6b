"""Matrix runs started from the inspector: a `ragaudit run` subprocess, its log and progress.

One run at a time per data folder. Its pid, argv, output path and log live in
`data/runs/current.json`, so every session (and every page) sees the same run; the
process is reaped by whichever rerun notices it has ended.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from ragaudit import paths
from ragaudit.fileio import write_json_atomic
from ragaudit.results.reference import run_target
from ragaudit.ui.allowed import Refused, url_path

_PROGRESS_LINE = re.compile(r"(\d+)\s*/\s*(\d+)")

_STARTED: dict[int, subprocess.Popen] = {}
"""Runs this process started, kept so that it, and not a garbage collector, waits for them."""


@dataclass(frozen=True)
class RunStatus:
    """What the Runs page shows about the current (or last) run."""

    pid: int
    argv: list[str]
    out: Path
    log: Path
    started_at: float
    alive: bool
    returncode: int | None
    done: int | None
    total: int | None
    stage: str | None
    eta: float | None
    """The stage's ETA as the run reported it, if it did."""
    last_line: str

    @property
    def eta_seconds(self) -> float | None:
        """The run's own ETA for its stage, else a linear extrapolation; None before any work."""
        if not self.alive:
            return None
        if self.eta is not None:
            return self.eta
        if not self.done or not self.total:
            return None
        elapsed = time.time() - self.started_at
        return elapsed * (self.total - self.done) / self.done


def runs_dir() -> Path:
    return paths.data_dir() / "runs"


def _state_path() -> Path:
    return runs_dir() / "current.json"


def _pid_alive(pid: int) -> tuple[bool, int | None]:
    """(alive, returncode) for a pid; reaps it if it is our finished child."""
    try:
        waited, status = os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:  # not our child (another server process started it)
        waited, status = 0, None
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False, None
        except PermissionError:
            return True, None
        return _not_zombie(pid), None
    if waited == 0:
        return True, None
    code = os.waitstatus_to_exitcode(status)
    _record_returncode(pid, code)
    return False, code


def _not_zombie(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    return stat.rsplit(")", 1)[-1].split()[0] != "Z"


def _record_returncode(pid: int, code: int) -> None:
    state = _read_state()
    if state and state.get("pid") == pid:
        state["returncode"] = code
        _write_state(state)


def _read_state() -> dict | None:
    try:
        return json.loads(_state_path().read_text())
    except (OSError, json.JSONDecodeError):
        return None


def _write_state(state: dict) -> None:
    write_json_atomic(_state_path(), state)


def start_run(args: list[str], out: Path) -> int:
    """Start `ragaudit run ARGS --out OUT` in the background; returns its pid.

    Raises RuntimeError when a run is already going, or when OUT is not a file the
    inspector may write (under the results folder, or the file given at server start).
    """
    try:
        # whoever calls, a run writes only there, and never the shipped reference run
        out = url_path(str(run_target(out)), "results")
    except Refused as refused:
        raise RuntimeError(str(refused)) from None
    current = run_status()
    if current is not None and current.alive:
        raise RuntimeError(f"a run is already going (pid {current.pid}); wait for it or stop it")
    runs_dir().mkdir(parents=True, exist_ok=True)
    handle, name = tempfile.mkstemp(
        prefix=f"run-{time.strftime('%Y%m%d-%H%M%S')}-", suffix=".log", dir=runs_dir()
    )
    os.close(handle)
    log = Path(name)
    argv = [sys.executable, "-m", "ragaudit", "run", *args, "--out", str(out)]
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    with log.open("wb") as sink:
        process = subprocess.Popen(
            argv,
            stdout=sink,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            cwd=paths.checkout_root(),  # None: installed, importable anywhere
            env=env,
            start_new_session=True,  # so stopping it stops its children too
        )
    _STARTED[process.pid] = process
    _write_state(
        {
            "pid": process.pid,
            "argv": argv,
            "out": str(out),
            "log": str(log),
            "started_at": time.time(),
            "returncode": None,
        }
    )
    return process.pid


def reap_when_done(pid: int) -> threading.Thread | None:
    """Wait, in a daemon thread, for a run this process started, and record its exit
    status when it ends: a process that outlives its run (`ragaudit demo`, serving the
    inspector) leaves no zombie behind. None for a pid this process did not start."""
    process = _STARTED.get(pid)
    if process is None:
        return None

    def wait() -> None:
        _record_returncode(pid, process.wait())

    waiter = threading.Thread(target=wait, name=f"reap-run-{pid}", daemon=True)
    waiter.start()
    return waiter


def end_started_run(pid: int, grace: float = 10.0) -> bool | None:
    """Stop a run this process started (SIGTERM to its group, SIGKILL after `grace`
    seconds) and wait for it, so none of its processes outlives the caller. True when it
    was still running, False when it had ended, None for a pid this process did not start."""
    process = _STARTED.pop(pid, None)
    if process is None:
        return None
    running = process.poll() is None
    if running:
        _signal_group(pid, signal.SIGTERM)
        try:
            process.wait(grace)
        except subprocess.TimeoutExpired:
            _signal_group(pid, signal.SIGKILL)
            process.wait()
    _signal_group(pid, signal.SIGKILL)  # any child the run left in its group
    _record_returncode(pid, process.returncode)
    return running


def _signal_group(pid: int, sent: signal.Signals) -> None:
    try:
        os.killpg(pid, sent)
    except (ProcessLookupError, PermissionError):
        pass


def stop_run() -> bool:
    """Stop the current run (its process group); True if one was running."""
    status = run_status()
    if status is None or not status.alive:
        return False
    try:
        os.killpg(status.pid, signal.SIGTERM)
    except ProcessLookupError:
        return False
    return True


def _tail(path: Path, size: int = 8192) -> list[str]:
    try:
        with path.open("rb") as handle:
            handle.seek(0, os.SEEK_END)
            handle.seek(max(0, handle.tell() - size))
            text = handle.read().decode("utf-8", errors="replace")
    except OSError:
        return []
    # progress bars rewrite one line with \r: keep the latest state of each line
    return [line.split("\r")[-1] for line in text.splitlines() if line.strip()]


def progress_path() -> Path:
    """Where `ragaudit run` writes its progress snapshot (ragaudit.runner.progress.Progress)."""
    return paths.results_dir() / "progress.json"


def read_progress(log: Path) -> dict:
    """{done, total, stage, eta_seconds, last_line} from the run's progress file or its log."""
    lines = _tail(log)
    found: dict = {"done": None, "total": None, "stage": None, "eta_seconds": None}
    found["last_line"] = lines[-1] if lines else ""
    try:
        snapshot = json.loads(progress_path().read_text())
    except (OSError, json.JSONDecodeError):
        snapshot = None
    if isinstance(snapshot, dict) and snapshot.get("total"):
        for field in ("done", "total", "stage", "eta_seconds"):
            found[field] = snapshot.get(field)
        return found
    for line in reversed(lines):  # "[stage] ####---- 120/400 30% ..." lines on stderr
        match = _PROGRESS_LINE.search(line)
        if match and int(match.group(2)) > 0:
            found["done"], found["total"] = int(match.group(1)), int(match.group(2))
            stage = re.match(r"\[([^\]]+)\]", line)
            found["stage"] = stage.group(1) if stage else None
            break
    return found


def run_status() -> RunStatus | None:
    """The current or last run started from the inspector, or None."""
    state = _read_state()
    if not state:
        return None
    alive, code = _pid_alive(int(state["pid"]))
    if code is None:
        code = state.get("returncode")
    out, log = Path(state["out"]), Path(state["log"])
    progress = read_progress(log) if alive else {"last_line": (_tail(log) or [""])[-1]}
    return RunStatus(
        pid=int(state["pid"]),
        argv=list(state["argv"]),
        out=out,
        log=log,
        started_at=float(state["started_at"]),
        alive=alive,
        returncode=code,
        done=progress.get("done"),
        total=progress.get("total"),
        stage=progress.get("stage"),
        eta=progress.get("eta_seconds"),
        last_line=progress["last_line"],
    )


def log_tail(status: RunStatus, lines: int = 30) -> str:
    """The last lines of the run's log."""
    return "\n".join(_tail(status.log, 32768)[-lines:])
