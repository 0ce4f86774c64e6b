"""The results file: atomic write, partial write while a run is in progress, and the one
loader, with one wording for its errors, for every kind of document ragaudit reads back.
The contract is docs/results-schema.md (version in ragaudit.results.schema)."""

from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import tempfile
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ragaudit.errors import RagauditError
from ragaudit.results.schema import SCHEMA_VERSION, TOP_LEVEL_FIELDS


def now_iso() -> str:
    """The current UTC time, ISO 8601 to the second."""
    return datetime.now(UTC).replace(microsecond=0).isoformat()


def process_umask() -> int:
    """The process's umask, read without changing it: os.umask can only read it by setting
    it, and the moment it is set to anything else every other thread creating a file gets
    that mode (the Streamlit server's threads). Linux reports it in /proc/self/status;
    elsewhere the common default 0o022."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    return 0o022


def write_text_atomic(path: str | Path, text: str) -> None:
    """Write `text` to a temp file beside `path`, fsync, then os.replace: a reader sees the
    old file or the new one, never half of one. Every atomic write in ragaudit goes here."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        # mkstemp makes the file owner-only; a results file is for every reader (umask rules)
        os.fchmod(handle, 0o666 & ~process_umask())
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


def write_json_atomic(path: str | Path, data: object, *, trailing_newline: bool = False) -> None:
    """`write_text_atomic` of `data` as JSON; NaN/inf are refused (allow_nan=False)."""
    try:
        text = json.dumps(data, ensure_ascii=False, allow_nan=False, indent=1)
    except ValueError as error:
        raise RagauditError(f"{path}: refusing to write a non-finite number ({error})") from None
    write_text_atomic(path, text + "\n" if trailing_newline else text)


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


def previous_path(path: str | Path) -> Path:
    """Where the file at `path` is kept when a finished run replaces it:
    `<stem>.prev<suffix>` beside it."""
    path = Path(path)
    return path.with_name(f"{path.stem}.prev{path.suffix}")


def publish_results(path: str | Path, results: dict) -> Path | None:
    """Write the finished run's results to `path` (complete), after keeping the file that
    was there as `previous_path(path)`, then remove the run's partial file. Returns where
    the previous file was kept, or None when there was none."""
    path = Path(path)
    kept = _keep_previous(path)
    write_results(path, results, complete=True)
    partial_path(path).unlink(missing_ok=True)
    return kept


def _keep_previous(path: Path) -> Path | None:
    if not path.is_file():
        return None
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


def remove_orphan_temps(folder: str | Path, names: list[str]) -> list[Path]:
    """Remove the temp files killed atomic writes of `names` left in `folder` (named
    `.<name>.<8 characters>.tmp`, as write_text_atomic and publish_results make them).
    Only while nothing else writes those names (a run holds the data folder's run lock).
    Returns the files removed."""
    patterns = [re.compile(rf"\.{re.escape(name)}\.[a-z0-9_]{{8}}\.tmp") for name in names]
    try:
        entries = list(Path(folder).iterdir())
    except OSError:  # no folder yet: nothing left behind
        return []
    removed = []
    for entry in entries:
        if any(p.fullmatch(entry.name) for p in patterns) and entry.is_file():
            entry.unlink(missing_ok=True)
            removed.append(entry)
    return removed


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


RESULTS = DocumentKind("results", SCHEMA_VERSION, TOP_LEVEL_FIELDS, "ragaudit run")


def load_document(path: str | Path, kind: DocumentKind = RESULTS) -> dict:
    """Read and check one document of `kind`: JSON, an object, that kind, its schema
    version, every required field. A RagauditError names the file and the problem, in the
    same words for every kind."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise RagauditError(
            f"{path}: no {kind.name} file here (run `{kind.command}` first)"
        ) from None
    except OSError as error:
        raise RagauditError(f"{path}: cannot read {kind.name} ({error.strerror})") from None
    except UnicodeDecodeError:
        raise RagauditError(f"{path}: cannot read {kind.name} (not UTF-8 text)") from None
    data = parse_json(text, path)
    if not isinstance(data, dict):
        raise RagauditError(f"{path}: expected a JSON object at the top level")
    if data.get("kind") != kind.kind:
        found = f'its "kind" is "{data["kind"]}"' if "kind" in data else f'no "kind": "{kind.kind}"'
        raise RagauditError(f"{path}: not {_article(kind.name)} {kind.name} file ({found})")
    if "schema_version" not in data:
        raise RagauditError(
            f"{path}: missing field 'schema_version' (not a ragaudit {kind.name} file)"
        )
    version = data["schema_version"]
    if version != kind.schema_version:
        age = "older" if isinstance(version, int) and version < kind.schema_version else "other"
        raise RagauditError(
            f"{path}: schema_version {version!r} is an {age} {kind.name} format; this ragaudit "
            f"reads version {kind.schema_version} (rerun `{kind.command}` to regenerate it)"
        )
    missing = [name for name in kind.required_fields if name not in data]
    if missing:
        raise RagauditError(f"{path}: missing top-level field {missing[0]!r}")
    return data


def parse_json(text: str, source: str | Path) -> Any:
    """`text` parsed as JSON. A syntax error names `source` (the file, as the caller names
    it) and the line, in the one wording every reader of a JSON file uses."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise RagauditError(
            f"{source}: not valid JSON ({error.msg} at line {error.lineno})"
        ) from None


def _article(noun: str) -> str:
    return "an" if noun[:1] in "aeiou" else "a"


def load_results(path: str | Path, *, allow_partial: bool = True) -> dict:
    """`load_document` of a matrix results file; `allow_partial=False` also refuses a file
    whose run has not finished."""
    data = load_document(path, RESULTS)
    if not isinstance(data["instances"], list):
        raise RagauditError(f"{path}: field 'instances' must be a list")
    if not allow_partial and not data["complete"]:
        raise RagauditError(
            f"{path}: the run that writes this file has not finished (complete: false)"
        )
    return data
