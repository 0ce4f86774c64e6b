"""Which files the inspector may open or have a run write: the URL does not choose freely.

A link is something anyone can hand a person, so `?results=` and `?audit_results=` may
name only a file under the data folder's results folder (where `ragaudit run` and
`ragaudit audit` write by default) or the very file the person who started the server
named (`ragaudit app --results F` / `--audit-results F`, i.e. $RAGAUDIT_RESULTS and
$RAGAUDIT_AUDIT_RESULTS). Symlinks and `..` are resolved before the check, and the
partial file a run writes beside an allowed file (shown while the run goes on) passes the
same check before it is shown (allowed_partial). Whatever the
page then reads must be a regular file (a FIFO would block the session thread, a device
never ends) no larger than MAX_DOCUMENT_BYTES; both are checked with os.stat, before any
open.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from ragaudit import paths
from ragaudit.errors import RagauditError

RESULTS_ENV = "RAGAUDIT_RESULTS"
"""The results file named at server start (`ragaudit app --results`)."""

AUDIT_RESULTS_ENV = "RAGAUDIT_AUDIT_RESULTS"
"""The audit results file named at server start (`ragaudit app --audit-results`)."""

GIVEN_BY = {"results": RESULTS_ENV, "audit_results": AUDIT_RESULTS_ENV}
"""URL parameter -> the environment variable holding the file given for it at start."""

MAX_DOCUMENT_BYTES = 256 * 1024 * 1024
"""The largest file the inspector reads. A full run's results are about 10 MB, so this is
far above any real one and far below what would exhaust the server's memory."""

_FILE_TYPES = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


class Refused(RagauditError):
    """A file the inspector will not open or write; the message is the one line shown."""


def _real(path: str | Path) -> Path:
    return Path(os.path.realpath(Path(path).expanduser()))


def given_path(param: str) -> Path | None:
    """The file given for URL parameter `param` when the server was started, if any."""
    value = os.environ.get(GIVEN_BY[param])
    return Path(value).expanduser() if value else None


def url_path(value: str, param: str) -> Path:
    """The resolved file that `?param=value` names, if the inspector may open it and a run
    started from it may write it: under the results folder, or the file given at start.
    Raises Refused (one line) for anything else; nothing is opened."""
    root = _real(paths.results_dir())
    flag = param.replace("_", "-")
    if "\x00" in value:  # no file name holds one; os.path.realpath would raise ValueError
        raise Refused(
            f"?{param}= refused: the file name holds a null byte (%00); a link may name only "
            f"a file under {root} or the one given to `ragaudit app --{flag}`"
        )
    resolved = _real(value)
    if _nameable(resolved) and _allowed(resolved, root, given_path(param)):
        return resolved
    raise Refused(
        f"?{param}={_shown(value)} refused: a link may name only a file under {root} "
        f"or the one given to `ragaudit app --{flag}`"
    )


SHOWN_CHARACTERS = 200
"""The most of a refused link's value its one line repeats (a crafted name may be long)."""


def _shown(value: str) -> str:
    if len(value) <= SHOWN_CHARACTERS:
        return value
    return f"{value[: SHOWN_CHARACTERS // 2]}… ({len(value):,} characters)"


def _nameable(resolved: Path) -> bool:
    """False for a name no file can have (a part over the file system's NAME_MAX, the whole
    over PATH_MAX): every later look-up of it would raise OSError, so it is refused here,
    as any name a link may not give. os.lstat opens nothing."""
    try:
        os.lstat(resolved)
    except OSError as error:
        return error.errno != errno.ENAMETOOLONG
    return True


def _allowed(resolved: Path, root: Path, given: Path | None) -> bool:
    return resolved.is_relative_to(root) or (given is not None and resolved == _real(given))


def allowed_partial(partial: Path, param: str = "results") -> Path:
    """`partial` (the file a run writes in progress beside an allowed results file) if it
    passes the check a link's path passes: resolved, under the results folder or the file
    given at start; or, beside the given file, that file's own partial file, not a
    symlink. Raises Refused (one line) otherwise: a symlink planted as the partial file
    of an allowed name never shows what it points at."""
    resolved = _real(partial)
    root, given = _real(paths.results_dir()), given_path(param)
    if _allowed(resolved, root, given):
        return resolved
    if given is not None and not partial.is_symlink():
        real_given = _real(given)
        if resolved == real_given.with_name(f"{real_given.stem}.partial{real_given.suffix}"):
            return resolved
    raise Refused(
        f"{partial}: refused: the run's partial file resolves to {resolved}, outside "
        f"{root}; the inspector shows only files a link may name"
    )


def regular_file(path: Path) -> os.stat_result:
    """os.stat of `path` if it is a regular file of at most MAX_DOCUMENT_BYTES; raises
    Refused otherwise and OSError when it cannot be stat'ed (missing, no permission)."""
    info = os.stat(path)
    for is_type, what in _FILE_TYPES:
        if is_type(info.st_mode):
            raise Refused(f"{path}: {what}, not a regular file; the inspector opens only those")
    if not stat.S_ISREG(info.st_mode):
        raise Refused(f"{path}: not a regular file; the inspector opens only those")
    if info.st_size > MAX_DOCUMENT_BYTES:
        raise Refused(
            f"{path}: {info.st_size / 2**20:.0f} MB, over the inspector's "
            f"{MAX_DOCUMENT_BYTES // 2**20} MB limit for one file; not opened"
        )
    return info
