"""A mutation audit's documents as its run read them, for the inspector's drawings.

A mutant document's text is in the results file (`mutation.mutants[].mutant_text`); every
other document is the user's own, read from the corpus path the run recorded
(`corpus.path`) by the audit's reader (ragaudit.auditing.corpus_io), so a page draws the text
whatever the file's `chunks` hold. A relative path is read from the inspector's working
folder (the checkout under `ragaudit app`), where a run from the same folder wrote it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ragaudit.errors import RagauditError
from ragaudit.results.view import mutant_entries, recorded_corpus_path


@dataclass(frozen=True)
class UserCorpus:
    """The user's corpus as the inspector found it at the recorded path."""

    path: str | None
    """The path as the run recorded it (None: the file records none)."""
    documents: dict[str, str]
    """doc_id -> text; empty when it could not be read."""
    problem: str | None = None
    """Why nothing was read (no path recorded, gone, unreadable); None when read."""


def mutant_texts(results: dict) -> dict[str, str]:
    """mutant doc id -> its text as the results file holds it (the control row's entries,
    which name the unmutated document, are left to the corpus)."""
    return {
        m["mutant_doc_id"]: m["mutant_text"]
        for m in mutant_entries(results).values()
        if m.get("status") != "control" and m.get("mutant_doc_id") and m.get("mutant_text")
    }


def user_corpus(results: dict) -> UserCorpus:
    """The corpus at the path the run recorded, read once per version of that folder."""
    recorded = recorded_corpus_path(results)
    if not recorded:
        return UserCorpus(None, {}, "the results file records no corpus path")
    where = Path(recorded).expanduser()
    try:
        stamp = where.stat().st_mtime_ns
    except OSError:
        return UserCorpus(recorded, {}, f"{recorded} is not there (looked at {where.resolve()})")
    count = (results.get("corpus") or {}).get("documents") or 0
    try:
        texts = _read(str(where.resolve()), stamp, count)
    except RagauditError as error:
        return UserCorpus(recorded, {}, str(error))
    return UserCorpus(recorded, texts)


FILES_PER_DOCUMENT = 20
"""A folder with this many files per recorded document (plus 100) is not the run's corpus:
the path a results file names is read only when it can be the folder the run read."""


def _more_files_than(folder: Path, limit: int) -> bool:
    """Whether `folder` holds more than `limit` files (stops counting there)."""
    count = 0
    for path in folder.rglob("*"):
        count += path.is_file()
        if count > limit:
            return True
    return False


def _read(path: str, stamp: int, documents: int) -> dict[str, str]:
    """doc_id -> text of the corpus at `path`, shared by every session (the stamp keys a
    rewritten folder; a file edited inside it is caught by the span check of the caller).
    Raises RagauditError for a folder far larger than the run's `documents`."""
    import streamlit as st

    @st.cache_resource(show_spinner="Reading your corpus…", max_entries=2)
    def _cached(path: str, stamp: int, documents: int) -> dict[str, str]:
        from ragaudit.auditing.corpus_io import read_user_corpus

        folder = Path(path)
        if folder.is_dir() and _more_files_than(folder, FILES_PER_DOCUMENT * documents + 100):
            raise RagauditError(
                f"{path} holds far more files than the run's {documents} documents, so it "
                "is not read as this run's corpus"
            )
        return {doc.doc_id: doc.text for doc in read_user_corpus(folder).documents}

    return _cached(path, stamp, documents)
