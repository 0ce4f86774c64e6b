"""The corpus as a folder a user's own service can index: `ragaudit corpus --export DIR
--format jsonl|md|txt`, and what a `pipeline: http:` entry's `ingest: command:` runs over.

- jsonl: one `documents.jsonl`, a line ``{"id", "text", "metadata"}`` per document;
- md / txt: one file per document, ``<id>.md`` or ``<id>.txt``, holding its exact text.

Only a title and a date go into the metadata: the rest of a planted document's metadata is
the answer key (probe, instance id, what supersedes what).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ragaudit.errors import RagauditError
from ragaudit.fileio import write_text_atomic

FORMATS = ("jsonl", "md", "txt")
KEPT_METADATA = ("title", "date")


def exported_document(doc: Any) -> dict:
    """One document as exported and as sent to an ingest endpoint."""
    metadata = {key: doc.metadata[key] for key in KEPT_METADATA if key in doc.metadata}
    return {"id": doc.doc_id, "text": doc.text, "metadata": metadata}


def export_documents(documents: Sequence[Any], folder: Path, fmt: str) -> list[Path]:
    """Write `documents` into `folder` (created) as `fmt`; returns the files written."""
    if fmt not in FORMATS:
        raise RagauditError(f"--format {fmt}: choose one of {', '.join(FORMATS)}")
    if folder.exists() and not folder.is_dir():  # a file, or /dev/null: one line, no traceback
        raise RagauditError(f"{folder}: is a file, not a folder to write the documents into")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:  # a file on the way, a dangling link, no permission
        raise RagauditError(f"{folder}: cannot make the folder ({error.strerror})") from None
    if fmt == "jsonl":
        lines = [json.dumps(exported_document(d), ensure_ascii=False) for d in documents]
        path = folder / "documents.jsonl"
        _write(path, "\n".join(lines) + "\n")
        return [path]
    written = []
    for doc in documents:
        path = folder / f"{doc.doc_id}.{fmt}"
        if path.resolve().parent != folder.resolve():
            raise RagauditError(f"document id {doc.doc_id!r} is not a file name")
        _write(path, doc.text)
        written.append(path)
    return written


def _write(path: Path, text: str) -> None:
    try:
        write_text_atomic(path, text)
    except OSError as error:
        raise RagauditError(f"{path}: cannot write the document ({error.strerror})") from None
