"""Finding and loading the inspector's documents (the results file, an audit results file).

Reading goes through the one loader, results.io.load_document; the lookups every page
shares are results.view and the figures results.format. What this module adds is the
caching: `st.cache_data` keyed on path + mtime + size, so partial results rewritten
during a run show up on the next rerun while an unchanged file is parsed once; and the
rule of ui.allowed: a URL names only an allowed file, and only regular files of a bounded
size are read.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ragaudit import paths
from ragaudit.errors import RagauditError
from ragaudit.results.io import (
    RESULTS,
    DocumentKind,
    load_document,
    load_results,
    partial_path,
)
from ragaudit.runner.lock import run_in_progress
from ragaudit.ui.allowed import Refused, allowed_partial, given_path, regular_file, url_path


@dataclass(frozen=True)
class Loaded:
    """What a page gets: the path, and either the results or the one-line problem."""

    path: Path | None
    """The file, resolved; None when the URL named one the inspector may not open, so a
    refused path never reaches a reader or `ragaudit run --out`."""
    results: dict | None
    problem: str | None
    """None when loaded; else why not (missing file, corrupt, older schema, refused)."""
    missing: bool = False


def results_path(query_value: str | None = None) -> Path:
    """`?results=` wins (only a file allowed.url_path allows: else Refused), then
    $RAGAUDIT_RESULTS, then the default under data/."""
    if query_value:
        return url_path(query_value, "results")
    return given_path("results") or paths.default_results_path()


def _read(path_str: str, mtime_ns: int, size: int, kind_name: str, _kind: DocumentKind) -> dict:
    # mtime_ns, size and kind_name only key the cache (a rewritten file reloads);
    # st.cache_data does not hash arguments whose names start with "_".
    if _kind is RESULTS:
        return load_results(path_str)
    return load_document(path_str, _kind)


def read_cached(path: Path, kind: DocumentKind = RESULTS) -> dict:
    """`path` as a document of `kind`, parsed once per version of the file on disk.
    Raises RagauditError (the loader's wording) for a missing, unreadable or bad file, and
    Refused for anything but a regular file within the size limit (checked before opening).
    """
    import streamlit as st

    cached = st.cache_data(show_spinner=f"Loading {kind.name}…", max_entries=4)(_read)
    try:
        stat = regular_file(path)
    except OSError:  # gone or unreadable: the loader says which, in its own words
        return _read(str(path), 0, 0, kind.name, kind)
    return cached(str(path), stat.st_mtime_ns, stat.st_size, kind.name, kind)


def load_from_url(query_value: str | None) -> Loaded:
    """The results file a session's `?results=` value (or its absence) points at, loaded;
    a value naming a file the inspector may not open gives a Loaded without a path."""
    try:
        path = results_path(query_value)
    except Refused as refusal:
        return Loaded(None, None, str(refusal))
    return load(path)


def load(path: Path) -> Loaded:
    """Load the results file at `path` (cached), or the partial file of a run writing it
    (in_progress_file); never raises for a bad or missing file."""
    source = in_progress_file(path)
    try:
        if source != path:  # the partial file passes the link's check too
            source = allowed_partial(source)
    except Refused as refusal:
        return Loaded(None, None, str(refusal))
    if not source.exists():
        return Loaded(path, None, f"No results yet at {path}.", missing=True)
    try:
        return Loaded(path, read_cached(source), None)
    except RagauditError as error:
        return Loaded(path, None, str(error))


def in_progress_file(path: Path) -> Path:
    """What to show for the results file `path`: the partial file a run writes beside it
    (results.io.partial_path) while a run holds the data folder's run lock and that file
    is newer than `path`; else `path`. A partial file says `complete: false`, so the page
    says the results are partial. The partial file of a run that died is not shown: the
    complete file it did not replace is."""
    partial = partial_path(path)
    try:
        written = partial.stat().st_mtime_ns
    except OSError:
        return path
    try:
        newer = written > path.stat().st_mtime_ns
    except OSError:  # no complete file yet: the first run is writing
        newer = True
    return partial if newer and run_in_progress() else path
