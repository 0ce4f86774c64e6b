"""The results file: its write, partial write while a run is in progress, and the one
loader, with one wording for its errors, for every kind of document ragaudit reads back
(publishing a finished run beside the last good one is results.publish). The contract is
docs/results-schema.md (version in ragaudit.results.schema)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from ragaudit.errors import RagauditError
from ragaudit.fileio import now_iso, parse_json, read_text, write_json_atomic
from ragaudit.results.compressed import MAX_DECOMPRESSED_BYTES, is_compressed, read_gzip_text
from ragaudit.results.records import check_records
from ragaudit.results.schema import ALSO_READS, SCHEMA_VERSION, TOP_LEVEL_FIELDS
from ragaudit.results.schema_file import check_against_schema


def write_results(path: str | Path, results: dict, *, complete: bool = True) -> None:
    """Write the results file atomically; `complete=False` marks a run still in progress
    (the inspector can read it and says it is partial)."""
    missing = [name for name in TOP_LEVEL_FIELDS if name not in results and name != "complete"]
    if missing:
        raise RagauditError(f"{path}: results lack top-level field(s) {', '.join(missing)}")
    results = {**results, "schema_version": SCHEMA_VERSION, "complete": complete}
    results["created_at"] = now_iso()
    write_json_atomic(path, results)


def partial_path(path: str | Path) -> Path:
    """Where a run writes its results in progress for `path`: `<stem>.partial<suffix>`
    beside it, so the file at `path` is only ever replaced by a complete one."""
    path = Path(path)
    return path.with_name(f"{path.stem}.partial{path.suffix}")


@dataclass(frozen=True)
class DocumentKind:
    """A kind of JSON document ragaudit writes and reads back: what it is called, the schema
    version this ragaudit reads, the fields it must carry, and the command that makes one."""

    name: str
    """How a message names it: `results`, `audit results`."""
    schema_version: int
    required_fields: tuple[str, ...]
    command: str
    """The command that writes one, named when a file is missing or of another version."""
    kind: str | None = None
    """The document's `kind` field; None for the matrix results file, which has none."""
    also_reads: tuple[int, ...] = ()
    """Older versions read as they are (their readers tolerate the fields they lack)."""


RESULTS = DocumentKind(
    "results", SCHEMA_VERSION, TOP_LEVEL_FIELDS, "ragaudit run", None, ALSO_READS
)


def load_document(path: str | Path, kind: DocumentKind = RESULTS) -> dict:
    """Read and check one document of `kind`: JSON, an object, that kind, its schema
    version, every required field, then every field against its kind's type (the shipped
    schema, results.schema_file). A RagauditError names the file and the problem, in the
    same words for every kind."""
    data = _read_document(Path(path), kind)
    check_against_schema(path, data)
    return data


def _read_document(path: Path, kind: DocumentKind) -> dict:
    """The document at `path`, checked up to its required fields."""
    if not path.exists() and not path.is_symlink():
        raise RagauditError(f"{path}: no {kind.name} file here (run `{kind.command}` first)")
    text = read_gzip_text(path) if is_compressed(path) else _read_plain(path)
    data = parse_json(text, path)
    if not isinstance(data, dict):
        raise RagauditError(f"{path}: expected a JSON object at the top level")
    if data.get("kind") != kind.kind:
        shown = json.dumps(data.get("kind"), ensure_ascii=False)[:60]
        found = f'its "kind" is {shown}' if "kind" in data else f'no "kind": "{kind.kind}"'
        raise RagauditError(f"{path}: not {_article(kind.name)} {kind.name} file ({found})")
    if "schema_version" not in data:
        raise RagauditError(
            f"{path}: missing field 'schema_version' (not a ragaudit {kind.name} file)"
        )
    version = data["schema_version"]
    if version != kind.schema_version and version not in kind.also_reads:
        age = "older" if isinstance(version, int) and version < kind.schema_version else "other"
        raise RagauditError(
            f"{path}: schema_version {version!r} is an {age} {kind.name} format; this ragaudit "
            f"reads version {_versions(kind)} (rerun `{kind.command}` to regenerate it)"
        )
    missing = [name for name in kind.required_fields if name not in data]
    if missing:
        raise RagauditError(f"{path}: missing top-level field {missing[0]!r}")
    return data


def _read_plain(path: Path) -> str:
    """A plain document's text, under the gzip cap (os.stat says its size before any read),
    so a 660 MB file is refused in one line instead of read whole."""
    try:
        size = path.stat().st_size
    except OSError:  # missing or unreadable: read_text says which, in its words
        size = 0
    if size > MAX_DECOMPRESSED_BYTES:
        raise RagauditError(
            f"{path}: {size / 2**20:.1f} MB, over the {MAX_DECOMPRESSED_BYTES // 2**20} MB limit "
            "for one results file (plain or gunzipped); not read"
        )
    return read_text(path, str(path), max_bytes=MAX_DECOMPRESSED_BYTES)


def _versions(kind: DocumentKind) -> str:
    versions = [str(v) for v in (kind.schema_version, *kind.also_reads)]
    return " and ".join(filter(None, (", ".join(versions[:-1]), versions[-1])))


def _article(noun: str) -> str:
    return "an" if noun[:1] in "aeiou" else "a"


_OBJECT, _LIST = (dict, "an object"), (list, "a list")
RESULTS_FIELD_TYPES: dict[str, tuple[type, str]] = {
    "run": _OBJECT, "corpus": _OBJECT, "configs": _LIST, "embedders": _LIST,
    "models": _LIST, "conditions": _OBJECT, "chunks": _OBJECT, "instances": _LIST,
    "cells": _LIST, "comparisons": _LIST, "analysis": _OBJECT, "severity_rules": _LIST,
    "citation_rollup": _OBJECT, "control_certification": _OBJECT, "chunk_offsets": _OBJECT,
    "extra_measurements": _OBJECT, "grading_patterns": _OBJECT,
}  # fmt: skip
"""The JSON type of each top-level field that holds one (docs/results-schema.md); the
items of every list are objects. Any of them may be absent or null (a missing value)."""


def load_results(path: str | Path, *, allow_partial: bool = True) -> dict:
    """`load_document` of a matrix results file, each top-level field of its JSON type
    (RESULTS_FIELD_TYPES) and each record with its required fields (results.records);
    then every field against the schema (results.schema_file); `allow_partial=False` also
    refuses a file whose run has not finished."""
    data = _read_document(Path(path), RESULTS)
    for name, (json_type, described) in RESULTS_FIELD_TYPES.items():
        value = data.get(name)
        if value is not None and not isinstance(value, json_type):
            raise RagauditError(f"{path}: field {name!r} must be {described}, not {value!r:.60}")
        if json_type is list and not all(isinstance(item, dict) for item in value or ()):
            raise RagauditError(f"{path}: field {name!r} must be a list of objects")
    check_records(path, data)
    if not isinstance(data["complete"], bool):
        raise RagauditError(f"{path}: field 'complete' must be true or false")
    check_against_schema(path, data)
    if not allow_partial and not data["complete"]:
        raise RagauditError(
            f"{path}: the run that writes this file has not finished (complete: false)"
        )
    return data
