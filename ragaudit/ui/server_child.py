"""The inspector's server as a child that never outlives the command that started it
(`ragaudit app`, `ragaudit demo`).

The child runs in its own process group. Ctrl-C (SIGINT), SIGTERM (a service manager, `kill`)
and SIGHUP (a closed terminal) sent to the command are forwarded to that group, and the
command waits for the child to stop (killing the group after a grace period), so nothing is
left serving the port. A terminal's Ctrl-C reaches only the foreground group, the
command's, which is why the command forwards SIGINT as well.
"""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
from collections.abc import Sequence
from pathlib import Path

FORWARDED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
GRACE_SECONDS = 10.0
"""How long a signalled child may take to stop before its group is killed."""
_POLL_SECONDS = 0.2


def _signal_group(pgid: int, signum: int) -> None:
    try:
        os.killpg(pgid, signum)
    except (ProcessLookupError, PermissionError):  # already gone
        pass


def serve_until_stopped(
    command: Sequence[str], *, env: dict, cwd: Path | None, grace: float = GRACE_SECONDS
) -> int:
    """Run `command` in its own process group until it exits, or until this process gets
    one of FORWARDED: the signal then goes to the child's group and the child is waited
    for (SIGKILL to its group after `grace` seconds). Returns the child's exit status, or 0
    when a signal stopped it (as Ctrl-C always did). Signal handlers can only be set on the
    main thread; elsewhere the child is simply waited for."""
    received: list[int] = []
    child: subprocess.Popen | None = None

    def forward(signum: int, _frame: object) -> None:
        received.append(signum)
        if child is not None:
            _signal_group(child.pid, signum)

    main = threading.current_thread() is threading.main_thread()
    previous = {s: signal.signal(s, forward) for s in FORWARDED} if main else {}
    try:
        child = subprocess.Popen(list(command), env=env, cwd=cwd, process_group=0)
        if received:  # a signal came while it was being started
            _signal_group(child.pid, received[-1])
        return _wait(child, received, grace)
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def _wait(child: subprocess.Popen, received: list[int], grace: float) -> int:
    deadline: float | None = None
    while True:
        try:
            code = child.wait(timeout=_POLL_SECONDS)
        except subprocess.TimeoutExpired:
            if received and deadline is None:
                deadline = time.monotonic() + grace
            if deadline is not None and time.monotonic() > deadline:
                _signal_group(child.pid, signal.SIGKILL)
                child.wait()
                return 0
            continue
        return 0 if received else code
