"""Publishing a finished run's results without ever losing the last good run.

A good run (no instance record lost a model call; results.outcome) replaces the target,
and the good file the target held is kept beside it as `<stem>.prev<suffix>`. A run in
which any record lost a call writes its own file, `<stem>.failed<suffix>`, and leaves the
target as it was, unless the person asked otherwise (`--allow-failed-calls`): then it
replaces the target, and the previous file is kept only if it was a good run, so
`<stem>.prev<suffix>` always holds the last good run whatever follows it.

The same rule keeps every file a command publishes: the matrix's (`publish_results`),
mutate's, audit's and the judges' (`publish_document`, told what a lost call and a good
file are for its kind of document).
"""

from __future__ import annotations

import os
import secrets
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ragaudit.errors import RagauditError
from ragaudit.results.io import load_results, partial_path, write_results
from ragaudit.results.outcome import is_good_run, lost_records


def previous_path(path: str | Path) -> Path:
    """Where the last good file at `path` is kept when a run replaces it:
    `<stem>.prev<suffix>` beside it."""
    path = Path(path)
    return path.with_name(f"{path.stem}.prev{path.suffix}")


def failed_path(path: str | Path) -> Path:
    """Where a run that lost model calls writes instead of `path`: `<stem>.failed<suffix>`."""
    path = Path(path)
    return path.with_name(f"{path.stem}.failed{path.suffix}")


def results_target(path: str | Path, results: dict, *, allow_failed_calls: bool = False) -> Path:
    """The file a finished run's `results` go to: `path`, or its failed file when a record
    lost a call and `allow_failed_calls` is not set."""
    lost = lost_records(results) > 0
    return failed_path(path) if lost and not allow_failed_calls else Path(path)


@dataclass(frozen=True)
class Published:
    """Where a finished run's results went and what became of the files beside them."""

    asked: Path
    """The results file the run was asked to write (its --out)."""
    written: Path
    """This run's results file: `asked`, or its failed file."""
    kept: Path | None
    """Where the good file the target held was kept (moved aside), if it was."""
    good: Path | None
    """The last good run's file when this run is not one (the target it left as it was,
    or the kept file); None when this run is good or no good run is on disk."""
    lost: str = "instance records lost model calls"
    """What this kind of run lost, in the words its summary uses."""
    override: str | None = "--allow-failed-calls"
    """The flag that writes `asked` anyway, if the command has one."""

    def lines(self) -> list[str]:
        """What the run says of its files, one line each, beside the summary."""
        lines = [f"kept the previous results as {self.kept}"] if self.kept else []
        if self.written != self.asked:
            left = "left as it was" if self.asked.exists() else "not written"
            anyway = f" ({self.override} writes {self.asked})" if self.override else ""
            lines.append(
                f"{self.asked} {left}: {self.lost}, so this run's results are in "
                f"{self.written}{anyway}"
            )
        if self.good is not None:
            lines.append(f"the last good run stays in {self.good}")
        return lines


def _is_good_file(path: Path) -> bool:
    try:
        return path.is_file() and is_good_run(load_results(path))
    except RagauditError:  # unreadable, or another kind: not a good run to keep
        return False


def publish_results(
    path: str | Path, results: dict, *, allow_failed_calls: bool = False
) -> Published:
    """Write the finished run's results (complete) where results_target says, keeping the
    last good run (the module's rule), then remove the run's partial file."""
    return publish_document(
        path,
        results,
        lost=lost_records(results) > 0,
        is_good_file=_is_good_file,
        write=lambda target, document: write_results(target, document, complete=True),
        allow_failed_calls=allow_failed_calls,
    )


def publish_document(
    path: str | Path,
    document: dict,
    *,
    lost: bool,
    is_good_file: Callable[[Path], bool],
    write: Callable[[Path, dict], object],
    allow_failed_calls: bool = False,
    lost_words: str = Published.lost,
    override: str | None = Published.override,
) -> Published:
    """Publish any command's finished `document` by the module's rule: `lost` says whether
    the run lost a call, `is_good_file` whether a file on disk is a good run of this kind,
    `write` writes the document to a path. Removes the run's partial file."""
    path = Path(path)
    target = failed_path(path) if lost and not allow_failed_calls else path
    was_good = is_good_file(path)
    kept = _keep_previous(path) if target == path and was_good else None
    write(target, document)
    partial_path(path).unlink(missing_ok=True)
    said = {"lost": lost_words, "override": override}
    if not lost:
        return Published(path, target, kept, None, **said)
    if target != path and was_good:
        return Published(path, target, None, path, **said)
    previous = previous_path(path)
    good = previous if is_good_file(previous) else None
    return Published(path, target, kept, good, **said)


def _keep_previous(path: Path) -> Path:
    previous = previous_path(path)
    # Named like write_text_atomic's temp files, so a kill here leaves an orphan the next
    # run removes; a hard link, so `path` is never absent and nothing is copied.
    temp = path.with_name(f".{previous.name}.{secrets.token_hex(4)}.tmp")
    try:
        try:
            os.link(path, temp)
        except OSError:  # a file system without hard links
            shutil.copy2(path, temp)
        os.replace(temp, previous)
    except OSError as error:
        temp.unlink(missing_ok=True)
        raise RagauditError(
            f"{previous}: cannot keep the previous results there ({error.strerror}); "
            f"{path} was left as it was"
        ) from None
    return previous
