"""The cases files the Cases page offers, read, and the reviewed file it writes.

Offered: the YAML files of the data folder's results folder whose top level has
`generated_by` and `intents` (what `ragaudit cases` writes), each passing the check a
link's path passes (ui.allowed: a symlink out of the folder is never offered). A URL may
choose one only by its name in this listing, never by a path. The reviewed file goes
beside them as `<input stem>.reviewed.yaml`, written atomically, never over its input and
never outside the results folder.
"""

from __future__ import annotations

import re
from pathlib import Path

from ragaudit import paths
from ragaudit.errors import RagauditError
from ragaudit.fileio import MAX_INPUT_BYTES, parse_yaml, read_text
from ragaudit.ui.allowed import Refused, regular_file, url_path

CASES_SUFFIXES = (".yaml", ".yml")
REVIEWED_SUFFIX = ".reviewed.yaml"
TOP_KEYS = ("generated_by", "intents")
"""The keys a cases file's top level has (ragaudit.auditing.cases.CaseFile)."""
_TOP_KEY = {key: re.compile(rf"^{key}\s*:", re.MULTILINE) for key in TOP_KEYS}


def cases_files() -> list[Path]:
    """The results folder's cases files, by name (a reviewed file among them)."""
    root = paths.results_dir()
    try:
        names = sorted(root.iterdir())
    except OSError:  # no results folder yet
        return []
    listed = []
    for path in names:
        if path.suffix not in CASES_SUFFIXES:
            continue
        try:
            url_path(str(path), "results")  # a symlink out of the folder: never offered
            regular_file(path)
            read_cases(path)
        except (Refused, OSError, RagauditError):
            continue
        listed.append(path)
    return listed


def read_cases(path: Path) -> dict:
    """The cases file at `path` as plain data, parsed once per version of the file.
    Raises RagauditError (one line) for an unreadable file, invalid YAML, or a document
    that is not a cases file."""
    import streamlit as st

    info = regular_file(path)
    cached = st.cache_data(show_spinner=False, max_entries=16)(_parsed)
    return cached(str(path), info.st_mtime_ns, info.st_size)


def _parsed(path: str, mtime_ns: int, size: int) -> dict:
    # mtime_ns and size only key the cache: a rewritten file is read again
    text = read_text(path, Path(path).name, max_bytes=MAX_INPUT_BYTES)
    if not all(pattern.search(text) for pattern in _TOP_KEY.values()):  # cheap: no parse
        raise RagauditError(f"{Path(path).name}: not a cases file (no generated_by and intents)")
    data, _ = parse_yaml(text, Path(path).name)
    if not isinstance(data, dict) or not all(key in data for key in TOP_KEYS):
        raise RagauditError(f"{Path(path).name}: not a cases file (no generated_by and intents)")
    if not isinstance(data["intents"], list) or not all(
        isinstance(intent, dict) and "intent" in intent for intent in data["intents"]
    ):
        raise RagauditError(f"{Path(path).name}: its intents are not a list of intents")
    return data


def reviewed_path(source: Path) -> Path:
    """Where the review of `source` is written: `<stem>.reviewed.yaml` in the results
    folder (`cases.yaml` -> `cases.reviewed.yaml`)."""
    stem = source.name.removesuffix(source.suffix)
    return paths.results_dir() / f"{stem}{REVIEWED_SUFFIX}"


def write_reviewed(source: Path, document: dict) -> Path:
    """Write `document` as the review of `source` (reviewed_path), atomically. Raises
    Refused (one line) when that file would be the input itself or would land outside the
    results folder (a symlink planted under its name)."""
    from ragaudit.casemining.casefile import write_case_file

    target = reviewed_path(source)
    root = paths.results_dir().resolve()
    resolved = target.resolve()
    if resolved == source.resolve():
        raise Refused(f"{target.name}: refused: it is the file under review")
    if resolved.parent != root or target.is_symlink():
        raise Refused(f"{target.name}: refused: it would be written outside {root}")
    header = f"# {source.name}, reviewed in the inspector's Cases page: accepted intents only\n"
    write_case_file(target, document, header)
    return target
