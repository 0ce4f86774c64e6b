"""Atomic writes: a reader sees the old file or the new one, never half of one. The bottom
layer: every package writes through here, and it imports nothing of ragaudit's but errors."""

from __future__ import annotations

import json
import os
import re
import tempfile
from datetime import UTC, datetime
from pathlib import Path

from ragaudit.errors import RagauditError


def now_iso() -> str:
    """The current UTC time, ISO 8601 to the second."""
    return datetime.now(UTC).replace(microsecond=0).isoformat()


def process_umask() -> int:
    """The process's umask, read without changing it: os.umask can only read it by setting
    it, and the moment it is set to anything else every other thread creating a file gets
    that mode (the Streamlit server's threads). Linux reports it in /proc/self/status;
    elsewhere the common default 0o022."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    return 0o022


def write_text_atomic(path: str | Path, text: str) -> None:
    """Write `text` to a temp file beside `path`, fsync, then os.replace: a reader sees the
    old file or the new one, never half of one. Every atomic write in ragaudit goes here."""
    write_bytes_atomic(path, text.encode("utf-8"))


def write_bytes_atomic(path: str | Path, data: bytes) -> None:
    """`write_text_atomic` of bytes (a Parquet export)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        # mkstemp makes the file owner-only; a results file is for every reader (umask rules)
        os.fchmod(handle, 0o666 & ~process_umask())
        with os.fdopen(handle, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


def write_json_atomic(path: str | Path, data: object, *, trailing_newline: bool = False) -> None:
    """`write_text_atomic` of `data` as JSON; NaN/inf are refused (allow_nan=False)."""
    try:
        text = json.dumps(data, ensure_ascii=False, allow_nan=False, indent=1)
    except ValueError as error:
        raise RagauditError(f"{path}: refusing to write a non-finite number ({error})") from None
    write_text_atomic(path, text + "\n" if trailing_newline else text)


def check_writable(target: Path, flag: str) -> None:
    """Refuse, naming `flag` and `target`, a file that could not be written atomically
    (a temp file beside it, then a rename over it): an existing target must be a writable
    regular file (a rename over /dev/null would replace the device), and its folder must
    exist or be creatable and be writable. Checked by creating an unnamed temp file in
    the nearest existing folder, so nothing is left behind and no folder is made."""
    if target.is_symlink() or target.exists():
        if not target.is_file():
            raise RagauditError(f"{flag} {target}: exists and is not a regular file")
        if not os.access(target, os.W_OK):
            raise RagauditError(f"{flag} {target}: the file is not writable")
    folder = target.parent
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    if not folder.is_dir():
        raise RagauditError(f"{flag} {target}: {folder} is a file, not a folder")
    try:
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as error:
        raise RagauditError(
            f"{flag} {target}: cannot write in {folder} ({error.strerror})"
        ) from None


def remove_orphan_temps(folder: str | Path, names: list[str]) -> list[Path]:
    """Remove the temp files killed atomic writes of `names` left in `folder` (named
    `.<name>.<8 characters>.tmp`, as write_text_atomic and publish_results make them).
    Only while nothing else writes those names (a run holds the data folder's run lock).
    Returns the files removed."""
    patterns = [re.compile(rf"\.{re.escape(name)}\.[a-z0-9_]{{8}}\.tmp") for name in names]
    try:
        entries = list(Path(folder).iterdir())
    except OSError:  # no folder yet: nothing left behind
        return []
    removed = []
    for entry in entries:
        if any(p.fullmatch(entry.name) for p in patterns) and entry.is_file():
            entry.unlink(missing_ok=True)
            removed.append(entry)
    return removed
