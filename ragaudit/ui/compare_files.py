"""The files the Compare page may put side by side, and the two it opens on.

Listed: the files in the data folder's results folder that pass the check a link's path
passes (ui.allowed: resolved, a symlink pointing outside is not listed) and that the one
loader reads as matrix results (a run's ledger, its partial file or progress, a drift or
harness-check file are not); the file given to `ragaudit app --results`; and the shipped
reference run. Nothing in a URL adds to them. The page opens on the shipped reference as
run A and the newest local good run (complete, no record lost a model call) as run B.
"""

from __future__ import annotations

from pathlib import Path

from ragaudit import paths
from ragaudit.errors import RagauditError
from ragaudit.results.io import load_results
from ragaudit.results.outcome import is_good_run
from ragaudit.results.reference import is_reference, shipped_reference
from ragaudit.ui.allowed import Refused, given_path, regular_file, url_path
from ragaudit.ui.runs import progress_path

NOT_RESULTS = (".partial.json", ".sessions.json")
"""A run's file in progress (never complete) and its sessions ledger: never compared."""

GOOD, FINISHED, UNFINISHED = "good", "finished", "unfinished"
"""A listed file's state: a good run; finished with records that lost a call; partial."""


def _modified(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:  # gone since listed: sorts last, and loading it says it is missing
        return 0.0


def _state(path_str: str, mtime_ns: int, size: int) -> str | None:
    # mtime_ns and size only key the cache: a rewritten file is looked at again
    try:
        results = load_results(path_str)
    except RagauditError:
        return None
    if is_good_run(results):
        return GOOD
    return FINISHED if results.get("complete") else UNFINISHED


def file_state(path: Path) -> str | None:
    """GOOD, FINISHED or UNFINISHED for a results file the loader reads, None for any
    other (not a regular file, over the size limit, not matrix results); parsed once per
    version of the file, and only the state is kept."""
    import streamlit as st

    try:
        info = regular_file(path)
    except (Refused, OSError):
        return None
    cached = st.cache_data(show_spinner="Looking at the results files…", max_entries=256)
    return cached(_state)(str(path), info.st_mtime_ns, info.st_size)


def _candidates() -> list[Path]:
    """The results folder's JSON files that pass the link's check, named as listed."""
    root, progress = paths.results_dir(), progress_path()
    try:
        names = sorted(root.iterdir())
    except OSError:  # no results folder yet
        return []
    listed = []
    for path in names:
        if path.suffix != ".json" or path == progress or path.name.endswith(NOT_RESULTS):
            continue
        try:
            url_path(str(path), "results")
        except Refused:  # a symlink out of the folder: never offered
            continue
        listed.append(path)
    return listed


def comparable_files() -> list[Path]:
    """Every file the page offers, newest first, none twice, the shipped reference last."""
    listed = [p for p in _candidates() if file_state(p) is not None]
    given = given_path("results")
    if given is not None and not is_reference(given) and file_state(given) is not None:
        listed.append(given)
    unique = list({p.resolve(): p for p in listed}.values())
    ordered = sorted(unique, key=_modified, reverse=True)
    reference = shipped_reference()
    return [*ordered, reference] if reference is not None else ordered


def default_choice(files: list[Path]) -> tuple[int, int]:
    """The indexes of run A and run B the page opens on: the shipped reference against
    the newest local good run (else the newest finished one, else the newest); without a
    reference, the newest good run against the one before it."""
    local = [i for i, p in enumerate(files) if not is_reference(p)]
    states = {i: file_state(files[i]) for i in local}
    b = next((i for i in local if states[i] == GOOD), None)
    b = b if b is not None else next((i for i in local if states[i] == FINISHED), None)
    b = b if b is not None else (local[0] if local else 0)
    reference = next((i for i, p in enumerate(files) if is_reference(p)), None)
    if reference is not None and reference != b:
        return reference, b
    others = [i for i in range(len(files)) if i != b]
    return (others[0] if others else b), b
