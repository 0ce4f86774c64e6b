"""The files the Compare page may put side by side: the results files in the data folder's
results folder, and the one given to `ragaudit app --results`. Nothing in a URL adds to
them (ui.allowed: a link never chooses a file for the inspector to open)."""

from __future__ import annotations

from pathlib import Path

from ragaudit import paths
from ragaudit.ui.allowed import given_path
from ragaudit.ui.runs import progress_path

PARTIAL_SUFFIX = ".partial.json"
"""A run's file in progress (results.io.partial_path): never complete, so never compared."""


def _modified(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:  # gone since listed: sorts last, and loading it says it is missing
        return 0.0


def comparable_files() -> list[Path]:
    """The JSON files under the results folder (not a run's partial file or its progress)
    and the file given at server start, newest first; none twice."""
    root, progress = paths.results_dir(), progress_path()
    try:
        listed = [
            p
            for p in root.iterdir()
            if p.suffix == ".json"
            and p != progress
            and not p.name.endswith(PARTIAL_SUFFIX)
            and p.is_file()
        ]
    except OSError:  # no results folder yet
        listed = []
    given = given_path("results")
    if given is not None and given.is_file():
        listed.append(given)
    unique = list({p.resolve(): p for p in listed}.values())
    return sorted(unique, key=_modified, reverse=True)
