"""One run at a time per data folder: an exclusive flock on `<data folder>/run.lock`.

Two runs on one data folder would write the same call cache and Chroma store at once
(SQLite answers `database is locked` to one of them). So a run takes this lock before it
opens either, and a second run waits for the first with one line naming its PID, then
replays what the first computed. The kernel releases the lock when its holder exits, even
by kill -9, so a killed run never blocks the next one. The file holds the holder's PID,
for the waiting message only; the lock itself is the flock, never the file's presence.
"""

from __future__ import annotations

import fcntl
import os
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TextIO

from ragaudit import paths
from ragaudit.errors import RagauditError

LOCK_NAME = "run.lock"
_RETRIES, _PAUSE = 5, 0.05
"""A busy lock is tried again for a quarter second before the waiting message: the
inspector's probe (run_in_progress) holds it shared for microseconds."""


def lock_path(data_dir: Path | None = None) -> Path:
    """The run lock file of `data_dir` (default: the data folder)."""
    return (data_dir or paths.data_dir()) / LOCK_NAME


@contextmanager
def hold_run_lock(data_dir: Path | None = None, stream: TextIO = sys.stderr) -> Iterator[None]:
    """Hold the data folder's run lock for the `with` block; while another run holds it,
    say so on `stream` in one line naming that run's PID, and wait for it."""
    path = lock_path(data_dir)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle = os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
    except OSError as error:
        raise RagauditError(f"{path}: cannot take the run lock ({error.strerror})") from None
    try:
        if not _try_lock(handle, fcntl.LOCK_EX):
            print(
                f"waiting for the run in progress on {path.parent} ({_holder(handle)}) to finish",
                file=stream,
                flush=True,
            )
            fcntl.flock(handle, fcntl.LOCK_EX)
        os.ftruncate(handle, 0)
        os.pwrite(handle, f"{os.getpid()}\n".encode(), 0)
        try:
            yield
        finally:
            os.ftruncate(handle, 0)  # released: no PID left to name
    finally:
        os.close(handle)  # closing the descriptor releases the flock


def run_in_progress(data_dir: Path | None = None) -> bool:
    """True while a run holds the run lock of `data_dir` (default: the data folder)."""
    try:
        handle = os.open(lock_path(data_dir), os.O_RDONLY)
    except OSError:  # no lock file: no run has ever started here
        return False
    try:
        if _try_lock(handle, fcntl.LOCK_SH, retries=0):
            fcntl.flock(handle, fcntl.LOCK_UN)
            return False
        return True
    finally:
        os.close(handle)


def _try_lock(handle: int, kind: int, retries: int = _RETRIES) -> bool:
    for attempt in range(retries + 1):
        try:
            fcntl.flock(handle, kind | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            if attempt < retries:
                time.sleep(_PAUSE)
    return False


def _holder(handle: int) -> str:
    text = os.pread(handle, 32, 0).decode("ascii", errors="replace").strip()
    return f"pid {text}" if text.isdigit() else "pid not yet recorded"
