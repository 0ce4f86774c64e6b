"""An output never written over an input, nor over the runs the data folder keeps: the one
check every command that writes makes before anything is read further or written. A file
it writes (`--out`, `--junit`, `--out-md`, `--gate-junit`, an export) is refused when it
names a file the command reads, by another path, through a symlink, or as a hard link of
it; when it lies inside a folder the command reads (a corpus folder); when it is the data
folder's last run (`results/latest.json`) or the good run kept before it
(`results/latest.prev.json`); or when two outputs name one file."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from ragaudit.errors import RagauditError


def same_file(one: Path, other: Path) -> bool:
    """True when the two paths are one file: the same path once symlinks and `..` are
    resolved, or two names of one inode (a hard link)."""
    try:
        if os.path.realpath(one) == os.path.realpath(other):
            return True
        return one.exists() and other.exists() and os.path.samefile(one, other)
    except (OSError, ValueError):  # unreadable, or a name holding a NUL: not provably one
        return False


def inside_folder(path: Path, folder: Path) -> bool:
    """True when `path`, symlinks and `..` resolved, is `folder` or lies below it."""
    try:
        real, root = os.path.realpath(path), os.path.realpath(folder)
        return os.path.commonpath([real, root]) == root
    except (OSError, ValueError):  # a NUL in a name, or another drive: not provably inside
        return False


def kept_runs() -> list[tuple[str, Path]]:
    """The runs the data folder keeps, which no other output may replace: the last run
    and the last good run before it (results.publish)."""
    from ragaudit.paths import default_results_path
    from ragaudit.results.publish import previous_path

    latest = default_results_path()
    return [("data folder's last run", latest), ("data folder's previous good run",
                                                  previous_path(latest))]  # fmt: skip


def corpus_input(path: Path) -> tuple[str, Path]:
    """A corpus argument as an input: a folder (nothing may be written inside it) or a
    JSONL file."""
    return ("corpus folder" if path.is_dir() else "corpus file", path)


def published_outputs(flag: str, path: Path) -> list[tuple[str, Path]]:
    """The files publishing a results file at `path` may write (results.publish): the file,
    its failed-run file and the copy of the previous good run, each named by `flag`."""
    from ragaudit.results.publish import failed_path, previous_path

    return [(flag, path), (f"{flag}'s failed-run file", failed_path(path)),
            (f"{flag}'s previous-run copy", previous_path(path))]  # fmt: skip


def refuse_input_as_output(
    targets: Iterable[tuple[str, Path]],
    inputs: Iterable[tuple[str, Path]],
    runs: Iterable[tuple[str, Path]] = (),
    *,
    the_run: bool = False,
) -> None:
    """Raise one line for the first (flag, file written) that is one of the (what, path
    read) inputs, lies inside one that is a folder, is one of the data folder's kept runs
    (kept_runs) or of the (what, file) `runs` the command itself publishes, or is also
    another output's file; nothing has been written when it is raised. `the_run`: the
    targets are `ragaudit run`'s own results files, which the kept runs are."""
    read = [(what, Path(source)) for what, source in inputs]
    kept = [*((what, Path(path)) for what, path in runs), *([] if the_run else kept_runs())]
    written: list[tuple[str, Path]] = []
    for flag, target in targets:
        target = Path(target)
        for what, source in read:
            if source.is_dir() and inside_folder(target, source):
                where = "is" if same_file(target, source) else "lies in"
                raise RagauditError(
                    f"{flag} {target}: {where} the {what} {source}; writing there would "
                    "change the input, so nothing was written (name a path outside it)"
                )
            if same_file(target, source):
                raise RagauditError(
                    f"{flag} {target}: is the {what} {source}; writing it would replace the "
                    "input, so nothing was written (name another file)"
                )
        for what, run in kept:
            if same_file(target, run):
                raise RagauditError(
                    f"{flag} {target}: is the {what} {run}; writing it would replace that "
                    "run's results, so nothing was written (name another file)"
                )
        for other_flag, other in written:
            if same_file(target, other):
                raise RagauditError(
                    f"{flag} {target}: is also the file of {other_flag}; one would replace "
                    "the other, so nothing was written (name two files)"
                )
        written.append((flag, target))
