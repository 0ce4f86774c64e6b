"""An atomic write gives the file the mode the process umask says, without ever changing
the umask: the inspector's server writes files from several threads, and a umask set to 0
for a moment gives every file another thread creates meanwhile mode 0o666."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

from ragaudit.fileio import write_text_atomic
from ragaudit.results.io import write_results
from ragaudit.results.schema import TOP_LEVEL_FIELDS

RACE_SECONDS = 3.0
SHM = "/dev/shm"


def minimal_results() -> dict:
    results = {name: None for name in TOP_LEVEL_FIELDS}
    results.update(instances=[], cells=[], comparisons=[], chunks={}, configs=[], run={})
    return results


def test_a_results_file_written_under_umask_027_gets_mode_640(tmp_path):
    path = tmp_path / "results" / "latest.json"
    previous = os.umask(0o027)
    try:
        write_results(path, minimal_results())
        after = os.umask(0o027)  # reading the umask means setting it: set the same value
    finally:
        os.umask(previous)
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    assert after == 0o027


# Another process samples this one's umask from /proc/<pid>/status as fast as it can (this
# process's own threads would take turns with the writer for the interpreter lock).
OBSERVER = """
import collections, json, os, re, sys, time
seen, status = collections.Counter(), os.open(f"/proc/{sys.argv[1]}/status", os.O_RDONLY)
end = time.monotonic() + float(sys.argv[2])
while time.monotonic() < end:
    seen[re.search(rb"Umask:\\s*(\\d+)", os.pread(status, 8192, 0)).group(1).decode()] += 1
print(json.dumps(seen))
"""
WRITERS = 2


def test_the_umask_other_threads_see_never_changes_during_writes(tmp_path):
    # On tmpfs fsync is cheap, so many writes, so a moment at umask 0 is seen within seconds.
    folder = Path(tempfile.mkdtemp(dir=SHM)) if os.path.isdir(SHM) else tmp_path
    stop = threading.Event()

    def keep_writing(name: str) -> None:
        while not stop.is_set():
            write_text_atomic(folder / name, "{}")

    previous = os.umask(0o027)
    writers = [
        threading.Thread(target=keep_writing, args=(f"results-{n}.json",)) for n in range(WRITERS)
    ]
    try:
        for writer in writers:
            writer.start()
        observer = subprocess.run(
            [sys.executable, "-c", OBSERVER, str(os.getpid()), str(RACE_SECONDS)],
            capture_output=True,
            text=True,
            timeout=60,
        )
    finally:
        stop.set()
        for writer in writers:
            writer.join()
        os.umask(previous)
        if folder != tmp_path:
            shutil.rmtree(folder)
    assert observer.returncode == 0, observer.stderr
    assert list(json.loads(observer.stdout)) == ["0027"], observer.stdout
